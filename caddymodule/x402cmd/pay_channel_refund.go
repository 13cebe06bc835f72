package x402cmd

// "caddy x402 pay --refund": asks a batch-settlement seller to refund the
// key's channel (the unclaimed rest of its deposit, or --refund-amount of
// it) as the published client's refund(url) does: a `refund` payload with
// a voucher of the channel's charged amount (charging nothing), sent again
// once after a corrective 402.

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The refusals of a refund that sending it again cannot change.
const (
	reasonRefundNoBalance     = "invalid_batch_settlement_evm_refund_no_balance"
	reasonRefundAmountInvalid = "invalid_batch_settlement_evm_refund_amount_invalid"
)

// refundChannel asks the seller of a batch-settlement route to refund the
// key's channel, and records what went back.
func refundChannel(ctx context.Context, url string, pr *x402.PaymentRequiredV2, accepted x402.RequirementsV2, key *ecdsa.PrivateKey, o PayOptions,
	do func(string, string) (*http.Response, []byte, error), stdout, stderr io.Writer) error {
	var amount *big.Int
	if o.RefundAmount != "" {
		v, err := x402.ParseAmount(o.RefundAmount)
		if err != nil {
			return fmt.Errorf("--refund-amount %q: %w (smallest units)", o.RefundAmount, err)
		}
		amount = v
	}
	price, _ := parseAmount(accepted.Amount)
	c, unlock, err := openChanPay(ctx, url, key, accepted, pr.Resource, price, o, stderr)
	if err != nil {
		return err
	}
	defer unlock()
	if !c.recovering && c.balance.Cmp(c.charged) <= 0 {
		return fmt.Errorf("refusing to ask for a refund: channel %s has nothing left (balance %s, charged %s)", c.hexID(), c.balance, c.charged)
	}
	for retried := false; ; retried = true {
		sig, err := batch.SignVoucher(c.key, c.chainID, c.id, c.charged)
		if err != nil {
			return fmt.Errorf("signing the refund voucher: %w", err)
		}
		payload := map[string]any{"type": "refund", "channelConfig": c.cfg,
			"voucher": map[string]any{"channelId": c.id.Hex(), "maxClaimableAmount": c.charged.String(), "signature": hexutil.Encode(sig)}}
		what := "the rest"
		if amount != nil {
			payload["amount"] = amount.String()
			what = amount.String() + " smallest units"
		}
		raw, err := json.Marshal(payload)
		if err != nil {
			return err
		}
		header, err := x402.EncodeBase64JSON(x402.PaymentPayloadV2{X402Version: x402.Version2, Resource: c.resource, Accepted: c.accepted, Payload: raw})
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "x402: asking %s to refund %s of channel %s (voucher of the charged %s: charges nothing)\n", c.accepted.PayTo, what, c.hexID(), c.charged)
		resp, data, err := do(x402.HeaderPaymentSignature, header)
		if err != nil {
			return fmt.Errorf("%w (whether the refund was made is unknown: ask again, a refund is made once)", err)
		}
		settlement := resp.Header.Get(x402.HeaderPaymentResponseV2)
		if resp.StatusCode == http.StatusPaymentRequired {
			var refused x402.PaymentRequiredV2
			_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &refused)
			if !retried && (refused.Error == reasonCumulativeMismatch || refused.Error == reasonCumulativeBelowClaimed) {
				if err := c.resync(ctx, &refused); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "x402: the seller's record of channel %s differs from ours: resynchronised (charged %s, balance %s); asking again\n", c.hexID(), c.charged, c.balance)
				continue
			}
			reason := refused.Error
			if reason == "" {
				reason = strings.TrimSpace(string(data))
			}
			if reason == reasonRefundNoBalance && !c.recovering {
				c.balance = new(big.Int).Set(c.charged)
				_ = c.save()
			}
			return fmt.Errorf("refund refused: %s (nothing was refunded)", reason)
		}
		var sr x402.ReferenceSettleResponse
		if settlement == "" || x402.DecodeBase64JSON(settlement, &sr) != nil || !sr.Success || resp.StatusCode >= 300 {
			_ = writeBody(stdout, data)
			return fmt.Errorf("%s answered %s to the refund without a successful PAYMENT-RESPONSE: whether the refund was made is unknown (ask again: a refund is made once)", url, resp.Status)
		}
		fmt.Fprintf(stderr, "x402: settlement (PAYMENT-RESPONSE):\n%s\n", decodePaymentResponse(settlement))
		c.refunded(&sr)
		if err := c.save(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "x402: refunded %s smallest units of channel %s to %s%s: charged cumulative %s, balance %s, remaining %s (record %s)\n",
			sr.Amount, c.hexID(), c.cfg.Payer.Hex(), txNote(sr.Transaction), c.charged, c.balance, new(big.Int).Sub(c.balance, c.charged), c.flags.dir.file(c.id))
		return writeBody(stdout, data)
	}
}

// refunded takes a refund's answer into the channel: the balance goes
// down by the amount refunded (the seller's channelState balance when it
// names no amount; all that was left when neither is given).
func (c *chanPay) refunded(sr *x402.ReferenceSettleResponse) {
	if v, ok := parseAmount(sr.Amount); ok && v.Cmp(c.balance) <= 0 {
		c.balance = new(big.Int).Sub(c.balance, v)
		return
	}
	cs, _ := sr.Extra["channelState"].(map[string]any)
	if s, ok := cs["balance"].(string); ok {
		if v, ok := parseAmount(s); ok {
			c.balance = v
			return
		}
	}
	c.balance = new(big.Int).Set(c.charged)
}
