package paywall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Errors of an outcome lookup.
var (
	// errOutcomeNotFound: the facilitator knows no such settlement.
	errOutcomeNotFound = errors.New("the facilitator knows no such settlement")
	// errLookupUnsupported: the facilitator cannot look settlements up
	// by authorization.
	errLookupUnsupported = errors.New("the facilitator cannot look settlements up by authorization")
)

// outcomeLookup finds what became of a settlement the paywall asked for.
type outcomeLookup interface {
	// byTx looks a settlement up by one of its transaction hashes.
	byTx(ctx context.Context, txHash string) (*x402.SettleResponse, error)
	// byAuthorization looks a settlement up by network, the
	// authorization's scheme (its nonce space: noncespace.go), payer and
	// authorization nonce (0x hex).
	byAuthorization(ctx context.Context, network, scheme, from, nonce string) (*x402.SettleResponse, error)
}

// localLookup looks settlements up in the embedded facilitator.
type localLookup struct{ f *facilitator.Facilitator }

// authorizationLookup is the embedded facilitator's lookup by
// authorization, where it has one.
type authorizationLookup interface {
	SettlementByAuthorizationOf(network, scheme, from, nonce string) (*x402.SettleResponse, error)
}

func (l localLookup) byTx(_ context.Context, txHash string) (*x402.SettleResponse, error) {
	sr, err := l.f.Settlement(txHash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errOutcomeNotFound
	}
	return sr, err
}

func (l localLookup) byAuthorization(_ context.Context, network, scheme, from, nonce string) (*x402.SettleResponse, error) {
	al, ok := any(l.f).(authorizationLookup)
	if !ok {
		return nil, errLookupUnsupported
	}
	sr, err := al.SettlementByAuthorizationOf(network, scheme, from, nonce)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errOutcomeNotFound
	}
	return sr, err
}

// remoteLookup looks settlements up through a remote facilitator's
// settlements routes: GET /v2/x402/settlements/{txHash} and
// GET /v2/x402/settlements?network=&from=&nonce=&scheme= (a facilitator
// that does not know scheme ignores it).
type remoteLookup struct {
	base string
	http *http.Client
}

func newRemoteLookup(base string) *remoteLookup {
	return &remoteLookup{base: strings.TrimRight(base, "/"), http: &http.Client{Timeout: 15 * time.Second}}
}

func (o *remoteLookup) byTx(ctx context.Context, txHash string) (*x402.SettleResponse, error) {
	return o.get(ctx, o.base+x402.PathSettlements+url.PathEscape(txHash))
}

func (o *remoteLookup) byAuthorization(ctx context.Context, network, scheme, from, nonce string) (*x402.SettleResponse, error) {
	q := url.Values{"network": {network}, "from": {from}, "nonce": {nonce}, "scheme": {scheme}}
	return o.get(ctx, o.base+strings.TrimSuffix(x402.PathSettlements, "/")+"?"+q.Encode())
}

func (o *remoteLookup) get(ctx context.Context, u string) (*x402.SettleResponse, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := o.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("asking the facilitator for a settlement's outcome: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("reading the facilitator's settlement answer: %w", err)
	}
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return nil, errOutcomeNotFound
	default:
		return nil, fmt.Errorf("the facilitator answered HTTP %d to a settlement lookup: %.200s", resp.StatusCode, body)
	}
	var sr x402.SettleResponse
	if err := json.Unmarshal(body, &sr); err != nil || sr.Event == "" {
		return nil, fmt.Errorf("the facilitator's settlement answer is not a settlement: %.200s", body)
	}
	return &sr, nil
}
