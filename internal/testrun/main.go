// Command testrun runs `go test -json` with the arguments it is given and shows what `go test`
// alone keeps quiet: each package as it finishes (with its time), every 30 s the packages still
// running, and at the end every skipped test with its reason (such as a missing PostgreSQL).
//
//	go run ./internal/testrun ./...
//	go run ./internal/testrun -run TestPay -count=1 ./caddymodule/...
//
// It exits with go test's status. A failed test's output is printed as it fails.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output, build-fail
	Test       string
	Elapsed    float64
	Output     string
}

// maxLines bounds the output kept per test: enough for a failure or a skip's reason.
const maxLines = 200

type key struct{ pkg, test string }

type run struct {
	mu      sync.Mutex
	out     io.Writer
	started map[string]time.Time // packages running, since
	lines   map[key][]string     // output of the tests not yet finished
	skips   []string             // "pkg TestX: reason"
	failed  int
}

func main() {
	args := append([]string{"test", "-json"}, os.Args[1:]...)
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testrun:", err)
		os.Exit(2)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testrun: starting go test:", err)
		os.Exit(2)
	}
	r := &run{out: os.Stdout, started: map[string]time.Time{}, lines: map[key][]string{}}
	fmt.Fprintf(r.out, "testrun: go %s (building first: minutes on a cold cache)\n", strings.Join(args, " "))
	done := make(chan struct{})
	go r.tick(done, 30*time.Second)
	r.read(stdout)
	close(done)
	err = cmd.Wait()
	r.summary()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		os.Exit(exit.ExitCode())
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "testrun:", err)
		os.Exit(2)
	}
}

// read handles the events; a line that is not JSON (go test's own messages) is printed as is.
func (r *run) read(in io.Reader) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Action == "" {
			fmt.Fprintln(r.out, sc.Text())
			continue
		}
		r.handle(&e)
	}
}

func (r *run) handle(e *event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key{e.Package, e.Test}
	switch e.Action {
	case "build-fail":
		r.failed++
		fmt.Fprintf(r.out, "FAIL  %s (build failed)\n", e.ImportPath)
	case "build-output":
		fmt.Fprint(r.out, e.Output)
	case "start":
		r.started[e.Package] = time.Now()
	case "output":
		if l := r.lines[k]; len(l) < maxLines {
			r.lines[k] = append(l, e.Output)
		}
	case "skip":
		if e.Test == "" {
			delete(r.started, e.Package) // a package without tests: done
			delete(r.lines, k)
			break
		}
		r.skips = append(r.skips, fmt.Sprintf("%s %s: %s", e.Package, e.Test, reason(r.lines[k])))
		delete(r.lines, k)
	case "pass":
		delete(r.lines, k)
		if e.Test == "" {
			delete(r.started, e.Package)
			fmt.Fprintf(r.out, "ok    %s %.1fs\n", e.Package, e.Elapsed)
		}
	case "fail":
		if e.Test != "" {
			fmt.Fprintf(r.out, "--- FAIL %s %s\n%s", e.Package, e.Test, strings.Join(r.lines[k], ""))
			delete(r.lines, k)
			break
		}
		r.failed++
		delete(r.started, e.Package)
		fmt.Fprintf(r.out, "FAIL  %s %.1fs\n%s", e.Package, e.Elapsed, strings.Join(r.lines[k], ""))
		delete(r.lines, k)
	}
}

// reason is a skipped test's message: its output without the framing lines.
func reason(lines []string) string {
	var msg []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		msg = append(msg, t)
	}
	if len(msg) == 0 {
		return "(no reason given)"
	}
	return strings.Join(msg, " ")
}

// tick prints the packages still running every interval.
func (r *run) tick(done <-chan struct{}, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			r.mu.Lock()
			var running []string
			for p, since := range r.started {
				running = append(running, fmt.Sprintf("%s (%s)", p, time.Since(since).Round(time.Second)))
			}
			sort.Strings(running)
			if len(running) == 0 {
				fmt.Fprintln(r.out, "still building")
			} else {
				fmt.Fprintf(r.out, "still running: %s\n", strings.Join(running, ", "))
			}
			r.mu.Unlock()
		}
	}
}

// summary lists the skipped tests with their reasons.
func (r *run) summary() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.skips) > 0 {
		fmt.Fprintf(r.out, "\n%d tests skipped:\n", len(r.skips))
		for _, s := range r.skips {
			fmt.Fprintf(r.out, "  SKIP %s\n", s)
		}
	}
	if r.failed > 0 {
		fmt.Fprintf(r.out, "\n%d packages failed\n", r.failed)
	}
}
