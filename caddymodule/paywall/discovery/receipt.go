package discovery

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"go.uber.org/zap"

	"github.com/caddy-x402/caddy-x402/caddymodule/app"
	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/offerreceipt"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// GET /.well-known/x402/receipt (issue 34): a payment's signed receipt
// fetched again, for as long as its redemption record lives (an hour
// after its authorization expired), answered where /.well-known/did.json
// is (by the x402 handler and x402_path_guard) when the x402 app has
// receipt keys:
//
//	?transaction=0x…               the settlement's transaction hash
//	?payer=0x…&payment_id=…        the payment identifier it was sent with
//
// 200 with the receipt exactly as it was signed and kept (by transaction,
// only a receipt that names it: receipt_transaction off is not undone) (the settlement
// response's extensions["offer-receipt"].info: {"receipt": …, "charge"?:
// …}, never signed again); 404 when no record with a receipt is kept; 400
// for a malformed query; 503 with Retry-After when the store cannot be
// read. The records are the app's redemption store, shared by every site
// of this Caddy (and every instance on a PostgreSQL store).

// receiptPath is the receipt look-up.
const receiptPath = "/.well-known/x402/receipt"

// maxReceiptQuery bounds the look-up's query: a hash, or an address and
// an id of at most 128 characters, fit well within it.
const maxReceiptQuery = 512

// Texts of the look-up's answers.
const (
	textReceiptQueryLong = "the query is over 512 bytes"
	textReceiptQuery     = "give transaction=0x… (the settlement's transaction hash), or payer=0x… and payment_id=… (the payment identifier the payment was sent with)"
	textReceiptTx        = "transaction must be a 0x-prefixed 32-byte hex hash (66 characters)"
	textReceiptPayer     = "payer must be a 0x-prefixed 20-byte hex address (42 characters)"
	textReceiptID        = "payment_id must be 16 to 128 characters, each a letter, a digit, - or _"
	textReceiptNotFound  = "no receipt is kept for this payment: it is unknown, its record was pruned (an hour after its authorization expired), or its route signs no receipts (offer_receipt), or none that name their transaction (receipt_transaction off) when asked by transaction"
	textReceiptStoreDown = "the payment records cannot be read right now"
	retryReceiptStore    = "ask again in a moment"
)

// ServeReceipt answers GET /.well-known/x402/receipt when the x402 app has
// receipt keys (another method: answerMethod); false when r is another
// request or there are none.
func ServeReceipt(w http.ResponseWriter, r *http.Request) (bool, error) {
	if r.URL.Path != receiptPath {
		return false, nil
	}
	a := receiptsApp()
	if a == nil || a.Deliveries() == nil {
		return false, nil
	}
	if !readOnly(r) {
		return true, answerMethod(w, r)
	}
	if len(r.URL.RawQuery) > maxReceiptQuery {
		return true, receiptError(w, r, http.StatusBadRequest, textReceiptQueryLong)
	}
	q := r.URL.Query()
	tx, payer, id := q.Get("transaction"), q.Get("payer"), q.Get("payment_id")
	st := a.Deliveries().Store()
	var receipt json.RawMessage
	switch {
	case tx != "" && payer == "" && id == "":
		if b, err := hexutil.Decode(tx); err != nil || len(b) != 32 {
			return true, receiptError(w, r, http.StatusBadRequest, textReceiptTx)
		}
		_, rec, err := st.ByTransaction(tx)
		if err != nil {
			return true, receiptStoreDown(w, err)
		}
		if rec != nil && namesTransaction(rec.Receipt, tx) {
			receipt = rec.Receipt
		}
	case tx == "" && payer != "" && id != "":
		if b, err := hexutil.Decode(payer); err != nil || len(b) != 20 {
			return true, receiptError(w, r, http.StatusBadRequest, textReceiptPayer)
		}
		if !x402.ValidPaymentID(id) {
			return true, receiptError(w, r, http.StatusBadRequest, textReceiptID)
		}
		_, rec, err := st.ByPaymentID(app.PaymentIDKey(payer, id))
		if err != nil {
			return true, receiptStoreDown(w, err)
		}
		if rec != nil {
			receipt = rec.Receipt
		}
	default:
		return true, receiptError(w, r, http.StatusBadRequest, textReceiptQuery)
	}
	if len(receipt) == 0 {
		return true, receiptError(w, r, http.StatusNotFound, textReceiptNotFound)
	}
	return true, writeReceiptJSON(w, r, http.StatusOK, receipt)
}

// namesTransaction reports whether a kept receipt names transaction tx:
// a route with receipt_transaction off signs receipts that name none, and
// the look-up by transaction does not link them to it.
func namesTransaction(receipt json.RawMessage, tx string) bool {
	var info offerreceipt.ReceiptInfo
	if len(receipt) == 0 || json.Unmarshal(receipt, &info) != nil {
		return false
	}
	named, err := info.Transaction()
	return err == nil && strings.EqualFold(named, tx)
}

// receiptError answers the look-up with status and {"error": text}.
func receiptError(w http.ResponseWriter, r *http.Request, status int, text string) error {
	body, err := json.Marshal(map[string]string{"error": text})
	if err != nil {
		return err
	}
	return writeReceiptJSON(w, r, status, append(body, '\n'))
}

// receiptStoreDown answers the look-up when the store cannot be read:
// 503 with Retry-After; the error is logged.
func receiptStoreDown(w http.ResponseWriter, err error) error {
	caddy.Log().Named("x402").Error("reading the redemption store for a receipt look-up failed; the look-up is answered 503 until it is back", zap.Error(err))
	return httpx.WriteRetryJSON(w, http.StatusServiceUnavailable, textReceiptStoreDown, retryReceiptStore)
}

// writeReceiptJSON writes a look-up's JSON answer, never cached.
func writeReceiptJSON(w http.ResponseWriter, r *http.Request, status int, body []byte) error {
	return writeAnswer(w, r, status, "application/json", "no-store", body)
}
