package engine

import (
	"time"
)

// pollPace times the watcher's head polls. A poll every interval finds a
// new block half an interval after it appeared, on average (25 ms at the
// default 50 ms), and a whole interval at worst: at Cronos's 400 ms blocks
// that is a good part of the time between a block and its answers. Blocks
// come at a steady pace, so the pace learns the gap between them from the
// heads it sees and, from a little before the next block is due, polls
// every fastPollDivisor-th of the interval until it appears (or until it
// is well overdue): a block is then found within about 10 ms, for a few
// more head reads per block (at 400 ms blocks, about 11 instead of 8).
// Until it has learnt the gap (two head changes seen while settlements
// wait, once per process), it polls every half interval.
type pollPace struct {
	interval time.Duration
	head     uint64        // the newest head seen
	seenAt   time.Time     // when it was first seen
	change   bool          // whether seenAt is when a poll saw the head change (not the first sighting)
	gap      time.Duration // the learnt time between blocks; 0 while unknown
}

const (
	// fastPollDivisor divides the interval while a block is due.
	fastPollDivisor = 5
	// maxLearntGap bounds the block gap the pace learns; slower chains
	// are polled at the interval.
	maxLearntGap = 10 * time.Second
)

// saw notes the head read at time at.
func (p *pollPace) saw(head uint64, at time.Time) {
	if head <= p.head {
		return
	}
	if p.change {
		// Blocks since the last change: a sample of the gap, learnt as a
		// moving average (a sighting is late by up to the poll delay, and
		// the next gap short by as much).
		sample := at.Sub(p.seenAt) / time.Duration(head-p.head)
		if sample > 0 && sample <= maxLearntGap {
			if p.gap == 0 {
				p.gap = sample
			} else {
				p.gap += (sample - p.gap) / 4
			}
		}
	}
	p.change = p.head != 0
	p.head, p.seenAt = head, at
}

// next is how long to wait, at time now, before the next poll.
func (p *pollPace) next(now time.Time) time.Duration {
	if p.gap == 0 {
		// Still learning (the first blocks of the process's life): twice
		// as often, so that the first blocks are not found late either.
		return p.interval / 2
	}
	due := p.seenAt.Add(p.gap)
	fast := p.interval / fastPollDivisor
	start, end := due.Add(-p.interval/2), due.Add(2*p.interval)
	switch {
	case now.Before(start):
		return min(p.interval, start.Sub(now))
	case now.Before(end):
		return max(fast, time.Millisecond)
	}
	return p.interval
}

// reset forgets the heads seen (nothing waits: the next settlement's block
// may be far off), keeping the learnt gap.
func (p *pollPace) reset() { p.head, p.seenAt, p.change = 0, time.Time{}, false }
