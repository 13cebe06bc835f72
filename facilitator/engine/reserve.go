package engine

import (
	"context"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
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
// A transfer that moved money stays reserved against balance reads of
// blocks before the one that mined it, for spentKeep: a read that started
// before the block still shows the money. A failed or never-sent
// settlement moved nothing and is released at once.

// spentKeep is how long a mined transfer's reservation still counts
// against balances read at older blocks.
const spentKeep = time.Minute

// reservation is one authorization's value reserved against its payer.
type reservation struct {
	value   *big.Int
	minedAt uint64    // the block that moved the money; 0 while in flight
	spentAt time.Time // when it was mined
}

// ledger holds the reservations of one token's payers (the core's).
type ledger struct {
	mu     sync.Mutex
	payers map[common.Address]map[[32]byte]*reservation
	spent  int // mined reservations kept, swept when many
}

func newLedger() *ledger {
	return &ledger{payers: map[common.Address]map[[32]byte]*reservation{}}
}

// reserve reserves value for the authorization k when it fits in balance,
// read at block atBlock or later, beside the payer's other reservations.
// An authorization reserved already keeps its reservation (true); a nil
// balance reserves without a check (a settlement followed from the
// journal, whose transaction may be out already).
func (l *ledger) reserve(k authKey, value, balance *big.Int, atBlock uint64, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	rs := l.payers[k.from]
	if rs == nil {
		rs = map[[32]byte]*reservation{}
		l.payers[k.from] = rs
	}
	if _, ok := rs[k.nonce]; ok {
		return true
	}
	if balance != nil {
		taken := new(big.Int)
		for _, r := range rs {
			if r.minedAt != 0 && now.Sub(r.spentAt) > spentKeep {
				continue
			}
			if r.minedAt == 0 || r.minedAt > atBlock {
				taken.Add(taken, r.value)
			}
		}
		if taken.Add(taken, value).Cmp(balance) > 0 {
			if len(rs) == 0 {
				delete(l.payers, k.from)
			}
			return false
		}
	}
	rs[k.nonce] = &reservation{value: new(big.Int).Set(value)}
	return true
}

// release ends the reservation of k: at once when no money moved
// (minedAt 0), else it is kept as spent at block minedAt for spentKeep.
func (l *ledger) release(k authKey, minedAt uint64, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rs := l.payers[k.from]
	r := rs[k.nonce]
	if r == nil {
		return
	}
	if minedAt == 0 {
		delete(rs, k.nonce)
	} else if r.minedAt == 0 {
		r.minedAt, r.spentAt = minedAt, now
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
			if r.minedAt == 0 {
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

// reserved is the payer's value in flight and kept as spent (for tests
// and logs).
func (l *ledger) reserved(from common.Address) *big.Int {
	l.mu.Lock()
	defer l.mu.Unlock()
	sum := new(big.Int)
	for _, r := range l.payers[from] {
		sum.Add(sum, r.value)
	}
	return sum
}

// Reserve reserves the value of an authorization held with Hold against
// its payer's balance on the token, read at block atBlock or later (the
// batch's eth_blockNumber before balanceOf): true when it fits beside the
// payer's other settlements in flight, of this process and, with a shared
// journal, of every instance. The reservation ends with the hold (the
// engine's outcome, or Release); a transfer that moved money still counts
// for reads of older blocks. An authorization reserved already stays
// reserved (true). An error means the shared journal could not be asked;
// nothing is reserved then.
func (e *Engine) Reserve(ctx context.Context, from common.Address, nonce [32]byte, value, balance *big.Int, atBlock uint64) (bool, error) {
	k := authKey{from, nonce}
	if e.shared != nil {
		return e.shared.ReserveSettlement(ctx, RecordID(e.cfg.Network, from, nonce), e.payerKey(from), value, balance, atBlock)
	}
	return e.core.payers.reserve(k, value, balance, atBlock, e.now()), nil
}

// Reserved is what the payer has reserved in this process: settlements in
// flight, and mined ones still kept against older balance reads.
func (e *Engine) Reserved(from common.Address) *big.Int { return e.core.payers.reserved(from) }

// payerKey names a payer on this engine's chain and token in the shared
// journal.
func (e *Engine) payerKey(from common.Address) string {
	return e.cfg.ChainID.String() + "/" + e.cfg.Token.Hex() + "/" + from.Hex()
}
