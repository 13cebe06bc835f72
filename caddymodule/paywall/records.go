package paywall

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// The redemption store lives in package store; these names keep the
// paywall's code short.
type redemption = store.Redemption

// Redemption states (store.Redeem*).
const (
	redeemSettling  = store.RedeemSettling
	redeemPending   = store.RedeemPending
	redeemPaid      = store.RedeemPaid
	redeemDelivered = store.RedeemDelivered
)

// setSettled records a settle answer in a record: its state, transaction
// and the answer itself.
func setSettled(rec *redemption, state string, sr *x402.SettleResponse) {
	data, _ := json.Marshal(sr) // a SettleResponse always marshals
	rec.State, rec.TxHash, rec.Settlement, rec.Updated = state, sr.TxHash, data, time.Now()
}

// settlementOf is the settle answer kept in a record; nil when there is
// none (or it cannot be read).
func settlementOf(rec *redemption) *x402.SettleResponse {
	if len(rec.Settlement) == 0 {
		return nil
	}
	sr := new(x402.SettleResponse)
	if json.Unmarshal(rec.Settlement, sr) != nil {
		return nil
	}
	return sr
}

// authID is the key of a scheme's authorization: network, payer and
// nonce in lower case, with Permit2's nonce space for a Permit2 one
// (noncespace.go), as the facilitator's record IDs
// (facilitator.AuthorizationKey).
func authID(network, scheme string, from common.Address, nonce [32]byte) string {
	return facilitator.AuthorizationKey(network, scheme, from, nonce)
}

// authFingerprint tells one signed authorization from another with the
// same payer and nonce: a hash of all its fields and its signature,
// whatever the header's version or encoding.
func authFingerprint(p *x402.Payment) string {
	a := &p.Authorization
	s := sha256.New()
	for _, b := range [][]byte{a.From[:], a.To[:], a.Nonce[:], []byte(bigString(a.Value)), []byte(bigString(a.ValidAfter)),
		[]byte(bigString(a.ValidBefore)), p.Signature} {
		s.Write(b)
		s.Write([]byte{0})
	}
	return hex.EncodeToString(s.Sum(nil)[:16])
}

func bigString(v *big.Int) string {
	if v == nil {
		return ""
	}
	return v.String()
}
