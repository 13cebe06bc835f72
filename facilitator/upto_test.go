package facilitator_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/permit2"
	"github.com/caddy-x402/caddy-x402/facilitator/remote"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/upto"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The upto tests run the scheme against the dev chain's Permit2 and x402
// upto proxy: a buyer approves Permit2 once, signs a maximum, and the
// seller's charge moves.

// uptoAccepted is an upto way to pay of at most max to seller, with the
// extra the facilitator f announces (facilitatorAddress).
func uptoAccepted(t testing.TB, f *facilitator.Facilitator, seller common.Address, max string) x402.RequirementsV2 {
	t.Helper()
	extra, ok := f.SchemeExtra("cronos-testnet", "upto")
	if !ok {
		t.Fatal("the facilitator serves no upto on cronos-testnet")
	}
	return x402.RequirementsV2{Scheme: "upto", Network: x402.CAIP2(devnet.ChainID), Amount: max, Asset: devnet.TokenAddress.Hex(),
		PayTo: seller.Hex(), MaxTimeoutSeconds: 300, Extra: extra.(map[string]any)}
}

// uptoBuyer is a fresh buyer holding units, with gas, that approved
// Permit2 for allowance (none when nil).
func uptoBuyer(t testing.TB, units int64, allowance *big.Int) devnet.Account {
	t.Helper()
	b := newBuyer(t, chain, units)
	if allowance == nil {
		return b
	}
	fundGas(t, chain, b.Address, big.NewInt(1e17))
	tok, err := token.NewEIP3009Token(chain.Token(), chain.Client())
	if err != nil {
		t.Fatal(err)
	}
	opts := bind.NewKeyedTransactor(b.Key, chain.ChainID())
	tx, err := tok.Approve(opts, permit2.Address, allowance)
	if err != nil {
		t.Fatal(err)
	}
	waitTx(t, tx)
	return b
}

// waitTx mines and waits for a transaction.
func waitTx(t testing.TB, tx *types.Transaction) {
	t.Helper()
	chain.Mine()
	for range 100 {
		if r, err := chain.Client().TransactionReceipt(context.Background(), tx.Hash()); err == nil {
			if r.Status != 1 {
				t.Fatalf("transaction %s reverted", tx.Hash().Hex())
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("transaction %s not mined", tx.Hash().Hex())
}

// uptoPay signs an upto payment of accepted for b.
func uptoPay(t testing.TB, b devnet.Account, accepted x402.RequirementsV2, opts permit2.PaymentOptions) string {
	t.Helper()
	h, err := upto.CreatePayment(b.Key, accepted, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// uptoRequest is the in-process request of header at amount (the maximum
// for a verify, the charge for a settle).
func uptoRequest(header string, accepted x402.RequirementsV2, amount string) *x402.Request {
	accepted.Amount = amount
	return &x402.Request{X402Version: 1, PaymentHeader: header, PaymentRequirements: accepted.V1(nil)}
}

// uptoBody is the v2 HTTP body of header at amount.
func uptoBody(t testing.TB, header string, accepted x402.RequirementsV2, amount string) []byte {
	t.Helper()
	payload, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		t.Fatal(err)
	}
	accepted.Amount = amount
	b, _ := json.Marshal(map[string]any{"x402Version": 2, "paymentPayload": json.RawMessage(payload), "paymentRequirements": accepted})
	return b
}

// editPayload rewrites a header's permit2Authorization (after signing).
func editPayload(t testing.TB, header string, edit func(pl map[string]any)) string {
	t.Helper()
	raw, _ := base64.StdEncoding.DecodeString(header)
	var pp map[string]any
	if err := json.Unmarshal(raw, &pp); err != nil {
		t.Fatal(err)
	}
	edit(pp["payload"].(map[string]any))
	out, _ := json.Marshal(pp)
	return base64.StdEncoding.EncodeToString(out)
}

// TestUptoSupported: /supported lists upto on the network's CAIP-2 id with
// extra.facilitatorAddress, the signer that settles.
func TestUptoSupported(t *testing.T) {
	var s x402.SupportedResponse
	resp, err := http.Get(api.URL + x402.PathSupported)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, k := range s.Kinds {
		if k.Scheme == "upto" && k.Network == x402.CAIP2(devnet.ChainID) {
			extra, _ := k.Extra.(map[string]any)
			if extra["facilitatorAddress"] != chain.Signer().Address.Hex() || extra["name"] != devnet.TokenName || extra["version"] != devnet.TokenVersion {
				t.Fatalf("upto kind extra %v", k.Extra)
			}
			found = true
		}
		if k.Scheme == "exact" && k.Extra != nil {
			t.Fatalf("exact kind with extra %v", k.Extra)
		}
	}
	if !found {
		t.Fatalf("no upto kind in %+v", s.Kinds)
	}
}

// TestUptoSettleAmounts: a charge below the maximum, 0 and the maximum
// move exactly that; above the maximum is refused and moves nothing; the
// answer carries the amount (v2: "amount").
func TestUptoSettleAmounts(t *testing.T) {
	ctx := context.Background()
	b := uptoBuyer(t, 100_000, big.NewInt(1_000_000))
	for _, tc := range []struct {
		name, charge, want string
		moved              int64
	}{
		{"below the maximum", "3141", "", 3141},
		{"zero", "0", "", 0},
		{"the maximum", "5000", "", 5000},
		{"above the maximum", "5001", x402.ReasonUptoExceedsMaximum + "5001 > 5000", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seller := newSeller(t)
			acc := uptoAccepted(t, fac, seller, "5000")
			h := uptoPay(t, b, acc, permit2.PaymentOptions{})
			if v, err := fac.Verify(ctx, uptoRequest(h, acc, "5000")); err != nil || !v.IsValid {
				t.Fatalf("verify = %+v, %v", v, err)
			}
			before := balance(t, b.Address)
			var s x402.ReferenceSettleResponse
			status := post(t, x402.PathSettle, uptoBody(t, h, acc, tc.charge), &s)
			if tc.want != "" {
				if status != 200 || s.Success || s.ErrorReason != x402.CodeUptoExceedsMaximum || s.ErrorMessage != tc.want || s.Transaction != "" {
					t.Fatalf("settle = %d %+v, want refused %q", status, s, tc.want)
				}
			} else if status != 200 || !s.Success || s.Amount != tc.charge || (tc.moved == 0) != (s.Transaction == "") || !strings.EqualFold(s.Payer, b.Address.Hex()) {
				t.Fatalf("settle = %d %+v, want success of %s", status, s, tc.charge)
			}
			if got := balance(t, seller); got.Int64() != tc.moved {
				t.Fatalf("seller holds %s, want %d", got, tc.moved)
			}
			if got := new(big.Int).Sub(before, balance(t, b.Address)); got.Int64() != tc.moved {
				t.Fatalf("buyer paid %s, want %d", got, tc.moved)
			}
			if tc.moved > 0 {
				// The same payment again moves nothing more.
				status = post(t, x402.PathSettle, uptoBody(t, h, acc, tc.charge), &s)
				if status != 200 || s.Success || s.ErrorMessage != x402.ErrTextAlreadyUsed {
					t.Fatalf("second settle = %d %+v", status, s)
				}
				if got := balance(t, seller); got.Int64() != tc.moved {
					t.Fatalf("seller holds %s after a second settle, want %d", got, tc.moved)
				}
			}
		})
	}
}

// TestUptoVerifyReasons: every refusal, with its text, its reference code
// and its HTTP status (412 for a missing Permit2 allowance).
func TestUptoVerifyReasons(t *testing.T) {
	ctx := context.Background()
	seller := newSeller(t)
	acc := uptoAccepted(t, fac, seller, "5000")
	rich := uptoBuyer(t, 100_000, big.NewInt(1_000_000))
	unapproved := uptoBuyer(t, 100_000, nil)
	poor := uptoBuyer(t, 4_000, big.NewInt(1_000_000))
	other := newSeller(t)
	usedHeader := uptoPay(t, rich, acc, permit2.PaymentOptions{})
	if s, err := fac.Settle(ctx, uptoRequest(usedHeader, acc, "10")); err != nil || !s.Settled() {
		t.Fatalf("settle = %+v, %v", s, err)
	}
	wrongFac := acc
	wrongFac.Extra = map[string]any{"facilitatorAddress": other.Hex()}
	for _, tc := range []struct {
		name   string
		header string
		req    func(x402.RequirementsV2) x402.RequirementsV2
		status int
		reason string
		code   string
	}{
		{"asset", uptoPay(t, rich, acc, permit2.PaymentOptions{}), func(r x402.RequirementsV2) x402.RequirementsV2 { r.Asset = other.Hex(); return r },
			200, x402.ReasonUnsupportedAsset(other.Hex()), x402.CodeInvalidRequirements},
		{"payload", editPayload(t, uptoPay(t, rich, acc, permit2.PaymentOptions{}), func(pl map[string]any) { delete(pl, "permit2Authorization") }), nil,
			200, "Invalid payment payload: signature and permit2Authorization (with permitted and witness) are required", x402.CodeInvalidPayload},
		{"spender", editPayload(t, uptoPay(t, rich, acc, permit2.PaymentOptions{}), func(pl map[string]any) {
			pl["permit2Authorization"].(map[string]any)["spender"] = permit2.ExactProxyAddress.Hex()
		}), nil, 200, x402.ReasonPermit2Spender, x402.CodePermit2Spender},
		{"recipient", uptoPay(t, rich, acc, permit2.PaymentOptions{}), func(r x402.RequirementsV2) x402.RequirementsV2 { r.PayTo = other.Hex(); return r },
			200, x402.ReasonPermit2Recipient, x402.CodePermit2Recipient},
		{"facilitator", uptoPay(t, rich, wrongFac, permit2.PaymentOptions{}), nil, 200, x402.ReasonUptoFacilitator, x402.CodeUptoFacilitator},
		{"expired", uptoPay(t, rich, acc, permit2.PaymentOptions{ValidFor: 3 * time.Second}), nil, 200, x402.ReasonPermit2Expired, x402.CodePermit2Expired},
		{"not yet valid", uptoPay(t, rich, acc, permit2.PaymentOptions{ValidAfter: big.NewInt(time.Now().Add(time.Hour).Unix())}), nil,
			200, x402.ReasonPermit2NotYetValid, x402.CodePermit2NotYetValid},
		{"amount", uptoPay(t, rich, acc, permit2.PaymentOptions{}), func(r x402.RequirementsV2) x402.RequirementsV2 { r.Amount = "4000"; return r },
			200, x402.ReasonPermit2AmountMismatch + "4000 != 5000", x402.CodePermit2AmountMismatch},
		{"token", editPayload(t, uptoPay(t, rich, acc, permit2.PaymentOptions{}), func(pl map[string]any) {
			pl["permit2Authorization"].(map[string]any)["permitted"].(map[string]any)["token"] = other.Hex()
		}), nil, 200, x402.ReasonPermit2Token, x402.CodePermit2Token},
		{"signature", editPayload(t, uptoPay(t, rich, acc, permit2.PaymentOptions{}), func(pl map[string]any) {
			pl["permit2Authorization"].(map[string]any)["deadline"] = fmt.Sprint(time.Now().Add(2 * time.Hour).Unix())
		}), nil, 200, x402.ReasonPermit2Signature, x402.CodePermit2Signature},
		{"allowance", uptoPay(t, unapproved, acc, permit2.PaymentOptions{}), nil, 412, x402.ReasonPermit2AllowanceRequired, x402.CodePermit2AllowanceRequired},
		{"balance", uptoPay(t, poor, acc, permit2.PaymentOptions{}), nil, 200, x402.ErrTextInsufficientFunds, x402.CodeInsufficientFunds},
		{"nonce used", usedHeader, nil, 200, x402.ErrTextAlreadyUsed, x402.CodeNonceAlreadyUsed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := acc
			if tc.req != nil {
				req = tc.req(req)
			}
			var v x402.ReferenceVerifyResponse
			status := post(t, x402.PathVerify, uptoBody(t, tc.header, req, req.Amount), &v)
			if status != tc.status || v.IsValid || v.InvalidReason != tc.code || v.InvalidMessage != tc.reason {
				t.Fatalf("verify = %d %+v, want %d %q (%s)", status, v, tc.status, tc.reason, tc.code)
			}
			// Settle refuses it the same way, and nothing moves.
			if tc.name != "amount" {
				s, err := fac.Settle(ctx, uptoRequest(tc.header, req, req.Amount))
				if err != nil || s.Settled() || s.Error != tc.reason {
					t.Fatalf("settle = %+v, %v; want %q", s, err, tc.reason)
				}
			}
		})
	}
	if got := balance(t, seller); got.Int64() != 10 {
		t.Fatalf("seller holds %s, want the one settle of 10", got)
	}
}

// TestUptoSameTwiceConcurrent: one payment settled by 20 callers at once
// moves its charge once; every other caller is told it is used.
func TestUptoSameTwiceConcurrent(t *testing.T) {
	ctx := context.Background()
	b := uptoBuyer(t, 100_000, big.NewInt(1_000_000))
	seller := newSeller(t)
	acc := uptoAccepted(t, fac, seller, "5000")
	h := uptoPay(t, b, acc, permit2.PaymentOptions{})
	const n = 20
	var wg sync.WaitGroup
	answers := make([]*x402.SettleResponse, n)
	for i := range n {
		wg.Go(func() {
			var err error
			if answers[i], err = fac.Settle(ctx, uptoRequest(h, acc, "1234")); err != nil {
				t.Errorf("settle %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	settled := 0
	for i, s := range answers {
		switch {
		case s == nil:
		case s.Settled():
			settled++
			if s.Value != "1234" || s.TxHash == "" {
				t.Fatalf("settle %d = %+v", i, s)
			}
		case s.Error != x402.ErrTextAlreadyUsed:
			t.Fatalf("settle %d = %+v, want settled or %q", i, s, x402.ErrTextAlreadyUsed)
		}
	}
	if settled != 1 {
		t.Fatalf("%d settles succeeded, want 1", settled)
	}
	if got := balance(t, seller); got.Int64() != 1234 {
		t.Fatalf("seller holds %s, want 1234", got)
	}
}

// TestUptoReservation: a payment reserved at its maximum (settle after the
// upstream answered) settles the metered charge; a charge above the
// maximum is refused and the reservation stays held; 0 releases it.
func TestUptoReservation(t *testing.T) {
	ctx := context.Background()
	b := uptoBuyer(t, 100_000, big.NewInt(1_000_000))
	seller := newSeller(t)
	acc := uptoAccepted(t, fac, seller, "5000")
	h := uptoPay(t, b, acc, permit2.PaymentOptions{})
	r, v, err := fac.Reserve(ctx, uptoRequest(h, acc, "5000"))
	if err != nil || !v.IsValid {
		t.Fatalf("reserve = %+v, %v", v, err)
	}
	// Held: another settle of the same payment is refused meanwhile.
	if s, err := fac.Settle(ctx, uptoRequest(h, acc, "10")); err != nil || s.Error != x402.ErrTextAlreadyUsed {
		t.Fatalf("settle while reserved = %+v, %v", s, err)
	}
	if s, err := r.SettleAmount(ctx, big.NewInt(5001)); err != nil || s.Settled() || s.Error != x402.ReasonUptoExceedsMaximum+"5001 > 5000" {
		t.Fatalf("settle above the maximum = %+v, %v", s, err)
	}
	s, err := r.SettleAmount(ctx, big.NewInt(777))
	if err != nil || !s.Settled() || s.Value != "777" {
		t.Fatalf("settle of the charge = %+v, %v", s, err)
	}
	if got := balance(t, seller); got.Int64() != 777 {
		t.Fatalf("seller holds %s, want 777", got)
	}
	// A reservation settled at 0 moves nothing and frees the payment.
	h2 := uptoPay(t, b, acc, permit2.PaymentOptions{})
	r2, v, err := fac.Reserve(ctx, uptoRequest(h2, acc, "5000"))
	if err != nil || !v.IsValid {
		t.Fatalf("reserve = %+v, %v", v, err)
	}
	if s, err := r2.SettleAmount(ctx, new(big.Int)); err != nil || !s.Settled() || s.Value != "0" || s.TxHash != "" {
		t.Fatalf("settle of 0 = %+v, %v", s, err)
	}
	if got := balance(t, seller); got.Int64() != 777 {
		t.Fatalf("seller holds %s after a charge of 0, want 777", got)
	}
}

// TestUptoRecognize: a facilitator whose journal never held an upto
// settlement reads it back from the chain by its transaction.
func TestUptoRecognize(t *testing.T) {
	ctx := context.Background()
	b := uptoBuyer(t, 100_000, big.NewInt(1_000_000))
	seller := newSeller(t)
	acc := uptoAccepted(t, fac, seller, "5000")
	s, err := fac.Settle(ctx, uptoRequest(uptoPay(t, b, acc, permit2.PaymentOptions{}), acc, "2500"))
	if err != nil || !s.Settled() {
		t.Fatalf("settle = %+v, %v", s, err)
	}
	other, _, _ := startFacilitator(t, newSignerKey(t, chain), chain.RPCURL(), t.TempDir()+"/journal.db", nil)
	got, err := other.Settlement(s.TxHash)
	if err != nil || !got.Settled() || !strings.EqualFold(got.From, b.Address.Hex()) || !strings.EqualFold(got.To, seller.Hex()) || got.Value != "2500" {
		t.Fatalf("look-up from the chain = %+v, %v; want settled %s -> %s 2500", got, err, b.Address.Hex(), seller.Hex())
	}
}

// TestUptoBalanceRecheck: a payer's second payment right after a first
// one took its whole balance, topped up since, is accepted: the exact
// re-check of the reservations reads Permit2's nonceBitmap for the upto
// nonce (the upto Spent), so the first, mined, is known to be in the
// balance read, not counted again.
func TestUptoBalanceRecheck(t *testing.T) {
	ctx := context.Background()
	b := uptoBuyer(t, 1000, big.NewInt(1e12))
	seller := newSeller(t)
	acc := uptoAccepted(t, fac, seller, "1000")
	if s, err := fac.Settle(ctx, uptoRequest(uptoPay(t, b, acc, permit2.PaymentOptions{}), acc, "1000")); err != nil || !s.Settled() {
		t.Fatalf("first settle = %+v, %v", s, err)
	}
	if err := chain.Mint(ctx, b.Address, big.NewInt(1000)); err != nil {
		t.Fatal(err)
	}
	s, err := fac.Settle(ctx, uptoRequest(uptoPay(t, b, acc, permit2.PaymentOptions{}), acc, "1000"))
	if err != nil || !s.Settled() {
		t.Fatalf("second settle = %+v, %v; want settled", s, err)
	}
	if got := balance(t, seller); got.Int64() != 2000 {
		t.Fatalf("seller holds %s, want 2000", got)
	}
}

// TestUptoByAuthorizationOnChain: a facilitator whose journal never held
// two upto settlements of one payer finds each by its (payer, Permit2
// nonce) on chain: Permit2 logs no nonce, so the transaction is the one of
// the payer's Transfer logs whose settle names that nonce, not merely the
// newest.
func TestUptoByAuthorizationOnChain(t *testing.T) {
	ctx := context.Background()
	b := uptoBuyer(t, 100_000, big.NewInt(1e12))
	seller := newSeller(t)
	acc := uptoAccepted(t, fac, seller, "5000")
	nonces := []*big.Int{big.NewInt(1001), big.NewInt(1002)}
	var txs []string
	for i, n := range nonces {
		s, err := fac.Settle(ctx, uptoRequest(uptoPay(t, b, acc, permit2.PaymentOptions{Nonce: n}), acc, fmt.Sprint(100*(i+1))))
		if err != nil || !s.Settled() {
			t.Fatalf("settle %d = %+v, %v", i, s, err)
		}
		txs = append(txs, s.TxHash)
	}
	other, _, _ := startFacilitator(t, newSignerKey(t, chain), chain.RPCURL(), t.TempDir()+"/journal.db", nil)
	for i, n := range nonces {
		nb := permit2.NonceBytes(n)
		got, err := other.SettlementByAuthorization("cronos-testnet", b.Address.Hex(), hexutil.Encode(nb[:]))
		if err != nil || !got.Settled() || got.TxHash != txs[i] || got.Value != fmt.Sprint(100*(i+1)) {
			t.Fatalf("look-up of nonce %s = %+v, %v; want %s", n, got, err, txs[i])
		}
	}
	unused := permit2.NonceBytes(big.NewInt(1003))
	if _, err := other.SettlementByAuthorization("cronos-testnet", b.Address.Hex(), hexutil.Encode(unused[:])); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("look-up of an unused nonce: %v, want ErrSettlementNotFound", err)
	}
}

// TestUptoRemote: a paywall's remote client (facilitator/remote) against
// this facilitator's HTTP API passes the payment through in v2 and the
// charge as the settle's amount: a verify at the maximum, the 412 of a
// payer without a Permit2 allowance read as a verdict (not an error), a
// settle of the charge that moves exactly it.
func TestUptoRemote(t *testing.T) {
	ctx := context.Background()
	c := remote.New(api.URL, remote.Options{})
	b := uptoBuyer(t, 100_000, big.NewInt(1e12))
	seller := newSeller(t)
	acc := uptoAccepted(t, fac, seller, "5000")
	h := uptoPay(t, b, acc, permit2.PaymentOptions{})
	withV2 := func(r *x402.Request) *x402.Request {
		v2 := acc // the paywall knows its requirements in v2 form (the maximum)
		r.RequirementsV2 = &v2
		return r
	}
	if v, err := c.Verify(ctx, withV2(uptoRequest(h, acc, "5000"))); err != nil || !v.IsValid {
		t.Fatalf("remote verify = %+v, %v", v, err)
	}
	poor := uptoBuyer(t, 100_000, nil)
	v, err := c.Verify(ctx, withV2(uptoRequest(uptoPay(t, poor, acc, permit2.PaymentOptions{}), acc, "5000")))
	if err != nil || v.IsValid || v.Reason() != x402.ReasonPermit2AllowanceRequired {
		t.Fatalf("remote verify without allowance = %+v, %v; want the verdict %q", v, err, x402.ReasonPermit2AllowanceRequired)
	}
	s, err := c.Settle(ctx, withV2(uptoRequest(h, acc, "600")))
	if err != nil || !s.Settled() || s.Value != "600" || s.TxHash == "" {
		t.Fatalf("remote settle = %+v, %v", s, err)
	}
	if got := balance(t, seller); got.Int64() != 600 {
		t.Fatalf("seller holds %s, want 600", got)
	}
}

// TestUptoEIP2612GasSponsoring: a buyer who never approved Permit2 pays
// with its EIP-2612 permit in the eip2612GasSponsoring extension: verify
// accepts it (no 412), the settle submits the permit with the transfer
// (the proxy's settleWithPermit) and moves exactly the charge, and the
// transaction reads back; a permit that is not the payer's is refused.
func TestUptoEIP2612GasSponsoring(t *testing.T) {
	ctx := context.Background()
	b := uptoBuyer(t, 100_000, nil) // no approve, no gas
	seller := newSeller(t)
	acc := uptoAccepted(t, fac, seller, "5000")
	deadline := big.NewInt(time.Now().Add(time.Hour).Unix())
	ext, err := permit2.EIP2612Extension(b.Key, devnet.TokenAddress, devnet.TokenName, devnet.TokenVersion, big.NewInt(devnet.ChainID), new(big.Int), big.NewInt(5000), deadline)
	if err != nil {
		t.Fatal(err)
	}
	h := uptoPay(t, b, acc, permit2.PaymentOptions{Extensions: ext})
	var v x402.ReferenceVerifyResponse
	if status := post(t, x402.PathVerify, uptoBody(t, h, acc, "5000"), &v); status != 200 || !v.IsValid {
		t.Fatalf("verify with the permit = %d %+v", status, v)
	}
	other := uptoBuyer(t, 100_000, nil)
	otherExt, _ := permit2.EIP2612Extension(other.Key, devnet.TokenAddress, devnet.TokenName, devnet.TokenVersion, big.NewInt(devnet.ChainID), new(big.Int), big.NewInt(5000), deadline)
	if status := post(t, x402.PathVerify, uptoBody(t, uptoPay(t, b, acc, permit2.PaymentOptions{Extensions: otherExt}), acc, "5000"), &v); status != 200 || v.IsValid || v.InvalidReason != x402.CodeEIP2612From {
		t.Fatalf("verify with another's permit = %d %+v", status, v)
	}
	s, err := fac.Settle(ctx, uptoRequest(h, acc, "1500"))
	if err != nil || !s.Settled() || s.Value != "1500" {
		t.Fatalf("settle = %+v, %v", s, err)
	}
	if got := balance(t, seller); got.Int64() != 1500 {
		t.Fatalf("seller holds %s, want 1500", got)
	}
	tok, _ := token.NewEIP3009Token(chain.Token(), chain.Client())
	if a, err := tok.Allowance(nil, b.Address, permit2.Address); err != nil || a.Int64() != 3500 {
		t.Fatalf("Permit2's allowance after the settle %s (%v), want the permit's 5000 less 1500", a, err)
	}
	o, _, _ := startFacilitator(t, newSignerKey(t, chain), chain.RPCURL(), t.TempDir()+"/journal.db", nil)
	if got, err := o.Settlement(s.TxHash); err != nil || !got.Settled() || got.Value != "1500" || !strings.EqualFold(got.To, seller.Hex()) {
		t.Fatalf("look-up from the chain = %+v, %v", got, err)
	}
	nb := permit2.NonceBytes(mustNonce(t, h))
	if got, err := o.SettlementByAuthorization("cronos-testnet", b.Address.Hex(), hexutil.Encode(nb[:])); err != nil || got.TxHash != s.TxHash {
		t.Fatalf("look-up by authorization = %+v, %v", got, err)
	}
}

// mustNonce reads the Permit2 nonce of an upto header.
func mustNonce(t testing.TB, header string) *big.Int {
	t.Helper()
	raw, _ := base64.StdEncoding.DecodeString(header)
	var pp struct {
		Payload struct {
			Auth struct {
				Nonce string `json:"nonce"`
			} `json:"permit2Authorization"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(raw, &pp); err != nil {
		t.Fatal(err)
	}
	n, ok := new(big.Int).SetString(pp.Payload.Auth.Nonce, 10)
	if !ok {
		t.Fatalf("nonce %q", pp.Payload.Auth.Nonce)
	}
	return n
}
