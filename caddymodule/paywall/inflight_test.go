package paywall

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/params"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/token"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// answerOf is a paywall answer: status, Retry-After and the JSON fields
// the tests below compare.
type answerOf struct {
	status     int
	retryAfter string
	body       string
	Error      string `json:"error"`
	Retry      string `json:"retry"`
}

func fetchPaid(t *testing.T, tester *caddytest.Tester, url, header string) answerOf {
	t.Helper()
	resp, b := testutil.Get(t, tester, url, map[string]string{"X-Payment": header})
	a := answerOf{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), body: string(b)}
	_ = json.Unmarshal(b, &a)
	return a
}

// inFlightChain pauses mining and returns a function that waits until the
// facilitator's signer has a transaction in the pool (a settle is in
// flight, holding its authorization), and one that resumes mining.
func inFlightChain(t *testing.T) (waitSent func(), resume func()) {
	t.Helper()
	chain := testutil.ActiveChain(t)
	chain.PauseMining()
	var once sync.Once
	resume = func() { once.Do(chain.ResumeMining) }
	t.Cleanup(resume)
	waitSent = func() {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			latest, pending, err := chain.NonceAt(context.Background(), chain.Signer().Address)
			if err == nil && pending > latest {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatal("no settlement reached the transaction pool within 20 s")
	}
	return waitSent, resume
}

// signWithNonce signs reqs with a chosen nonce and validity, so that two
// different authorizations can share a nonce.
func signWithNonce(t *testing.T, key *ecdsa.PrivateKey, reqs x402.PaymentRequirements, nonce [32]byte, validFor time.Duration) string {
	t.Helper()
	header, _, err := exact.CreatePayment(key, reqs, exact.PaymentOptions{ChainID: big.NewInt(devnet.ChainID), Nonce: &nonce, ValidFor: validFor})
	if err != nil {
		t.Fatal(err)
	}
	return header
}

// TestCopyInFlightSameInstance: the same X-PAYMENT sent again while the
// first request is still settling at the same instance is answered 409
// with Retry-After and the cross-instance answer's text, not a final
// "Authorization already used" (a client retrying after a timeout would
// give up on a payment about to succeed). Once the first was served, the
// copy is refused for good (402 Authorization already used), as the
// README's exactly-once rules say; the upstream ran once, the buyer paid
// once.
func TestCopyInFlightSameInstance(t *testing.T) {
	up, ran := countingUpstream(t, 0)
	tester := testutil.NewTester(t, testutil.GlobalBlock("settle_timeout 30s")+fmt.Sprintf(`
:%d {
	x402 {
		pay_to %s
		amount 11
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.SellerAddr, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	header := testutil.Pay(t, buyer, testutil.Require402(t, tester, testutil.SiteURL+"/x").PaymentRequirements)
	before := testutil.Balance(t, buyerAddr)

	waitSent, resume := inFlightChain(t)
	first := make(chan answerOf, 1)
	go func() { first <- fetchPaid(t, tester, testutil.SiteURL+"/x", header) }()
	waitSent()

	copyAnswer := fetchPaid(t, tester, testutil.SiteURL+"/x", header)
	wantBody := `{"error":"` + textInFlight + `","retry":"` + retryInFlight + `","retryAfterSeconds":2,"x402Version":1}` + "\n"
	if copyAnswer.status != http.StatusConflict || copyAnswer.retryAfter != "2" || copyAnswer.body != wantBody {
		t.Errorf("copy while the first settles: %d Retry-After %q %s\nwant 409 Retry-After 2 %s", copyAnswer.status, copyAnswer.retryAfter, copyAnswer.body, wantBody)
	}

	resume()
	if a := <-first; a.status != http.StatusOK || !strings.HasPrefix(a.body, "resource tx=0x") {
		t.Fatalf("first request: %d %s, want 200 with the resource", a.status, a.body)
	}
	// Served: the copy now gets the final refusal.
	if a := fetchPaid(t, tester, testutil.SiteURL+"/x", header); a.status != http.StatusPaymentRequired || a.Error != x402.ErrTextAlreadyUsed || a.retryAfter != "" {
		t.Errorf("copy after delivery: %d Retry-After %q %s, want 402 %q", a.status, a.retryAfter, a.body, x402.ErrTextAlreadyUsed)
	}
	if n := ran.Load(); n != 1 {
		t.Errorf("the upstream ran %d times, want once", n)
	}
	testutil.AssertDelta(t, "buyer", before, testutil.Balance(t, buyerAddr), -11)
}

// TestOtherAuthorizationSameNonce: a different authorization (another
// validBefore) with the nonce of a payment in flight is answered 409 that
// says so; once the first was served, 402 that says so. And one whose
// first payment is paid but not delivered (the upstream failed) is not
// delivered what the first paid for: 402 (before, the record matched on
// payer and nonce alone and served it); the first's own retry gets it.
func TestOtherAuthorizationSameNonce(t *testing.T) {
	var calls atomic.Int32
	failFirst := &atomic.Bool{}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if failFirst.CompareAndSwap(true, false) {
			http.Error(w, "upstream down", http.StatusBadGateway)
			return
		}
		fmt.Fprintf(w, "resource tx=%s", r.Header.Get(httpx.HeaderTxHash))
	}))
	t.Cleanup(up.Close)
	tester := testutil.NewTester(t, testutil.GlobalBlock("settle_timeout 30s")+fmt.Sprintf(`
:%d {
	x402 {
		pay_to %s
		amount 12
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.SellerAddr, up.Listener.Addr()))
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	reqs := testutil.Require402(t, tester, testutil.SiteURL+"/y").PaymentRequirements
	before := testutil.Balance(t, buyerAddr)

	// In flight, then served.
	var nonce [32]byte
	copy(nonce[:], crypto.Keccak256([]byte(t.Name()+time.Now().String())))
	a, b := signWithNonce(t, buyer, reqs, nonce, 10*time.Minute), signWithNonce(t, buyer, reqs, nonce, 11*time.Minute)
	waitSent, resume := inFlightChain(t)
	first := make(chan answerOf, 1)
	go func() { first <- fetchPaid(t, tester, testutil.SiteURL+"/y", a) }()
	waitSent()
	got := fetchPaid(t, tester, testutil.SiteURL+"/y", b)
	wantBody := `{"error":"` + textOtherAuthBusy + `","retry":"` + retryOtherAuthBusy + `","retryAfterSeconds":2,"x402Version":1}` + "\n"
	if got.status != http.StatusConflict || got.retryAfter != "2" || got.body != wantBody {
		t.Errorf("other authorization while the first settles: %d Retry-After %q %s\nwant 409 %s", got.status, got.retryAfter, got.body, wantBody)
	}
	resume()
	if r := <-first; r.status != http.StatusOK {
		t.Fatalf("first request: %d %s", r.status, r.body)
	}
	if got := fetchPaid(t, tester, testutil.SiteURL+"/y", b); got.status != http.StatusPaymentRequired || got.Error != textOtherAuthUsed {
		t.Errorf("other authorization after delivery: %d %s, want 402 %q", got.status, got.body, textOtherAuthUsed)
	}

	// Paid, not delivered: the upstream fails the first time.
	copy(nonce[:], crypto.Keccak256([]byte(t.Name()+"2"+time.Now().String())))
	a, b = signWithNonce(t, buyer, reqs, nonce, 10*time.Minute), signWithNonce(t, buyer, reqs, nonce, 11*time.Minute)
	failFirst.Store(true)
	if r := fetchPaid(t, tester, testutil.SiteURL+"/y", a); r.status != http.StatusBadGateway {
		t.Fatalf("first request with the failing upstream: %d %s, want 502", r.status, r.body)
	}
	if got := fetchPaid(t, tester, testutil.SiteURL+"/y", b); got.status != http.StatusPaymentRequired || got.Error != textOtherAuthUsed {
		t.Errorf("other authorization while the first is paid, not delivered: %d %s, want 402 %q", got.status, got.body, textOtherAuthUsed)
	}
	if r := fetchPaid(t, tester, testutil.SiteURL+"/y", a); r.status != http.StatusOK || !strings.HasPrefix(r.body, "resource tx=0x") {
		t.Errorf("the first payment's retry: %d %s, want the resource", r.status, r.body)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("the upstream ran %d times, want 3 (served, failed, served)", n)
	}
	testutil.AssertDelta(t, "buyer", before, testutil.Balance(t, buyerAddr), -24)
}

// TestFailedOnChainNamesTransaction: a settlement that passed simulation
// and reverted in its block (the payer moved its tokens away, with a
// higher tip, in the same block) is answered 402 with the transaction in
// the reason, and that transaction is on chain with status 0.
func TestFailedOnChainNamesTransaction(t *testing.T) {
	up, ran := countingUpstream(t, 0)
	tester := testutil.NewTester(t, testutil.GlobalBlock("settle_timeout 30s")+fmt.Sprintf(`
:%d {
	x402 {
		pay_to %s
		amount 13
	}
	reverse_proxy %s
}
`, testutil.SitePort, testutil.SellerAddr, up.Listener.Addr()))
	chain := testutil.ActiveChain(t)
	ctx := context.Background()
	// A payer of its own: 13 tokens and gas.
	payer, _ := crypto.GenerateKey()
	payerAddr := crypto.PubkeyToAddress(payer.PublicKey)
	if err := chain.Mint(ctx, payerAddr, big.NewInt(13)); err != nil {
		t.Fatal(err)
	}
	if err := chain.SendValue(t.Context(), testutil.BuyerKey(t, devnet.Buyer3PrivateKey), payerAddr, big.NewInt(params.Ether)); err != nil {
		t.Fatal(err)
	}
	header := testutil.Pay(t, payer, testutil.Require402(t, tester, testutil.SiteURL+"/z").PaymentRequirements)

	waitSent, resume := inFlightChain(t)
	first := make(chan answerOf, 1)
	go func() { first <- fetchPaid(t, tester, testutil.SiteURL+"/z", header) }()
	waitSent()
	// The payer sends its tokens away, tipping far above the settlement.
	tok, err := token.NewEIP3009Token(chain.Token(), chain.Client())
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := bind.NewKeyedTransactorWithChainID(payer, chain.ChainID())
	opts.GasTipCap = big.NewInt(1000 * params.GWei)
	opts.GasFeeCap = big.NewInt(2000 * params.GWei)
	opts.GasLimit = 100_000
	drain, err := tok.Transfer(opts, common.HexToAddress(testutil.SellerAddr), big.NewInt(13))
	if err != nil {
		t.Fatal(err)
	}
	chain.Mine()
	resume()

	got := <-first
	if got.status != http.StatusPaymentRequired || !strings.HasPrefix(got.Error, x402.ErrTextFailedOnChain+": transaction 0x") {
		t.Fatalf("settle that reverted: %d %s, want 402 %q naming the transaction", got.status, got.body, x402.ErrTextFailedOnChain)
	}
	hash := strings.Fields(strings.TrimPrefix(got.Error, x402.ErrTextFailedOnChain+": transaction "))[0]
	if want := fmt.Sprintf(textFailedOnChainTx, x402.ErrTextFailedOnChain, hash); got.Error != want {
		t.Errorf("reason %q, want %q", got.Error, want)
	}
	r, err := chain.Client().TransactionReceipt(ctx, common.HexToHash(hash))
	if err != nil || r.Status != types.ReceiptStatusFailed {
		t.Errorf("the named transaction %s: receipt %v, %v; want one with status 0", hash, r, err)
	}
	if r, err := chain.Client().TransactionReceipt(ctx, drain.Hash()); err != nil || r.Status != types.ReceiptStatusSuccessful {
		t.Errorf("the payer's own transfer: %v, %v", r, err)
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("the upstream ran %d times for a payment that did not move", n)
	}
}
