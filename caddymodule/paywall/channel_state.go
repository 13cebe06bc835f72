package paywall

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// storeConfig is a channel config as the store keeps it.
func storeConfig(c batch.ChannelConfig) store.ChannelConfig {
	lower := func(a common.Address) string { return strings.ToLower(a.Hex()) }
	return store.ChannelConfig{Payer: lower(c.Payer), PayerAuthorizer: lower(c.PayerAuthorizer), Receiver: lower(c.Receiver),
		ReceiverAuthorizer: lower(c.ReceiverAuthorizer), Token: lower(c.Token), WithdrawDelay: c.WithdrawDelay,
		Salt: strings.ToLower(c.Salt.Hex())}
}

// channelStateOf is the extra.channelState of a settle answer.
func channelStateOf(extra map[string]any) map[string]any {
	m, _ := extra["channelState"].(map[string]any)
	return m
}

// chainStateOf reads a channel's state from the facilitator's extra
// (balance, totalClaimed, withdrawRequestedAt, refundNonce).
func chainStateOf(m map[string]any) store.ChainState {
	num := func(k string) *big.Int {
		v := new(big.Int)
		switch x := m[k].(type) {
		case string:
			v.SetString(x, 10)
		case float64:
			v.SetInt64(int64(x))
		case uint64:
			v.SetUint64(x)
		case int64:
			v.SetInt64(x)
		case json.Number:
			v.SetString(string(x), 10)
		case fmt.Stringer:
			v.SetString(x.String(), 10)
		}
		return v
	}
	cs := store.ChainState{Balance: num("balance"), Claimed: num("totalClaimed"), RefundNonce: num("refundNonce")}
	if at := num("withdrawRequestedAt"); at.Sign() > 0 {
		cs.WithdrawRequestedAt = time.Unix(at.Int64(), 0)
	}
	return cs
}

// nonceString is a refund nonce as decimal text (nil: 0).
func nonceString(n *big.Int) string {
	if n == nil {
		return "0"
	}
	return n.String()
}

// voucherSigned reports whether the payload's voucher for max is signed by
// the channel's payer authorizer (its payer when it names none), checked
// locally: the voucher's EIP-712 digest under the option's chain.
func (co *chanOption) voucherSigned(pl *channelPayload, max *big.Int) bool {
	signer := pl.ChannelConfig.PayerAuthorizer
	if signer == (common.Address{}) {
		signer = pl.ChannelConfig.Payer
	}
	got, err := batch.RecoverVoucherSigner(co.chainID, pl.Voucher.ChannelID, max, pl.Voucher.Signature)
	return err == nil && got == signer
}

// owns says whether channel c is one of option co's (network, receiver,
// receiver authorizer, token): routes with the same pay_to share them.
func (co *chanOption) owns(c *store.Channel, network string) bool {
	return c.Network == network && strings.EqualFold(c.Config.ReceiverAuthorizer, co.authorizer.Hex()) &&
		strings.EqualFold(c.Config.Token, co.token.Hex()) && strings.EqualFold(c.Config.Receiver, co.payTo.Hex())
}

// payerProof is what the request says of its voucher when a channel's
// corrective 402 is answered: whether its signature is known to be the
// payer's (signed), known not to be (unsigned), or not checked yet.
type payerProof int

const (
	proofUnchecked payerProof = iota
	proofSigned
	proofUnsigned
)

// discloses says whether the corrective 402 of channel c may carry its
// voucherState (the payer's last charged voucher and signature) to a
// request whose voucher is pl's for max. Only the channel's payer may
// have it: the request must carry a voucher signed by the payer (or its
// payer authorizer), checked here unless proof says already, and one that
// is not public: above what the chain has claimed (a voucher at or below
// it may be read from a claim's calldata by anyone). A voucherState that
// is itself at the claimed total is public (the claim carried it), and is
// disclosed to any request signed by the payer, so that the payer's own
// client, which resends its last voucher, resynchronises. Anyone else gets
// the corrective 402 without it: channelState is public on chain.
func (co *chanOption) discloses(pl *channelPayload, max *big.Int, c *store.Channel, proof payerProof) bool {
	if c == nil || c.VoucherMax == nil || pl == nil || max == nil || proof == proofUnsigned {
		return false
	}
	if max.Cmp(c.Claimed) <= 0 && c.VoucherMax.Cmp(c.Claimed) > 0 {
		return false
	}
	return proof == proofSigned || co.voucherSigned(pl, max)
}
