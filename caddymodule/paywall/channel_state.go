package paywall

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/batch"
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
