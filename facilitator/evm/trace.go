package evm

import (
	"context"

	"github.com/caddy-x402/caddy-x402/internal/paytrace"
)

// spanChainReads is the span of a payment's chain reads in the shared
// batch (BatchShared), a child of the caller's span (docs/tracing.md):
// x402.rpc.calls is how many calls the payment put into it.
const spanChainReads = "x402.chain_reads"

// traceReads starts the span of n chain reads of ctx's payment.
func traceReads(ctx context.Context, n int) paytrace.Span {
	_, sp := paytrace.Start(ctx, spanChainReads)
	sp.SetInt("x402.rpc.calls", int64(n))
	return sp
}
