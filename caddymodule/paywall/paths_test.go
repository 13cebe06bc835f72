package paywall

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/testutil"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
)

// rawRequest sends one request to this run's site with the request
// target exactly as given (no client cleans or encodes it) and reads the
// answer.
func rawRequest(t *testing.T, method, host, target string, header map[string]string) (*http.Response, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", testutil.SitePort), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n", method, target, host, testutil.SitePort)
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	if method == http.MethodPost {
		b.WriteString("Content-Length: 2\r\n\r\n{}")
	} else {
		b.WriteString("\r\n")
	}
	if _, err := io.WriteString(conn, b.String()); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// tomcatLike is an upstream that reads paths as Tomcat, Jetty, Spring and
// Express do, leniently: it cuts ";..." off every segment of the raw path,
// decodes it, takes a backslash for a slash, resolves dot segments, ignores
// case and a trailing slash. It serves /api/premium, /api/basic and /free,
// each with the X-Payment-Value it got.
func tomcatLike(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw := r.RequestURI
		if i := strings.IndexByte(raw, '?'); i >= 0 {
			raw = raw[:i]
		}
		segs := strings.Split(raw, "/")
		for i, s := range segs {
			if j := strings.IndexByte(s, ';'); j >= 0 {
				segs[i] = s[:j]
			}
		}
		p, err := url.PathUnescape(strings.Join(segs, "/"))
		if err != nil {
			http.Error(w, "bad path", http.StatusBadRequest)
			return
		}
		p = strings.ToLower(strings.TrimSuffix(path.Clean("/"+strings.ReplaceAll(p, `\`, "/")), "/"))
		switch p {
		case "/api/premium", "/api/basic", "/free":
			fmt.Fprintf(w, "content of %s, paid %q", p, r.Header.Get(httpx.HeaderValue))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// pathAnswerOf is the JSON error of a refused path.
func pathAnswerOf(t *testing.T, body string) pathAnswer {
	t.Helper()
	var a pathAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("not a JSON answer: %v: %q", err, body)
	}
	return a
}

// spelling is what a request for one spelling of a path must get: a 402
// for amount, a 308 to location, a 400 with refusal, or status with a
// body.
type spelling struct {
	method, target string
	amount         string
	location       string
	refusal        string
	status         int
	body           string
}

func (s spelling) check(t *testing.T, host string, header map[string]string) {
	t.Helper()
	method := s.method
	if method == "" {
		method = http.MethodGet
	}
	resp, body := rawRequest(t, method, host, s.target, header)
	what := fmt.Sprintf("%s %s%s", method, host, s.target)
	switch {
	case s.amount != "":
		var b testutil.Body402
		_ = json.Unmarshal([]byte(body), &b)
		if resp.StatusCode != http.StatusPaymentRequired || b.PaymentRequirements.MaxAmountRequired != s.amount {
			t.Errorf("%s: %d %q, want a 402 for %s", what, resp.StatusCode, body, s.amount)
		}
	case s.location != "":
		if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != s.location || body != "" {
			t.Errorf("%s: %d Location %q %q, want 308 to %s", what, resp.StatusCode, resp.Header.Get("Location"), body, s.location)
		}
	case s.refusal != "":
		if resp.StatusCode != http.StatusBadRequest || pathAnswerOf(t, body).Error != s.refusal {
			t.Errorf("%s: %d %q, want 400 %q", what, resp.StatusCode, body, s.refusal)
		}
	default:
		if resp.StatusCode != s.status || body != s.body {
			t.Errorf("%s: %d %q, want %d %q", what, resp.StatusCode, body, s.status, s.body)
		}
	}
}

// TestPathSpellings: a price per path is resolved for the resource the
// next handler serves, whatever the spelling, in the README's layouts
// (x402 with a path matcher beside the content handler, price from a map
// of {path}), through a real Caddy with payments on the devnet.
//
// Site localhost: the map (/pp/dear 0.50, else 0.02) in front of
// file_server. Every unclean spelling of /pp/dear is sent to /pp/dear
// (308), never quoted or charged 0.02; spellings servers disagree on are
// refused (400); a trailing slash or another case is another key of the
// map, and file_server serves no dear file for it (its own redirect, or
// 404). Site 127.0.0.1: the README's layout in front of an upstream that
// normalises like Tomcat/Spring/Express (path parameters cut, case and a
// trailing slash ignored), priced by the README's case-insensitive
// patterns: no spelling of /api/premium reaches it unpaid or at 0.02, and
// /api;jsessionid=1/premium, which /api/* does not match, is refused by
// the path guard the x402 directive adds.
func TestPathSpellings(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "pp"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"dear": "DEAR FILE", "cheap": "cheap file"} {
		if err := os.WriteFile(filepath.Join(root, "pp", name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	up := tomcatLike(t)
	tester := testutil.NewTester(t, testutil.GlobalBlock("")+fmt.Sprintf(`
http://localhost:%[1]d {
	map {path} {x402_price} {
		/pp/dear 0.50
		default  0.02
	}
	x402 /pp/* {
		pay_to %[2]s
		price {x402_price}
		label paths-file
	}
	root * %[3]s
	file_server
}
http://127.0.0.1:%[1]d {
	map {path} {x402_price} {
		~(?i)^/api/premium/?$ 0.50
		default               0.02
	}
	x402 /api/* {
		pay_to %[2]s
		price {x402_price}
		label paths-proxy
	}
	reverse_proxy %[4]s
}
`, testutil.SitePort, testutil.SellerAddr, root, up.Listener.Addr()))
	_ = tester

	const dear, cheap = "500000", "20000"
	unclean := []string{"/pp//dear", "//pp/dear", "/pp/./dear", "/pp/x/../dear", "/pp/%2e/dear", "/pp/%2E%2E/pp/dear", "/pp/dear/.", "/pp/x/..//dear"}
	t.Run("file_server unpaid", func(t *testing.T) {
		for _, s := range []spelling{
			{target: "/pp/dear", amount: dear},
			{target: "/pp/cheap", amount: cheap},
			{target: "/pp//dear?a=1&b=%2F", location: "/pp/dear?a=1&b=%2F"},
			{method: http.MethodHead, target: "/pp//dear", location: "/pp/dear"},
			{method: http.MethodPost, target: "/pp/./dear", refusal: textPathUnclean},
			{target: "/pp/dear;x=1", refusal: textPathParameter},
			{target: "/pp;x/dear", refusal: textPathParameter},
			{target: "/pp/dear%3bx", refusal: textPathParameter},
			{target: `/pp\dear`, refusal: textPathBackslash},
			{target: "/pp/%5Cdear", refusal: textPathBackslash},
			{target: "/pp%2Fdear", refusal: textPathSlash},
			{target: "/pp/%2564ear", refusal: textPathPercent},
			{target: "/pp/dear%00", refusal: textPathControl},
			// Another key of the seller's map: see the paid requests below.
			{target: "/pp/dear/", amount: cheap},
			{target: "/PP/dear", amount: cheap},
		} {
			s.check(t, "localhost", nil)
		}
		for _, p := range unclean {
			spelling{target: p, location: "/pp/dear"}.check(t, "localhost", nil)
		}
		resp, body := rawRequest(t, http.MethodPost, "localhost", "/pp/./dear", nil)
		if a := pathAnswerOf(t, body); resp.StatusCode != http.StatusBadRequest || a.Path != "/pp/dear" {
			t.Errorf("POST /pp/./dear: %d %q, want 400 naming /pp/dear", resp.StatusCode, body)
		}
	})

	buyer := testutil.BuyerKey(t, devnet.Buyer2PrivateKey)
	payer := crypto.PubkeyToAddress(buyer.PublicKey).Hex()
	requirements := func(host, target string) testutil.Body402 {
		t.Helper()
		resp, body := rawRequest(t, http.MethodGet, host, target, nil)
		var b testutil.Body402
		if err := json.Unmarshal([]byte(body), &b); err != nil || resp.StatusCode != http.StatusPaymentRequired {
			t.Fatalf("%s%s: %d %q, want a 402", host, target, resp.StatusCode, body)
		}
		return b
	}

	t.Run("file_server paid", func(t *testing.T) {
		seller0, buyer0 := testutil.Balance(t, testutil.SellerAddr), testutil.Balance(t, payer)
		// A payment of the default price at every unclean spelling of the
		// dear file: sent to /pp/dear, where it is refused. Nothing moves.
		low := testutil.Pay(t, buyer, requirements("localhost", "/pp/cheap").PaymentRequirements)
		for _, p := range unclean {
			spelling{target: p, location: "/pp/dear"}.check(t, "localhost", map[string]string{"X-Payment": low})
		}
		resp, body := rawRequest(t, http.MethodGet, "localhost", "/pp/dear", map[string]string{"X-Payment": low})
		if b := (testutil.Body402{}); json.Unmarshal([]byte(body), &b) != nil || resp.StatusCode != http.StatusPaymentRequired || b.InvalidReason != "Invalid amount: 20000" {
			t.Errorf("the default price at /pp/dear: %d %q", resp.StatusCode, body)
		}
		testutil.AssertDelta(t, "seller", seller0, testutil.Balance(t, testutil.SellerAddr), 0)

		// The other keys of the map buy no dear file: file_server answers
		// a file's path with a trailing slash by its redirect, another
		// case by 404 (the file system tells case).
		for _, s := range []spelling{
			{target: "/pp/dear/", status: http.StatusPermanentRedirect},
			{target: "/PP/dear", status: http.StatusNotFound},
		} {
			h := testutil.Pay(t, buyer, requirements("localhost", s.target).PaymentRequirements)
			resp, body := rawRequest(t, http.MethodGet, "localhost", s.target, map[string]string{"X-Payment": h})
			if resp.StatusCode != s.status || strings.Contains(body, "DEAR") {
				t.Errorf("%s paid 0.02: %d %q, want %d and no dear file", s.target, resp.StatusCode, body, s.status)
			}
		}
		seller1 := testutil.Balance(t, testutil.SellerAddr)
		testutil.AssertDelta(t, "seller", seller0, seller1, 40000)

		// The dear file at its price.
		h := testutil.Pay(t, buyer, requirements("localhost", "/pp/dear").PaymentRequirements)
		spelling{target: "/pp/dear", status: http.StatusOK, body: "DEAR FILE"}.check(t, "localhost", map[string]string{"X-Payment": h})
		testutil.AssertDelta(t, "seller", seller1, testutil.Balance(t, testutil.SellerAddr), 500000)
		testutil.AssertDelta(t, "buyer", buyer0, testutil.Balance(t, payer), -540000)
	})

	premium := []string{
		"/api/premium", "/API/Premium", "/api/premium/", "/Api/PREMIUM/",
	}
	t.Run("reverse_proxy unpaid", func(t *testing.T) {
		for _, p := range premium {
			spelling{target: p, amount: dear}.check(t, "127.0.0.1", nil)
		}
		for _, s := range []spelling{
			{target: "/api/basic", amount: cheap},
			{target: "/free", status: http.StatusOK, body: `content of /free, paid ""`},
			{target: "/api//premium", location: "/api/premium"},
			{target: "/api/./premium", location: "/api/premium"},
			{target: "/x/../api/premium", location: "/api/premium"},
			{target: "/api/%2e/premium", location: "/api/premium"},
			{target: "/api/premium/.", location: "/api/premium"},
			// Not matched by /api/*: the path guard.
			{target: "/api;jsessionid=1/premium", refusal: textPathParameter},
			{target: "/free/..;/api/premium", refusal: textPathParameter},
			{target: "/api%3Bx/premium", refusal: textPathParameter},
			{target: `/api\premium`, refusal: textPathBackslash},
			{target: "/api%5Cpremium", refusal: textPathBackslash},
			{target: "/api%00/premium", refusal: textPathControl},
			// Matched: the paywall.
			{target: "/api/premium;jsessionid=1", refusal: textPathParameter},
			{target: "/api/premium%2F", refusal: textPathSlash},
			{target: "/api%2Fpremium", refusal: textPathSlash},
			{target: "/api/%2570remium", refusal: textPathPercent},
		} {
			s.check(t, "127.0.0.1", nil)
		}
	})

	t.Run("reverse_proxy paid", func(t *testing.T) {
		seller0, buyer0 := testutil.Balance(t, testutil.SellerAddr), testutil.Balance(t, payer)
		low := testutil.Pay(t, buyer, requirements("127.0.0.1", "/api/basic").PaymentRequirements)
		hdr := map[string]string{"X-Payment": low}
		for _, p := range premium {
			resp, body := rawRequest(t, http.MethodGet, "127.0.0.1", p, hdr)
			if b := (testutil.Body402{}); json.Unmarshal([]byte(body), &b) != nil || resp.StatusCode != http.StatusPaymentRequired || b.InvalidReason != "Invalid amount: 20000" {
				t.Errorf("%s with the default price: %d %q, want 402 Invalid amount", p, resp.StatusCode, body)
			}
		}
		for _, s := range []spelling{
			{target: "/api//premium", location: "/api/premium"},
			{target: "/api;jsessionid=1/premium", refusal: textPathParameter},
			{target: "/free/..;/api/premium", refusal: textPathParameter},
			{target: `/api\premium`, refusal: textPathBackslash},
		} {
			s.check(t, "127.0.0.1", hdr)
		}
		testutil.AssertDelta(t, "seller", seller0, testutil.Balance(t, testutil.SellerAddr), 0)

		// Any spelling at the premium price: served.
		h := testutil.Pay(t, buyer, requirements("127.0.0.1", "/API/Premium/").PaymentRequirements)
		spelling{target: "/API/Premium/", status: http.StatusOK, body: `content of /api/premium, paid "500000"`}.check(t, "127.0.0.1", map[string]string{"X-Payment": h})
		testutil.AssertDelta(t, "seller", seller0, testutil.Balance(t, testutil.SellerAddr), 500000)
		testutil.AssertDelta(t, "buyer", buyer0, testutil.Balance(t, payer), -500000)
	})
}

// TestCanonicalRequest: the paywall's own reading of a path, without
// Caddy's server around it: which paths go on unchanged, which are
// redirected or refused, and a path a rewrite made unclean cleaned in
// place.
func TestCanonicalRequest(t *testing.T) {
	for _, tt := range []struct {
		method, target, rewritten string
		handled                   bool
		status                    int
		location, refusal, path   string // path: the request's path after, when not handled
	}{
		{target: "/pp/dear", path: "/pp/dear"},
		{target: "/pp/dir/", path: "/pp/dir/"},
		{target: "/pp/d%C3%A9j%C3%A0", path: "/pp/déjà"},
		{target: "/pp/%64ear", path: "/pp/dear"},
		{method: "OPTIONS", target: "*", path: "*"},
		{target: "/pp//dear?q=1", handled: true, status: 308, location: "/pp/dear?q=1"},
		{target: "/pp/x/../", handled: true, status: 308, location: "/pp/"},
		{target: "/pp/../../etc", handled: true, status: 308, location: "/etc"},
		{target: "//evil.example/x", handled: true, status: 308, location: "/evil.example/x"},
		{target: "/pp/d%3Fx/../ear", handled: true, status: 308, location: "/pp/ear"},
		{target: "/pp/a%20b//c", handled: true, status: 308, location: "/pp/a%20b/c"},
		{method: "PUT", target: "/pp//dear", handled: true, status: 400, refusal: textPathUnclean},
		{target: "/pp;a/dear", handled: true, status: 400, refusal: textPathParameter},
		{target: "/pp/dear%5c", handled: true, status: 400, refusal: textPathBackslash},
		{target: "/pp/dear%0a", handled: true, status: 400, refusal: textPathControl},
		{target: "/pp/dear%7f", handled: true, status: 400, refusal: textPathControl},
		{target: "/pp/de%2far", handled: true, status: 400, refusal: textPathSlash},
		{target: "/pp/de%25ar", handled: true, status: 400, refusal: textPathPercent},
		// A rewrite (before the paywall) made the clean path unclean.
		{target: "/pp/dear", rewritten: "/v1//pp/./dear", path: "/v1/pp/dear"},
		{target: "/pp/dear", rewritten: "/v1;x/pp/dear", handled: true, status: 400, refusal: textPathParameter},
	} {
		method := tt.method
		if method == "" {
			method = http.MethodGet
		}
		r := httptest.NewRequest(method, "http://shop.example"+tt.target, nil)
		if tt.target == "*" {
			r = httptest.NewRequest(method, "*", nil)
		}
		r = r.WithContext(context.WithValue(r.Context(), caddyhttp.OriginalRequestCtxKey, *r.Clone(r.Context())))
		if tt.rewritten != "" {
			u, err := url.Parse(tt.rewritten)
			if err != nil {
				t.Fatal(err)
			}
			r.URL.Path, r.URL.RawPath = u.Path, u.RawPath
		}
		w := httptest.NewRecorder()
		handled, err := canonicalRequest(w, r, false)
		what := method + " " + tt.target
		if err != nil || handled != tt.handled {
			t.Errorf("%s: handled %v, %v; want %v", what, handled, err, tt.handled)
			continue
		}
		if !handled {
			if r.URL.Path != tt.path || w.Body.Len() != 0 {
				t.Errorf("%s: path %q (wrote %q), want %q", what, r.URL.Path, w.Body, tt.path)
			}
			continue
		}
		if w.Code != tt.status || w.Header().Get("Location") != tt.location {
			t.Errorf("%s: %d Location %q, want %d %q", what, w.Code, w.Header().Get("Location"), tt.status, tt.location)
		}
		if tt.refusal != "" {
			if a := pathAnswerOf(t, w.Body.String()); a.Error != tt.refusal || w.Header().Get("Content-Type") != "application/json" {
				t.Errorf("%s: %q, want %q", what, w.Body, tt.refusal)
			}
		}
	}
}

// TestPathGuard: the guard refuses the spellings servers disagree on and
// passes every other path, clean or not, unchanged.
func TestPathGuard(t *testing.T) {
	for target, want := range map[string]string{
		"/api/premium":            "",
		"/api//premium":           "",
		"/a/../api/%2Fx":          "",
		"/api;jsessionid=1/x":     textPathParameter,
		"/free/..;/api/premium":   textPathParameter,
		"/api%3bx":                textPathParameter,
		"/api%5Cpremium":          textPathBackslash,
		"/api%09":                 textPathControl,
		"/caf%C3%A9/100%25-ready": "",
	} {
		r := httptest.NewRequest(http.MethodGet, "http://shop.example"+target, nil)
		r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer()))
		w := httptest.NewRecorder()
		ran := false
		err := PathGuard{}.ServeHTTP(w, r, caddyhttp.HandlerFunc(func(http.ResponseWriter, *http.Request) error { ran = true; return nil }))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case want == "" && (!ran || w.Code != http.StatusOK):
			t.Errorf("%s: refused (%d %q), want it passed on", target, w.Code, w.Body)
		case want != "" && (ran || w.Code != http.StatusBadRequest || pathAnswerOf(t, w.Body.String()).Error != want):
			t.Errorf("%s: ran %v, %d %q, want 400 %q", target, ran, w.Code, w.Body, want)
		}
	}
}

// BenchmarkCanonicalRequest measures what the paywall's path check adds to
// every request (a clean path, the common case), and the guard's scan, to
// be read beside BenchmarkPaywall's unpaid402 ns/op.
//
//	go test ./caddymodule/paywall/ -run '^$' -bench 'CanonicalRequest|Paywall/unpaid402' -benchtime 2s
func BenchmarkCanonicalRequest(b *testing.B) {
	r := httptest.NewRequest(http.MethodGet, "http://shop.example/api/v1/reports/2026/summary?format=json", nil)
	r = r.WithContext(context.WithValue(r.Context(), caddyhttp.OriginalRequestCtxKey, *r.Clone(r.Context())))
	w := httptest.NewRecorder()
	b.Run("paywall", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if handled, _ := canonicalRequest(w, r, false); handled {
				b.Fatal("a clean path was answered")
			}
		}
	})
	b.Run("guard", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if ambiguousPath(r.URL.Path) != "" {
				b.Fatal("a clean path was refused")
			}
		}
	})
}
