// Command pgtest runs a throwaway PostgreSQL server until Ctrl-C, for a manual run of several
// instances (docs/cluster.md): initdb in a temporary directory, postgres on a free 127.0.0.1
// port, one database; it prints the database's URL and, with --out, writes it to a file. On
// Ctrl-C (or SIGTERM) it stops the server and removes the directory. The binaries are found as
// the tests find them (package pgtest: $PGTEST_BIN, pg_config, Debian's directory, $PATH); run
// as root, the server runs as the postgres OS user.
//
//	go run ./internal/pgtest/cmd/pgtest --out pg.url
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

func main() {
	db := flag.String("db", "x402", "the database to create")
	out := flag.String("out", "", "also write the database URL to this file (mode 0600), once the server is ready")
	flag.Parse()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	s, err := pgtest.Run()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	url, err := s.CreateDatabase(*db)
	if err == nil && *out != "" {
		err = os.WriteFile(*out, []byte(url+"\n"), 0o600)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		s.Close()
		os.Exit(1)
	}
	fmt.Println(url)
	fmt.Fprintln(os.Stderr, "pgtest: PostgreSQL is running; Ctrl-C stops it and removes its data")
	<-stop
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *out != "" {
		os.Remove(*out)
	}
}
