package httpapi

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// Who may ask for operations on receivers' behalf: a batch-settlement
// claim, settle or refund is sent by this facilitator and signed with its
// receiver-authorizer key, so a payer could otherwise refund its own
// channel before the seller claimed the vouchers it was served on. These
// settles are served to callers with an API key only (Config.APIKeys), a
// key restricted to receivers (Config.KeyReceivers) for those only.
// Deposits and vouchers, which the payer signs, need no key.

// Refusal texts of a receiver operation (the settle's error).
const (
	// textReceiverOpNoKeys answers it when no API key is configured.
	textReceiverOpNoKeys = "Not authorized: batch-settlement %s is served only to callers with an API key, and this facilitator has none configured: its operator must add an api_key to x402_facilitator (httpapi.Config.APIKeys) and give it to the sellers; deposits and vouchers need no key"
	// textReceiverOpKeyRequired answers it without a key.
	textReceiverOpKeyRequired = "Not authorized: batch-settlement %s acts for the channel's receiver and is served only to callers with an API key: send Authorization: Bearer KEY with the key this facilitator's operator gave the seller; deposits and vouchers need no key"
	// textReceiverOpNotYours answers it with a key restricted to other
	// receivers.
	textReceiverOpNotYours = "Not authorized: batch-settlement %s acts for receiver %s, which this API key may not act for; use the key of that receiver"
)

// keyReceivers are the receivers each restricted API key may act for, by
// the key's SHA-256; a known key not in it may act for any receiver.
type keyReceivers map[[32]byte]map[common.Address]bool

func newKeyReceivers(in map[string][]string) keyReceivers {
	if len(in) == 0 {
		return nil
	}
	out := keyReceivers{}
	for k, addrs := range in {
		set := map[common.Address]bool{}
		for _, a := range addrs {
			// An address that is not one matches no receiver: the key is
			// restricted all the same (it fails closed).
			if a = strings.TrimSpace(a); common.IsHexAddress(a) {
				set[common.HexToAddress(a)] = true
			}
		}
		out[sha256.Sum256([]byte(strings.TrimSpace(k)))] = set
	}
	return out
}

// receiverGate is the facilitator.ReceiverGate of request r: the limits
// (h.limited) already answered an unknown key, so a key sent here is
// known.
func (h *handler) receiverGate(w http.ResponseWriter, r *http.Request) facilitator.ReceiverGate {
	return func(op string, receivers []common.Address) error {
		if len(h.keys) == 0 {
			return &x402.StatusError{Status: http.StatusForbidden, Message: fmt.Sprintf(textReceiverOpNoKeys, op)}
		}
		_, sent, known := h.keys.caller(r)
		if !sent || !known {
			w.Header().Set("WWW-Authenticate", `Bearer realm="x402 facilitator"`)
			return &x402.StatusError{Status: http.StatusUnauthorized, Message: fmt.Sprintf(textReceiverOpKeyRequired, op)}
		}
		_, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		allowed, restricted := h.receivers[sha256.Sum256([]byte(strings.TrimSpace(tok)))]
		if !restricted {
			return nil
		}
		for _, a := range receivers {
			if !allowed[a] {
				return &x402.StatusError{Status: http.StatusForbidden, Message: fmt.Sprintf(textReceiverOpNotYours, op, a.Hex())}
			}
		}
		return nil
	}
}
