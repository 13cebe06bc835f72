package facilitator_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// TestCrossSchemeNonce: EIP-3009 and Permit2 nonces are chosen by the
// buyer and share the journal's (payer, nonce) record IDs. A buyer who
// pays seller A by exact (EIP-3009) with nonce N and then seller B by upto
// (or exact through Permit2) with the same N is never answered "settled"
// with A's transaction, A's record stays A's (the look-up by authorization
// and by transaction answer A's settlement), and B is either paid or
// refused truly.
func TestCrossSchemeNonce(t *testing.T) {
	ctx := context.Background()
	for _, second := range []string{"upto", "exact-permit2"} {
		t.Run(second, func(t *testing.T) {
			b := uptoBuyer(t, 100_000, big.NewInt(1e12))
			var n [32]byte
			rand.Read(n[:])
			sellerA, sellerB := newSeller(t), newSeller(t)
			h, _ := pay(t, b, requirements(sellerA, "1000"), exact.PaymentOptions{Nonce: &n})
			sa, err := fac.Settle(ctx, &x402.Request{X402Version: 1, PaymentHeader: h, PaymentRequirements: requirements(sellerA, "1000")})
			if err != nil || !sa.Settled() {
				t.Fatalf("exact settle = %+v, %v", sa, err)
			}
			var hb string
			var acc x402.RequirementsV2
			if second == "upto" {
				acc = uptoAccepted(t, fac, sellerB, "5000")
				hb = uptoPay(t, b, acc, permit2.PaymentOptions{Nonce: new(big.Int).SetBytes(n[:])})
			} else {
				acc = exactV2(sellerB, "5000")
				acc.Extra["assetTransferMethod"] = "permit2"
				var err error
				hb, err = exact.CreatePermit2Payment(b.Key, acc, nil, permit2.PaymentOptions{Nonce: new(big.Int).SetBytes(n[:])})
				if err != nil {
					t.Fatal(err)
				}
			}
			sb, err := fac.Settle(ctx, uptoRequest(hb, acc, "5000"))
			if err != nil {
				t.Fatalf("second settle: %v", err)
			}
			if sb.TxHash == sa.TxHash {
				t.Fatalf("the %s payment to B is answered with A's transaction: %+v", second, sb)
			}
			paidB := balance(t, sellerB).Int64()
			switch {
			case sb.Settled() && paidB == 5000 && strings.EqualFold(sb.To, sellerB.Hex()):
			case !sb.Settled() && sb.Error == x402.ErrTextAlreadyUsed && paidB == 0:
			default:
				t.Fatalf("second settle = %+v; seller B holds %d", sb, paidB)
			}
			if got := balance(t, sellerA).Int64(); got != 1000 {
				t.Fatalf("seller A holds %d, want 1000", got)
			}
			// A's record is still A's.
			got, err := fac.Settlement(sa.TxHash)
			if err != nil || !got.Settled() || !strings.EqualFold(got.To, sellerA.Hex()) || got.Value != "1000" {
				t.Fatalf("look-up of A's transaction = %+v, %v", got, err)
			}
			got, err = fac.SettlementByAuthorization("cronos-testnet", b.Address.Hex(), hexutil.Encode(n[:]))
			if err != nil || !got.Settled() {
				t.Fatalf("look-up of (payer, N) = %+v, %v", got, err)
			}
			if got.TxHash != sa.TxHash {
				t.Fatalf("look-up of (payer, N) without a scheme = %+v, want A's %s", got, sa.TxHash)
			}
			// Over HTTP, scheme picks the authorization: none or exact is
			// A's, upto or exact-permit2 B's; an unknown scheme is a 400.
			for _, c := range []struct {
				scheme string
				status int
				tx     string
			}{{"", 200, sa.TxHash}, {"exact", 200, sa.TxHash}, {second, 200, sb.TxHash}, {"bogus", 400, ""}} {
				q := url.Values{"network": {"cronos-testnet"}, "from": {b.Address.Hex()}, "nonce": {hexutil.Encode(n[:])}}
				if c.scheme != "" {
					q.Set("scheme", c.scheme)
				}
				resp, err := http.Get(api.URL + strings.TrimSuffix(x402.PathSettlements, "/") + "?" + q.Encode())
				if err != nil {
					t.Fatal(err)
				}
				var out map[string]any
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if resp.StatusCode != c.status || (c.tx != "" && out["txHash"] != c.tx && out["transaction"] != c.tx) {
					t.Fatalf("GET by authorization, scheme %q = %d %v; want %d %s", c.scheme, resp.StatusCode, out, c.status, c.tx)
				}
			}
		})
	}
}

// TestPermit2NonceAcrossSchemes: upto and exact through Permit2 share
// Permit2's nonce bitmap: an exact-permit2 payment with the nonce of a
// settled upto payment is refused "already used" (true: the chain would
// refuse it) and moves nothing; the upto record stays the upto's.
func TestPermit2NonceAcrossSchemes(t *testing.T) {
	ctx := context.Background()
	b := uptoBuyer(t, 100_000, big.NewInt(1e12))
	nonce := big.NewInt(424242)
	sellerA, sellerB := newSeller(t), newSeller(t)
	accA := uptoAccepted(t, fac, sellerA, "5000")
	sa, err := fac.Settle(ctx, uptoRequest(uptoPay(t, b, accA, permit2.PaymentOptions{Nonce: nonce}), accA, "1234"))
	if err != nil || !sa.Settled() {
		t.Fatalf("upto settle = %+v, %v", sa, err)
	}
	accB := exactV2(sellerB, "700")
	accB.Extra["assetTransferMethod"] = "permit2"
	hb, err := exact.CreatePermit2Payment(b.Key, accB, nil, permit2.PaymentOptions{Nonce: nonce})
	if err != nil {
		t.Fatal(err)
	}
	sb, err := fac.Settle(ctx, uptoRequest(hb, accB, "700"))
	if err != nil || sb.Settled() || sb.Error != x402.ErrTextAlreadyUsed || sb.TxHash != "" {
		t.Fatalf("exact-permit2 settle with the upto's nonce = %+v, %v", sb, err)
	}
	if got := balance(t, sellerB).Int64(); got != 0 {
		t.Fatalf("seller B holds %d", got)
	}
	got, err := fac.Settlement(sa.TxHash)
	if err != nil || !got.Settled() || got.Value != "1234" || !strings.EqualFold(got.To, sellerA.Hex()) {
		t.Fatalf("look-up of the upto transaction = %+v, %v", got, err)
	}
	nb := permit2.NonceBytes(nonce)
	got, err = fac.SettlementByAuthorization("cronos-testnet", b.Address.Hex(), hexutil.Encode(nb[:]))
	if err != nil || got.TxHash != sa.TxHash {
		t.Fatalf("look-up by authorization = %+v, %v", got, err)
	}
}
