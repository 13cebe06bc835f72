package facilitator_test

import (
	"context"
	"slices"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/internal/rpcproxy"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestSupportedSponsoringNeedsPermit: /supported offers the
// eip2612GasSponsoring extension only where the network's token has
// EIP-2612 permit, read at bind time (its nonces(address)). The devnet's
// token has it: offered. The same token seen through an RPC proxy that
// answers nonces(address) "execution reverted", as a node answers a call
// of a function a token does not have: upto is still served, the
// extension is not offered.
func TestSupportedSponsoringNeedsPermit(t *testing.T) {
	proxy, err := rpcproxy.New(chain.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	start := func() *facilitator.Facilitator {
		t.Helper()
		nc := testnetConfig()
		nc.RPCURLs = []string{proxy.URL()}
		f, err := facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{nc}, Logger: testLogger()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	servesUpto := func(s *x402.SupportedResponse) bool {
		return slices.ContainsFunc(s.Kinds, func(k x402.SupportedKind) bool { return k.Scheme == x402.SchemeUpto })
	}

	s := start().Supported()
	if !servesUpto(s) || !slices.Equal(s.Extensions, []string{x402.ExtEIP2612GasSponsoring}) {
		t.Fatalf("a token with permit: upto served %v, extensions %v; want upto and [%s]", servesUpto(s), s.Extensions, x402.ExtEIP2612GasSponsoring)
	}

	// nonces(address) is 0x7ecebe00; go-ethereum writes the data field
	// in lower case, after a quote and 0x.
	proxy.FailCalls("eth_call", "\"0x7ecebe00", 3, "execution reverted")
	s = start().Supported()
	if !servesUpto(s) || len(s.Extensions) != 0 {
		t.Fatalf("a token without permit: upto served %v, extensions %v; want upto and none", servesUpto(s), s.Extensions)
	}
}
