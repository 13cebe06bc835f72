package storetest

import (
	"context"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// channelsRefund: the refund nonce read from the chain is kept (it only
// rises, whatever the block order), survives a reopen, and a channel in
// state refunding is listed by Refunding and refuses charges.
func channelsRefund(t *testing.T, b Backend[store.Channels]) {
	s := b.New(t)
	ctx := context.Background()
	id := ChannelID(41)
	c, err := s.Sync(ctx, id, "cronos-testnet", ChannelCfg(), store.ChainState{Balance: Big("1000"), Claimed: Big("0"), Block: 10})
	if err != nil || !eq(c.RefundNonce, Big("0")) {
		t.Fatalf("Sync without a refund nonce = %+v, %v; want refund nonce 0", c, err)
	}
	if c, err = s.Sync(ctx, id, "cronos-testnet", ChannelCfg(), store.ChainState{Balance: Big("1000"), Claimed: Big("0"), Block: 12, RefundNonce: Big("3")}); err != nil || !eq(c.RefundNonce, Big("3")) {
		t.Fatalf("Sync of refund nonce 3 = %+v, %v", c, err)
	}
	// An older reading, or a lower nonce, lowers nothing.
	if c, err = s.Sync(ctx, id, "cronos-testnet", ChannelCfg(), store.ChainState{Balance: Big("1000"), Claimed: Big("0"), Block: 11, RefundNonce: Big("1")}); err != nil || !eq(c.RefundNonce, Big("3")) {
		t.Fatalf("Sync of an older refund nonce = %+v, %v", c, err)
	}
	openChannel(t, s, 42, "cronos-testnet", Big("1000"))
	if moved, err := s.SetChannelState(ctx, id, store.ChannelOpen, store.ChannelRefunding); !moved || err != nil {
		t.Fatalf("SetChannelState open -> refunding = %v, %v", moved, err)
	}
	if _, err := s.Charge(ctx, id, Big("0"), Big("10"), Voucher(Big("10"))); err != store.ErrChannelNotOpen {
		t.Fatalf("Charge of a refunding channel: %v; want ErrChannelNotOpen", err)
	}
	if b.Reopen != nil {
		s = b.Reopen(t, s)
	}
	list, err := s.Refunding(ctx, 10)
	if err != nil || len(list) != 1 || list[0].ID != id || !eq(list[0].RefundNonce, Big("3")) {
		t.Fatalf("Refunding = %+v, %v; want channel %s with refund nonce 3", list, err, id)
	}
	if moved, err := s.SetChannelState(ctx, id, store.ChannelRefunding, store.ChannelClosed); !moved || err != nil {
		t.Fatalf("SetChannelState refunding -> closed = %v, %v", moved, err)
	}
	if list, err := s.Refunding(ctx, 10); err != nil || len(list) != 0 {
		t.Fatalf("Refunding after closing = %+v, %v; want none", list, err)
	}
	if _, err := s.Sync(ctx, id, "cronos-testnet", ChannelCfg(), store.ChainState{Balance: Big("1000"), Claimed: Big("0"), Block: 13, RefundNonce: Big("-1")}); err == nil {
		t.Fatal("Sync of a negative refund nonce succeeded")
	}
}
