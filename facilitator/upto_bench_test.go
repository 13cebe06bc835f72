package facilitator_test

import (
	"context"
	"crypto/ecdsa"
	"math/big"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/upto"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// exactV2 is an exact way to pay price to seller on the dev chain, in v2
// form, as the upto benchmarks' baseline.
func exactV2(seller common.Address, price string) x402.RequirementsV2 {
	return x402.RequirementsV2{Scheme: "exact", Network: x402.CAIP2(devnet.ChainID), Amount: price, Asset: devnet.TokenAddress.Hex(),
		PayTo: seller.Hex(), MaxTimeoutSeconds: 300, Extra: map[string]any{"name": devnet.TokenName, "version": devnet.TokenVersion}}
}

// BenchmarkUptoVerifyVsExact runs the off-chain part of verify (header
// decoding, every check, the signature recovery; on-chain checks switched
// off) for an upto and an exact payment interleaved, in rounds of 200,
// and reports the ratio of their times (upto/exact) and each one's ns.
//
//	go test ./facilitator -run '^$' -bench UptoVerifyVsExact -count 5
func BenchmarkUptoVerifyVsExact(b *testing.B) {
	startSharedChain(b)
	nc := testnetConfig()
	nc.SkipOnchainVerify = true
	f, err := facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{nc}})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	key, err := crypto.HexToECDSA(devnet.Buyer1PrivateKey[2:])
	if err != nil {
		b.Fatal(err)
	}
	seller := common.HexToAddress("0x2222222222222222222222222222222222222222")
	ex := exactV2(seller, "10000")
	he, _, err := exact.CreatePaymentV2(key, ex, nil, exact.PaymentOptions{ValidFor: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	ua := uptoAccepted(b, f, seller, "10000")
	hu, err := upto.CreatePayment(key, ua, nil, permit2.PaymentOptions{ValidFor: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	re, ru := uptoRequest(he, ex, "10000"), uptoRequest(hu, ua, "10000")
	ctx := context.Background()
	const round = 200
	var te, tu time.Duration
	var n int
	for b.Loop() {
		t0 := time.Now()
		for range round {
			if v, err := f.Verify(ctx, re); err != nil || !v.IsValid {
				b.Fatalf("exact verify = %+v, %v", v, err)
			}
		}
		t1 := time.Now()
		for range round {
			if v, err := f.Verify(ctx, ru); err != nil || !v.IsValid {
				b.Fatalf("upto verify = %+v, %v", v, err)
			}
		}
		t2 := time.Now()
		te += t1.Sub(t0)
		tu += t2.Sub(t1)
		n += round
	}
	b.ReportMetric(float64(tu)/float64(te), "upto/exact")
	b.ReportMetric(float64(te.Nanoseconds())/float64(n), "exact-ns")
	b.ReportMetric(float64(tu.Nanoseconds())/float64(n), "upto-ns")
}

// BenchmarkUptoSettleVsExact runs bursts of verify-then-settle of
// distinct payments, exact and upto in turn, against a facilitator running
// as a child process on a dev chain with 200 ms blocks, and reports the
// facilitator's CPU time per verify+settle of each and their ratio
// (upto/exact). Each burst's bodies are signed before it starts.
//
//	go test ./facilitator -run '^$' -bench UptoSettleVsExact -count 3
func BenchmarkUptoSettleVsExact(b *testing.B) {
	const burst = 100
	c, err := devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond, Buyers: 20})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	// Every buyer approves Permit2 once (the one-time step upto needs).
	tok, err := token.NewEIP3009Token(c.Token(), c.Client())
	if err != nil {
		b.Fatal(err)
	}
	for _, buyer := range c.Buyers() {
		fundGas(b, c, buyer.Address, big.NewInt(1e17))
		tx, err := tok.Approve(bind.NewKeyedTransactor(buyer.Key, c.ChainID()), permit2.Address, new(big.Int).Lsh(big.NewInt(1), 200))
		if err != nil {
			b.Fatal(err)
		}
		c.Mine()
		if _, err := bind.WaitMined(context.Background(), c.Client(), tx.Hash()); err != nil {
			b.Fatal(err)
		}
	}
	key := c.Signer().Key
	fac := startChildOn(b, c.RPCURL(), []*ecdsa.PrivateKey{key}, b.TempDir()+"/journal.db", "X402_CHILD_SETTLE_TIMEOUT=10m", "X402_CHILD_QUIET=1")
	defer fac.kill()
	signer := crypto.PubkeyToAddress(key.PublicKey).Hex()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: burst}}

	bodies := func(scheme string) (verify, settle [][]byte) {
		for i := range burst {
			buyer := c.Buyers()[i%len(c.Buyers())]
			seller := newSeller(b)
			if scheme == "exact" {
				acc := exactV2(seller, "1000")
				h, _, err := exact.CreatePaymentV2(buyer.Key, acc, nil, exact.PaymentOptions{ValidFor: time.Hour})
				if err != nil {
					b.Fatal(err)
				}
				verify, settle = append(verify, uptoBody(b, h, acc, "1000")), append(settle, uptoBody(b, h, acc, "1000"))
				continue
			}
			acc := exactV2(seller, "1000")
			acc.Scheme, acc.Extra = "upto", map[string]any{"name": devnet.TokenName, "version": devnet.TokenVersion, "facilitatorAddress": signer}
			h, err := upto.CreatePayment(buyer.Key, acc, nil, permit2.PaymentOptions{ValidFor: time.Hour})
			if err != nil {
				b.Fatal(err)
			}
			verify, settle = append(verify, uptoBody(b, h, acc, "1000")), append(settle, uptoBody(b, h, acc, "700"))
		}
		return verify, settle
	}
	run := func(verify, settle [][]byte) time.Duration {
		cpu0 := fac.cpu()
		var wg sync.WaitGroup
		for i := range verify {
			wg.Go(func() {
				var v x402.ReferenceVerifyResponse
				if status := postWithURL(b, client, fac.url+x402.PathVerify, verify[i], &v); status != 200 || !v.IsValid {
					b.Errorf("verify %d = %d %+v", i, status, v)
					return
				}
				var s x402.ReferenceSettleResponse
				if status := postWithURL(b, client, fac.url+x402.PathSettle, settle[i], &s); status != 200 || !s.Success {
					b.Errorf("settle %d = %d %+v", i, status, s)
				}
			})
		}
		wg.Wait()
		return fac.cpu() - cpu0
	}
	var ce, cu time.Duration
	var n int
	for b.Loop() {
		b.StopTimer()
		ev, es := bodies("exact")
		uv, us := bodies("upto")
		b.StartTimer()
		ce += run(ev, es)
		cu += run(uv, us)
		n += burst
	}
	b.ReportMetric(float64(cu)/float64(ce), "upto/exact-cpu")
	b.ReportMetric(float64(ce.Microseconds())/float64(n), "exact-cpu-us")
	b.ReportMetric(float64(cu.Microseconds())/float64(n), "upto-cpu-us")
}

// BenchmarkUptoVerify is upto's off-chain verify alone (for profiles).
func BenchmarkUptoVerify(b *testing.B) {
	startSharedChain(b)
	nc := testnetConfig()
	nc.SkipOnchainVerify = true
	f, err := facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{nc}})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	key, err := crypto.HexToECDSA(devnet.Buyer1PrivateKey[2:])
	if err != nil {
		b.Fatal(err)
	}
	ua := uptoAccepted(b, f, common.HexToAddress("0x2222222222222222222222222222222222222222"), "10000")
	hu, err := upto.CreatePayment(key, ua, nil, permit2.PaymentOptions{ValidFor: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	r := uptoRequest(hu, ua, "10000")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if v, err := f.Verify(ctx, r); err != nil || !v.IsValid {
			b.Fatalf("upto verify = %+v, %v", v, err)
		}
	}
}
