package paywall

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

// traceBinaryCaddyfile is a site under Caddy's tracing with a paid exact
// route, on the devnet the process starts.
const traceBinaryCaddyfile = `{
	admin off
	x402 {
		devnet
	}
}
http://127.0.0.1:%d {
	tracing
	handle /paid {
		x402 {
			pay_to 0x0000000000000000000000000000000000007B1E
			amount 1000
			label traced-binary
		}
		respond "paid content"
	}
}
`

// TestTracingBinary runs the built caddy as an operator does: `caddy run`
// with Caddy's tracing in the site and the OTEL_* variables pointing at an
// OTLP/HTTP receiver the test runs; `caddy x402 pay` sends a paid request
// with a traceparent. In that trace, under Caddy's server span: the
// paywall's span with the payer and the settlement's transaction (the one
// pay printed), its verify and settle and the facilitator's and engine's
// spans under them; and the process's "payment settled" log line carries
// the trace id.
func TestTracingBinary(t *testing.T) {
	bin := testutil.BuiltCaddy(t)
	rcv := &otlpReceiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()

	port := testutil.FreePort(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(traceBinaryCaddyfile, port)), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := exec.CommandContext(ctx, bin, "run", "--config", cfg, "--adapter", "caddyfile")
	run.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir,
		"OTEL_EXPORTER_OTLP_ENDPOINT="+srv.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_TRACES_EXPORTER=otlp", "OTEL_BSP_SCHEDULE_DELAY=50")
	var logs syncBuffer
	run.Stdout, run.Stderr = &logs, &logs
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = run.Wait() }()
	site := fmt.Sprintf("http://127.0.0.1:%d", port)
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(end) {
			t.Fatalf("caddy run did not listen on %d:\n%s", port, logs.String())
		}
	}

	tp, id := traceparent(t)
	pay := exec.Command(bin, "x402", "pay", "-H", "traceparent: "+tp, site+"/paid")
	pay.Env = append(os.Environ(), "X402_BUYER_KEY="+devnet.Buyer3PrivateKey)
	var stdout, stderr bytes.Buffer
	pay.Stdout, pay.Stderr = &stdout, &stderr
	if err := pay.Run(); err != nil || stdout.String() != "paid content" {
		t.Fatalf("caddy x402 pay: %v, stdout %q\n%s", err, stdout.String(), stderr.String())
	}
	m := regexp.MustCompile(`"transaction": "(0x[0-9a-f]{64})"`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("pay printed no transaction:\n%s", stderr.String())
	}
	tx := m[1]
	payer := regexp.MustCompile(`"payer": "(0x[0-9a-fA-F]{40})"`).FindStringSubmatch(stderr.String())[1]

	spans := rcv.trace(t, id, spanPaywall, spanVerify, spanSettle, "x402.facilitator.settle", "x402.broadcast", "x402.receipt_wait")
	// pay sends the traceparent with its unpaid request and with the paid
	// one: two server spans in the trace, each with a paywall span; the
	// paid one's names the transaction.
	var pw *tracepb.Span
	for _, s := range spans {
		if s.Name == spanPaywall && attrs(s)["x402.transaction"] != "" {
			pw = s
		}
	}
	if pw == nil {
		t.Fatalf("no %s span with a transaction among %s", spanPaywall, spanNames(spans))
	}
	parent, _ := hex.DecodeString(strings.Split(tp, "-")[2])
	server := false
	for _, s := range spans {
		if bytes.Equal(s.SpanId, pw.ParentSpanId) && s.Kind == tracepb.Span_SPAN_KIND_SERVER && bytes.Equal(s.ParentSpanId, parent) {
			server = true
		}
	}
	if !server {
		t.Errorf("the paid request's %s span is not under Caddy's server span of the traceparent", spanPaywall)
	}
	wantAttrs(t, pw, map[string]string{"x402.route": "traced-binary", "x402.scheme": "exact", "x402.network": devnet.Network,
		"x402.amount": "1000", "x402.payer": payer, "x402.transaction": tx})
	settle, fsettle := named(t, spans, spanSettle), named(t, spans, "x402.facilitator.settle")
	under(t, named(t, spans, spanVerify), pw)
	under(t, settle, pw)
	under(t, fsettle, settle)
	under(t, named(t, spans, "x402.broadcast"), fsettle)

	// The process's own log line of the payment names the trace.
	wantID := fmt.Sprintf("%x", id)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if line := logLine(logs.String(), "payment settled"); line != nil {
			if line["traceID"] != wantID {
				t.Errorf("the payment settled log line has traceID %v, want %s: %v", line["traceID"], wantID, line)
			}
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no \"payment settled\" log line:\n%s", logs.String())
		}
	}
}

// logLine is the first JSON log line whose msg is msg, nil when none.
func logLine(logs, msg string) map[string]any {
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) == nil && line["msg"] == msg {
			return line
		}
	}
	return nil
}

// syncBuffer is a bytes.Buffer the process writes and the test reads at
// once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
