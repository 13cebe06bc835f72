package facilitator_test

import (
	"context"
	"math/big"
	"runtime"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/evm"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// verifyFixture is a facilitator with on-chain checks switched off (its
// RPC URL is never dialled) and a valid request for it.
func verifyFixture(b *testing.B) (*facilitator.Facilitator, *x402.Request) {
	f, r, _, _ := verifyFixtureRecovery(b)
	return f, r
}

// verifyFixtureRecovery is verifyFixture, with the digest and signature
// (v as 0 or 1) that the verify recovers its signer from.
func verifyFixtureRecovery(b *testing.B) (f *facilitator.Facilitator, r *x402.Request, digest, sig []byte) {
	nc, _ := network.Builtin(network.CronosTestnet)
	nc.RPCURLs = []string{"http://127.0.0.1:9"} // never asked: no signer, no on-chain checks
	nc.SkipOnchainVerify = true
	f, err := facilitator.New(context.Background(), facilitator.Config{Networks: []network.Config{nc}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	key, err := crypto.HexToECDSA(devnet.Buyer1PrivateKey[2:])
	if err != nil {
		b.Fatal(err)
	}
	req := requirements(common.HexToAddress("0x2222222222222222222222222222222222222222"), "10000")
	h, p, err := exact.CreatePayment(key, req, exact.PaymentOptions{ChainID: big.NewInt(devnet.ChainID), ValidFor: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	d, err := exact.Digest(evm.Domain{Name: nc.EIP712Name, Version: nc.EIP712Version, ChainID: big.NewInt(devnet.ChainID), VerifyingContract: common.HexToAddress(req.Asset)}, p.Authorization)
	if err != nil {
		b.Fatal(err)
	}
	sig = append([]byte(nil), p.Signature...)
	sig[64] -= 27
	if _, err := crypto.Ecrecover(d[:], sig); err != nil {
		b.Fatal(err)
	}
	return f, &x402.Request{X402Version: 1, PaymentHeader: h, PaymentRequirements: req}, d[:], sig
}

// BenchmarkVerify measures the off-chain part of verify in process: header
// decoding, every check and the signature recovery, as a network with
// on-chain checks switched off runs it. Compare with BenchmarkEcrecover
// (the same process) or BenchmarkVerifyVsEcrecover (the ratio).
func BenchmarkVerify(b *testing.B) {
	f, r := verifyFixture(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		v, err := f.Verify(ctx, r)
		if err != nil || !v.IsValid {
			b.Fatalf("verify = %+v, %v", v, err)
		}
	}
}

// BenchmarkEcrecover is one secp256k1 public key recovery, the floor of a
// verify (as in package evm, here so both run in one process).
func BenchmarkEcrecover(b *testing.B) {
	digest, sig := ecrecoverFixture(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := crypto.Ecrecover(digest, sig); err != nil {
			b.Fatal(err)
		}
	}
}

func ecrecoverFixture(b *testing.B) (digest, sig []byte) {
	key, err := crypto.GenerateKey()
	if err != nil {
		b.Fatal(err)
	}
	digest = crypto.Keccak256([]byte("x402"))
	if sig, err = crypto.Sign(digest, key); err != nil {
		b.Fatal(err)
	}
	return digest, sig
}

// BenchmarkVerifyVsEcrecover runs verifies and signature recoveries
// interleaved, in rounds of 200 each, and reports the ratio of their
// times (verify/ecrecover), each one's ns/op and the allocations and
// bytes of one verify: machine noise falls on both alike. The recovery
// is that of the verify's own signature and digest (a recovery's cost
// varies by a few percent with the signature).
//
//	go test ./facilitator -run '^$' -bench VerifyVsEcrecover -count 5
func BenchmarkVerifyVsEcrecover(b *testing.B) {
	const round = 200
	f, r, digest, sig := verifyFixtureRecovery(b)
	ctx := context.Background()
	var tv, te time.Duration
	var n int
	var m0, m1 runtime.MemStats
	var allocs, bytes uint64
	for b.Loop() {
		t0 := time.Now()
		for range round {
			if _, err := crypto.Ecrecover(digest, sig); err != nil {
				b.Fatal(err)
			}
		}
		t1 := time.Now()
		runtime.ReadMemStats(&m0)
		t2 := time.Now()
		for range round {
			if v, err := f.Verify(ctx, r); err != nil || !v.IsValid {
				b.Fatalf("verify = %+v, %v", v, err)
			}
		}
		t3 := time.Now()
		runtime.ReadMemStats(&m1)
		te += t1.Sub(t0)
		tv += t3.Sub(t2)
		allocs += m1.Mallocs - m0.Mallocs
		bytes += m1.TotalAlloc - m0.TotalAlloc
		n += round
	}
	b.ReportMetric(float64(tv)/float64(te), "verify/ecrecover")
	b.ReportMetric(float64(tv.Nanoseconds())/float64(n), "verify-ns")
	b.ReportMetric(float64(te.Nanoseconds())/float64(n), "ecrecover-ns")
	b.ReportMetric(float64(allocs)/float64(n), "verify-allocs")
	b.ReportMetric(float64(bytes)/float64(n), "verify-B")
}
