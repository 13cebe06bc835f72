package facilitator_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/devnet"
	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/httpapi"
	"github.com/caddy-x402/caddy-x402/facilitator/limit"
	"github.com/caddy-x402/caddy-x402/facilitator/network"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The end-to-end tests run the facilitator's HTTP API against a real EVM:
// the development chain, reached over JSON-RPC on loopback, with our
// EIP-3009 token at the devUSDC.e address.

var (
	chain *devnet.Chain
	fac   *facilitator.Facilitator
	api   *httptest.Server
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	if os.Getenv(childEnv) != "" {
		return runChild()
	}
	flag.Parse()
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "^$" {
		// Benchmarks only (-run '^$'): no chain or facilitator runs in the
		// background of their measurements; a benchmark that needs the
		// shared chain starts it (startSharedChain).
		return m.Run()
	}
	var err error
	chain, err = devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the development chain:", err)
		return 1
	}
	defer chain.Close()
	fac, err = facilitator.New(context.Background(), facilitator.Config{
		Networks: []network.Config{testnetConfig()},
		Logger:   testLogger(),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the facilitator:", err)
		return 1
	}
	defer fac.Close()
	api = httptest.NewServer(httpapi.New(fac, httpapi.Config{NoRateLimits: true, APIKeys: []string{testAPIKey}}))
	defer api.Close()
	return m.Run()
}

func testLogger() *zap.Logger {
	if os.Getenv("X402_TEST_LOG") != "" {
		l, _ := zap.NewDevelopment()
		return l
	}
	return zap.NewNop()
}

// testnetConfig is the built-in cronos-testnet pointed at the dev chain.
func testnetConfig() network.Config {
	nc, _ := network.Builtin(network.CronosTestnet)
	nc.RPCURLs = []string{chain.RPCURL()}
	nc.SignerKeys = []*ecdsa.PrivateKey{chain.Signer().Key}
	return nc
}

// newSeller returns a fresh payTo address with no balance.
func newSeller(t testing.TB) common.Address {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(k.PublicKey)
}

func requirements(payTo common.Address, amount string) x402.PaymentRequirements {
	return x402.PaymentRequirements{
		Scheme:            "exact",
		Network:           "cronos-testnet",
		PayTo:             payTo.Hex(),
		Asset:             devnet.TokenAddress.Hex(),
		MaxAmountRequired: amount,
		MaxTimeoutSeconds: 300,
	}
}

func buyer(i int) devnet.Account { return chain.Buyers()[i] }

// pay signs a payment for req with the buyer's key.
func pay(t *testing.T, b devnet.Account, req x402.PaymentRequirements, opts exact.PaymentOptions) (string, *x402.Payment) {
	t.Helper()
	if opts.ChainID == nil {
		opts.ChainID = big.NewInt(devnet.ChainID)
	}
	if opts.ValidFor == 0 {
		opts.ValidFor = time.Hour
	}
	h, p, err := exact.CreatePayment(b.Key, req, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h, p
}

func body(header string, req x402.PaymentRequirements) []byte {
	b, _ := json.Marshal(x402.Request{X402Version: 1, PaymentHeader: header, PaymentRequirements: req})
	return b
}

// post sends a raw body to an API path and returns status and decoded JSON.
func post(t *testing.T, path string, b []byte, out any) int {
	t.Helper()
	return postWith(t, http.DefaultClient, path, b, out)
}

func postWith(t testing.TB, client *http.Client, path string, b []byte, out any) int {
	t.Helper()
	return postWithURL(t, client, api.URL+path, b, out)
}

func postWithURL(t testing.TB, client *http.Client, url string, b []byte, out any) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X402-Version", "1")
	resp, err := client.Do(req)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	if err := json.Unmarshal(data, out); err != nil {
		t.Errorf("answer %s is not JSON: %v", data, err)
	}
	return resp.StatusCode
}

func verify(t *testing.T, b []byte) (int, x402.VerifyResponse) {
	t.Helper()
	var v x402.VerifyResponse
	return post(t, x402.PathVerify, b, &v), v
}

func settle(t *testing.T, b []byte) (int, x402.SettleResponse) {
	t.Helper()
	var s x402.SettleResponse
	return post(t, x402.PathSettle, b, &s), s
}

func balance(t *testing.T, a common.Address) *big.Int {
	t.Helper()
	b, err := chain.BalanceOf(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantInvalid(t *testing.T, status int, v x402.VerifyResponse, wantStatus int, reason string) {
	t.Helper()
	if status != wantStatus || v.IsValid || v.InvalidReason == nil || *v.InvalidReason != reason {
		t.Fatalf("verify = %d %+v (reason %q), want %d invalid %q", status, v, v.Reason(), wantStatus, reason)
	}
}

func wantFailed(t *testing.T, status int, s x402.SettleResponse, wantStatus int, msg string) {
	t.Helper()
	if status != wantStatus || s.Event != x402.EventFailed || s.Error != msg || s.X402Version != 1 {
		t.Fatalf("settle = %d %+v, want %d payment.failed %q", status, s, wantStatus, msg)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", s.Timestamp); err != nil {
		t.Fatalf("timestamp %q is not ISO 8601 UTC with milliseconds", s.Timestamp)
	}
}

func TestSettleSuccessBothShapes(t *testing.T) {
	for _, shape := range []x402.PayloadShape{x402.ShapeCronos, x402.ShapeX402} {
		t.Run(fmt.Sprint("shape ", shape), func(t *testing.T) {
			seller := newSeller(t)
			b := buyer(0)
			req := requirements(seller, "10000")
			h, p := pay(t, b, req, exact.PaymentOptions{Shape: shape})
			before := balance(t, b.Address)

			status, v := verify(t, body(h, req))
			if status != 200 || !v.IsValid || v.InvalidReason != nil {
				t.Fatalf("verify = %d %+v, want valid", status, v)
			}
			// The wire form of a valid answer has invalidReason null.
			var raw map[string]any
			post(t, x402.PathVerify, body(h, req), &raw)
			if r, ok := raw["invalidReason"]; !ok || r != nil {
				t.Fatalf("valid verify answer %v, want invalidReason null", raw)
			}

			status, s := settle(t, body(h, req))
			if status != 200 || s.Event != x402.EventSettled {
				t.Fatalf("settle = %d %+v", status, s)
			}
			if !strings.EqualFold(s.From, b.Address.Hex()) || !strings.EqualFold(s.To, seller.Hex()) || s.Value != "10000" ||
				s.Network != "cronos-testnet" || s.X402Version != 1 || s.BlockNumber == nil || *s.BlockNumber == 0 || len(s.TxHash) != 66 {
				t.Fatalf("settled answer %+v", s)
			}
			if _, err := time.Parse("2006-01-02T15:04:05.000Z", s.Timestamp); err != nil {
				t.Fatalf("timestamp %q", s.Timestamp)
			}
			receipt, err := chain.Client().TransactionReceipt(context.Background(), common.HexToHash(s.TxHash))
			if err != nil || receipt.Status != 1 || receipt.BlockNumber.Uint64() != *s.BlockNumber {
				t.Fatalf("receipt %+v, %v", receipt, err)
			}
			if got := balance(t, seller); got.Cmp(big.NewInt(10000)) != 0 {
				t.Fatalf("seller balance %s, want 10000", got)
			}
			if got := new(big.Int).Sub(before, balance(t, b.Address)); got.Cmp(big.NewInt(10000)) != 0 {
				t.Fatalf("buyer paid %s, want 10000", got)
			}
			_ = p

			// The same authorization again: already used, at verify and settle.
			status, v = verify(t, body(h, req))
			wantInvalid(t, status, v, 200, x402.ErrTextAlreadyUsed)
			status, s = settle(t, body(h, req))
			wantFailed(t, status, s, 200, x402.ErrTextAlreadyUsed)
			if got := balance(t, seller); got.Cmp(big.NewInt(10000)) != 0 {
				t.Fatalf("seller balance %s after a replay, want 10000", got)
			}
		})
	}
}

func TestVerifyReasons(t *testing.T) {
	seller := newSeller(t)
	b := buyer(1)
	req := requirements(seller, "10000")
	good, _ := pay(t, b, req, exact.PaymentOptions{})

	reencode := func(edit func(m map[string]any)) string {
		raw, _ := base64.StdEncoding.DecodeString(good)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		edit(m)
		out, _ := json.Marshal(m)
		return base64.StdEncoding.EncodeToString(out)
	}
	payload := func(m map[string]any) map[string]any { return m["payload"].(map[string]any) }

	other := requirements(seller, "10000")
	other.Network = "base-sepolia"
	wrongAsset := requirements(seller, "10000")
	wrongAsset.Asset = "0x0000000000000000000000000000000000000001"
	wrongScheme := requirements(seller, "10000")
	wrongScheme.Scheme = "subscription"
	upto := requirements(seller, "10000")
	upto.Scheme = "upto"
	wrongPayTo := requirements(newSeller(t), "10000")
	dearer := requirements(seller, "20000")
	badMax := requirements(seller, "10000.0")

	poor, _ := crypto.GenerateKey()
	poorAcct := devnet.Account{Address: crypto.PubkeyToAddress(poor.PublicKey), Key: poor}
	poorHeader, _ := pay(t, poorAcct, req, exact.PaymentOptions{})

	wrongDomain, _ := pay(t, b, req, exact.PaymentOptions{Domain: &x402.DomainInfo{Name: "USD Coin", Version: "2"}})
	wrongChain, _ := pay(t, b, req, exact.PaymentOptions{ChainID: big.NewInt(25)})
	now := time.Now()
	expired, _ := pay(t, b, req, exact.PaymentOptions{Now: now.Add(-time.Hour), ValidFor: time.Hour + 3*time.Second})
	notYet, _ := pay(t, b, req, exact.PaymentOptions{Now: now.Add(time.Hour)})

	for _, tc := range []struct {
		name   string
		header string
		req    x402.PaymentRequirements
		reason string
	}{
		{"unsupported scheme", good, wrongScheme, "Unsupported scheme: subscription"},
		{"header scheme", reencode(func(m map[string]any) { m["scheme"] = "subscription" }), req, "Unsupported scheme: subscription"},
		// upto is x402 v2 only: a v1 request for it names upto, not the header's exact.
		{"upto in v1", good, upto, "Unsupported scheme: upto"},
		{"upto in v1, header too", reencode(func(m map[string]any) { m["scheme"] = "upto" }), upto, "Unsupported scheme: upto"},
		{"unsupported network", good, other, "Unsupported network: base-sepolia"},
		{"header network", reencode(func(m map[string]any) { m["network"] = "cronos-mainnet" }), req, "Unsupported network: cronos-mainnet"},
		{"unsupported asset", good, wrongAsset, "Unsupported asset: 0x0000000000000000000000000000000000000001"},
		{"payload asset", reencode(func(m map[string]any) { payload(m)["asset"] = "0xf951eC28187D9E5Ca673Da8FE6757E6f0Be5F77C" }), req, "Unsupported asset: 0xf951eC28187D9E5Ca673Da8FE6757E6f0Be5F77C"},
		{"recipient", good, wrongPayTo, "Recipient does not match payTo address"},
		{"amount differs", good, dearer, "Invalid amount: 10000"},
		{"requirement amount invalid", good, badMax, "Invalid amount: 10000.0"},
		{"amount past uint256", reencode(func(m map[string]any) { payload(m)["value"] = strings.Repeat("9", 79) }), req, "Invalid amount: " + strings.Repeat("9", 79)},
		{"tampered value", reencode(func(m map[string]any) { payload(m)["value"] = "10001" }), requirements(seller, "10001"), "Invalid EIP-3009 signature"},
		{"tampered recipient", reencode(func(m map[string]any) { payload(m)["to"] = wrongPayTo.PayTo }), wrongPayTo, "Invalid EIP-3009 signature"},
		{"wrong EIP-712 domain", wrongDomain, req, "Invalid EIP-3009 signature"},
		{"signed for another chain", wrongChain, req, "Invalid EIP-3009 signature"},
		{"bad base64", "%%%", req, "Invalid Base64 paymentHeader"},
		{"base64 of non-JSON", base64.StdEncoding.EncodeToString([]byte("not json")), req, "Invalid Base64 paymentHeader"},
		{"bad hex signature", reencode(func(m map[string]any) { payload(m)["signature"] = "0xnothex" }), req, "Invalid EIP-3009 signature"},
		{"bad hex nonce", reencode(func(m map[string]any) { payload(m)["nonce"] = "0x12" }), req, "Invalid payment payload: nonce must be 32 bytes of 0x-prefixed hex"},
		{"expired", expired, req, "Authorization expired"},
		{"not yet valid", notYet, req, "Authorization not yet valid"},
		{"balance too low", poorHeader, req, "ERC20: transfer amount exceeds balance"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, v := verify(t, body(tc.header, tc.req))
			wantInvalid(t, status, v, 200, tc.reason)
		})
	}

	// Settle gives the same reasons as payment.failed, with its own
	// wording for signatures, and moves no money.
	before := balance(t, b.Address)
	for _, tc := range []struct {
		name   string
		header string
		msg    string
	}{
		{"wrong domain", wrongDomain, "Invalid signature"},
		{"expired", expired, "Authorization expired"},
		{"not yet valid", notYet, "Authorization not yet valid"},
		{"balance", poorHeader, "ERC20: transfer amount exceeds balance"},
		{"bad base64", "%%%", "Invalid Base64 paymentHeader"},
	} {
		t.Run("settle "+tc.name, func(t *testing.T) {
			status, s := settle(t, body(tc.header, req))
			wantFailed(t, status, s, 200, tc.msg)
		})
	}
	status, s := settle(t, body(good, wrongPayTo))
	wantFailed(t, status, s, 200, "Recipient does not match payTo address")
	if got := balance(t, b.Address); got.Cmp(before) != 0 {
		t.Fatalf("buyer balance moved from %s to %s on failed settles", before, got)
	}
}

func TestBadRequests(t *testing.T) {
	req := requirements(newSeller(t), "10000")
	good, _ := pay(t, buyer(1), req, exact.PaymentOptions{})
	valid := string(body(good, req))
	huge := `{"x402Version":1,"paymentHeader":"` + strings.Repeat("A", 70<<10) + `","paymentRequirements":{}}`
	for _, tc := range []struct {
		name, body, reason string
	}{
		{"empty", "", "request body is empty; send a JSON object with x402Version, paymentHeader and paymentRequirements"},
		{"malformed", `{"x402Version":1,`, "request body is not a valid JSON object: unexpected end of JSON input at byte 17"},
		{"array", `[1,2]`, "request body is not a valid JSON object: expected a JSON object, got array"},
		{"too big", huge, "request body exceeds 64 KiB"},
		{"version missing", strings.Replace(valid, `"x402Version":1,`, ``, 1), "x402Version is required"},
		{"version 2", strings.Replace(valid, `"x402Version":1`, `"x402Version":2`, 1), "x402Version must be 1, got 2"},
		{"version string", strings.Replace(valid, `"x402Version":1`, `"x402Version":"1"`, 1), "x402Version must be the integer 1"},
		{"header missing", strings.Replace(valid, `"paymentHeader":"`+good+`",`, ``, 1), "paymentHeader is required"},
		{"header number", strings.Replace(valid, `"paymentHeader":"`+good+`"`, `"paymentHeader":12`, 1), "paymentHeader must be a string (Base64 of the payment JSON)"},
		{"requirements missing", `{"x402Version":1,"paymentHeader":"` + good + `"}`, "paymentRequirements is required"},
		{"requirements string", `{"x402Version":1,"paymentHeader":"` + good + `","paymentRequirements":"x"}`, "paymentRequirements must be a JSON object"},
		{"payTo missing", strings.Replace(valid, `"payTo":"`+req.PayTo+`",`, ``, 1), "paymentRequirements.payTo is required"},
		{"payTo bad", strings.Replace(valid, req.PayTo, "0x1234", 1), `paymentRequirements.payTo must be a 0x-prefixed 20-byte hex address, got "0x1234"`},
		{"timeout string", strings.Replace(valid, `"maxTimeoutSeconds":300`, `"maxTimeoutSeconds":"300"`, 1), "paymentRequirements: maxTimeoutSeconds must be a number, got string"},
		{"timeout missing", strings.Replace(valid, `,"maxTimeoutSeconds":300`, ``, 1), "paymentRequirements.maxTimeoutSeconds is required"},
		{"amount number", strings.Replace(valid, `"maxAmountRequired":"10000"`, `"maxAmountRequired":10000`, 1), "paymentRequirements: maxAmountRequired must be a string, got number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, v := verify(t, []byte(tc.body))
			wantInvalid(t, status, v, 400, tc.reason)
			status, s := settle(t, []byte(tc.body))
			wantFailed(t, status, s, 400, tc.reason)
		})
	}

	t.Run("X402-Version header", func(t *testing.T) {
		r, _ := http.NewRequest(http.MethodPost, api.URL+x402.PathVerify, strings.NewReader(valid))
		r.Header.Set("X402-Version", "2")
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var v x402.VerifyResponse
		_ = json.NewDecoder(resp.Body).Decode(&v)
		wantInvalid(t, resp.StatusCode, v, 400, `X402-Version header must be 1, got "2"`)
	})
	t.Run("wrong method", func(t *testing.T) {
		resp, err := http.Get(api.URL + x402.PathSettle)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST" {
			t.Fatalf("GET settle = %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
		}
	})
	t.Run("paymentPayload object", func(t *testing.T) {
		raw, _ := base64.StdEncoding.DecodeString(good)
		b := `{"x402Version":1,"paymentPayload":` + string(raw) + `,"paymentRequirements":` + mustJSON(req) + `}`
		status, v := verify(t, []byte(b))
		if status != 200 || !v.IsValid {
			t.Fatalf("verify with paymentPayload = %d %+v", status, v)
		}
	})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestHealthAndSupported(t *testing.T) {
	resp, err := http.Get(api.URL + "/healthcheck")
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Status  string `json:"status"`
		Results struct {
			Uptime       float64 `json:"uptime"`
			ResponseTime []int64 `json:"responseTime"`
			Message      string  `json:"message"`
			Timestamp    int64   `json:"timestamp"`
		} `json:"results"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	now := time.Now().UnixMilli()
	if resp.StatusCode != 200 || h.Status != "success" || h.Results.Message != "OK" || h.Results.Uptime <= 0 ||
		len(h.Results.ResponseTime) != 2 || h.Results.ResponseTime[1] < 0 || h.Results.ResponseTime[1] >= 1e9 ||
		h.Results.Timestamp < now-5000 || h.Results.Timestamp > now+5000 {
		t.Fatalf("health = %d %+v", resp.StatusCode, h)
	}

	resp, err = http.Get(api.URL + "/v2/x402/supported")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// The Cronos kind comes first, exactly as the interface shows it; the
	// v2 kinds under the CAIP-2 id (batch-settlement with its receiver
	// authorizer, upto with the signer that settles it: v2 schemes) and the signers follow for v2 sellers.
	signer := chain.Signer().Address.Hex()
	if want := `{"kinds":[{"x402Version":1,"scheme":"exact","network":"cronos-testnet"},` +
		`{"x402Version":2,"scheme":"batch-settlement","network":"eip155:338","extra":{"receiverAuthorizer":"` + signer + `"}},{"x402Version":2,"scheme":"exact","network":"eip155:338"},` +
		`{"x402Version":2,"scheme":"upto","network":"eip155:338","extra":{"facilitatorAddress":"` + signer + `","name":"Bridged USDC (Stargate)","version":"1"}}],"extensions":["eip2612GasSponsoring"],"signers":{"eip155:*":["` + signer + `"]}}` + "\n"; string(data) != want {
		t.Fatalf("supported = %s, want %s", data, want)
	}
}

func TestRateLimits(t *testing.T) {
	srv := httptest.NewServer(httpapi.New(fac, httpapi.Config{
		VerifyLimit: limit.RateLimit{Requests: 3, Window: time.Minute},
		SettleLimit: limit.RateLimit{Requests: 2, Window: time.Minute},
		LookupLimit: limit.RateLimit{Requests: 4, Window: time.Minute},
	}))
	defer srv.Close()
	for _, tc := range []struct {
		method, path string
		limit        int
		msg          string
	}{
		{"POST", x402.PathVerify, 3, "Rate limit exceeded: verify requests are limited to 3 per 1m0s per client IP; retry in 20 s"},
		{"POST", x402.PathSettle, 2, "Rate limit exceeded: settle requests are limited to 2 per 1m0s per client IP; retry in 30 s"},
		// Both look-up routes share one limit: two of each, then 429.
		{"GET", x402.PathSettlements + "0x12", 2, ""},
		{"GET", x402.PathSettlementLookup, 2, "Rate limit exceeded: settlement look-up requests are limited to 4 per 1m0s per client IP; retry in 15 s"},
	} {
		for i := 0; i <= tc.limit; i++ {
			if tc.msg == "" && i == tc.limit {
				break
			}
			req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(`{}`))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if i < tc.limit {
				if resp.StatusCode != 400 {
					t.Fatalf("%s request %d = %d %s, want 400 (not limited yet)", tc.path, i+1, resp.StatusCode, data)
				}
				continue
			}
			if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(data), tc.msg) {
				t.Fatalf("%s request %d = %d Retry-After %q %s, want 429 with %q", tc.path, i+1, resp.StatusCode, resp.Header.Get("Retry-After"), data, tc.msg)
			}
		}
	}
}

// TestEchoClipped: a text the caller sent is echoed in an error answer cut
// to 80 bytes, not whole.
func TestEchoClipped(t *testing.T) {
	srv := httptest.NewServer(httpapi.New(fac, httpapi.Config{NoRateLimits: true}))
	defer srv.Close()
	long := strings.Repeat("n", 10_000)
	for _, tc := range []struct{ path, want string }{
		{x402.PathSettlementLookup + "?network=" + long + "&from=0x1&nonce=0x2",
			`{"error":"network \"` + long[:80] + `…\" is not served by this facilitator"}`},
		{"/v2/x402/" + long, `{"error":"no such endpoint: /v2/x402/` + long[:80-len("/v2/x402/")] + `…"}`},
	} {
		resp, err := http.Get(srv.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.TrimSpace(string(data)); got != tc.want {
			t.Errorf("GET %.40s... = %d %.200s, want %.200s", tc.path, resp.StatusCode, got, tc.want)
		}
	}
}

// startSharedChain starts the shared dev chain for a benchmark run with
// -run '^$', where TestMain does not, and stops it when the benchmark
// ends.
func startSharedChain(b *testing.B) {
	if chain != nil {
		return
	}
	var err error
	if chain, err = devnet.Start(devnet.Config{BlockTime: 200 * time.Millisecond}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { chain.Close(); chain = nil })
}
