package exact

import (
	"context"

	"github.com/caddy-x402/caddy-x402/facilitator/doctor"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2/proxy"
	"github.com/caddy-x402/caddy-x402/facilitator/scheme"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Exact through Permit2: requirements with extra.assetTransferMethod
// "permit2", which the buyer pays with a Permit2 witness transfer of the
// price to the x402 exact proxy (0x402085c248EeA27D92E8b30b2C58ed07f9E20001),
// settled by anyone. Its records (store.Record.Scheme) and engine name
// are x402.SchemeExactPermit2.

func init() { scheme.Register(permit2Flavour{}) }

// permit2Flavour is exact through Permit2 on eip155 (scheme.Flavour): the
// payments of scheme exact whose payload is a permit2Authorization. It
// shares upto's pipeline (package permit2/proxy), with the exact proxy:
// the whole permitted amount moves, and any signer may settle.
type permit2Flavour struct{}

func (permit2Flavour) Name() string   { return x402.SchemeExactPermit2 }
func (permit2Flavour) Family() string { return "eip155" }
func (permit2Flavour) Of() string     { return x402.SchemeExact }

// NonceSpace is Permit2's (scheme.NonceSpacer).
func (permit2Flavour) NonceSpace() string { return permit2.NonceSpace }

// Needs is Permit2 and the x402 exact proxy (scheme.Needer).
func (permit2Flavour) Needs() doctor.Needs { return proxy.Needs(permit2.ExactProxy) }

var (
	_ scheme.Flavour     = permit2Flavour{}
	_ scheme.NonceSpacer = permit2Flavour{}
	_ scheme.Needer      = permit2Flavour{}
)

// permit2Key is the key of a Permit2 payload.
const permit2Key = `"permit2Authorization"`

// Takes reports whether an exact payment's payload is a Permit2
// authorization.
func (permit2Flavour) Takes(p *x402.Payment) bool { return p.PayloadHas(permit2Key) }

// Bind readies exact through Permit2 on a network whose chain has Permit2
// and the x402 exact proxy, or declines it.
func (permit2Flavour) Bind(ctx context.Context, n *network.Network, env scheme.Env) (scheme.Bound, error) {
	return proxy.Bind(ctx, n, env, permit2.ExactProxy)
}
