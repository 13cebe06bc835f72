package facilitator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
)

// TestBatchSettlementDeclined (issue 33): a facilitator that does not
// offer batch-settlement on a network says why, as the scheme found it at
// start (the paywall's refusal of such a route names it).
func TestBatchSettlementDeclined(t *testing.T) {
	noContracts, err := devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond, WithoutBatchSettlement: true})
	if err != nil {
		t.Fatal(err)
	}
	defer noContracts.Close()
	for _, tc := range []struct {
		name  string
		chain *devnet.Chain
		edit  func(*facilitator.Config)
		want  string
	}{
		{"served", chain, nil, ""},
		{"no signer key", chain, func(c *facilitator.Config) { c.Networks[0].SignerKeys = nil }, "the network has no signer key"},
		{"no contracts", noContracts, nil, "the chain has no contract at "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _, _ := startFacilitator(t, tc.chain.Signer().Key, tc.chain.RPCURL(), t.TempDir()+"/journal.db", tc.edit)
			got := f.Declined(network.CronosTestnet, batchsettlement.Scheme)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Fatalf("Declined = %q, want %q in it", got, tc.want)
			}
		})
	}
}
