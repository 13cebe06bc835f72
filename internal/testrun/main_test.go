package main

import (
	"strings"
	"testing"
	"time"
)

// TestRead feeds the events of `go test -json` for a package with a passing, a skipped and a
// failing test and checks what is printed: the package and the failure as they finish, the
// skip with its reason at the end.
func TestRead(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.1}`,
		`{"Action":"output","Package":"p","Test":"TestStore","Output":"=== RUN   TestStore\n"}`,
		`{"Action":"output","Package":"p","Test":"TestStore","Output":"    pgtest.go:42: PostgreSQL not installed (no initdb)\n"}`,
		`{"Action":"output","Package":"p","Test":"TestStore","Output":"--- SKIP: TestStore (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestStore"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:9: got 1, want 2\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestB"}`,
		`{"Action":"fail","Package":"p","Elapsed":2.5}`,
		`{"Action":"skip","Package":"q"}`,
		`go: downloading example.com/x v1.0.0`,
	}, "\n")
	var out strings.Builder
	r := &run{out: &out, started: map[string]time.Time{}, lines: map[key][]string{}}
	r.read(strings.NewReader(in))
	r.summary()
	want := "--- FAIL p TestB\n    b_test.go:9: got 1, want 2\n" +
		"FAIL  p 2.5s\n" +
		"go: downloading example.com/x v1.0.0\n" +
		"\n1 tests skipped:\n  SKIP p TestStore: pgtest.go:42: PostgreSQL not installed (no initdb)\n" +
		"\n1 packages failed\n"
	if out.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", out.String(), want)
	}
	if len(r.started) != 0 {
		t.Errorf("packages left running: %v", r.started)
	}
}

// TestPackageWithoutTests (issue 33): a package without tests is done when go test says so
// (its "skip"), not shown as still running for the rest of the run.
func TestPackageWithoutTests(t *testing.T) {
	in := `{"Action":"start","Package":"q"}` + "\n" +
		`{"Action":"output","Package":"q","Output":"?   \tq\t[no test files]\n"}` + "\n" +
		`{"Action":"skip","Package":"q","Elapsed":0}` + "\n"
	var out strings.Builder
	r := &run{out: &out, started: map[string]time.Time{}, lines: map[key][]string{}}
	r.read(strings.NewReader(in))
	if len(r.started) != 0 {
		t.Errorf("packages left running: %v", r.started)
	}
}
