package x402cmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// TestChannelDirLock: a channel's lock is held by one command at a time;
// another waits (and says so once), or gives up when its time runs out.
func TestChannelDirLock(t *testing.T) {
	d := channelDir(t.TempDir())
	id := common.Hash{7}
	unlock, err := d.lock(context.Background(), id, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	waited := 0
	if _, err := d.lock(ctx, id, func() { waited++ }); err == nil || !strings.Contains(err.Error(), "still held by another caddy x402 pay") || waited != 1 {
		t.Fatalf("second lock while held: %v (waited %d)", err, waited)
	}
	got := make(chan error, 1)
	go func() {
		u, err := d.lock(context.Background(), id, nil)
		if err == nil {
			u()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("taken while held: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	unlock()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	// Another channel's lock is another lock.
	u1, err1 := d.lock(context.Background(), id, nil)
	u2, err2 := d.lock(context.Background(), common.Hash{8}, nil)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	u1()
	u2()
}

// TestChannelRecordFile: records round-trip with mode 0600; a damaged or
// foreign record is an error that says how to recover.
func TestChannelRecordFile(t *testing.T) {
	d := channelDir(filepath.Join(t.TempDir(), "channels"))
	if err := d.prepare(); err != nil {
		t.Fatal(err)
	}
	id := common.Hash{9}
	if rec, err := d.load(id); rec != nil || err != nil {
		t.Fatalf("no record: %v %v", rec, err)
	}
	if err := d.save(id, &channelRecord{Charged: "3000", Balance: "5000"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(d.file(id)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record mode: %v %v", fi, err)
	}
	if fi, err := os.Stat(string(d)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode: %v %v", fi, err)
	}
	if rec, err := d.load(id); err != nil || rec.Charged != "3000" || rec.Balance != "5000" {
		t.Fatalf("load: %+v %v", rec, err)
	}
	for _, tc := range []struct{ body, want string }{
		{"{not json", "is not valid JSON"},
		{`{"channelId":"0x01","chargedCumulativeAmount":"1","balance":"1"}`, "is of channel 0x01"},
		{`{"channelId":"` + id.Hex() + `","chargedCumulativeAmount":"-1","balance":"1"}`, `chargedCumulativeAmount "-1" is not an amount`},
		{`{"channelId":"` + id.Hex() + `","chargedCumulativeAmount":"1","balance":"1e3"}`, `balance "1e3" is not an amount`},
		{strings.Repeat(" ", maxRecordBytes+1), "not a channel record"},
	} {
		if err := os.WriteFile(d.file(id), []byte(tc.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := d.load(id); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "move it away and pay again") {
			t.Errorf("%.20q: %v, want %q", tc.body, err, tc.want)
		}
	}
}
