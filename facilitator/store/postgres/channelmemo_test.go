package postgres

import (
	"fmt"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// TestChannelMemo: a channel's config is decoded once and answered from
// the memo after (by id); a record whose network or config differs is
// decoded again and replaces the entry; bad JSON is an error and not
// kept; a full memo starts afresh; known answers what the memo holds.
func TestChannelMemo(t *testing.T) {
	var cm channelMemo
	raw := func(salt int) []byte {
		return []byte(fmt.Sprintf(`{"payer":"0xa","payerAuthorizer":"0xa","receiver":"0xb","receiverAuthorizer":"0xc","token":"0xd","withdrawDelay":900,"salt":"0x%x"}`, salt))
	}
	cfg := func(salt string) store.ChannelConfig {
		return store.ChannelConfig{Payer: "0xa", PayerAuthorizer: "0xa", Receiver: "0xb", ReceiverAuthorizer: "0xc", Token: "0xd", WithdrawDelay: 900, Salt: salt}
	}
	marked := cfg("from the memo")
	for _, tc := range []struct {
		name        string
		id, network string
		raw         []byte
		mark        bool // mark id's entry first: an answer from the memo is the mark
		want        store.ChannelConfig
		wantErr     bool
		entries     int
	}{
		{"first", "0x1", "net", raw(1), false, cfg("0x1"), false, 1},
		{"again", "0x1", "net", raw(1), true, marked, false, 1},
		{"another channel", "0x2", "net", raw(2), false, cfg("0x2"), false, 2},
		{"another config under the id", "0x1", "net", raw(3), true, cfg("0x3"), false, 2},
		{"another network", "0x1", "other", raw(3), true, cfg("0x3"), false, 2},
		{"bad JSON", "0x4", "net", []byte(`{"payer":`), false, store.ChannelConfig{}, true, 2},
	} {
		if tc.mark {
			kc := cm.m[tc.id]
			kc.config = marked
			cm.m[tc.id] = kc
		}
		got, err := cm.parse(tc.id, tc.network, tc.raw)
		if (err != nil) != tc.wantErr || got != tc.want || len(cm.m) != tc.entries {
			t.Fatalf("%s: %+v, %v, %d entries; want %+v, error %v, %d entries", tc.name, got, err, len(cm.m), tc.want, tc.wantErr, tc.entries)
		}
	}
	if kc, ok := cm.known("0x1"); !ok || kc.network != "other" || kc.config != cfg("0x3") {
		t.Fatalf("known(0x1) = %+v, %v; want network other, config 0x3", kc, ok)
	}
	if _, ok := cm.known("0x4"); ok {
		t.Fatal("known(0x4): a config that did not decode is held")
	}
	for i := len(cm.m); i < maxKnownChannels; i++ {
		cm.m[fmt.Sprint(i)] = knownChannel{}
	}
	if _, err := cm.parse("0x5", "net", raw(5)); err != nil || len(cm.m) != 1 {
		t.Fatalf("a full memo: %v, %d entries; want it started afresh with 1", err, len(cm.m))
	}
}
