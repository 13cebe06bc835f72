package facilitator

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
)

// ReceiverGate decides whether the caller of a settle may ask for an
// operation on receivers' behalf (a batch-settlement claim, settle or
// refund, which this facilitator sends and signs for them). A non-nil
// error (a *x402.StatusError, such as 401) refuses the settle before
// anything is signed or sent, and is the settle's error.
type ReceiverGate func(op string, receivers []common.Address) error

type receiverGateKey struct{}

// WithReceiverGate makes Settle ask gate before a payment that acts for
// receivers (scheme.ReceiverOp) is settled. The HTTP API sets it from the
// caller's API key; an in-process caller without it (the paywall's
// embedded facilitator, which is the seller itself) is not asked.
func WithReceiverGate(ctx context.Context, gate ReceiverGate) context.Context {
	return context.WithValue(ctx, receiverGateKey{}, gate)
}

// gateReceiverOp asks ctx's gate, if any, about payment c.
func gateReceiverOp(ctx context.Context, c scheme.Payment) error {
	gate, _ := ctx.Value(receiverGateKey{}).(ReceiverGate)
	op, ok := c.(scheme.ReceiverOp)
	if gate == nil || !ok {
		return nil
	}
	if name, receivers := op.ReceiverOp(); name != "" {
		return gate(name, receivers)
	}
	return nil
}
