package facilitator_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestTracedFeeReplacement: a settle under a recording span (a caller
// traced by Caddy's `tracing`) gets the facilitator's spans under it, and
// the engine's, carried in the Job to its goroutines: the broadcast of the
// first transaction, and the receipt wait, whose fee replacement (the
// first transaction dropped from the pool) is an event naming both
// transactions and which ends with the one that settled.
func TestTracedFeeReplacement(t *testing.T) {
	tf := newTestFacilitator(t, nil, nil)
	seller := newSeller(t)
	req := requirements(seller, "500")
	buyer := newBuyer(t, chain, 500)
	h, p := pay(t, buyer, req, exact.PaymentOptions{})

	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	ctx, caller := tp.Tracer("test").Start(context.Background(), "caller")

	chain.PauseMining()
	_, pendingBefore, _ := chain.NonceAt(context.Background(), tf.signer)
	type result struct {
		s   *x402.SettleResponse
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := tf.f.Settle(ctx, &x402.Request{X402Version: 1, PaymentHeader: h, PaymentRequirements: req})
		ch <- result{s, err}
	}()
	waitBroadcast(t, tf.signer, pendingBefore)
	if n := chain.DropPending(); n != 1 {
		chain.ResumeMining()
		t.Fatalf("dropped %d transactions, want 1", n)
	}
	chain.ResumeMining()
	res := <-ch
	caller.End()
	if res.err != nil || !res.s.Settled() {
		t.Fatalf("settle = %+v, %v", res.s, res.err)
	}

	spans := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		if _, dup := spans[s.Name()]; dup && s.Name() != "x402.check" && s.Name() != "x402.chain_reads" {
			t.Fatalf("two spans named %s", s.Name())
		}
		spans[s.Name()] = s
	}
	attr := func(s sdktrace.ReadOnlySpan, key string) string {
		for _, kv := range s.Attributes() {
			if string(kv.Key) == key {
				return kv.Value.AsString()
			}
		}
		return ""
	}
	settle, broadcast, wait := spans["x402.facilitator.settle"], spans["x402.broadcast"], spans["x402.receipt_wait"]
	if settle == nil || broadcast == nil || wait == nil {
		t.Fatalf("spans %v: want x402.facilitator.settle, x402.broadcast, x402.receipt_wait", spans)
	}
	if settle.Parent().SpanID() != caller.SpanContext().SpanID() {
		t.Errorf("x402.facilitator.settle is not under the caller's span")
	}
	for _, s := range []sdktrace.ReadOnlySpan{broadcast, wait} {
		if s.Parent().SpanID() != settle.SpanContext().SpanID() || s.SpanContext().TraceID() != caller.SpanContext().TraceID() {
			t.Errorf("%s is not under x402.facilitator.settle in the caller's trace", s.Name())
		}
	}
	if got := attr(settle, "x402.transaction"); got != res.s.TxHash {
		t.Errorf("settle's transaction %s, want %s", got, res.s.TxHash)
	}
	if got := attr(settle, "x402.payer"); got != p.Authorization.From.Hex() {
		t.Errorf("settle's payer %s, want %s", got, p.Authorization.From.Hex())
	}
	first := attr(broadcast, "x402.transaction")
	if first == "" || first == res.s.TxHash {
		t.Fatalf("broadcast's transaction %q: want the first one, not the replacement %s", first, res.s.TxHash)
	}
	if got := attr(wait, "x402.transaction"); got != res.s.TxHash {
		t.Errorf("receipt wait's transaction %s, want the settled %s", got, res.s.TxHash)
	}
	if wait.Status().Code == codes.Error {
		t.Errorf("receipt wait's status %v, want no error", wait.Status())
	}
	var replaced bool
	for _, e := range wait.Events() {
		if e.Name != "x402.fee_replacement" {
			continue
		}
		got := map[string]string{}
		for _, kv := range e.Attributes {
			got[string(kv.Key)] = kv.Value.AsString()
		}
		if got["x402.old_transaction"] == first && got["x402.transaction"] == res.s.TxHash {
			replaced = true
		}
	}
	if !replaced {
		t.Errorf("no x402.fee_replacement event from %s to %s among %v", first, res.s.TxHash, wait.Events())
	}
}
