package engine

import (
	"strings"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// ResponseOf is the settle answer for a record. Its timestamp is the
// record's own: when its outcome was recorded (within a poll of its block),
// or, while pending, when it last changed.
func ResponseOf(r *store.Record) *x402.SettleResponse {
	network := r.RequestedNetwork
	if network == "" {
		network = r.Network
	}
	res := &x402.SettleResponse{X402Version: x402.X402Version, Network: network, Timestamp: x402.Timestamp(r.UpdatedAt), TxHash: r.TxHash}
	switch r.Status {
	case store.StatusSettled:
		block := r.BlockNumber
		res.Event, res.From, res.To, res.Value, res.BlockNumber = x402.EventSettled, r.From, r.To, r.Value, &block
	case store.StatusFailed:
		res.Event, res.Error = x402.EventFailed, r.Error
		if strings.HasPrefix(r.Error, "not broadcast: ") {
			// Refused before it was sent: nothing reached the chain.
			res.Error = x402.ErrTextNotBroadcast
		}
	default:
		res.Event, res.Error = x402.EventFailed, x402.ErrTextPending
		res.TxHash = r.LatestHash()
	}
	return res
}
