package engine

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/caddy-x402/caddy-x402/facilitator/evm"
)

// Per-payer reservations.
//
// Every authorization of one payer is checked against the same balance:
// thirty authorizations from a wallet that holds enough for one all pass
// the balance check and the simulated transfer, and all thirty would be
// broadcast, twenty-nine to revert at the facilitator's expense. So a
// settlement reserves its value against its payer's balance on the token
// from the moment it is accepted (before anything is broadcast, and with
// settle after before the upstream runs) until its outcome is known, and
// an authorization that does not fit in (the balance read minus what is
// reserved) is refused with the token's own reason.
//
// A balance read races with the blocks: a reserved transfer may be mined
// (and in the balance) before the watcher has seen it, and one the watcher
// has seen may be missing from a balance read that started earlier. So the
// first check counts every reservation, those in flight and those mined in
// the last spentKeep: an authorization that fits then fits for sure. One
// that does not is checked again exactly before it is refused: the balance
// and whether each of the payer's reservations is used (Spent) are read
// at one block, and a reservation whose authorization is used there is in
// that balance and not counted. A refusal is thus always true.

// spentKeep is how long a mined transfer's reservation still counts in the
// first check (a balance read of an older block, or of a node behind, may
// not show it yet).
const spentKeep = time.Minute

// reservation is one authorization's value reserved against its payer.
type reservation struct {
	value   *big.Int
	spentAt time.Time // when it was mined; zero while in flight
}

// ledger holds the reservations of one token's payers (the core's).
type ledger struct {
	mu     sync.Mutex
	payers map[common.Address]map[authKey]*reservation
	spent  int // mined reservations kept, swept when many
}

func newLedger() *ledger {
	return &ledger{payers: map[common.Address]map[authKey]*reservation{}}
}

// reserve reserves value for the authorization k when it fits in balance
// beside the payer's other reservations, except those whose authorizations
// are in inBalance (known to be in the balance read). A nil inBalance
// counts every reservation (the first check). An authorization reserved
// already keeps its reservation (true); a nil balance reserves without a
// check (a settlement followed from the journal).
func (l *ledger) reserve(k authKey, value, balance *big.Int, inBalance map[authKey]bool, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	rs := l.payers[k.from]
	if _, ok := rs[k]; ok {
		return true
	}
	if balance != nil {
		taken := new(big.Int)
		for n, r := range rs {
			if !r.spentAt.IsZero() && now.Sub(r.spentAt) > spentKeep || inBalance[n] {
				continue
			}
			taken.Add(taken, r.value)
		}
		if taken.Add(taken, value).Cmp(balance) > 0 {
			return false
		}
	}
	if rs == nil {
		rs = map[authKey]*reservation{}
		l.payers[k.from] = rs
	}
	rs[k] = &reservation{value: new(big.Int).Set(value)}
	return true
}

// keys lists the authorizations the payer has reserved.
func (l *ledger) keys(from common.Address) []authKey {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]authKey, 0, len(l.payers[from]))
	for k := range l.payers[from] {
		out = append(out, k)
	}
	return out
}

// release ends the reservation of k: at once when no money moved, else it
// is kept as spent for spentKeep.
func (l *ledger) release(k authKey, moved bool, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rs := l.payers[k.from]
	r := rs[k]
	if r == nil {
		return
	}
	if !moved {
		delete(rs, k)
	} else if r.spentAt.IsZero() {
		r.spentAt = now
		l.spent++
	}
	if len(rs) == 0 {
		delete(l.payers, k.from)
	}
	if l.spent > 1024 {
		l.sweep(now)
	}
}

// sweep drops the mined reservations older than spentKeep. The caller
// holds mu.
func (l *ledger) sweep(now time.Time) {
	l.spent = 0
	for from, rs := range l.payers {
		for n, r := range rs {
			if r.spentAt.IsZero() {
				continue
			}
			if now.Sub(r.spentAt) > spentKeep {
				delete(rs, n)
			} else {
				l.spent++
			}
		}
		if len(rs) == 0 {
			delete(l.payers, from)
		}
	}
}

// reserved is the payer's value in flight and kept as spent (for tests).
func (l *ledger) reserved(from common.Address) *big.Int {
	l.mu.Lock()
	defer l.mu.Unlock()
	sum := new(big.Int)
	for _, r := range l.payers[from] {
		sum.Add(sum, r.value)
	}
	return sum
}

// reserveIn reserves in the ledger, or with a shared journal in the
// store.
func (e *Engine) reserveIn(ctx context.Context, k authKey, value, balance *big.Int, inBalance map[authKey]bool) (bool, error) {
	if e.shared == nil {
		return e.core.payers.reserve(k, value, balance, inBalance, e.now()), nil
	}
	var ids []string
	if inBalance != nil {
		ids = []string{}
		for n := range inBalance {
			ids = append(ids, RecordIDIn(e.cfg.Network, n.space, n.from, n.nonce))
		}
	}
	return e.shared.ReserveSettlement(ctx, RecordIDIn(e.cfg.Network, k.space, k.from, k.nonce), e.payerKey(k.from), value, balance, ids)
}

// ErrChainRead marks a Reserve that failed reading the chain (the payer's
// balance and authorizations), not the store: errors.Is(err, ErrChainRead).
var ErrChainRead = errors.New("cannot read the chain")

// chainReadError is a chain read's error that is ErrChainRead.
type chainReadError struct{ err error }

func (e chainReadError) Error() string        { return e.err.Error() }
func (e chainReadError) Unwrap() error        { return e.err }
func (e chainReadError) Is(target error) bool { return target == ErrChainRead }

// balanceAt reads, at one block, the payer's balance and which of the
// given authorizations are used (so in that balance), in one round trip.
func (e *Engine) balanceAt(ctx context.Context, from common.Address, keys []authKey, block uint64) (*big.Int, map[authKey]bool, error) {
	balEl, bal := evm.ViewCallAt(e.cfg.Token, block, "balanceOf", from)
	// Each space's authorizations are asked of the Spents of that space
	// (a reservation's scheme is not kept beside it, only its space): a
	// nonce any of them reads used is in the balance.
	spaces := map[string][][32]byte{}
	for _, k := range keys {
		spaces[k.space] = append(spaces[k.space], k.nonce)
	}
	elems := []rpc.BatchElem{balEl}
	type read struct {
		space string
		used  func() ([]bool, error)
	}
	var reads []read
	for _, sp := range e.allSpents() {
		space := sp.space
		if len(spaces[space]) == 0 {
			continue
		}
		usedElems, readUsed := sp.UsedCalls(block, from, spaces[space])
		elems = append(elems, usedElems...)
		reads = append(reads, read{space, readUsed})
	}
	if err := e.cfg.Pool.Batch(ctx, elems); err != nil {
		return nil, nil, fmt.Errorf("reading the payer's balance and authorizations at block %d: %w", block, chainReadError{err})
	}
	for _, el := range elems {
		if el.Error != nil {
			return nil, nil, fmt.Errorf("reading the payer's balance and authorizations at block %d: %w", block, chainReadError{el.Error})
		}
	}
	v, err := evm.TokenABI.Unpack("balanceOf", *bal)
	if err != nil {
		return nil, nil, fmt.Errorf("balanceOf at block %d: %w", block, err)
	}
	used := map[authKey]bool{}
	for _, r := range reads {
		us, err := r.used()
		if err != nil {
			return nil, nil, err
		}
		for i, n := range spaces[r.space] {
			if us[i] {
				used[authKey{from, n, r.space}] = true
			}
		}
	}
	return v[0].(*big.Int), used, nil
}

// payerKey names a payer on this engine's chain and token in the shared
// journal.
func (e *Engine) payerKey(from common.Address) string {
	return e.cfg.ChainID.String() + "/" + e.cfg.Token.Hex() + "/" + from.Hex()
}

// recordIDAuthorization reads the authorization (payer, nonce and nonce
// space) out of a record ID (RecordIDIn); false when it is not one.
func recordIDAuthorization(id string) (authKey, bool) {
	var k authKey
	parts := strings.Split(id, "/")
	if len(parts) < 3 {
		return k, false
	}
	b, err := hexutil.Decode(parts[len(parts)-1])
	addr := parts[len(parts)-2]
	if !common.IsHexAddress(addr) && len(parts) >= 4 {
		k.space, addr = parts[len(parts)-2], parts[len(parts)-3]
	}
	if err != nil || len(b) != 32 || !common.IsHexAddress(addr) {
		return authKey{}, false
	}
	k.from = common.HexToAddress(addr)
	copy(k.nonce[:], b)
	return k, true
}
