package x402cmd

// The buyer's channel records of "caddy x402 pay" (pay_channel.go): one JSON
// file per channel, <channelId>.json in the --channels directory (mode 0600,
// the directory 0700), written atomically, and a lock file beside it held
// for the whole of a payment, so that two pay commands on one channel take
// turns instead of signing the same cumulative voucher.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/caddy-x402/caddy-x402/facilitator/batchsettlement/batch"
)

// channelRecord is what the buyer keeps of a channel: its config (with its
// salt), what the seller has charged, the deposited balance and the last
// voucher signed. The amounts are decimal strings, as the published
// client's channel context keeps them.
type channelRecord struct {
	// ChannelID is the config's EIP-712 hash on Network's chain.
	ChannelID string `json:"channelId"`
	// Network is the CAIP-2 id of the channel's chain.
	Network string `json:"network"`
	// Config is the channel's config.
	Config batch.ChannelConfig `json:"channelConfig"`
	// Charged is the cumulative amount the seller has charged.
	Charged string `json:"chargedCumulativeAmount"`
	// Balance is what has been deposited (minus refunds).
	Balance string `json:"balance"`
	// SignedMax and Signature are the last voucher signed.
	SignedMax string `json:"signedMaxClaimable,omitempty"`
	Signature string `json:"signature,omitempty"`
	// URL is the last URL paid from the channel (for the reader).
	URL string `json:"url,omitempty"`
	// Updated is when the record was last written.
	Updated time.Time `json:"updatedAt"`
}

// channelDir is the --channels directory.
type channelDir string

// defaultChannelDir is where channel records go without --channels: the
// user's configuration directory (os.UserConfigDir), caddy-x402/channels.
func defaultChannelDir() (channelDir, error) {
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no place to keep payment channels (%v): give --channels DIR", err)
	}
	return channelDir(filepath.Join(base, "caddy-x402", "channels")), nil
}

// file is the path of channel id's record.
func (d channelDir) file(id common.Hash) string {
	return filepath.Join(string(d), strings.ToLower(id.Hex())+".json")
}

// prepare makes the directory (0700) when it does not exist, and refuses
// a --channels that is not a directory.
func (d channelDir) prepare() error {
	if fi, err := os.Stat(string(d)); err == nil && !fi.IsDir() {
		return fmt.Errorf("--channels %s is not a directory", d)
	}
	if err := os.MkdirAll(string(d), 0o700); err != nil {
		return fmt.Errorf("--channels %s: %w", d, err)
	}
	return nil
}

// maxRecordBytes bounds a record file read.
const maxRecordBytes = 64 << 10

// load reads channel id's record: nil when there is none. A record that
// cannot be read, or is of another channel, is an error that says how to
// recover.
func (d channelDir) load(id common.Hash) (*channelRecord, error) {
	path := d.file(id)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("channel record %s: %w", path, err)
	}
	if fi.Size() > maxRecordBytes {
		return nil, fmt.Errorf("channel record %s is %d bytes, not a channel record; move it away and pay again: the channel is recovered from the seller", path, fi.Size())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("channel record %s: %w", path, err)
	}
	var rec channelRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, fmt.Errorf("channel record %s is not valid JSON (%v); move it away and pay again: the channel is recovered from the seller", path, err)
	}
	if !strings.EqualFold(rec.ChannelID, id.Hex()) {
		return nil, fmt.Errorf("channel record %s is of channel %s, not %s; move it away and pay again: the channel is recovered from the seller", path, rec.ChannelID, strings.ToLower(id.Hex()))
	}
	if _, ok := parseAmount(rec.Charged); !ok {
		return nil, fmt.Errorf("channel record %s: chargedCumulativeAmount %q is not an amount; move it away and pay again: the channel is recovered from the seller", path, rec.Charged)
	}
	if _, ok := parseAmount(rec.Balance); !ok {
		return nil, fmt.Errorf("channel record %s: balance %q is not an amount; move it away and pay again: the channel is recovered from the seller", path, rec.Balance)
	}
	return &rec, nil
}

// save writes rec atomically (a temporary file renamed over the record),
// mode 0600.
func (d channelDir) save(id common.Hash, rec *channelRecord) error {
	rec.ChannelID = strings.ToLower(id.Hex())
	rec.Updated = time.Now().UTC().Truncate(time.Second)
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(string(d), ".channel-*.tmp")
	if err != nil {
		return fmt.Errorf("saving the channel record: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("saving the channel record: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("saving the channel record: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("saving the channel record: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("saving the channel record: %w", err)
	}
	if err := os.Rename(tmp.Name(), d.file(id)); err != nil {
		return fmt.Errorf("saving the channel record: %w", err)
	}
	return nil
}

// lock takes channel id's lock (<id>.lock beside its record), waiting
// while another pay command holds it, until ctx ends. It says once that it
// waits. The returned function lets go.
func (d channelDir) lock(ctx context.Context, id common.Hash, waiting func()) (func(), error) {
	path := filepath.Join(string(d), strings.ToLower(id.Hex())+".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("channel lock %s: %w", path, err)
	}
	said := false
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("channel lock %s: %w", path, err)
		}
		if ok {
			return func() { unlock(f); f.Close() }, nil
		}
		if !said && waiting != nil {
			waiting()
			said = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("channel lock %s: still held by another caddy x402 pay: %w", path, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// parseAmount parses a decimal amount, zero allowed.
func parseAmount(s string) (*big.Int, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return nil, false
	}
	v, ok := new(big.Int).SetString(s, 10)
	return v, ok && v.BitLen() <= 256
}
