package paywall

import (
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// TestAppendVoucherResponse: a voucher's PAYMENT-RESPONSE, written by
// hand, is byte for byte what encoding/json writes for the same answer.
func TestAppendVoucherResponse(t *testing.T) {
	max128, _ := new(big.Int).SetString("340282366920938463463374607431768211455", 10)
	channel := func(balance, claimed, charged, nonce *big.Int, at time.Time) *store.Channel {
		return &store.Channel{ID: "0xab1200000000000000000000000000000000000000000000000000000000000c",
			Config:  store.ChannelConfig{Payer: "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4"},
			Balance: balance, Claimed: claimed, Charged: charged, RefundNonce: nonce, WithdrawRequestedAt: at}
	}
	for _, tc := range []struct {
		name    string
		network string
		c       *store.Channel
		price   *big.Int
	}{
		{"fresh channel", "eip155:338", channel(big.NewInt(10_000), big.NewInt(0), big.NewInt(1000), nil, time.Time{}), big.NewInt(1000)},
		{"claimed, refunded once, withdrawal asked", "eip155:25", channel(big.NewInt(9000), big.NewInt(4000), big.NewInt(7000), big.NewInt(1), time.Unix(1_795_000_000, 0)), big.NewInt(1000)},
		{"amounts of 128 bits", "eip155:338", channel(max128, max128, max128, max128, time.Time{}), max128},
		{"a network name to escape", `odd "net" <&>` + "\u00e9", channel(big.NewInt(1), big.NewInt(0), big.NewInt(1), big.NewInt(0), time.Time{}), big.NewInt(1)},
		{"no network", "", channel(big.NewInt(1), big.NewInt(0), big.NewInt(1), nil, time.Time{}), big.NewInt(0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(channelResponse(tc.network, tc.c, tc.price, nil, nil))
			if err != nil {
				t.Fatal(err)
			}
			if got := appendVoucherResponse(nil, tc.network, tc.c, tc.price); string(got) != string(want) {
				t.Errorf("appendVoucherResponse:\n got %s\nwant %s", got, want)
			}
		})
	}
}
