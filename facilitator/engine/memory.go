package engine

import (
	"runtime/debug"
	"sync"
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
// back: added by the settles that hand their settlements to the watcher,
// idle by the watcher's loop.
type burstMemory struct {
	mu       sync.Mutex
	followed int       // settlements added since the last release
	drained  time.Time // when nothing was pending any more; zero while some are
	free     func()    // nil: debug.FreeOSMemory
}

// added counts settlements handed to the watcher.
func (m *burstMemory) added(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.followed += n
	m.drained = time.Time{}
}

// idle is called at each poll with nothing pending; it gives memory back
// once a large enough burst has been quiet for burstQuiet.
func (m *burstMemory) idle(now time.Time) {
	m.mu.Lock()
	if m.followed < burstSettlements {
		m.mu.Unlock()
		return
	}
	if m.drained.IsZero() {
		m.drained = now
		m.mu.Unlock()
		return
	}
	if now.Sub(m.drained) < burstQuiet {
		m.mu.Unlock()
		return
	}
	m.followed, m.drained = 0, time.Time{}
	free := m.free
	m.mu.Unlock()
	if free != nil {
		free()
	} else {
		debug.FreeOSMemory()
	}
}
