package postgres

import (
	"fmt"
	"testing"

	"github.com/caddy-x402/caddy-x402/facilitator/store"
)

// TestConfigMemo: a config is decoded once and answered from the memo
// after; each JSON is its own entry; bad JSON is an error and not kept;
// a full memo starts afresh.
func TestConfigMemo(t *testing.T) {
	var cm configMemo
	raw := func(salt int) []byte {
		return []byte(fmt.Sprintf(`{"payer":"0xa","payerAuthorizer":"0xa","receiver":"0xb","receiverAuthorizer":"0xc","token":"0xd","withdrawDelay":900,"salt":"0x%x"}`, salt))
	}
	for _, tc := range []struct {
		name    string
		raw     []byte
		want    store.ChannelConfig
		wantErr bool
		entries int
	}{
		{"first", raw(1), store.ChannelConfig{Payer: "0xa", PayerAuthorizer: "0xa", Receiver: "0xb", ReceiverAuthorizer: "0xc", Token: "0xd", WithdrawDelay: 900, Salt: "0x1"}, false, 1},
		{"again", raw(1), store.ChannelConfig{Payer: "0xa", PayerAuthorizer: "0xa", Receiver: "0xb", ReceiverAuthorizer: "0xc", Token: "0xd", WithdrawDelay: 900, Salt: "0x1"}, false, 1},
		{"another", raw(2), store.ChannelConfig{Payer: "0xa", PayerAuthorizer: "0xa", Receiver: "0xb", ReceiverAuthorizer: "0xc", Token: "0xd", WithdrawDelay: 900, Salt: "0x2"}, false, 2},
		{"bad JSON", []byte(`{"payer":`), store.ChannelConfig{}, true, 2},
	} {
		got, err := cm.parse(tc.raw)
		if (err != nil) != tc.wantErr || got != tc.want || len(cm.m) != tc.entries {
			t.Fatalf("%s: %+v, %v, %d entries; want %+v, error %v, %d entries", tc.name, got, err, len(cm.m), tc.want, tc.wantErr, tc.entries)
		}
	}
	for i := len(cm.m); i < maxParsedConfigs; i++ {
		cm.m[fmt.Sprint(i)] = store.ChannelConfig{}
	}
	if _, err := cm.parse(raw(3)); err != nil || len(cm.m) != 1 {
		t.Fatalf("a full memo: %v, %d entries; want it started afresh with 1", err, len(cm.m))
	}
}
