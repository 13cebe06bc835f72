package paywall

import (
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The bounds of refunds the paywall cannot tell from a stranger's.
//
// A refund is authorized by a voucher of the channel's charged amount,
// signed by the payer (what the published client's refund(url) and
// `caddy x402 pay --refund` send). A voucher above what the chain has
// claimed is known only to the payer and to this store (the corrective
// 402 discloses the stored one only to the payer: chanOption.discloses):
// such a refund is proven, and goes through. A voucher at the claimed
// total may have been read from a claim transaction's calldata by anyone:
// such a refund is unproven. It still goes through (it is what a payer
// whose client lost its channel record sends, and the money goes to the
// payer, never to the sender), but the gas it costs the seller is bounded:
// at most one unproven refund transaction per channel per refund_window
// (for every instance sharing the store: the slot is the channel record's,
// Channels.TakeRefundSlot), and no partial one for less than refund_min
// (about the gas of a refund transaction).

// whyRequested is refundChannel's why for a buyer's refund request.
const whyRequested = "requested"

// Reasons of an unproven refund that is refused, in the published
// server's style.
const (
	reasonRefundTooSoon       = "invalid_batch_settlement_evm_refund_too_soon"
	reasonRefundBelowMinimum  = "invalid_batch_settlement_evm_refund_amount_below_minimum"
	textRefundTooSoon         = ": this channel was refunded less than refund_window ago on a voucher that is public on chain; ask again later, or pay a request first"
	textRefundBelowMinimumFmt = ": a partial refund on a voucher that is public on chain must be at least %s smallest units (refund_min); ask for more, or for all of it"
)

// DefaultRefundWindow is how often, at most, an unproven refund of one
// channel is sent (refund_window).
const DefaultRefundWindow = 10 * time.Minute

// DefaultRefundMin is the least partial unproven refund, in whole tokens
// (refund_min): above the gas a refund transaction costs on Cronos.
const DefaultRefundMin = "0.01"

// refundWindow is refund_window, or its default.
func (m *Metering) refundWindow() time.Duration {
	if m.RefundWindow > 0 {
		return time.Duration(m.RefundWindow)
	}
	return DefaultRefundWindow
}

// refundProven says whether a refund of channel rec authorized by a
// voucher of max (checked: signed by the payer, of the charged amount)
// is the payer's beyond doubt: its voucher is above what the chain has
// claimed, so no claim transaction carried it.
func refundProven(rec *store.Channel, max *big.Int) bool { return max.Cmp(rec.Claimed) > 0 }

// unprovenRefundRefusal is why an unproven partial refund of amount from
// channel rec is refused (below co's refund_min while less than what is
// left), with its text; "" when it may go.
func (co *chanOption) unprovenRefundRefusal(rec *store.Channel, amount *big.Int) (string, string) {
	if amount == nil || co.refundMin == nil || amount.Cmp(co.refundMin) >= 0 {
		return "", ""
	}
	if rest := new(big.Int).Sub(rec.Balance, rec.Charged); amount.Cmp(rest) >= 0 {
		return "", "" // all that is left: a full refund
	}
	return reasonRefundBelowMinimum, fmt.Sprintf(textRefundBelowMinimumFmt, co.refundMin)
}

// refundMinOf is refund_min (or its default) in the smallest units of a
// token with decimals; nil when the decimals are unknown and refund_min
// is not set (no minimum).
func (m *Metering) refundMinOf(opt *payOption) (*big.Int, error) {
	v := m.RefundMin
	if v == "" {
		if !opt.decimalsKnown {
			return nil, nil
		}
		v = DefaultRefundMin
	} else if !opt.decimalsKnown {
		return nil, fmt.Errorf("x402: refund_min on network %q needs the token's decimals (set decimals)", opt.reqs.Network)
	}
	min, err := x402.ParsePrice(v, opt.decimals)
	if err != nil {
		return nil, fmt.Errorf("x402: refund_min %q: %w", v, err)
	}
	return min, nil
}

// parseRefundLimit reads `refund_window <duration>` and
// `refund_min <price in whole tokens>`.
func (m *Metering) parseRefundLimit(d *caddyfile.Dispenser, name string) error {
	v, err := httpx.OneArg(d)
	if err != nil {
		return err
	}
	if name == "refund_window" {
		dur, err := caddy.ParseDuration(v)
		if err != nil || dur < time.Second {
			return d.Errf("x402: refund_window %q: want a duration of at least 1s, such as 10m", v)
		}
		m.RefundWindow = caddy.Duration(dur)
		return nil
	}
	if _, err := x402.ParsePrice(v, 18); err != nil {
		return d.Errf("x402: refund_min %q: want a price in whole tokens, such as 0.01: %v", v, err)
	}
	m.RefundMin = v
	return nil
}

// validateRefundLimit checks refund_window and refund_min.
func (m *Metering) validateRefundLimit() error {
	if m.RefundWindow < 0 {
		return errors.New("x402: refund_window must be positive")
	}
	return nil
}
