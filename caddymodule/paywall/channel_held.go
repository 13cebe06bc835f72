package paywall

import (
	"math/big"
	"sync"
)

// Charges not final yet, for the claim round (issue 32, finding 5).
//
// A channel request's charge is written before the upstream runs (the
// price its voucher reserved) and made final after the answer (lowered to
// the metered charge, or to nothing for an error answer:
// channel_meter.go). A claim round that claimed the reservation of a
// request still held would take more than its receipt states (the lower
// refused below the claimed total, or made after the claim was read and
// then raised again by MarkClaimed). So every request holds its price
// here from before its reservation until after its final write, and the
// claim round claims a channel's charged minus what may still be given
// back: the prices held, and those released since the round read the
// store (their final write may have come after the read). What is not
// claimed now is claimed by a later round. The holds are this process's:
// a request served by another instance sharing the store is not seen, so
// the round fences each channel at its claim's total in the store before
// it sends the claim (Channels.FenceClaim: no charge of any instance goes
// below it), and such a request's give-back after that keeps its price.

// chanHolds are the channel charges of this process not final yet.
type chanHolds struct {
	mu     sync.Mutex
	seq    uint64
	rounds map[uint64]int // the marks of the claim reads under way
	m      map[string]*chanHeld
}

// chanHeld is one channel's: the prices its requests hold, and the ones
// released while a claim read was under way.
type chanHeld struct {
	n        int
	active   *big.Int
	released []heldRelease
}

// heldRelease is a price released at seq.
type heldRelease struct {
	seq   uint64
	price *big.Int
}

// heldCharges are the process's held channel charges (all routes: routes
// with the same pay_to share channels).
var heldCharges = &chanHolds{rounds: map[uint64]int{}, m: map[string]*chanHeld{}}

// hold holds price for channel id, before the charge that reserves it;
// release, once its final write is made (or the charge failed), lets go.
func (c *chanHolds) hold(id string, price *big.Int) (release func()) {
	c.mu.Lock()
	e := c.m[id]
	if e == nil {
		e = &chanHeld{active: new(big.Int)}
		c.m[id] = e
	}
	e.n++
	e.active.Add(e.active, price)
	c.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { c.release(id, price) }) }
}

// release lets go of a price held for channel id.
func (c *chanHolds) release(id string, price *big.Int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[id]
	if e == nil {
		return
	}
	e.n--
	e.active.Sub(e.active, price)
	c.seq++
	if len(c.rounds) > 0 {
		e.released = append(e.released, heldRelease{seq: c.seq, price: price})
		oldest := c.seq
		for mark := range c.rounds {
			oldest = min(oldest, mark)
		}
		k := 0
		for _, r := range e.released {
			if r.seq > oldest {
				e.released[k] = r
				k++
			}
		}
		e.released = e.released[:k]
	}
	if e.n == 0 && len(e.released) == 0 {
		delete(c.m, id)
	}
}

// begin starts a claim read (before the store is read): pending then
// counts the prices released after it. end ends it.
func (c *chanHolds) begin() (mark uint64, end func()) {
	c.mu.Lock()
	c.seq++
	mark = c.seq
	c.rounds[mark]++
	c.mu.Unlock()
	return mark, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.rounds[mark]--; c.rounds[mark] <= 0 {
			delete(c.rounds, mark)
		}
		if len(c.rounds) > 0 {
			return
		}
		for id, e := range c.m {
			e.released = nil
			if e.n == 0 {
				delete(c.m, id)
			}
		}
	}
}

// pending is what channel id's charges may still give back, for a read
// of the store made after mark: the prices held now, and those released
// since mark.
func (c *chanHolds) pending(id string, mark uint64) *big.Int {
	c.mu.Lock()
	defer c.mu.Unlock()
	sum := new(big.Int)
	e := c.m[id]
	if e == nil {
		return sum
	}
	sum.Add(sum, e.active)
	for _, r := range e.released {
		if r.seq > mark {
			sum.Add(sum, r.price)
		}
	}
	return sum
}
