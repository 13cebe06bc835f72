package x402cmd

// "caddy x402 pay --refund": asks a batch-settlement seller to refund the
// key's channel (the unclaimed rest of its deposit, or --refund-amount of
// it) as the published client's refund(url) does: a `refund` payload with
// a voucher of the channel's charged amount (charging nothing), sent again
// once after a corrective 402.

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
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
	if !c.recovering && c.Balance.Cmp(c.Charged) <= 0 {
		return fmt.Errorf("refusing to ask for a refund: channel %s has nothing left (balance %s, charged %s)", c.HexID(), c.Balance, c.Charged)
	}
	for retried := false; ; retried = true {
		what := "the rest"
		if amount != nil {
			what = amount.String() + " smallest units"
		}
		header, err := c.Refund(amount)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "x402: asking %s to refund %s of channel %s (voucher of the charged %s: charges nothing)\n", c.Accepted.PayTo, what, c.HexID(), c.Charged)
		resp, data, err := do(x402.HeaderPaymentSignature, header)
		if err != nil {
			return fmt.Errorf("%w (whether the refund was made is unknown: ask again, a refund is made once)", err)
		}
		settlement := resp.Header.Get(x402.HeaderPaymentResponseV2)
		if resp.StatusCode == http.StatusPaymentRequired {
			var refused x402.PaymentRequiredV2
			_ = x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &refused)
			if !retried && (refused.Error == batchsettlement.ErrCumulativeMismatch || refused.Error == batchsettlement.ErrCumulativeAmountBelowClaimed) {
				if err := c.resync(ctx, &refused); err != nil {
					return err
				}
				fmt.Fprintf(stderr, "x402: the seller's record of channel %s differs from ours: resynchronised (charged %s, balance %s); asking again\n", c.HexID(), c.Charged, c.Balance)
				continue
			}
			reason := refused.Error
			if reason == "" {
				reason = strings.TrimSpace(string(data))
			}
			if reason == batchsettlement.ErrRefundNoBalance && !c.recovering {
				c.Balance = new(big.Int).Set(c.Charged)
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
		c.Refunded(&sr)
		if err := c.save(); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "x402: refunded %s smallest units of channel %s to %s%s: charged cumulative %s, balance %s, remaining %s (record %s)\n",
			sr.Amount, c.HexID(), c.Config.Payer.Hex(), txNote(sr.Transaction), c.Charged, c.Balance, new(big.Int).Sub(c.Balance, c.Charged), c.flags.dir.file(c.ID))
		return writeBody(stdout, data)
	}
}
