package batchsettlement

import (
	"context"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/x402"
)

// addState adds the channel's state, read at the latest block, to a
// settled answer (extra.channelState); a failed read leaves it out (the
// transaction is settled all the same).
func (b *bound) addState(ctx context.Context, cfg batch.ChannelConfig, id [32]byte, res *x402.SettleResponse) {
	rd, err := b.newReads(&payment{kind: "voucher", cfg: cfg, id: id}, b.authorizer, false)
	if err != nil {
		return
	}
	if err := b.Pool.BatchShared(ctx, rd.elems); err != nil {
		return
	}
	if st, _, err := rd.state(); err == nil {
		res.Extra = map[string]any{"channelState": channelStateExtra(id, st)}
	}
}
