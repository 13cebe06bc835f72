package paywall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/ethereum/go-ethereum/common"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/facilitator/remote"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// An upto route with a remote facilitator learns the facilitator's
// address (the requirements' extra.facilitatorAddress, which the buyer's
// permit names as the one that may settle) from the facilitator's
// /supported at its first request: at start the facilitator may not be up
// yet (it may be a site of this very Caddy).

// uptoRemote is that once-learnt state.
type uptoRemote struct {
	mu    sync.Mutex
	ready atomic.Bool
}

// readyQuote learns the upto facilitator's address of a remote-mode
// upto route, once, before the route's offer is read (quoteReadier,
// seller.go): a route that cannot learn it answers 503 (nothing is
// verified or charged) and asks again at a later request. With the
// embedded facilitator it does nothing.
func (u *uptoSeller) readyQuote() error {
	if u.remote == nil || u.remote.ready.Load() {
		return nil
	}
	rm := u.remote
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.ready.Load() {
		return nil
	}
	c, ok := u.client.(*remote.Client)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s, err := c.Supported(ctx)
	if err == nil {
		err = u.applyKinds(s.Kinds)
	}
	if err != nil {
		u.logger.Error("the upto route cannot learn its facilitator's address from the remote facilitator's /supported; answering 503 until it can",
			zap.String("facilitator", u.facilitator), zap.Error(err))
		return caddyhttp.Error(http.StatusServiceUnavailable,
			fmt.Errorf("x402: this route's facilitator cannot be asked for its upto address yet (%v); nothing was charged, try again shortly", err))
	}
	rm.ready.Store(true)
	return nil
}

// applyKinds sets every option's upto extra from a facilitator's
// supported kinds and rebuilds the route's offers with it. The caller
// holds uptoRemote.mu, and no request reads the offers before ready.
func (u *uptoSeller) applyKinds(kinds []x402.SupportedKind) error {
	for i := range u.pricing.options {
		opt := &u.pricing.options[i]
		addr := ""
		for _, k := range kinds {
			if k.Scheme != SchemeUpto || (!strings.EqualFold(k.Network, opt.reqs.Network) && k.Network != opt.caip2) {
				continue
			}
			var e struct {
				FacilitatorAddress string `json:"facilitatorAddress"`
			}
			if b, err := json.Marshal(k.Extra); err == nil && json.Unmarshal(b, &e) == nil && common.IsHexAddress(e.FacilitatorAddress) {
				addr = common.HexToAddress(e.FacilitatorAddress).Hex()
				break
			}
		}
		if addr == "" {
			return fmt.Errorf("its /supported lists no upto kind with extra.facilitatorAddress for %s", opt.caip2)
		}
		opt.extraV2 = map[string]any{"assetTransferMethod": "permit2", "facilitatorAddress": addr}
	}
	if u.pricing.perRequest() {
		u.pricing.dynamic = &offerCache{m: map[string]*offer{}}
		return nil
	}
	o, err := u.pricing.priceOffer(u.pricing.expr)
	if err != nil {
		return errors.New("rebuilding the route's offer: " + err.Error())
	}
	u.pricing.static = o
	return nil
}
