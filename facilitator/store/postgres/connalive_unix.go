//go:build unix

package postgres

import (
	"errors"
	"net"
	"syscall"
)

// connAlive says, without waiting, whether a pooled connection may carry a
// statement: the server has not closed it nor sent anything unasked (as
// it does before it shuts down). It peeks at the socket's receive queue
// (MSG_PEEK|MSG_DONTWAIT): nothing there is a live idle connection. pgx's
// own CheckConn reads with a 1 ms deadline instead, which a live
// connection always waits out: a millisecond added to every statement.
func connAlive(c net.Conn) bool {
	if tc, ok := c.(interface{ NetConn() net.Conn }); ok { // TLS: the socket under it
		c = tc.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true // not a socket: the statement's error tells
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	// Control, not Read: Read would take the socket's read lock, which
	// pgx's background reader may hold, parked, on an idle connection
	// (until the server next speaks: a wait with no end).
	alive := false
	var b [1]byte
	if err := rc.Control(func(fd uintptr) {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// Nothing to read: alive. Bytes (the server spoke unasked), 0
		// bytes (it closed the connection) or an error: not.
		alive = errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK)
	}); err != nil {
		return false
	}
	return alive
}
