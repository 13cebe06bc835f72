package paywall

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
	"github.com/caddy-x402/caddy-x402/internal/pgtest"
)

// The sellers of the receipt look-up tests, paid by no other test.
const (
	lookupPayTo     = "0x0000000000000000000000000000000000ec5e34"
	lookupHangPayTo = "0x0000000000000000000000000000000000ec6e34"
)

// receiptLookupSite is the Caddyfile of the look-up tests: exact routes
// with and without offer_receipt, an upto route settling after its
// answer, and an exact settle after route whose buyer hangs up (its
// retries, sent until the charge has answered, are not limited).
const receiptLookupSite = `
:%[1]d {
	x402_path_guard
	handle /jws {
		x402 {
			pay_to %[2]s
			amount 21
			network eip155:338
			offer_receipt jws
		}
		respond "paid content"
	}
	handle /eip712 {
		x402 {
			pay_to %[2]s
			amount 21
			network eip155:338
			offer_receipt eip712
		}
		respond "paid content"
	}
	handle /notx {
		x402 {
			pay_to %[2]s
			amount 21
			network eip155:338
			offer_receipt jws
			receipt_transaction off
		}
		respond "paid content"
	}
	handle /plain {
		x402 {
			pay_to %[2]s
			amount 21
			network eip155:338
		}
		respond "paid content"
	}
	handle_path /upto/* {
		x402 {
			pay_to %[2]s
			price 0.01
			scheme upto
			meter json usage.total_tokens 0.000002
			settle after
			offer_receipt jws
		}
		reverse_proxy %[3]s
	}
	handle_path /hang/* {
		x402 {
			pay_to %[4]s
			amount 17
			network eip155:338
			settle after
			offer_receipt eip712
			attempt_limit off
		}
		reverse_proxy %[5]s
	}
}
`

// lookupURL is the receipt look-up of the test site with query q.
func lookupURL(q string) string { return testutil.SiteURL + "/.well-known/x402/receipt?" + q }

// keptReceipt is the receipt info of a settlement response (the Base64
// JSON of PAYMENT-RESPONSE) in its bytes, as the answer carried it.
func keptReceipt(t *testing.T, v string) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		t.Fatalf("settlement response %q: %v", v, err)
	}
	var sr struct {
		Transaction string `json:"transaction"`
		Extensions  map[string]struct {
			Info json.RawMessage `json:"info"`
		} `json:"extensions"`
	}
	if err := json.Unmarshal(raw, &sr); err != nil || len(sr.Extensions[offerreceipt.Name].Info) == 0 {
		t.Fatalf("settlement response %s has no receipt (%v)", raw, err)
	}
	return sr.Extensions[offerreceipt.Name].Info
}

// lookUp asks the look-up and checks the status; it answers the body.
func lookUp(t *testing.T, tester *caddytest.Tester, q string, status int) []byte {
	t.Helper()
	resp, b := testutil.Get(t, tester, lookupURL(q), nil)
	if resp.StatusCode != status {
		t.Fatalf("look-up ?%s: %d %s, want %d", q, resp.StatusCode, b, status)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("look-up ?%s: Content-Type %q", q, ct)
	}
	return b
}

// transactionOf is the settlement's transaction of a PAYMENT-RESPONSE.
func transactionOf(t *testing.T, v string) string {
	t.Helper()
	raw, _ := base64.StdEncoding.DecodeString(v)
	var sr struct {
		Transaction string `json:"transaction"`
	}
	if err := json.Unmarshal(raw, &sr); err != nil || sr.Transaction == "" {
		t.Fatalf("settlement response %s: no transaction (%v)", raw, err)
	}
	return sr.Transaction
}

// TestReceiptLookup (issue 34): a paid exact request's receipt is fetched
// again by its transaction (in any case) and by its payer and payment id,
// byte for byte what PAYMENT-RESPONSE carried; so is an upto receipt
// settled after its answer (the trailer's), and the receipt of an exact
// settle after payment whose buyer hung up (charged, never answered),
// found by its payment id and then by its transaction, which is on chain.
// A receipt that names no transaction (receipt_transaction off) is found
// by its payment id, not by its transaction. A payment of a route without
// offer_receipt, an unknown transaction or payment id: 404; a malformed query: 400, with exact texts.
func TestReceiptLookup(t *testing.T) {
	t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
	release := make(chan struct{})
	close(release)
	metered := meteredUpstream(t, release)
	hang, hangSrv := newHangUpstream(t)
	// settle_timeout 5s: the pending answer, while the chain stalls, comes
	// within the client's timeout.
	tester := testutil.NewTester(t, testutil.GlobalBlock("receipt_key {env.X402_TEST_RECEIPT_A}\n\t\tsettle_timeout 5s")+fmt.Sprintf(receiptLookupSite,
		testutil.SitePort, lookupPayTo, metered.Listener.Addr(), lookupHangPayTo, hangSrv.Listener.Addr()))
	_, keys := didDocument(t, tester)
	buyer := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	payer := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	asset := devnet.TokenAddress.Hex()
	notFound := `{"error":"no receipt is kept for this payment: it is unknown, its record was pruned (an hour after its authorization expired), or its route signs no receipts (offer_receipt), or none that name their transaction (receipt_transaction off) when asked by transaction"}` + "\n"

	for _, path := range []string{"/jws", "/eip712"} {
		t.Run("exact "+path, func(t *testing.T) {
			u := testutil.SiteURL + path
			id := "lookup-" + strings.TrimPrefix(path, "/") + fmt.Sprint(time.Now().UnixNano())
			before := testutil.Balance(t, lookupPayTo)
			resp, b := testutil.Get(t, tester, u, map[string]string{"Payment-Signature": payWithID(t, buyer, offerV2(t, tester, u), id, nil)})
			if resp.StatusCode != http.StatusOK || string(b) != "paid content" {
				t.Fatalf("paid: %d %s", resp.StatusCode, b)
			}
			testutil.AssertDelta(t, "seller", before, testutil.Balance(t, lookupPayTo), 21)
			v := resp.Header.Get("Payment-Response")
			want, tx := keptReceipt(t, v), transactionOf(t, v)

			for _, q := range []string{
				"transaction=" + tx,
				"transaction=0x" + strings.ToUpper(tx[2:]),
				"payer=" + payer + "&payment_id=" + id,
				"payer=" + strings.ToLower(payer) + "&payment_id=" + id,
			} {
				if got := lookUp(t, tester, q, http.StatusOK); string(got) != string(want) {
					t.Errorf("look-up ?%s = %s, want PAYMENT-RESPONSE's %s", q, got, want)
				}
			}
			var info offerreceipt.ReceiptInfo
			if err := json.Unmarshal(want, &info); err != nil {
				t.Fatal(err)
			}
			r, err := offerreceipt.VerifyReceipt(info, keys)
			if err != nil || r.Transaction != tx || !strings.EqualFold(r.Payer, payer) || r.ResourceURL != u || r.Charge.Amount != "21" {
				t.Errorf("the fetched receipt %+v (%v)", r, err)
			}
			// Another payer's id, or another id: not found.
			lookUp(t, tester, "payer="+lookupPayTo+"&payment_id="+id, http.StatusNotFound)
			if got := lookUp(t, tester, "payer="+payer+"&payment_id="+id+"x", http.StatusNotFound); string(got) != notFound {
				t.Errorf("an unknown payment id: %s", got)
			}
		})
	}

	t.Run("pending, then paid", func(t *testing.T) {
		// While the chain stalls: the pending 402 carries the route's signed
		// offers (its body's accepts entry); the same payment again once
		// mined gets the resource and its receipt, which the look-up
		// answers.
		u := testutil.SiteURL + "/jws"
		id := "lookup-pending" + fmt.Sprint(time.Now().UnixNano())
		header := payWithID(t, buyer, offerV2(t, tester, u), id, nil)
		chain := testutil.ActiveChain(t)
		chain.PauseMining()
		defer chain.ResumeMining()
		from := time.Now().Unix()
		resp, b := testutil.Get(t, tester, u, map[string]string{"Payment-Signature": header})
		to := time.Now().Unix()
		var pending struct {
			Error      string                     `json:"error"`
			TxHash     string                     `json:"txHash"`
			Accepts    []x402.PaymentRequirements `json:"accepts"`
			Extensions json.RawMessage            `json:"extensions"`
		}
		if err := json.Unmarshal(b, &pending); err != nil || resp.StatusCode != http.StatusPaymentRequired || pending.Error != x402.ErrTextPending || len(pending.Accepts) != 1 {
			t.Fatalf("while the chain stalls: %d %s", resp.StatusCode, b)
		}
		offers := offersIn(t, pending.Extensions)
		if len(offers) != 1 {
			t.Fatalf("the pending 402's offers: %s", b)
		}
		a := pending.Accepts[0]
		checkOffer(t, offers[0], keys, offerreceipt.JWS, offerreceipt.Requirement{Scheme: a.Scheme, Network: a.Network, Asset: a.Asset, PayTo: a.PayTo, Amount: a.MaxAmountRequired},
			u, from, to)
		lookUp(t, tester, "payer="+payer+"&payment_id="+id, http.StatusNotFound) // not paid yet: no receipt
		chain.ResumeMining()

		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			resp, b = testutil.Get(t, tester, u, map[string]string{"Payment-Signature": header})
			if resp.StatusCode == http.StatusOK {
				break
			}
			if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ErrTextPending) || time.Now().After(deadline) {
				t.Fatalf("the payment again: %d %s", resp.StatusCode, b)
			}
		}
		v := resp.Header.Get("Payment-Response")
		want, tx := keptReceipt(t, v), transactionOf(t, v)
		if tx != pending.TxHash {
			t.Errorf("paid by %s, pending named %s", tx, pending.TxHash)
		}
		for _, q := range []string{"transaction=" + tx, "payer=" + payer + "&payment_id=" + id} {
			if got := lookUp(t, tester, q, http.StatusOK); string(got) != string(want) {
				t.Errorf("look-up ?%s = %s, want PAYMENT-RESPONSE's %s", q, got, want)
			}
		}
	})

	t.Run("a route without offer_receipt", func(t *testing.T) {
		u := testutil.SiteURL + "/plain"
		resp, b := testutil.Get(t, tester, u, map[string]string{"Payment-Signature": payWithID(t, buyer, offerV2(t, tester, u), "", nil)})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("paid: %d %s", resp.StatusCode, b)
		}
		tx := transactionOf(t, resp.Header.Get("Payment-Response"))
		if got := lookUp(t, tester, "transaction="+tx, http.StatusNotFound); string(got) != notFound {
			t.Errorf("the look-up of a payment without a receipt: %s", got)
		}
	})

	t.Run("receipt_transaction off", func(t *testing.T) {
		// By its payment id, not by the transaction its receipt leaves out.
		u := testutil.SiteURL + "/notx"
		id := "lookup-notx" + fmt.Sprint(time.Now().UnixNano())
		resp, b := testutil.Get(t, tester, u, map[string]string{"Payment-Signature": payWithID(t, buyer, offerV2(t, tester, u), id, nil)})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("paid: %d %s", resp.StatusCode, b)
		}
		v := resp.Header.Get("Payment-Response")
		want, tx := keptReceipt(t, v), transactionOf(t, v)
		if got := lookUp(t, tester, "payer="+payer+"&payment_id="+id, http.StatusOK); string(got) != string(want) {
			t.Errorf("by payment id: %s, want %s", got, want)
		}
		if got := lookUp(t, tester, "transaction="+tx, http.StatusNotFound); string(got) != notFound {
			t.Errorf("by the transaction its receipt does not name: %s", got)
		}
	})

	t.Run("upto settle after", func(t *testing.T) {
		// Buyer4, as the other upto tests: TestUptoPayCommand needs Buyer5
		// without a Permit2 allowance.
		key := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
		approvePermit2(t, key)
		u := testutil.SiteURL + "/upto/json?tokens=100"
		resp, b := testutil.Get(t, tester, u, map[string]string{"Payment-Signature": payUpto(t, tester, key, u)})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("paid: %d %s", resp.StatusCode, b)
		}
		v := resp.Trailer.Get("Payment-Response")
		want, tx := keptReceipt(t, v), transactionOf(t, v)
		got := lookUp(t, tester, "transaction="+tx, http.StatusOK)
		if string(got) != string(want) {
			t.Errorf("look-up = %s, want the trailer's %s", got, want)
		}
		var info offerreceipt.ReceiptInfo
		_ = json.Unmarshal(got, &info)
		if r, err := offerreceipt.VerifyReceipt(info, keys); err != nil || r.Charge == nil || r.Charge.Amount != "200" || r.Charge.MaxAmount != "10000" ||
			r.Charge.Usage != "usage.total_tokens=100" || r.Transaction != tx {
			t.Errorf("the fetched upto receipt %+v %+v (%v)", r, r.Charge, err)
		}
	})

	t.Run("upto settle after, its transaction pending", func(t *testing.T) {
		// The metered charge waits for a block past the settle timeout:
		// the trailer says pending and no receipt is signed. The same
		// payment sent again once mined finds it settled, and the receipt
		// signed then states the meter's reading too (kept in the record
		// before the settle), as the look-up shows.
		key := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
		approvePermit2(t, key)
		u := testutil.SiteURL + "/upto/json?tokens=150"
		hdr := map[string]string{"Payment-Signature": payUpto(t, tester, key, u)}
		chain := testutil.ActiveChain(t)
		chain.PauseMining()
		defer chain.ResumeMining()
		resp, b := testutil.Get(t, tester, u, hdr)
		pending := resp.Trailer.Get("Payment-Response")
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"total_tokens":150`) || pending == "" {
			t.Fatalf("paid while the chain stalls: %d %s, trailer %q", resp.StatusCode, b, pending)
		}
		if raw, _ := base64.StdEncoding.DecodeString(pending); !strings.Contains(string(raw), x402.ErrTextPending) || strings.Contains(string(raw), offerreceipt.Name) {
			t.Fatalf("the trailer while the chain stalls: %s, want pending with no receipt", raw)
		}
		chain.ResumeMining()
		var v string
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			resp, b = testutil.Get(t, tester, u, hdr)
			if v = resp.Header.Get("Payment-Response"); v == "" {
				v = resp.Trailer.Get("Payment-Response")
			}
			if raw, _ := base64.StdEncoding.DecodeString(v); strings.Contains(string(raw), offerreceipt.Name) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the payment sent again once mined: %d %s, PAYMENT-RESPONSE %q", resp.StatusCode, b, v)
			}
		}
		tx := transactionOf(t, v)
		got := lookUp(t, tester, "transaction="+tx, http.StatusOK)
		var info offerreceipt.ReceiptInfo
		_ = json.Unmarshal(got, &info)
		if r, err := offerreceipt.VerifyReceipt(info, keys); err != nil || r.Charge == nil || r.Charge.Amount != "300" || r.Charge.MaxAmount != "10000" ||
			r.Charge.Usage != "usage.total_tokens=150" || r.Transaction != tx {
			t.Errorf("the receipt signed once mined %+v %+v (%v)", r, r.Charge, err)
		}
	})

	t.Run("exact settle after, the buyer hung up", func(t *testing.T) {
		u := testutil.SiteURL + "/hang/slow"
		id := "lookup-hang" + fmt.Sprint(time.Now().UnixNano())
		pay := payWithID(t, buyer, offerV2(t, tester, u), id, nil)
		before := testutil.Balance(t, lookupHangPayTo)
		if _, _, hung := hangUpOn(t, hang, http.MethodGet, u, "", map[string]string{"Payment-Signature": pay}); !hung {
			t.Fatal("the request did not reach the upstream")
		}
		awaitCharge(func() bool { return testutil.Balance(t, lookupHangPayTo).Cmp(before) != 0 })
		testutil.AssertDelta(t, "seller", before, testutil.Balance(t, lookupHangPayTo), 17)
		// The record is written once the settle has answered: the look-up
		// finds it then (404 until).
		q := "payer=" + payer + "&payment_id=" + id
		var byID []byte
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if resp, b := testutil.Get(t, tester, lookupURL(q), nil); resp.StatusCode == http.StatusOK {
				byID = b
				break
			}
		}
		if byID == nil {
			t.Fatalf("the receipt of the hung-up payment is not kept: ?%s answers %s", q, lookUp(t, tester, q, http.StatusNotFound))
		}
		var info offerreceipt.ReceiptInfo
		if err := json.Unmarshal(byID, &info); err != nil {
			t.Fatal(err)
		}
		r, err := offerreceipt.VerifyReceipt(info, keys)
		if err != nil || r.Transaction == "" || !strings.EqualFold(r.Payer, payer) || r.ResourceURL != u ||
			*r.Charge != (offerreceipt.Charge{Scheme: "exact", Asset: asset, PayTo: lookupHangPayTo, Amount: "17"}) {
			t.Fatalf("the hung-up payment's receipt %+v %+v (%v)", r, r.Charge, err)
		}
		// Its transaction is the one that paid the seller, on chain.
		rc, err := testutil.ActiveChain(t).Client().TransactionReceipt(t.Context(), common.HexToHash(r.Transaction))
		if err != nil || rc.Status != 1 {
			t.Fatalf("the receipt's transaction %s: %+v %v", r.Transaction, rc, err)
		}
		if got := lookUp(t, tester, "transaction="+r.Transaction, http.StatusOK); string(got) != string(byID) {
			t.Errorf("by transaction %s, want by payment id %s", got, byID)
		}
	})

	t.Run("exact settle after, the buyer hung up, its transaction pending", func(t *testing.T) {
		// The charge of a buyer who hung up waits for a block past the
		// settle timeout: the record says pending, with no receipt. A retry
		// once mined finds it settled (402, the answer lost) and keeps
		// its receipt, which the look-up then answers.
		u := testutil.SiteURL + "/hang/slow"
		id := "lookup-hangpending" + fmt.Sprint(time.Now().UnixNano())
		hdr := map[string]string{"Payment-Signature": payWithID(t, buyer, offerV2(t, tester, u), id, nil)}
		before := testutil.Balance(t, lookupHangPayTo)
		chain := testutil.ActiveChain(t)
		chain.PauseMining()
		defer chain.ResumeMining()
		if _, _, hung := hangUpOn(t, hang, http.MethodGet, u, "", hdr); !hung {
			t.Fatal("the request did not reach the upstream")
		}
		resp, b := retryHungUp(t, hang, http.MethodGet, u, "", hdr) // 409 until the charge has answered pending
		if resp.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), x402.ErrTextPending) {
			t.Fatalf("a retry while the charge is pending: %d %s", resp.StatusCode, b)
		}
		q := "payer=" + payer + "&payment_id=" + id
		lookUp(t, tester, q, http.StatusNotFound)
		chain.ResumeMining()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			resp, b = retryHungUp(t, hang, http.MethodGet, u, "", hdr)
			if errorOf(resp, b) == textAnswerLost {
				break
			}
			if !strings.Contains(string(b), x402.ErrTextPending) || time.Now().After(deadline) {
				t.Fatalf("a retry once mined: %d %s, want 402 %q", resp.StatusCode, b, textAnswerLost)
			}
		}
		testutil.AssertDelta(t, "seller", before, testutil.Balance(t, lookupHangPayTo), 17)
		byID := lookUp(t, tester, q, http.StatusOK)
		var info offerreceipt.ReceiptInfo
		if err := json.Unmarshal(byID, &info); err != nil {
			t.Fatal(err)
		}
		r, err := offerreceipt.VerifyReceipt(info, keys)
		if err != nil || r.Transaction == "" || !strings.EqualFold(r.Payer, payer) || r.Charge == nil || r.Charge.Amount != "17" {
			t.Fatalf("the receipt %+v (%v)", r, err)
		}
		if got := lookUp(t, tester, "transaction="+r.Transaction, http.StatusOK); string(got) != string(byID) {
			t.Errorf("by transaction %s, want by payment id %s", got, byID)
		}
	})

	t.Run("malformed queries", func(t *testing.T) {
		tx := "0x" + strings.Repeat("ab", 32)
		const (
			textQuery = "give transaction=0x… (the settlement's transaction hash), or payer=0x… and payment_id=… (the payment identifier the payment was sent with)"
			textTx    = "transaction must be a 0x-prefixed 32-byte hex hash (66 characters)"
			textPayer = "payer must be a 0x-prefixed 20-byte hex address (42 characters)"
			textID    = "payment_id must be 16 to 128 characters, each a letter, a digit, - or _"
		)
		for _, tc := range []struct{ q, want string }{
			{"", textQuery},
			{"transaction=" + tx + "&payer=" + payer + "&payment_id=lookup-1234567890", textQuery},
			{"payer=" + payer, textQuery},
			{"payment_id=lookup-1234567890", textQuery},
			{"transaction=" + tx[2:], textTx},
			{"transaction=" + tx[:64], textTx},
			{"transaction=0x" + strings.Repeat("zz", 32), textTx},
			{"payer=0x1234&payment_id=lookup-1234567890", textPayer},
			{"payer=" + payer[2:] + "&payment_id=lookup-1234567890", textPayer},
			{"payer=" + payer + "&payment_id=short", textID},
			{"payer=" + payer + "&payment_id=has%20space%20in%20it!", textID},
			{"transaction=" + strings.Repeat("a", 600), "the query is over 512 bytes"},
		} {
			b := lookUp(t, tester, tc.q, http.StatusBadRequest)
			if want := `{"error":` + string(mustJSON(t, tc.want)) + "}\n"; string(b) != want {
				t.Errorf("?%s: %s, want %s", tc.q, b, want)
			}
		}
		if got := lookUp(t, tester, "transaction="+tx, http.StatusNotFound); string(got) != notFound {
			t.Errorf("an unknown transaction: %s", got)
		}
	})
}

// TestReceiptLookupStoreDown: with the shared store (PostgreSQL) out of
// reach, the look-up answers 503 with Retry-After, not a 500 nor a 404.
func TestReceiptLookupStoreDown(t *testing.T) {
	t.Setenv("X402_TEST_RECEIPT_A", receiptKeyA)
	srv := pgtest.Start(t)
	// Another store: the signer's engine must start afresh with it, so the
	// running config goes first; and it stops before the database does.
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	tester := testutil.NewTester(t, testutil.GlobalBlock("receipt_key {env.X402_TEST_RECEIPT_A}\n\t\tstorage postgres "+srv.DSN(t))+fmt.Sprintf(receiptLookupSite,
		testutil.SitePort, lookupPayTo, "127.0.0.1:9", lookupHangPayTo, "127.0.0.1:9"))
	q := "transaction=0x" + strings.Repeat("cd", 32)
	resp, b := testutil.Get(t, tester, lookupURL(q), nil)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("with the store up: %d %s, want 404", resp.StatusCode, b)
	}
	srv.Stop(t)
	resp, b = testutil.Get(t, tester, lookupURL(q), nil)
	want := `{"error":"the payment records cannot be read right now","retry":"ask again in a moment","retryAfterSeconds":2,"x402Version":1}` + "\n"
	if resp.StatusCode != http.StatusServiceUnavailable || string(b) != want || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("with the store down: %d (Retry-After %q) %s, want 503 %s", resp.StatusCode, resp.Header.Get("Retry-After"), b, want)
	}
}
