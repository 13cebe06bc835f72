package testutil

import (
	"fmt"
	"net"
	"os"
	"testing"
)

// Sellers of the integration tests.
const (
	SellerAddr  = "0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e111"
	Seller2Addr = "0x5e22e5e22e5e22e5e22e5e22e5e22e5e22e5e222"
)

// Ports of this test run, free loopback ports picked in Main, so that
// two runs on one host do not collide.
var (
	AdminPort, SitePort, FacPort, HTTPSPort int
	DevnetAddr, DevnetURL, SiteURL          string
)

// Main picks the run's ports, runs the tests and removes the caddy binary
// they built (BuiltCaddy): call it from the
// package's TestMain.
func Main(m *testing.M) {
	// Integration tests talk to a loopback Caddy; no proxy in between.
	os.Unsetenv("HTTP_PROXY")
	os.Unsetenv("http_proxy")
	if err := PickPorts(); err != nil {
		fmt.Fprintln(os.Stderr, "picking free ports:", err)
		os.Exit(1)
	}
	code := m.Run()
	removeBuiltCaddy()
	os.Exit(code)
}

// PickPorts picks the run's ports: each is free when picked, and all differ.
func PickPorts() error {
	var ports []int
	for len(ports) < 5 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
		defer l.Close() // held until all are picked, so none repeats
	}
	AdminPort, SitePort, FacPort, HTTPSPort = ports[0], ports[1], ports[2], ports[3]
	DevnetAddr = fmt.Sprintf("127.0.0.1:%d", ports[4])
	DevnetURL = "http://" + DevnetAddr
	SiteURL = fmt.Sprintf("http://localhost:%d", SitePort)
	return nil
}

// FreePort is a TCP port nothing listens on (a moment ago).
func FreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
