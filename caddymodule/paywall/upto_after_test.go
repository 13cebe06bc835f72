package paywall

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// setPermit2Allowance has a buyer approve Permit2 for amount on the
// devnet token (0 revokes it), and waits for it to be mined.
func setPermit2Allowance(t *testing.T, key *ecdsa.PrivateKey, amount *big.Int) {
	t.Helper()
	opts, err := bind.NewKeyedTransactorWithChainID(key, big.NewInt(devnet.ChainID))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts.Context = ctx
	tx, err := testutil.ChainToken.Approve(opts, devnet.Permit2Address, amount)
	if err != nil {
		t.Fatal(err)
	}
	if rc, err := bind.WaitMined(ctx, testutil.ChainClient, tx); err != nil || rc.Status != 1 {
		t.Fatalf("approve %s: %v %+v", amount, err, rc)
	}
}

// clearUptoAfterCoolOffs ends the paywall's cooling-offs of settle after
// (they live in the delivery records, which outlive a test's config), so
// that a payer a test made cool off pays as usual in the next test.
func clearUptoAfterCoolOffs(t *testing.T) {
	t.Helper()
	a, err := caddy.ActiveContext().App("x402")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.(*app.App).Deliveries().CoolOffs().PruneCoolOffs(time.Now().Add(100 * 24 * time.Hour)); err != nil {
		t.Fatal(err)
	}
}

// uptoAnswer is what a buyer got: status, body, header and trailer.
type uptoAnswer struct {
	status  int
	body    string
	header  http.Header
	trailer http.Header
}

// getUpto sends a paid request and reads the whole answer.
func getUpto(tester *caddytest.Tester, u, pay string) (uptoAnswer, error) {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set(x402.HeaderPaymentSignature, pay)
	resp, err := tester.Client.Do(req)
	if err != nil {
		return uptoAnswer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return uptoAnswer{resp.StatusCode, string(b), resp.Header, resp.Trailer}, err
}

// receiptOf decodes a PAYMENT-RESPONSE value ("" when absent).
func receiptOf(t *testing.T, v string) *x402.ReferenceSettleResponse {
	t.Helper()
	if v == "" {
		return nil
	}
	var rs x402.ReferenceSettleResponse
	if err := x402.DecodeBase64JSON(v, &rs); err != nil {
		t.Fatalf("PAYMENT-RESPONSE %q: %v", v, err)
	}
	return &rs
}

// sseWhole is the whole event stream of meteredUpstream's /sse.
func sseWhole(tokens int) string {
	return "data: {\"choices\":[{\"delta\":\"Hel\"}],\"usage\":null}\n\n" +
		fmt.Sprintf("data: {\"choices\":[{\"delta\":\"lo\"}],\"usage\":{\"total_tokens\":%d}}\n\ndata: [DONE]\n\n", tokens)
}

// TestUptoSettleAfterOnePerPayer: five concurrent settle-after streams of
// one payer, then approve(Permit2, 0) while they stream: one answer
// streamed (settle after) and went out unpaid, its trailer saying so; the
// four others were held (settle before) and answered 402 with the
// refusal, nothing of them delivered; no money moved. The payer then
// cools off: with its allowance back, its next answer is settled before
// it goes out (the receipt in the header, the whole answer with its
// length); once the cooling-off ends, settle after again (the turn was
// given back).
func TestUptoSettleAfterOnePerPayer(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 16)
	inner := meteredUpstream(t, release)
	target, _ := url.Parse(inner.URL)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(uptoCaddyfile, testutil.SitePort, uptoPayTo, up.Listener.Addr()))
	t.Cleanup(func() { clearUptoAfterCoolOffs(t) })
	key := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	from := crypto.PubkeyToAddress(key.PublicKey).Hex()
	approvePermit2(t, key)
	unlimited := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	defer setPermit2Allowance(t, key, unlimited) // as approvePermit2 left it, for the next tests

	const tokens = 50 // 50 x 0.000002 = 100 smallest units
	u := testutil.SiteURL + "/after/sse?tokens=" + strconv.Itoa(tokens)
	pays := make([]string, 5)
	for i := range pays {
		pays[i] = payUpto(t, tester, key, u)
	}
	bBefore, sBefore := testutil.Balance(t, from), testutil.Balance(t, uptoPayTo)
	type result struct {
		a   uptoAnswer
		err error
	}
	results := make(chan result, len(pays))
	for _, pay := range pays {
		go func() {
			a, err := getUpto(tester, u, pay)
			results <- result{a, err}
		}()
	}
	// All five reached the upstream (one streams, four are held), then
	// the payer revokes Permit2's allowance, then the answers end.
	for range pays {
		select {
		case <-arrived:
		case <-time.After(60 * time.Second):
			t.Fatal("the five requests did not all reach the upstream")
		}
	}
	setPermit2Allowance(t, key, new(big.Int))
	close(release)

	unpaid, refused := 0, 0
	for range pays {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		a := r.a
		switch a.status {
		case http.StatusOK:
			unpaid++
			if a.body != sseWhole(tokens) {
				t.Errorf("the streamed answer: %q", a.body)
			}
			rs := receiptOf(t, a.trailer.Get(x402.HeaderPaymentResponseV2))
			if rs == nil || rs.Success || rs.ErrorReason != x402.CodePermit2AllowanceRequired ||
				rs.ErrorMessage != x402.ReasonPermit2AllowanceRequired || rs.Transaction != "" {
				t.Errorf("the trailer receipt of the unpaid answer: %+v", rs)
			}
		case http.StatusPaymentRequired:
			refused++
			var body struct {
				Error string `json:"error"`
			}
			if err := json.Unmarshal([]byte(a.body), &body); err != nil || body.Error != x402.ReasonPermit2AllowanceRequired {
				t.Errorf("a held answer refused: %q %v", a.body, err)
			}
			if strings.Contains(a.body, "Hel") || a.trailer.Get(x402.HeaderPaymentResponseV2) != "" {
				t.Errorf("a refused answer carries the upstream's answer or a trailer: %q %v", a.body, a.trailer)
			}
		default:
			t.Errorf("an answer: %d %q", a.status, a.body)
		}
	}
	if unpaid != 1 || refused != 4 {
		t.Errorf("%d answers went out unpaid and %d were refused; want 1 and 4", unpaid, refused)
	}
	testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, from), 0)
	testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, uptoPayTo), 0)

	// Cooling off: the allowance back, the next answer is settled before
	// it goes out.
	setPermit2Allowance(t, key, unlimited)
	a, err := getUpto(tester, u, payUpto(t, tester, key, u))
	if err != nil {
		t.Fatal(err)
	}
	if a.status != http.StatusOK || a.body != sseWhole(tokens) {
		t.Fatalf("cooling off: %d %q", a.status, a.body)
	}
	if rs := receiptOf(t, a.header.Get(x402.HeaderPaymentResponseV2)); rs == nil || !rs.Success || rs.Amount != "100" || rs.Transaction == "" {
		t.Errorf("cooling off: the receipt in the header: %+v", rs)
	}
	if a.header.Get("Content-Length") != strconv.Itoa(len(sseWhole(tokens))) || len(a.trailer) != 0 {
		t.Errorf("cooling off: Content-Length %q, trailer %v; want the whole answer's length and no trailer", a.header.Get("Content-Length"), a.trailer)
	}
	testutil.AssertDelta(t, "seller, cooling off", sBefore, testutil.Balance(t, uptoPayTo), 100)

	// The cooling-off over, settle after again: the receipt in the trailer.
	clearUptoAfterCoolOffs(t)
	a, err = getUpto(tester, u, payUpto(t, tester, key, u))
	if err != nil {
		t.Fatal(err)
	}
	if a.status != http.StatusOK || a.body != sseWhole(tokens) || a.header.Get(x402.HeaderPaymentResponseV2) != "" {
		t.Fatalf("after the cooling-off: %d %q %v", a.status, a.body, a.header)
	}
	if rs := receiptOf(t, a.trailer.Get(x402.HeaderPaymentResponseV2)); rs == nil || !rs.Success || rs.Amount != "100" {
		t.Errorf("after the cooling-off: the trailer receipt: %+v", rs)
	}
	testutil.AssertDelta(t, "seller, after the cooling-off", sBefore, testutil.Balance(t, uptoPayTo), 200)
}
