// Package remote is the client of a facilitator reached over HTTP, in
// every dialect: the Cronos interface (paymentHeader), the reference x402
// version 1 (paymentPayload) and version 2. It speaks the facilitator's
// dialect (learnt from its /supported unless configured), converts the
// buyer's payment to it, and understands every answer shape. It depends on
// the wire package only.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/propagation"

	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The wire types this client speaks.
type (
	request           = x402.Request
	verifyResponse    = x402.VerifyResponse
	settleResponse    = x402.SettleResponse
	supportedResponse = x402.SupportedResponse
	statusError       = x402.StatusError
)

// Options tunes a Client. The zero value speaks whatever the
// facilitator's /supported says.
type Options struct {
	// Dialect, when set, is the dialect spoken, without asking /supported.
	Dialect *x402.Dialect
	// Header is added to every request (for example an Authorization
	// header for a facilitator that needs an API key).
	Header http.Header
	// HTTPClient is the client used; nil means one with a 2-minute timeout,
	// longer than a settle's wait for its block.
	HTTPClient *http.Client
}

// Client is a facilitator reached over HTTP (facilitator.Client). It speaks the
// facilitator's dialect: the Cronos interface (paymentHeader), the reference
// version 1 (paymentPayload) or version 2, learnt from its /supported unless
// configured, and understands every answer shape.
type Client struct {
	prefix string // what /verify, /settle and /supported are appended to
	http   *http.Client
	header http.Header
	fixed  *x402.Dialect

	mu        sync.Mutex
	supported *supportedResponse // nil until read
	failedAt  time.Time          // last failed read of /supported
}

// supportedRetry is how long a failed /supported is not asked again (the
// Cronos dialect is spoken meanwhile).
const supportedRetry = time.Minute

// New returns a client for the facilitator at baseURL. A URL without
// a path (https://facilitator.example.com) is the Cronos layout: its
// operations are under /v2/x402. A URL with a path
// (https://x402.org/facilitator, https://host/v2/x402) is the reference
// layout: /verify, /settle and /supported are appended to it.
func New(baseURL string, o Options) *Client {
	c := &Client{prefix: strings.TrimRight(baseURL, "/"), http: o.HTTPClient, header: o.Header, fixed: o.Dialect}
	if c.http == nil {
		c.http = &http.Client{Timeout: 2 * time.Minute}
	}
	if u, err := url.Parse(c.prefix); err == nil && strings.Trim(u.Path, "/") == "" {
		c.prefix += "/v2/x402"
	}
	return c
}

// Verify calls POST {prefix}/verify in the facilitator's dialect.
func (c *Client) Verify(ctx context.Context, req *request) (*verifyResponse, error) {
	var out x402.AnyVerifyAnswer
	if err := c.post(ctx, "/verify", req, &out, func() string {
		if out.InvalidMessage != "" {
			return out.InvalidMessage
		}
		if out.InvalidReason != nil {
			return *out.InvalidReason
		}
		return ""
	}); err != nil {
		// The upto spec's 412 (PERMIT2_ALLOWANCE_REQUIRED) carries a
		// verdict: the payer must approve Permit2 first.
		var se *statusError
		if !errors.As(err, &se) || se.Status != http.StatusPreconditionFailed || out.IsValid == nil || *out.IsValid {
			return nil, err
		}
	}
	v, err := out.Normalize()
	if err != nil {
		return nil, &statusError{Status: http.StatusBadGateway, Message: "the facilitator's verify answer is not understood", Err: err}
	}
	return v, nil
}

// Settle calls POST {prefix}/settle in the facilitator's dialect.
func (c *Client) Settle(ctx context.Context, req *request) (*settleResponse, error) {
	var out x402.AnySettleAnswer
	if err := c.post(ctx, "/settle", req, &out, func() string {
		for _, s := range []string{out.Error, out.ErrorMessage, out.ErrorReason} {
			if s != "" {
				return s
			}
		}
		return ""
	}); err != nil {
		return nil, err
	}
	s, err := out.Normalize()
	if err != nil {
		return nil, &statusError{Status: http.StatusBadGateway, Message: "the facilitator's settle answer does not say whether it settled", Err: err}
	}
	return s, nil
}

// Supported reads GET {prefix}/supported (once; a failure is tried again
// after a minute).
func (c *Client) Supported(ctx context.Context) (s *supportedResponse, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.supported != nil {
		return c.supported, nil
	}
	if !c.failedAt.IsZero() && time.Since(c.failedAt) < supportedRetry {
		return nil, errors.New("the facilitator's /supported failed less than a minute ago")
	}
	defer func() {
		if err != nil {
			c.failedAt = time.Now()
		}
	}()
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, c.prefix+"/supported", nil)
	if err != nil {
		return nil, err
	}
	c.addHeader(hr)
	resp, err := c.http.Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s/supported answered HTTP %d", c.prefix, resp.StatusCode)
	}
	var sr supportedResponse
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&sr); err != nil {
		return nil, fmt.Errorf("GET %s/supported: %w", c.prefix, err)
	}
	c.supported = &sr
	return &sr, nil
}

// dialect picks the dialect for a request: the configured one, else what
// /supported lists for the request's network (v2 first), else Cronos.
func (c *Client) dialect(ctx context.Context, req *request) x402.Dialect {
	if c.fixed != nil {
		return *c.fixed
	}
	s, err := c.Supported(ctx)
	if err != nil {
		return x402.DialectCronos
	}
	v2 := v2Requirements(req)
	for _, k := range s.Kinds {
		if k.X402Version == x402.Version2 && v2 != nil && strings.EqualFold(k.Network, v2.Network) {
			return x402.DialectV2
		}
	}
	for _, k := range s.Kinds {
		if k.X402Version == x402.Version1 && strings.EqualFold(k.Network, req.PaymentRequirements.Network) {
			if strings.HasPrefix(strings.ToLower(k.Network), "cronos") {
				return x402.DialectCronos
			}
			return x402.DialectV1
		}
	}
	return x402.DialectCronos
}

// v2Requirements are the request's requirements in v2 form, or nil when
// the network's chain id is unknown.
func v2Requirements(req *request) *x402.RequirementsV2 {
	if req.RequirementsV2 != nil {
		// The v1 form's amount is the one asked for: an upto settle's
		// charge replaces the maximum the buyer was shown.
		r := *req.RequirementsV2
		if req.PaymentRequirements.MaxAmountRequired != "" {
			r.Amount = req.PaymentRequirements.MaxAmountRequired
		}
		return &r
	}
	id, ok := x402.ChainIDOf(req.PaymentRequirements.Network)
	if !ok {
		return nil
	}
	r := req.PaymentRequirements.V2(x402.CAIP2(id))
	return &r
}

// body builds the request body in dialect d, converting the buyer's
// payment when it came in another version.
func body(d x402.Dialect, req *request) ([]byte, error) {
	p, err := x402.DecodePaymentHeader(req.PaymentHeader)
	// A v2 payment sent in v2 goes as it came: its payload is not read
	// here (upto's is a Permit2 authorization, not EIP-3009's); any other
	// is converted, so its EIP-3009 authorization is read.
	if err == nil && (d != x402.DialectV2 || p.X402Version != x402.Version2) {
		err = p.ParsePayload()
	}
	if err != nil {
		return nil, &statusError{Status: http.StatusBadRequest, Message: "the payment cannot be read: " + x402.ReasonOf(err)}
	}
	reqs := req.PaymentRequirements
	switch d {
	case x402.DialectV2:
		v2 := v2Requirements(req)
		if v2 == nil {
			return nil, &statusError{Status: http.StatusBadRequest, Message: fmt.Sprintf("network %q has no known chain id, so it cannot be sent in x402 version 2", reqs.Network)}
		}
		payload := []byte(nil)
		if p.X402Version == x402.Version2 {
			payload, err = x402.DecodeBase64(req.PaymentHeader)
		} else {
			var h string
			if h, err = x402.EncodePaymentV2(p, *v2, req.Resource, nil); err == nil {
				payload, err = x402.DecodeBase64(h)
			}
		}
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]any{"x402Version": x402.Version2, "paymentPayload": json.RawMessage(payload), "paymentRequirements": v2})
	case x402.DialectV1:
		q := *p
		q.X402Version, q.Network = x402.Version1, reqs.Network
		h, err := x402.EncodePaymentHeader(&q, x402.ShapeX402)
		if err != nil {
			return nil, err
		}
		payload, err := x402.DecodeBase64(h)
		if err != nil {
			return nil, err
		}
		return json.Marshal(map[string]any{"x402Version": x402.Version1, "paymentPayload": json.RawMessage(payload), "paymentRequirements": reqs})
	}
	header := req.PaymentHeader
	if p.X402Version != x402.Version1 || !strings.EqualFold(p.Network, reqs.Network) {
		q := *p
		q.X402Version, q.Network, q.Asset = x402.Version1, reqs.Network, reqs.Asset
		if header, err = x402.EncodePaymentHeader(&q, x402.ShapeCronos); err != nil {
			return nil, err
		}
	}
	return json.Marshal(request{X402Version: x402.Version1, PaymentHeader: header, PaymentRequirements: reqs})
}

func (c *Client) addHeader(hr *http.Request) {
	for k, vs := range c.header {
		for _, v := range vs {
			hr.Header.Add(k, v)
		}
	}
}

// post sends req in the facilitator's dialect and decodes a 200 answer
// into out. Any other status, an unreachable facilitator or an answer that
// is not JSON is a StatusError carrying what the facilitator said.
func (c *Client) post(ctx context.Context, path string, req *request, out any, message func() string) error {
	d := c.dialect(ctx, req)
	b, err := body(d, req)
	if err != nil {
		return err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.prefix+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	c.addHeader(hr)
	// The caller's trace goes on to the facilitator (W3C traceparent): a
	// paywall's verify and settle and the remote facilitator's spans are
	// one trace. Nothing is set without a span in ctx.
	propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(hr.Header))
	hr.Header.Set("Content-Type", "application/json")
	if d == x402.DialectCronos {
		hr.Header.Set("X402-Version", "1")
	}
	resp, err := c.http.Do(hr)
	if err != nil {
		return &statusError{Status: http.StatusBadGateway, Message: "cannot reach the facilitator", Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return &statusError{Status: http.StatusBadGateway, Message: "reading the facilitator's answer failed", Err: err}
	}
	decodeErr := json.Unmarshal(data, out)
	if resp.StatusCode != http.StatusOK {
		msg := fmt.Sprintf("facilitator answered HTTP %d", resp.StatusCode)
		if decodeErr == nil && message() != "" {
			msg += ": " + message()
		}
		return &statusError{Status: resp.StatusCode, Message: msg}
	}
	if decodeErr != nil {
		return &statusError{Status: http.StatusBadGateway, Message: "the facilitator's answer is not the expected JSON", Err: decodeErr}
	}
	return nil
}
