package paywall

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/caddymodule/x402cmd"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

const pidSeller = "0x5e44e5e44e5e44e5e44e5e44e5e44e5e44e5e444"

// v2Offer is a route's v2 402: its accepts[0] and resource.
type v2Offer struct {
	accepted   x402.RequirementsV2
	resource   *x402.ResourceInfo
	extensions json.RawMessage // as sent
}

// offerV2 fetches url unpaid and decodes its PAYMENT-REQUIRED header.
func offerV2(t *testing.T, tester *caddytest.Tester, url string) v2Offer {
	t.Helper()
	resp, b := testutil.Get(t, tester, url, nil)
	if resp.StatusCode != http.StatusPaymentRequired {
		t.Fatalf("GET %s unpaid: %d %s", url, resp.StatusCode, b)
	}
	var pr struct {
		x402.PaymentRequiredV2
		Extensions json.RawMessage `json:"extensions"`
	}
	if err := x402.DecodeBase64JSON(resp.Header.Get("Payment-Required"), &pr); err != nil || len(pr.Accepts) != 1 {
		t.Fatalf("PAYMENT-REQUIRED of %s: %v %+v", url, err, pr)
	}
	return v2Offer{accepted: pr.Accepts[0], resource: pr.Resource, extensions: pr.Extensions}
}

// payWithID signs a fresh v2 payment for the offer and adds the
// payment-identifier extension as the published client does (the seller's
// declaration echoed, info.id added): id "" echoes it without an id, and
// rawID, when set, is written as info.id as it is (any JSON).
func payWithID(t *testing.T, key *ecdsa.PrivateKey, o v2Offer, id string, rawID json.RawMessage) string {
	t.Helper()
	header, _, err := exact.CreatePaymentV2(key, o.accepted, o.resource, exact.PaymentOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := x402.DecodeBase64(header)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	info := map[string]any{"required": false}
	switch {
	case rawID != nil:
		info["id"] = rawID
	case id != "":
		info["id"] = id
	}
	m["extensions"] = map[string]any{x402.ExtPaymentIdentifier: map[string]any{
		"info": info, "schema": x402.DeclarePaymentIdentifier(false).Schema}}
	b, _ := json.Marshal(m)
	return base64.StdEncoding.EncodeToString(b)
}

// TestPaymentIdentifier drives the payment-identifier extension through a
// real Caddy and the devnet, step by step (the store carries over): the
// declaration in each mode, a paid id, the same payload again (not served
// twice), another payload under a known id (409, nothing moves), another
// resource, bad and missing ids (400), ids per payer, the id ignored when
// off and for version 1, settle after, a pending payment whose id is
// reused with a new authorization while it waits (409: never two charges
// for one id), and concurrent payloads under one id. Every step checks the
// exact status and body, the upstream's runs and the seller's balance.
func TestPaymentIdentifier(t *testing.T) {
	up, ran := countingUpstream(t, 0)
	tester := testutil.NewTester(t, testutil.GlobalBlock("settle_timeout 1s")+fmt.Sprintf(`
:%d {
	x402 /pid {
		pay_to %[2]s
		amount 21
		network eip155:338
	}
	x402 /pid-other {
		pay_to %[2]s
		amount 21
		network eip155:338
	}
	x402 /pid-required {
		pay_to %[2]s
		amount 21
		network eip155:338
		payment_identifier required
	}
	x402 /pid-off {
		pay_to %[2]s
		amount 21
		network eip155:338
		payment_identifier off
	}
	x402 /pid-after {
		pay_to %[2]s
		amount 21
		network eip155:338
		settle after
	}
	reverse_proxy %[3]s
}
`, testutil.SitePort, pidSeller, up.Listener.Addr()))

	// The declaration, exactly as @x402/extensions 2.27.0 builds it.
	schema := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"required":{"type":"boolean"},` +
		`"id":{"type":"string","minLength":16,"maxLength":128,"pattern":"^[a-zA-Z0-9_-]+$"}},"required":["required"]}`
	offers := map[string]v2Offer{}
	for path, want := range map[string]string{
		"/pid":          `{"payment-identifier":{"info":{"required":false},"schema":` + schema + `}}`,
		"/pid-other":    `{"payment-identifier":{"info":{"required":false},"schema":` + schema + `}}`,
		"/pid-required": `{"payment-identifier":{"info":{"required":true},"schema":` + schema + `}}`,
		"/pid-off":      `{}`,
		"/pid-after":    `{"payment-identifier":{"info":{"required":false},"schema":` + schema + `}}`,
	} {
		o := offerV2(t, tester, testutil.SiteURL+path)
		if string(o.extensions) != want {
			t.Errorf("%s: extensions %s\nwant %s", path, o.extensions, want)
		}
		offers[path] = o
	}

	buyer, other := testutil.BuyerKey(t, devnet.Buyer3PrivateKey), testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	buyerAddr := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	const (
		idA = "pay_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		idB = "pay_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
		idC = "order-C_0123456789"
		idD = "pay_dddddddddddddddddddddddddddddddd"
	)
	first := payWithID(t, buyer, offers["/pid"], idA, nil) // sent again below
	after := payWithID(t, buyer, offers["/pid-after"], idD, nil)
	txs := map[string]string{} // transaction of each paid step

	conflict := func(id, text string) string {
		return `{"x402Version":2,"error":"` + text + `","paymentId":"` + id + `","retry":"` + retryPaymentIDConflict + "\"}\n"
	}
	delivered := func(id, step string) func() string {
		return func() string {
			return `{"x402Version":2,"error":"payment already delivered","paymentId":"` + id + `","transaction":"` + txs[step] +
				`","network":"eip155:338","payer":"` + buyerAddr + `","retry":"` + retryPaymentIDDelivered + "\"}\n"
		}
	}
	fixed := func(s string) func() string { return func() string { return s } }
	badFormat := fixed(`{"x402Version":2,"error":"` + x402.ReasonPaymentIDFormat + "\"}\n")

	steps := []struct {
		name   string
		path   string
		header func() map[string]string
		status int
		body   func() string // "" for the resource: "resource tx=<its transaction>"
		moved  int64
	}{
		{"new id: paid and served", "/pid", sig(func() string { return first }), 200, nil, 21},
		{"same id, same payload: not served twice", "/pid", sig(func() string { return first }), 409, delivered(idA, "new id: paid and served"), 0},
		{"same id, another payload: 409, nothing moves", "/pid", sig(func() string { return payWithID(t, buyer, offers["/pid"], idA, nil) }),
			409, fixed(conflict(idA, textPaymentIDConflict)), 0},
		{"same id, same payload, another resource", "/pid-other", sig(func() string { return first }),
			409, fixed(conflict(idA, textPaymentIDElsewhere)), 0},
		{"another id", "/pid", sig(func() string { return payWithID(t, buyer, offers["/pid"], idB, nil) }), 200, nil, 21},
		{"id too short", "/pid", sig(func() string { return payWithID(t, buyer, offers["/pid"], "pay_short", nil) }), 400, badFormat, 0},
		{"id with a slash", "/pid", sig(func() string { return payWithID(t, buyer, offers["/pid"], "pay_aaaaaaaaaaaaaaa/a", nil) }), 400, badFormat, 0},
		{"id not a string", "/pid", sig(func() string { return payWithID(t, buyer, offers["/pid"], "", json.RawMessage(`1234567890123456789`)) }), 400, badFormat, 0},
		{"declaration echoed without id", "/pid", sig(func() string { return payWithID(t, buyer, offers["/pid"], "", nil) }), 200, nil, 21},
		{"required, no id: 400", "/pid-required", sig(func() string { return payWithID(t, buyer, offers["/pid-required"], "", nil) }),
			400, fixed(`{"x402Version":2,"error":"` + x402.ReasonPaymentIDRequired + "\"}\n"), 0},
		{"required, id", "/pid-required", sig(func() string { return payWithID(t, buyer, offers["/pid-required"], idC, nil) }), 200, nil, 21},
		{"required: a version 1 payment is served as before", "/pid-required",
			func() map[string]string {
				return map[string]string{"X-Payment": testutil.Pay(t, buyer, testutil.Require402(t, tester, testutil.SiteURL+"/pid-required").PaymentRequirements)}
			}, 200, nil, 21},
		{"off: a known id is not read", "/pid-off", sig(func() string { return payWithID(t, buyer, offers["/pid-off"], idA, nil) }), 200, nil, 21},
		{"another payer's id is its own", "/pid", sig(func() string { return payWithID(t, other, offers["/pid"], idA, nil) }), 200, nil, 21},
		{"settle after: paid and served", "/pid-after", sig(func() string { return after }), 200, nil, 21},
		{"settle after: same id, same payload", "/pid-after", sig(func() string { return after }), 409, delivered(idD, "settle after: paid and served"), 0},
	}
	sellerStart, buyerStart := testutil.Balance(t, pidSeller), testutil.Balance(t, buyerAddr)
	metricsBefore := testutil.Scrape(t)
	var moved int64
	wantReasons := map[string]float64{}
	for _, s := range steps {
		switch s.status {
		case http.StatusConflict:
			wantReasons[reasonPaymentIDConflict]++
		case http.StatusBadRequest:
			wantReasons[reasonPaymentIDInvalid]++
		}
		seller, runs := testutil.Balance(t, pidSeller), ran.Load()
		resp, b := testutil.Get(t, tester, testutil.SiteURL+s.path, s.header())
		want := ""
		if s.status == http.StatusOK {
			var sr x402.ReferenceSettleResponse
			if h := resp.Header.Get("Payment-Response"); h != "" {
				_ = x402.DecodeBase64JSON(h, &sr)
			} else {
				sr.Transaction = paymentResponseOf(t, resp).TxHash
			}
			txs[s.name] = sr.Transaction
			want = "resource tx=" + sr.Transaction
			if s.path == "/pid-after" {
				want = "resource tx=" // settled as the answer starts: the upstream has no transaction
			}
			if len(sr.Transaction) != 66 {
				t.Errorf("%s: no transaction in the payment response", s.name)
			}
		} else {
			want = s.body()
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s: Content-Type %q", s.name, ct)
			}
		}
		if resp.StatusCode != s.status || string(b) != want {
			t.Errorf("%s: %d %s\nwant %d %s", s.name, resp.StatusCode, b, s.status, want)
		}
		wantRuns := runs
		if s.status == http.StatusOK {
			wantRuns++
		}
		if got := ran.Load(); got != wantRuns {
			t.Errorf("%s: the upstream ran %d times, want %d", s.name, got-runs, wantRuns-runs)
		}
		testutil.AssertDelta(t, s.name+": seller", seller, testutil.Balance(t, pidSeller), s.moved)
		moved += s.moved
	}
	// The metrics count each 409 and 400 as refused, with its own reason.
	metricsAfter := testutil.Scrape(t)
	for reason, want := range wantReasons {
		labels := map[string]string{"network": "cronos-testnet", "route": "21 to " + strings.ToLower(pidSeller), "outcome": OutcomeRefused, "reason": reason}
		a, _ := testutil.Sample(metricsAfter, "x402_payments_total", labels)
		b, _ := testutil.Sample(metricsBefore, "x402_payments_total", labels)
		if got := a - b; got != want {
			t.Errorf("x402_payments_total{outcome=refused,reason=%s} rose by %v, want %v", reason, a-b, want)
		}
	}
	testutil.AssertDelta(t, "seller", sellerStart, testutil.Balance(t, pidSeller), moved)
	// The other payer paid once; the buyer every other paid step.
	testutil.AssertDelta(t, "buyer", buyerStart, testutil.Balance(t, buyerAddr), -(moved - 21))
	if t.Failed() {
		t.FailNow()
	}

	t.Run("pending", func(t *testing.T) { testPaymentIDPending(t, tester, buyer, offers["/pid"]) })
	t.Run("concurrent", func(t *testing.T) { testPaymentIDConcurrent(t, tester, buyer, offers["/pid"]) })
	t.Run("caddy x402 pay", func(t *testing.T) { testPaymentIDPay(t) })
}

// testPaymentIDPay: "caddy x402 pay" pays a route that requires an id
// under a new one, and under --payment-id; run again with the same
// --payment-id, it gets 409 and pays nothing.
func testPaymentIDPay(t *testing.T) {
	pay := func(id string) (string, error) {
		var stdout, stderr strings.Builder
		err := x402cmd.RunPay(context.Background(), testutil.SiteURL+"/pid-required",
			x402cmd.PayOptions{Key: devnet.Buyer3PrivateKey, Method: http.MethodGet, Timeout: 10 * time.Second, PaymentID: id}, &stdout, &stderr)
		return stdout.String() + stderr.String(), err
	}
	seller := testutil.Balance(t, pidSeller)
	out, err := pay("")
	if err != nil || !strings.Contains(out, "x402: payment id pay_") || !strings.Contains(out, "resource tx=0x") {
		t.Fatalf("without --payment-id: %v\n%s", err, out)
	}
	const id = "pay_cli_0123456789abcdef"
	out, err = pay(id)
	if err != nil || !strings.Contains(out, "x402: payment id "+id+" ") {
		t.Fatalf("--payment-id %s: %v\n%s", id, err, out)
	}
	_, err = pay(id)
	want := testutil.SiteURL + "/pid-required answered 409 Conflict: " + textPaymentIDConflict + "; nothing was settled for this request"
	if err == nil || err.Error() != want {
		t.Fatalf("--payment-id %s again: %v\nwant %s", id, err, want)
	}
	if _, err := pay("pay/bad"); err == nil || !strings.Contains(err.Error(), x402.ReasonPaymentIDFormat) {
		t.Errorf("a bad --payment-id: %v", err)
	}
	testutil.AssertDelta(t, "seller", seller, testutil.Balance(t, pidSeller), 42)
}

// sig puts a header value in PAYMENT-SIGNATURE.
func sig(h func() string) func() map[string]string {
	return func() map[string]string { return map[string]string{"Payment-Signature": h()} }
}

// testPaymentIDPending: a payment whose transaction waits for a block
// holds its id. A new authorization under the id meanwhile (what a client
// that signs again on retry sends) is refused with 409 and never settles;
// the first payload sent again gets the resource once mined, and after
// that 409 "payment already delivered". One charge.
func testPaymentIDPending(t *testing.T, tester *caddytest.Tester, buyer *ecdsa.PrivateKey, o v2Offer) {
	const id = "pay_pending_0000000000000000"
	header := payWithID(t, buyer, o, id, nil)
	seller := testutil.Balance(t, pidSeller)

	chain := testutil.ActiveChain(t)
	chain.PauseMining()
	defer chain.ResumeMining()
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/pid", map[string]string{"Payment-Signature": header})
	var pending struct {
		Error  string `json:"error"`
		TxHash string `json:"txHash"`
	}
	if err := json.Unmarshal(b, &pending); err != nil || resp.StatusCode != http.StatusPaymentRequired || pending.Error != x402.ErrTextPending {
		t.Fatalf("while the chain stalls: %d %s", resp.StatusCode, b)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/pid", map[string]string{"Payment-Signature": payWithID(t, buyer, o, id, nil)})
	if want := `{"x402Version":2,"error":"` + textPaymentIDConflict + `","paymentId":"` + id + `","retry":"` + retryPaymentIDConflict + "\"}\n"; resp.StatusCode != http.StatusConflict || string(b) != want {
		t.Fatalf("a new authorization under a pending id: %d %s\nwant 409 %s", resp.StatusCode, b, want)
	}
	chain.ResumeMining()

	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, b = testutil.Get(t, tester, testutil.SiteURL+"/pid", map[string]string{"Payment-Signature": header})
		if resp.StatusCode == http.StatusOK {
			break
		}
		if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ErrTextPending) || time.Now().After(deadline) {
			t.Fatalf("the first payload again: %d %s", resp.StatusCode, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if want := "resource tx=" + pending.TxHash; string(b) != want {
		t.Errorf("served %q, want %q", b, want)
	}
	resp, b = testutil.Get(t, tester, testutil.SiteURL+"/pid", map[string]string{"Payment-Signature": header})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(b), `"error":"payment already delivered"`) ||
		!strings.Contains(string(b), `"transaction":"`+pending.TxHash+`"`) {
		t.Errorf("after delivery: %d %s", resp.StatusCode, b)
	}
	testutil.AssertDelta(t, "seller", seller, testutil.Balance(t, pidSeller), 21)
}

// testPaymentIDConcurrent sends eight authorizations under one id at
// once: one is served and charged, the other seven get 409 (in progress
// while the first is served, or bound to another payload after it).
func testPaymentIDConcurrent(t *testing.T, tester *caddytest.Tester, buyer *ecdsa.PrivateKey, o v2Offer) {
	const (
		id     = "pay_concurrent_000000000000"
		copies = 8
	)
	headers := make([]string, copies)
	for i := range headers {
		headers[i] = payWithID(t, buyer, o, id, nil)
	}
	seller := testutil.Balance(t, pidSeller)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		counts = map[string]int{}
	)
	for _, h := range headers {
		wg.Add(1)
		go func(h string) {
			defer wg.Done()
			resp, b := testutil.Get(t, tester, testutil.SiteURL+"/pid", map[string]string{"Payment-Signature": h})
			var a paymentIDAnswer
			_ = json.Unmarshal(b, &a)
			mu.Lock()
			counts[fmt.Sprintf("%d %s", resp.StatusCode, a.Error)]++
			mu.Unlock()
		}(h)
	}
	wg.Wait()
	if counts["200 "] != 1 || counts["409 "+textPaymentIDBusy]+counts["409 "+textPaymentIDConflict] != copies-1 {
		t.Errorf("answers %v: want one 200 and %d times 409", counts, copies-1)
	}
	testutil.AssertDelta(t, "seller", seller, testutil.Balance(t, pidSeller), 21)
}
