package paywall

import (
	"net/http"

	"github.com/caddy-x402/caddy-x402/caddymodule/internal/httpx"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Refusals of smart-contract wallet payments while another payment of the
// wallet is being settled (the facilitator's cooloff.go).

// reasonWalletBusy is the reason in x402_payments_total of a payment
// refused because its wallet had another payment being settled.
const reasonWalletBusy = "wallet_busy"

// retryWalletBusy tells the buyer what to do about it.
const retryWalletBusy = "nothing was charged for this request. Send the same payment header again in a moment, once the wallet's other payment is settled"

// walletBusy answers a smart-contract wallet's payment refused because
// another payment of the wallet is being settled: 409 with Retry-After,
// not a final refusal (and not remembered as one), since that other
// payment's outcome decides whether this one can go.
func (rp *replies) walletBusy(w http.ResponseWriter, r *http.Request) error {
	rp.metrics.paymentCode(rp.pricing.saleOf(r), OutcomeRefused, reasonWalletBusy)
	return httpx.WriteRetryJSON(w, http.StatusConflict, x402.ReasonWalletBusy, retryWalletBusy)
}
