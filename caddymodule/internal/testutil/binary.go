package testutil

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// builtCaddy is the caddy binary built from this checkout, once per test
// binary (Main removes it at the end).
var builtCaddy = struct {
	once      sync.Once
	path, dir string
	err       error
}{}

// BuiltCaddy builds ./caddy once (go build, as an operator does) and
// returns the binary's path, for tests that run the command itself.
func BuiltCaddy(t testing.TB) string {
	t.Helper()
	builtCaddy.once.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		root := filepath.Dir(strings.TrimSpace(string(out)))
		if err != nil || root == "." || root == "" {
			builtCaddy.err = errors.New("finding the module root with go env GOMOD")
			return
		}
		if builtCaddy.dir, builtCaddy.err = os.MkdirTemp("", "x402-caddy-bin-"); builtCaddy.err != nil {
			return
		}
		builtCaddy.path = filepath.Join(builtCaddy.dir, "caddy")
		cmd := exec.Command("go", "build", "-o", builtCaddy.path, "./caddy")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			builtCaddy.err = errors.New("go build ./caddy: " + err.Error() + "\n" + string(out))
		}
	})
	if builtCaddy.err != nil {
		t.Fatal(builtCaddy.err)
	}
	return builtCaddy.path
}

// removeBuiltCaddy removes the binary BuiltCaddy built, if any.
func removeBuiltCaddy() {
	if builtCaddy.dir != "" {
		os.RemoveAll(builtCaddy.dir)
	}
}
