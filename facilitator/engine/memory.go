package engine

import (
	"runtime/debug"
	"time"
)

// A burst of settlements leaves the Go heap grown: the answers, records,
// receipts and HTTP buffers of hundreds of settles are garbage once they
// are answered, but with nothing allocating afterwards no collection runs
// and the runtime keeps the pages (RSS stayed ~40 MB above idle for
// minutes after 500 settles). Once a burst of at least burstSettlements
// has drained and nothing has been pending for burstQuiet, the watcher
// collects and hands the free memory back to the OS, once per burst
// (a few milliseconds of one core).
const (
	burstSettlements = 64
	burstQuiet       = 2 * time.Second
)

// burstMemory tracks the settlements followed since memory was last given
// back. Used by the watcher's loop only.
type burstMemory struct {
	followed int       // settlements added since the last release
	drained  time.Time // when nothing was pending any more; zero while some are
	free     func()    // nil: debug.FreeOSMemory
}

// added counts settlements handed to the watcher.
func (m *burstMemory) added(n int) {
	m.followed += n
	m.drained = time.Time{}
}

// idle is called at each poll with nothing pending; it gives memory back
// once a large enough burst has been quiet for burstQuiet.
func (m *burstMemory) idle(now time.Time) {
	if m.followed < burstSettlements {
		return
	}
	if m.drained.IsZero() {
		m.drained = now
		return
	}
	if now.Sub(m.drained) >= burstQuiet {
		m.followed, m.drained = 0, time.Time{}
		if m.free != nil {
			m.free()
		} else {
			debug.FreeOSMemory()
		}
	}
}
