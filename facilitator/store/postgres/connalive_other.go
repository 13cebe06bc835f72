//go:build !unix

package postgres

import "net"

// connAlive cannot peek at a socket on this platform without waiting: a
// connection the server closed shows as its statement's error
// (ErrUnavailable, answered 503 with Retry-After), and the pool drops it.
func connAlive(net.Conn) bool { return true }
