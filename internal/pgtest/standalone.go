package pgtest

import (
	"fmt"
	"regexp"
)

// Outside a test: the pgtest command (cmd/pgtest) runs a server for a demo or a manual run.

// Run starts a server as a test would (binaries found the same way; as the postgres OS user when
// run as root). The caller stops it with Close.
func Run() (*Server, error) { return newServer() }

// dbName is what CreateDatabase accepts: a plain SQL identifier.
var dbName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// CreateDatabase creates the database name and returns its libpq URL.
func (s *Server) CreateDatabase(name string) (string, error) {
	if !dbName.MatchString(name) {
		return "", fmt.Errorf("pgtest: database name %q: use lower-case letters, digits and _", name)
	}
	if err := s.exec("CREATE DATABASE " + name); err != nil {
		return "", fmt.Errorf("pgtest: create database %s: %v%s", name, err, s.logTail())
	}
	return s.url(name), nil
}

// Close stops the server and removes its directory.
func (s *Server) Close() error { return s.close() }
