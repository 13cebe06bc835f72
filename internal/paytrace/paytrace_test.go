package paytrace

import (
	"context"
	"errors"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// TestNotTracedAllocatesNothing: without a recording span (no `tracing`),
// a step's span calls make nothing and allocate nothing.
func TestNotTracedAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	errFailed := errors.New("e")
	allocs := testing.AllocsPerRun(100, func() {
		c, sp := Start(ctx, "x402.verify")
		sp.Set(KeyPayer, "0xabc")
		sp.SetInt("n", 1)
		sp.Refuse("insufficient_funds", "insufficient funds")
		sp.Fail("x", errFailed)
		sp.Event("x402.fee_replacement", "k", "v")
		FromContext(c).Set(KeyNetwork, "n")
		_ = IDs(c)
		_, ch := Child(sp.Carry(), "x402.broadcast")
		ch.End()
		sp.End()
		if sp.On() || c != ctx {
			t.Fatal("a span was made without a recording parent")
		}
	})
	if allocs != 0 {
		t.Fatalf("allocations without tracing: %v, want 0", allocs)
	}
}

// TestSpans: under a recording span, Start makes a child with the
// parent's provider, attributes, refusal and ids as documented.
func TestSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx, server := tp.Tracer("caddy").Start(context.Background(), "server")
	c, sp := Start(ctx, "x402.verify")
	sp.Set(KeyPayer, "0xabc")
	sp.Set(KeyTransaction, "") // empty: not set
	FromContext(c).Refuse("insufficient_funds", "insufficient funds")
	var buf zapcore.ObjectEncoder = zapcore.NewMapObjectEncoder()
	_ = zap.Inline(ids(trace.SpanContextFromContext(c))).Interface.(zapcore.ObjectMarshaler).MarshalLogObject(buf)
	sp.End()
	_, child := Child(sp.Carry(), "x402.broadcast")
	child.End()
	_, root := Root(context.Background(), tp, "x402.claim_round")
	root.End()
	server.End()

	spans := rec.Ended()
	if len(spans) != 4 {
		t.Fatalf("%d spans, want 4", len(spans))
	}
	v := spans[0]
	if v.Name() != "x402.verify" || v.Parent().SpanID() != server.SpanContext().SpanID() {
		t.Fatalf("verify span %q with parent %v, want x402.verify under the server span", v.Name(), v.Parent().SpanID())
	}
	want := []attribute.KeyValue{attribute.String(KeyPayer, "0xabc"), attribute.String(KeyErrorType, "insufficient_funds")}
	if got := v.Attributes(); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("attributes %v, want %v", got, want)
	}
	if v.Status().Code != codes.Error || v.Status().Description != "insufficient funds" {
		t.Fatalf("status %v, want error insufficient_funds", v.Status())
	}
	m := buf.(*zapcore.MapObjectEncoder).Fields
	if m["traceID"] != v.SpanContext().TraceID().String() || m["spanID"] != v.SpanContext().SpanID().String() {
		t.Fatalf("log ids %v, want the verify span's", m)
	}
	if b := spans[1]; b.Name() != "x402.broadcast" || b.Parent().SpanID() != v.SpanContext().SpanID() {
		t.Fatalf("carried child %q under %v, want x402.broadcast under the verify span", b.Name(), b.Parent().SpanID())
	}
	if r := spans[2]; r.Name() != "x402.claim_round" || r.Parent().IsValid() {
		t.Fatalf("root %q with parent %v, want x402.claim_round without one", r.Name(), r.Parent())
	}
}
