package x402cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/spf13/cobra"

	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// "caddy x402 receipt": fetches a receipt a seller keeps (its
// /.well-known/x402/receipt look-up, docs/receipts.md) and verifies it as
// "caddy x402 pay" verifies the receipt of a paid answer: its signature by
// a key of the site's did:web document, and that it is the receipt asked
// for (the transaction, or the payer).

// ReceiptOptions are the flags of "caddy x402 receipt".
type ReceiptOptions struct {
	Transaction string        // --transaction: the settlement's transaction hash
	Payer       string        // --payer: the payer's address, with --payment-id
	PaymentID   string        // --payment-id: the payment identifier it was paid under
	Timeout     time.Duration // --timeout: of each HTTP request
}

// maxReceiptAnswer bounds the look-up's answer read (a receipt is about a
// kilobyte).
const maxReceiptAnswer = 1 << 20

func receiptCommand() *cobra.Command {
	var o ReceiptOptions
	cmd := &cobra.Command{
		Use:   "receipt URL (--transaction 0x... | --payer 0x... --payment-id ID) [--timeout 30s]",
		Short: "Fetch a receipt a seller keeps, and verify it",
		Long: `
Fetches the receipt of a payment again from the seller's site (the site of
URL: its /.well-known/x402/receipt look-up, which a seller with a
receipt_key answers for the payments its routes signed receipts for, for
an hour or two after each), by the settlement's transaction
(--transaction) or by the payer and the payment identifier it paid under
(--payer and --payment-id, as "caddy x402 pay --payment-id" sends and
prints).

The receipt is verified as "caddy x402 pay" verifies one: its signature by
a key of the site's did:web document (/.well-known/did.json, or the DID it
names), and that it names the transaction or the payer asked for. The
receipt (JSON, as kept) goes to stdout, what it says to stderr. A receipt
that does not verify, or none kept, exits with status 1 and the reason.
`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return RunReceipt(commandContext(cmd), args[0], o, os.Stdout, os.Stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Transaction, "transaction", "", "the settlement's transaction hash (0x and 64 hex digits)")
	f.StringVar(&o.Payer, "payer", "", "the payer's address (0x and 40 hex digits), with --payment-id")
	f.StringVar(&o.PaymentID, "payment-id", "", "the x402 v2 payment-identifier id the payment was made under, with --payer")
	f.DurationVar(&o.Timeout, "timeout", 30*time.Second, "timeout of each HTTP request")
	return cmd
}

// RunReceipt is "caddy x402 receipt URL": it fetches the receipt o asks
// for from url's site, verifies it, writes it (JSON) to stdout and what
// it says to stderr.
func RunReceipt(ctx context.Context, url string, o ReceiptOptions, stdout, stderr io.Writer) error {
	q, err := o.query()
	if err != nil {
		return err
	}
	u, err := neturl.Parse(url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http or https URL of the seller's site", url)
	}
	site := u.Scheme + "://" + u.Host
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	client := &http.Client{Timeout: timeout}
	lookup := site + "/.well-known/x402/receipt?" + q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, lookup, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("asking %s: %w", lookup, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxReceiptAnswer+1))
	switch {
	case err != nil:
		return fmt.Errorf("reading the answer of %s: %w", lookup, err)
	case len(body) > maxReceiptAnswer:
		return fmt.Errorf("%s answered more than %d bytes: not a receipt", lookup, maxReceiptAnswer)
	case resp.StatusCode != http.StatusOK:
		return lookupRefused(resp, body)
	}
	var info offerreceipt.ReceiptInfo
	if err := json.Unmarshal(body, &info); err != nil {
		return fmt.Errorf("the seller's answer is not a receipt: %w", err)
	}
	oc := &offerCheck{ctx: ctx, client: client, url: site, stderr: stderr, keys: map[string]*offerreceipt.Keys{}}
	r, signer, err := oc.verifyKept(info, o)
	if err != nil {
		return fmt.Errorf("the seller's receipt does not verify: %w", err)
	}
	if _, err := stdout.Write(append(body, '\n')); err != nil {
		return err
	}
	printReceipt(stderr, info.Receipt.Format, signer, r)
	return nil
}

// query is the look-up's query for o, or why o asks for none.
func (o ReceiptOptions) query() (neturl.Values, error) {
	q := neturl.Values{}
	switch {
	case o.Transaction != "" && (o.Payer != "" || o.PaymentID != ""):
		return nil, errors.New("give --transaction, or --payer with --payment-id, not both")
	case o.Transaction != "":
		if b, err := hexutil.Decode(o.Transaction); err != nil || len(b) != 32 {
			return nil, fmt.Errorf("--transaction %q: want 0x and 64 hex digits (the settlement's transaction hash)", o.Transaction)
		}
		q.Set("transaction", o.Transaction)
	case o.Payer != "" && o.PaymentID != "":
		if !common.IsHexAddress(o.Payer) || !strings.HasPrefix(o.Payer, "0x") {
			return nil, fmt.Errorf("--payer %q: want 0x and 40 hex digits (the payer's address)", o.Payer)
		}
		if !x402.ValidPaymentID(o.PaymentID) {
			return nil, fmt.Errorf("--payment-id %q: %s", o.PaymentID, x402.ReasonPaymentIDFormat)
		}
		q.Set("payer", o.Payer)
		q.Set("payment_id", o.PaymentID)
	default:
		return nil, errors.New("give --transaction 0x... (the settlement's transaction hash), or --payer 0x... with --payment-id ID (the payment identifier it was paid under)")
	}
	return q, nil
}

// lookupRefused is the error of a look-up answered with another status
// than 200: the seller's own words (its JSON "error"), and when to ask
// again for a store out of reach.
func lookupRefused(resp *http.Response, body []byte) error {
	var e struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	if len(msg) > 512 {
		msg = msg[:512] + "..."
	}
	err := fmt.Errorf("no receipt: the seller answered %d: %s", resp.StatusCode, msg)
	if ra := resp.Header.Get("Retry-After"); ra != "" {
		err = fmt.Errorf("%w (ask again in %s s)", err, ra)
	}
	return err
}

// verifyKept verifies a kept receipt: its signature by a key of the site's
// did:web document, and that it names the transaction, or the payer, o
// asked for. It returns the receipt and the DID whose key signed it.
func (c *offerCheck) verifyKept(info offerreceipt.ReceiptInfo, o ReceiptOptions) (offerreceipt.Receipt, string, error) {
	r, did, err := c.signedBySite(info)
	switch {
	case err != nil:
		return offerreceipt.Receipt{}, "", err
	case o.Transaction != "" && !strings.EqualFold(r.Transaction, o.Transaction):
		return r, did, fmt.Errorf("it names transaction %q, not %s", r.Transaction, o.Transaction)
	case o.Payer != "" && !strings.EqualFold(r.Payer, o.Payer):
		return r, did, fmt.Errorf("its payer %s is not %s", r.Payer, o.Payer)
	}
	return r, did, nil
}
