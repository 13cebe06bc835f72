package paywall

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddytest"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The sellers of the tests of this file, paid by no other test.
const (
	wholeUptoPayTo    = "0x00000000000000000000000000000000000a9e32"
	wholeChannelPayTo = "0x00000000000000000000000000000000000c4e32"
	wholeExactPayTo   = "0x00000000000000000000000000000000000e7032"
)

// wholeDoc is the metered JSON answer of wholeUpstream: 1234 tokens, so
// 2468 smallest units at 2 a token. Its first 26 bytes are
// {"usage":{"total_tokens":1, which a meter reading them as a whole
// answer would charge 2.
var wholeDoc = []byte(`{"usage":{"total_tokens":1234},"answer":"forty-two"}`)

// wholeETag and wholeModified are wholeDoc's validators.
const wholeETag = `"v1"`

var wholeModified = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// wholeUpstream is a real upstream whose answers the buyer's request
// headers can cut, and one that misbehaves whatever it is asked:
//   - /doc: wholeDoc through http.ServeContent, which honours Range,
//     If-Range and the conditional headers (206, 304) as static file
//     servers do;
//   - /gz: wholeDoc, gzip-compressed when the request accepts gzip;
//   - /partial: always its first 26 bytes as a 206 (?o= states a
//     Settlement-Overrides header);
//   - /deflate: always a deflate-encoded event stream (stored blocks, so
//     its second event can be read in the encoded bytes), whose usage
//     says 1 token;
//   - /echo: wholeDoc, answering the request's Settlement-Overrides
//     header as its own (an upstream that echoes headers);
//   - /trailer: wholeDoc, with Settlement-Overrides {"amount":"0"} as a
//     trailer; /unannounced: the same, not announced in Trailer.
//
// The request headers of each request are kept (seen).
type wholeUpstream struct {
	mu   sync.Mutex
	seen []http.Header
}

func newWholeUpstream(t *testing.T) (*wholeUpstream, *httptest.Server) {
	u := &wholeUpstream{}
	srv := httptest.NewServer(u)
	t.Cleanup(srv.Close)
	return u, srv
}

// last is the request headers of the last request.
func (u *wholeUpstream) last() http.Header {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.seen) == 0 {
		return nil
	}
	return u.seen[len(u.seen)-1]
}

func (u *wholeUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.seen = append(u.seen, r.Header.Clone())
	u.mu.Unlock()
	switch r.URL.Path {
	case "/doc":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", wholeETag)
		http.ServeContent(w, r, "usage.json", wholeModified, bytes.NewReader(wholeDoc))
	case "/gz":
		w.Header().Set("Content-Type", "application/json")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			_, _ = w.Write(wholeDoc)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write(wholeDoc)
		_ = zw.Close()
	case "/partial":
		if o := r.URL.Query().Get("o"); o != "" {
			w.Header().Set(HeaderSettlementOverrides, o)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-25/%d", len(wholeDoc)))
		w.Header().Set("Content-Length", "26")
		w.WriteHeader(http.StatusPartialContent)
		_, _ = w.Write(wholeDoc[:26])
	case "/deflate":
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "deflate")
		zw, _ := flate.NewWriter(w, flate.NoCompression)
		fmt.Fprint(zw, "data: {\"x\":0}\n\ndata: {\"usage\":{\"total_tokens\":1}}\n\n")
		_ = zw.Close()
	case "/echo":
		if v := r.Header.Get(HeaderSettlementOverrides); v != "" {
			w.Header().Set(HeaderSettlementOverrides, v)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(wholeDoc)
	case "/trailer":
		w.Header().Set("Trailer", HeaderSettlementOverrides)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(wholeDoc)
		w.Header().Set(HeaderSettlementOverrides, `{"amount":"0"}`)
	case "/unannounced":
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(wholeDoc)
		w.(http.Flusher).Flush() // chunked, so that the trailer goes out
		w.Header().Set(http.TrailerPrefix+HeaderSettlementOverrides, `{"amount":"0"}`)
	default:
		http.NotFound(w, r)
	}
}

const wholeCaddyfile = `
:%[1]d {
	handle_path /before/* {
		x402 {
			pay_to %[2]s
			price 0.01
			scheme upto
			meter json usage.total_tokens 0.000002
		}
		reverse_proxy %[5]s
	}
	handle_path /after/* {
		x402 {
			pay_to %[2]s
			price 0.01
			scheme upto
			meter json usage.total_tokens 0.000002
			settle after
		}
		reverse_proxy %[5]s
	}
	handle_path /chan/* {
		x402 {
			pay_to %[3]s
			amount 10000
			scheme batch-settlement
			meter json usage.total_tokens 2
		}
		reverse_proxy %[5]s
	}
	handle_path /exact/* {
		x402 {
			pay_to %[4]s
			amount 1000
		}
		reverse_proxy %[5]s
	}
}
`

func newWholeTester(t *testing.T) (*wholeUpstream, *caddytest.Tester) {
	up, srv := newWholeUpstream(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(wholeCaddyfile, testutil.SitePort,
		wholeUptoPayTo, wholeChannelPayTo, wholeExactPayTo, srv.Listener.Addr()))
	return up, tester
}

// wholeCase is a paid request and what it must come to.
type wholeCase struct {
	name, path string
	header     map[string]string
	status     int
	charge     int64
	body       string // the answer's body, exactly
}

// meteredHeaders are the request headers that must not reach the
// upstream of a route with a meter.
var meteredHeaders = []string{"Range", "If-Range", "If-None-Match", "If-Modified-Since", "Accept-Encoding"}

// runUptoCases pays each case on an upto route with a fresh payment and
// checks the answer, the chain (buyer and seller moved exactly the
// charge), the receipt, and that the upstream saw none of the buyer's
// metered request headers nor its Settlement-Overrides.
func runUptoCases(t *testing.T, tester *caddytest.Tester, up *wholeUpstream, cases []wholeCase) {
	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := testutil.SiteURL + tc.path
			hdr := map[string]string{x402.HeaderPaymentSignature: payUpto(t, tester, buyer, u)}
			for k, v := range tc.header {
				hdr[k] = v
			}
			bBefore, sBefore := testutil.Balance(t, from), testutil.Balance(t, wholeUptoPayTo)
			resp, b := testutil.Get(t, tester, u, hdr)
			if resp.StatusCode != tc.status || string(b) != tc.body {
				t.Fatalf("paid request: %d %q, want %d %q", resp.StatusCode, b, tc.status, tc.body)
			}
			testutil.AssertDelta(t, "buyer", bBefore, testutil.Balance(t, from), -tc.charge)
			testutil.AssertDelta(t, "seller", sBefore, testutil.Balance(t, wholeUptoPayTo), tc.charge)
			receipt := resp.Header.Get(x402.HeaderPaymentResponseV2)
			if strings.HasPrefix(tc.path, "/after/") {
				receipt = resp.Trailer.Get(x402.HeaderPaymentResponseV2)
			}
			var rs x402.ReferenceSettleResponse
			if err := x402.DecodeBase64JSON(receipt, &rs); err != nil || !rs.Success || rs.Amount != fmt.Sprint(tc.charge) {
				t.Errorf("receipt %q: %+v %v, want success with amount %d", receipt, rs, err, tc.charge)
			}
			assertNoOverrides(t, resp)
			assertUpstreamSawNone(t, up)
		})
	}
}

// runChannelCases pays each case on the metered channel route with a
// voucher signed from the last receipt's cumulative, and checks the
// answer and the receipt: chargedAmount the charge, the channel's
// chargedCumulativeAmount (the store's charged after the request) the
// running sum.
func runChannelCases(t *testing.T, tester *caddytest.Tester, up *wholeUpstream, cases []wholeCase) {
	cb := newChannelBuyer(t, tester, devnet.Buyer1PrivateKey, testutil.SiteURL+"/chan/doc", time.Now().UnixNano())
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/chan/doc", map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.deposit(t, 100000, 10000))})
	rc := channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2))
	if resp.StatusCode != 200 || !bytes.Equal(b, wholeDoc) || !rc.ok || rc.charged != "2468" || rc.snapshot != "2468" {
		t.Fatalf("deposit: %d %s %+v", resp.StatusCode, b, rc)
	}
	cumulative := int64(2468)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.voucher(t, cb.key, cumulative+10000))}
			for k, v := range tc.header {
				hdr[k] = v
			}
			resp, b := testutil.Get(t, tester, testutil.SiteURL+tc.path, hdr)
			rc := channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2))
			want := cumulative + tc.charge
			if n, err := strconv.ParseInt(rc.snapshot, 10, 64); err == nil {
				cumulative = n // the next case signs from what the store holds, whatever this one came to
			}
			if resp.StatusCode != tc.status || string(b) != tc.body {
				t.Fatalf("paid request: %d %q, want %d %q", resp.StatusCode, b, tc.status, tc.body)
			}
			if !rc.ok || rc.charged != fmt.Sprint(tc.charge) || rc.snapshot != fmt.Sprint(want) {
				t.Errorf("receipt %+v, want chargedAmount %d, chargedCumulativeAmount %d", rc, tc.charge, want)
			}
			assertNoOverrides(t, resp)
			assertUpstreamSawNone(t, up)
		})
	}
}

// assertNoOverrides: the buyer sees no Settlement-Overrides, as a header,
// a trailer, or announced as one.
func assertNoOverrides(t *testing.T, resp *http.Response) {
	t.Helper()
	if v := resp.Header.Get(HeaderSettlementOverrides); v != "" {
		t.Errorf("the buyer saw the header Settlement-Overrides %q", v)
	}
	if v, ok := resp.Trailer[HeaderSettlementOverrides]; ok {
		t.Errorf("the buyer saw the trailer Settlement-Overrides %q", v)
	}
	for _, v := range resp.Header.Values("Trailer") {
		if strings.Contains(strings.ToLower(v), "settlement-overrides") {
			t.Errorf("the answer announces the trailer Settlement-Overrides: Trailer %q", v)
		}
	}
}

// assertUpstreamSawNone: the last upstream request carried none of the
// buyer's metered request headers (its transport's own Accept-Encoding
// gzip aside), nor a Settlement-Overrides.
func assertUpstreamSawNone(t *testing.T, up *wholeUpstream) {
	t.Helper()
	seen := up.last()
	for _, k := range append(meteredHeaders, HeaderSettlementOverrides) {
		if v := seen.Get(k); v != "" && !(k == "Accept-Encoding" && v == "gzip") {
			t.Errorf("the upstream saw %s: %q", k, v)
		}
	}
}

// TestMeterWholeAnswer: a metered answer is read whole, or charged as if
// it were (the maximum), whatever the buyer's request headers: Range,
// If-Range, If-None-Match, If-Modified-Since and Accept-Encoding do not
// reach the upstream of a route with a meter (here http.ServeContent,
// which honours them), so the buyer gets the whole answer and pays its
// whole reading, on upto (settle before and after: the chain moves
// exactly the charge) and on a metered channel route (the store's
// charged); an answer that comes back partial (206) or encoded anyway is
// charged the maximum, unless the upstream states its charge.
func TestMeterWholeAnswer(t *testing.T) {
	up, tester := newWholeTester(t)
	doc := string(wholeDoc)
	modified := wholeModified.Format(http.TimeFormat)
	o := func(amount string) string { return url.QueryEscape(`{"amount":"` + amount + `"}`) }
	cases := []wholeCase{
		{"range", "/before/doc", map[string]string{"Range": "bytes=0-25"}, 200, 2468, doc},
		{"range and if-range", "/before/doc", map[string]string{"Range": "bytes=0-25", "If-Range": wholeETag}, 200, 2468, doc},
		{"if-none-match", "/before/doc", map[string]string{"If-None-Match": wholeETag}, 200, 2468, doc},
		{"if-modified-since", "/before/doc", map[string]string{"If-Modified-Since": modified}, 200, 2468, doc},
		{"accept-encoding", "/before/gz", map[string]string{"Accept-Encoding": "gzip"}, 200, 2468, doc},
		{"settle after, range", "/after/doc", map[string]string{"Range": "bytes=0-25"}, 200, 2468, doc},
		{"settle after, if-none-match", "/after/doc", map[string]string{"If-None-Match": wholeETag}, 200, 2468, doc},
		{"a part anyway: the maximum", "/before/partial", nil, 206, 10000, doc[:26]},
		{"a part anyway, settle after: the maximum", "/after/partial", nil, 206, 10000, doc[:26]},
		{"a part with Settlement-Overrides: its charge", "/before/partial?o=" + o("5"), nil, 206, 5, doc[:26]},
		{"encoded anyway: the maximum", "/before/deflate", nil, 200, 10000, deflated(t)},
	}
	t.Run("upto", func(t *testing.T) { runUptoCases(t, tester, up, cases) })
	var chanCases []wholeCase
	for _, tc := range cases {
		if strings.HasPrefix(tc.path, "/before/") {
			tc.path = "/chan/" + strings.TrimPrefix(tc.path, "/before/")
			chanCases = append(chanCases, tc)
		}
	}
	t.Run("channel", func(t *testing.T) { runChannelCases(t, tester, up, chanCases) })
}

// deflated is the body of /deflate as it goes out.
func deflated(t *testing.T) string {
	var b bytes.Buffer
	zw, _ := flate.NewWriter(&b, flate.NoCompression)
	fmt.Fprint(zw, "data: {\"x\":0}\n\ndata: {\"usage\":{\"total_tokens\":1}}\n\n")
	_ = zw.Close()
	return b.String()
}

// TestSettlementOverridesFromUpstreamOnly: the charge is what the
// upstream states in its Settlement-Overrides response header, never
// what the buyer sends: a buyer's own Settlement-Overrides request
// header does not reach the upstream (one that echoes it would charge 0)
// on any paid route; a Settlement-Overrides the upstream sends as a
// trailer is removed (the buyer never sees it, nor its announcement) and
// is not the charge (the meter reads the answer), on upto before and
// after and on a metered channel route.
func TestSettlementOverridesFromUpstreamOnly(t *testing.T) {
	up, tester := newWholeTester(t)
	doc := string(wholeDoc)
	forged := map[string]string{HeaderSettlementOverrides: `{"amount":"0"}`}
	cases := []wholeCase{
		{"the buyer's header", "/before/echo", forged, 200, 2468, doc},
		{"the buyer's header, settle after", "/after/echo", forged, 200, 2468, doc},
		{"a trailer", "/before/trailer", nil, 200, 2468, doc},
		{"a trailer, settle after", "/after/trailer", nil, 200, 2468, doc},
		{"an unannounced trailer", "/before/unannounced", nil, 200, 2468, doc},
		{"an unannounced trailer, settle after", "/after/unannounced", nil, 200, 2468, doc},
	}
	t.Run("upto", func(t *testing.T) { runUptoCases(t, tester, up, cases) })
	var chanCases []wholeCase
	for _, tc := range cases {
		if strings.HasPrefix(tc.path, "/before/") {
			tc.path = "/chan/" + strings.TrimPrefix(tc.path, "/before/")
			chanCases = append(chanCases, tc)
		}
	}
	t.Run("channel", func(t *testing.T) { runChannelCases(t, tester, up, chanCases) })

	// An exact route: the upstream does not see the buyer's header either.
	buyer := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	pay := testutil.Pay(t, buyer, testutil.Require402(t, tester, testutil.SiteURL+"/exact/echo").PaymentRequirements)
	resp, b := testutil.Get(t, tester, testutil.SiteURL+"/exact/echo", map[string]string{"X-PAYMENT": pay, HeaderSettlementOverrides: `{"amount":"0"}`})
	if resp.StatusCode != 200 || string(b) != doc {
		t.Fatalf("exact route: %d %s", resp.StatusCode, b)
	}
	if v := up.last().Get(HeaderSettlementOverrides); v != "" {
		t.Errorf("the upstream of an exact route saw the buyer's Settlement-Overrides %q", v)
	}
}

// TestMeterHead: a paid HEAD on a route whose meter reads the answer's
// body (upto, settle before and after; a metered channel route) is
// answered 402 with textHeadMetered before anything is verified or
// charged, and the upstream does not run: an answer to HEAD has no body,
// so its charge could only be the maximum, for nothing (before, it was).
// The same payment then pays a GET, whole.
func TestMeterHead(t *testing.T) {
	up, tester := newWholeTester(t)
	seen := func() int {
		up.mu.Lock()
		defer up.mu.Unlock()
		return len(up.seen)
	}
	head := func(t *testing.T, path, payment string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodHead, testutil.SiteURL+path, nil)
		req.Header.Set(x402.HeaderPaymentSignature, payment)
		before := seen()
		resp, err := tester.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var pr x402.PaymentRequiredV2
		if err := x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &pr); err != nil || resp.StatusCode != http.StatusPaymentRequired ||
			pr.Error != textHeadMetered || len(pr.Accepts) != 1 {
			t.Fatalf("HEAD %s: %d, PAYMENT-REQUIRED %+v (%v); want 402 with %q", path, resp.StatusCode, pr, err, textHeadMetered)
		}
		if n := seen(); n != before {
			t.Errorf("HEAD %s reached the upstream", path)
		}
	}
	doc := string(wholeDoc)

	buyer := testutil.BuyerKey(t, devnet.Buyer4PrivateKey)
	from := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	approvePermit2(t, buyer)
	for _, path := range []string{"/before/doc", "/after/doc"} {
		t.Run("upto "+path, func(t *testing.T) {
			payment := payUpto(t, tester, buyer, testutil.SiteURL+path)
			bBefore, sBefore := testutil.Balance(t, from), testutil.Balance(t, wholeUptoPayTo)
			head(t, path, payment)
			testutil.AssertDelta(t, "buyer after HEAD", bBefore, testutil.Balance(t, from), 0)
			testutil.AssertDelta(t, "seller after HEAD", sBefore, testutil.Balance(t, wholeUptoPayTo), 0)
			resp, b := testutil.Get(t, tester, testutil.SiteURL+path, map[string]string{x402.HeaderPaymentSignature: payment})
			if resp.StatusCode != 200 || string(b) != doc {
				t.Fatalf("GET with the same payment: %d %s", resp.StatusCode, b)
			}
			testutil.AssertDelta(t, "buyer after GET", bBefore, testutil.Balance(t, from), -2468)
		})
	}
	t.Run("channel", func(t *testing.T) {
		cb := newChannelBuyer(t, tester, devnet.Buyer1PrivateKey, testutil.SiteURL+"/chan/doc", time.Now().UnixNano())
		resp, b := testutil.Get(t, tester, testutil.SiteURL+"/chan/doc", map[string]string{x402.HeaderPaymentSignature: cb.header(t, cb.deposit(t, 100000, 10000))})
		if rc := channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2)); resp.StatusCode != 200 || rc.snapshot != "2468" {
			t.Fatalf("deposit: %d %s %+v", resp.StatusCode, b, rc)
		}
		voucher := cb.header(t, cb.voucher(t, cb.key, 2468+10000))
		head(t, "/chan/doc", voucher)
		// Nothing was charged: the same voucher, from 2468, pays a GET.
		resp, b = testutil.Get(t, tester, testutil.SiteURL+"/chan/doc", map[string]string{x402.HeaderPaymentSignature: voucher})
		if rc := channelReceiptOf(t, resp.Header.Get(x402.HeaderPaymentResponseV2)); resp.StatusCode != 200 || string(b) != doc || rc.charged != "2468" || rc.snapshot != "4936" {
			t.Fatalf("GET with the same voucher: %d %s %+v", resp.StatusCode, b, rc)
		}
	})
}
