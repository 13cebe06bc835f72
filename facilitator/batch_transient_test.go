package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/internal/rpcproxy"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
)

// TestBatchSettlementNeedsTransientStorage: batch-settlement is offered
// only on a chain that runs EIP-1153 (the channel contracts use transient
// storage). The devnet runs it; a node that refuses the probe with
// "invalid opcode" (as a chain before Cancun does: the rpcproxy answers
// the probe's eth_call with that error, a FAKE standing for a pre-Cancun
// chain, which the devnet cannot be) leaves the kind out of /supported,
// with a log line saying why, and the network serves exact as before.
func TestBatchSettlementNeedsTransientStorage(t *testing.T) {
	proxy, err := rpcproxy.New(chain.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	key := newSignerKey(t, chain)
	start := func() (kinds []string, logs *observer.ObservedLogs) {
		t.Helper()
		core, logs := observer.New(zap.InfoLevel)
		nc := testnetConfig()
		nc.RPCURLs = []string{proxy.URL()}
		nc.SignerKeys = []*ecdsa.PrivateKey{key}
		f, err := facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{nc}, Logger: zap.New(core)})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, k := range f.Supported().Kinds {
			kinds = append(kinds, k.Scheme)
		}
		return kinds, logs
	}
	has := func(kinds []string, scheme string) bool {
		for _, k := range kinds {
			if k == scheme {
				return true
			}
		}
		return false
	}

	if kinds, _ := start(); !has(kinds, "batch-settlement") || !has(kinds, "exact") {
		t.Fatalf("devnet (EIP-1153): kinds %v, want batch-settlement and exact", kinds)
	}
	probe := hexutil.Encode(batch.TransientStorageProbe)
	proxy.FailCalls("eth_call", probe, -32000, "invalid opcode: TSTORE")
	kinds, logs := start()
	if has(kinds, "batch-settlement") || !has(kinds, "exact") {
		t.Fatalf("a chain without EIP-1153: kinds %v, want exact without batch-settlement", kinds)
	}
	const want = "batch-settlement not offered: the chain does not run EIP-1153 (transient storage, Cancun), which the channel contracts need; it is offered once the chain has enabled it and the facilitator restarts"
	if logs.FilterMessage(want).Len() != 1 {
		t.Fatalf("no log line %q; logs: %v", want, logs.All())
	}
	if len(proxy.Failed()) == 0 {
		t.Fatal("the probe did not reach the proxy's failure: the test proves nothing")
	}
}
