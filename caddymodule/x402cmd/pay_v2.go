package x402cmd

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"

	"github.com/caddy-x402/caddy-x402/facilitator/exact"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// payV2 is "caddy x402 pay" against a version 2 seller: it chooses from
// accepts, signs, and sends PAYMENT-SIGNATURE.
func payV2(ctx context.Context, url, required string, key *ecdsa.PrivateKey, maxAmount *big.Int, o PayOptions,
	do func(string, string) (*http.Response, []byte, error), stdout, stderr io.Writer) error {
	var pr x402.PaymentRequiredV2
	if err := x402.DecodeBase64JSON(required, &pr); err != nil {
		return fmt.Errorf("the PAYMENT-REQUIRED header is not Base64 JSON: %w", err)
	}
	accepted, value, opts, err := chooseV2Payment(&pr, maxAmount, o, stderr)
	if err != nil {
		return err
	}
	if o.Refund && accepted.Scheme != SchemeChannel {
		return fmt.Errorf("--refund is for batch-settlement routes; %s offers scheme %s", url, accepted.Scheme)
	}
	if o.Refund {
		return refundChannel(ctx, url, &pr, accepted, key, o, do, stdout, stderr)
	}
	if err := o.check.checkV2(&pr, accepted, value); err != nil {
		return err
	}
	if accepted.Scheme == SchemeChannel {
		return payChannel(ctx, url, &pr, accepted, value, key, o, do, stdout, stderr)
	}
	var header string
	if accepted.Scheme == x402.SchemeUpto {
		if header, err = payUpto(ctx, key, accepted, pr.Resource, value, o, stderr); err != nil {
			return err
		}
	} else {
		h, payment, err := exact.CreatePaymentV2(key, accepted, pr.Resource, opts)
		if err != nil {
			return fmt.Errorf("signing the payment: %w", err)
		}
		header = h
		fmt.Fprintf(stderr, "x402: paying %s smallest units of %s on %s from %s to %s (x402 version 2)\n",
			value, accepted.Asset, accepted.Network, payment.Authorization.From.Hex(), accepted.PayTo)
	}
	resp, data, err := do(x402.HeaderPaymentSignature, header)
	if err != nil {
		return err
	}
	settlement := resp.Header.Get(x402.HeaderPaymentResponseV2)
	if settlement == "" {
		// An upto route that settles after its answer sends the receipt
		// as a trailer.
		settlement = resp.Trailer.Get(x402.HeaderPaymentResponseV2)
	}
	if settlement != "" {
		fmt.Fprintf(stderr, "x402: settlement (PAYMENT-RESPONSE):\n%s\n", decodePaymentResponse(settlement))
	}
	if resp.StatusCode == http.StatusPaymentRequired {
		reason := strings.TrimSpace(string(data))
		var refused x402.PaymentRequiredV2
		if x402.DecodeBase64JSON(resp.Header.Get(x402.HeaderPaymentRequired), &refused) == nil && refused.Error != "" {
			reason = refused.Error
		} else {
			var v1 x402.PaymentRequired
			if json.Unmarshal(data, &v1) == nil && v1.Error != "" {
				reason = v1.Error
			}
		}
		if reason == x402.ErrTextPending {
			return fmt.Errorf("payment refused: %s: the transfer was broadcast and may still move the money; the seller did not deliver", reason)
		}
		return fmt.Errorf("payment refused: %s (no money moved)%s", reason, allowanceHint(reason))
	}
	if err := writeBody(stdout, data); err != nil {
		return err
	}
	if resp.StatusCode >= 400 {
		var sr x402.ReferenceSettleResponse
		if settlement != "" && x402.DecodeBase64JSON(settlement, &sr) == nil && sr.Success {
			return fmt.Errorf("%s answered %s after the payment was settled: money moved%s", url, resp.Status, txNote(sr.Transaction))
		}
		var failed struct {
			Error       string `json:"error"`
			Transaction string `json:"transaction"`
		}
		why := ""
		if json.Unmarshal(data, &failed) == nil && failed.Error != "" {
			why = ": " + failed.Error
			if failed.Transaction != "" {
				why += " (earlier transaction " + failed.Transaction + ")"
			}
		}
		return fmt.Errorf("%s answered %s%s; nothing was settled for this request", url, resp.Status, why)
	}
	reportAccessCookie(resp, o.jar, stderr)
	if settlement == "" {
		fmt.Fprintf(stderr, "x402: %s answered %s without a PAYMENT-RESPONSE header\n", url, resp.Status)
	}
	return o.check.receipt(settlementJSON(settlement))
}

// chooseV2Payment chooses from a version 2 seller's accepts (chooseV2)
// and prepares the options of an exact payment for it: the wallet, the
// chain id asked for, and the payment-identifier extension.
func chooseV2Payment(pr *x402.PaymentRequiredV2, maxAmount *big.Int, o PayOptions, stderr io.Writer) (x402.RequirementsV2, *big.Int, exact.PaymentOptions, error) {
	opts := exact.PaymentOptions{Wallet: o.wallet, Deploy: o.deploy}
	accepted, value, err := chooseV2(pr.Accepts, maxAmount, o.ChainID, o.Network)
	if err != nil {
		return accepted, nil, opts, err
	}
	if o.ChainID != 0 {
		opts.ChainID = big.NewInt(o.ChainID)
	}
	opts.Extensions, err = paymentIDExtensions(pr.Extensions, o.PaymentID, stderr)
	return accepted, value, opts, err
}

// paymentIDExtensions is the payment-identifier extension of a v2
// payment: id under the seller's declaration, a new id when the seller
// requires one and none is given, nil when the seller does not declare it.
// It tells the buyer the id it pays under.
func paymentIDExtensions(declared map[string]any, id string, stderr io.Writer) (map[string]any, error) {
	ok, required := x402.PaymentIDDeclared(declared)
	switch {
	case !ok && id != "":
		fmt.Fprintf(stderr, "x402: the seller does not declare payment-identifier: paying without --payment-id\n")
		return nil, nil
	case !ok:
		return nil, nil
	case id == "" && !required:
		return nil, nil
	case id == "":
		id = x402.NewPaymentID()
	}
	ext, err := x402.WithPaymentID(declared, id)
	if err != nil {
		return nil, fmt.Errorf("--payment-id %q: %w", id, err)
	}
	fmt.Fprintf(stderr, "x402: payment id %s (if the answer is lost, run again with --payment-id %s: a payment that went through is not made twice)\n", id, id)
	return ext, nil
}
