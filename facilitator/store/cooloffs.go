package store

import (
	"context"
	"errors"
	"math"
	"sort"
	"strings"
	"time"
)

// CoolOff is a cooling-off: the payments of what Key names (a payer, or
// every wallet with some code) are refused until Until, because a
// settlement of theirs was mined and reverted though its simulation had
// passed, at the facilitator's cost.
type CoolOff struct {
	// Key names what cools off, in lower case: the facilitator's keys are
	// "payer:<chain id>/<address>" and "code:<chain id>/<code hash>".
	Key string `json:"key"`
	// Strikes is how many reverted settlements were counted against it.
	Strikes int `json:"strikes"`
	// Until is when the cooling-off ends.
	Until time.Time `json:"until"`
	// TxHash is the last reverted transaction counted.
	TxHash string `json:"txHash"`
}

// CoolOffs keeps the cooling-offs of the facilitator's payers. It lives
// beside the settlement journal, in the same storage (a journal or a
// redemption store that keeps them implements CoolOffs), so that a
// cooling-off holds on every instance that shares the journal and survives
// restarts. A journal's and a redemption store's on one PostgreSQL
// database are the same table; on bbolt, each file keeps its own.
type CoolOffs interface {
	// Strike counts the reverted transaction txHash against every key at
	// now: a key's strikes rise by one and its cooling-off runs until
	// now + base·2^(strikes−1), at most max after now, and never ends
	// earlier than it did. A transaction counted against a key already
	// (as its last one) is not counted again, so that two instances that
	// both see one revert count it once. It returns the keys' cooling-offs
	// as they stand, in the order of keys.
	Strike(ctx context.Context, keys []string, txHash string, now time.Time, base, max time.Duration) ([]CoolOff, error)
	// CoolingOff returns, of the keys' cooling-offs that run at now (end
	// after it), the one that ends last (of several that end together, the
	// one whose key comes first in keys); nil when none does.
	CoolingOff(ctx context.Context, keys []string, now time.Time) (*CoolOff, error)
	// PruneCoolOffs removes the cooling-offs that ended before t, with
	// their strikes (a key struck again starts from one), and says how
	// many went.
	PruneCoolOffs(t time.Time) (int, error)
}

// ErrBadStrike refuses a strike without keys, a transaction or a
// positive base.
var ErrBadStrike = errors.New("a strike needs keys, a transaction and a positive base and maximum")

// maxStrikeShift bounds the doubling (2^40 times any base is beyond every
// maximum), so that no count of strikes overflows.
const maxStrikeShift = 40

// coolUntil is when a cooling-off of strikes strikes begins at now ends,
// given the one it had (old, zero for none).
func coolUntil(old, now time.Time, strikes int, base, max time.Duration) time.Time {
	d := time.Duration(math.MaxInt64)
	if shift := strikes - 1; shift < maxStrikeShift {
		if f := float64(base) * math.Pow(2, float64(shift)); f < float64(math.MaxInt64) {
			d = time.Duration(f)
		}
	}
	d = min(d, max)
	if until := now.Add(d); until.After(old) {
		return until
	}
	return old
}

// CheckStrike validates a strike and returns its keys in lower case.
func CheckStrike(keys []string, txHash string, base, max time.Duration) ([]string, error) {
	if len(keys) == 0 || txHash == "" || base <= 0 || max <= 0 {
		return nil, ErrBadStrike
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		if k == "" {
			return nil, ErrBadStrike
		}
		out[i] = strings.ToLower(k)
	}
	return out, nil
}

// LatestCoolOff returns, of cs (in the order of their keys), the
// cooling-off that runs at now and ends last, the first of those that end
// together.
func LatestCoolOff(cs []CoolOff, now time.Time) *CoolOff {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Until.After(cs[j].Until) })
	if len(cs) == 0 || !cs[0].Until.After(now) {
		return nil
	}
	return &cs[0]
}

// StrikeOne applies a strike to one key's cooling-off (cur, nil for none
// yet) and returns it; false when txHash is cur's last transaction, counted
// already (cur is returned as it is).
func StrikeOne(cur *CoolOff, key, txHash string, now time.Time, base, max time.Duration) (CoolOff, bool) {
	if cur != nil && strings.EqualFold(cur.TxHash, txHash) {
		return *cur, false
	}
	c := CoolOff{Key: key, Strikes: 1, TxHash: strings.ToLower(txHash)}
	var old time.Time
	if cur != nil {
		c.Strikes, old = cur.Strikes+1, cur.Until
	}
	c.Until = coolUntil(old, now, c.Strikes, base, max)
	return c, true
}
