package facilitator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Client is what a seller needs from a facilitator. *Facilitator (in
// process) and *Remote (over HTTP) both implement it, so a paywall does not
// care which it talks to.
type Client interface {
	// Verify checks a payment; see Facilitator.Verify.
	Verify(ctx context.Context, req *Request) (*VerifyResponse, error)
	// Settle settles a payment; see Facilitator.Settle.
	Settle(ctx context.Context, req *Request) (*SettleResponse, error)
}

var (
	_ Client = (*Facilitator)(nil)
	_ Client = (*Remote)(nil)
)

// Remote is a Client for a facilitator reached over HTTP: it speaks exactly
// the API that Handler serves.
type Remote struct {
	base string
	http *http.Client
}

// NewRemote returns a client for the facilitator at baseURL (for example
// "https://facilitator.example.com"). A nil httpClient means one with a
// 2-minute timeout, longer than a settle's wait for its block.
func NewRemote(baseURL string, httpClient *http.Client) *Remote {
	if httpClient == nil {
		httpClient = &http.Client{Timeout: 2 * time.Minute}
	}
	return &Remote{base: strings.TrimRight(baseURL, "/"), http: httpClient}
}

// Verify calls POST /v2/x402/verify.
func (c *Remote) Verify(ctx context.Context, req *Request) (*VerifyResponse, error) {
	var out VerifyResponse
	if err := c.post(ctx, PathVerify, req, &out, func() string { return out.Reason() }); err != nil {
		return nil, err
	}
	return &out, nil
}

// Settle calls POST /v2/x402/settle.
func (c *Remote) Settle(ctx context.Context, req *Request) (*SettleResponse, error) {
	var out SettleResponse
	if err := c.post(ctx, PathSettle, req, &out, func() string { return out.Error }); err != nil {
		return nil, err
	}
	return &out, nil
}

// post sends req and decodes a 200 answer into out. Any other status is a
// StatusError carrying the facilitator's message.
func (c *Remote) post(ctx context.Context, path string, req *Request, out any, message func() string) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("X402-Version", "1")
	resp, err := c.http.Do(hr)
	if err != nil {
		return &StatusError{Status: http.StatusBadGateway, Message: "cannot reach the facilitator", Err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return &StatusError{Status: http.StatusBadGateway, Message: "reading the facilitator's answer failed", Err: err}
	}
	decodeErr := json.Unmarshal(data, out)
	if resp.StatusCode != http.StatusOK {
		msg := fmt.Sprintf("facilitator answered HTTP %d", resp.StatusCode)
		if decodeErr == nil && message() != "" {
			msg += ": " + message()
		}
		return &StatusError{Status: resp.StatusCode, Message: msg}
	}
	if decodeErr != nil {
		return &StatusError{Status: http.StatusBadGateway, Message: "the facilitator's answer is not the expected JSON", Err: decodeErr}
	}
	return nil
}
