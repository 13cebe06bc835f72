package caddymodule

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRotateKeyConfig: "caddy x402 rotate-key --config" rotates the key in
// the storage the config names, and reads the longest access window of the
// config's routes (30m and 2h) at any depth. What the rotation does to
// running instances is package access's TestRotateKeyStorage.
func TestRotateKeyConfig(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(config, []byte(fmt.Sprintf(`{
	storage file_system %s
}
:8080 {
	x402 /a/* {
		pay_to 0x5eacce55e5eacce55e5eacce55e5eacce55e5eac
		amount 1
		access 30m
	}
	handle /b/* {
		x402 {
			pay_to 0x5eacce55e5eacce55e5eacce55e5eacce55e5eac
			amount 1
			access 2h
		}
	}
}
`, dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := runRotateKey(context.Background(), config, "", &out); err != nil {
		t.Fatal(err)
	}
	if want := "x402: the access server key is now generation 1 in Caddy's storage"; !strings.HasPrefix(out.String(), want) {
		t.Fatalf("rotate-key said:\n%s", out.String())
	}
	out.Reset()
	if err := runRotateKey(context.Background(), config, "", &out); err != nil {
		t.Fatal(err)
	}
	if want := "x402: the access server key is now generation 2 in Caddy's storage"; !strings.HasPrefix(out.String(), want) ||
		!strings.Contains(out.String(), "the longest access window, 2h0m0s, after its last signature") {
		t.Fatalf("rotate-key said:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "x402/access-keys.json")); err != nil {
		t.Errorf("the rotation did not write the config's storage: %v", err)
	}
}
