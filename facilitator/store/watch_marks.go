package store

import "context"

// WatchMarks keep, per chain watch (a key such as the withdraw watch of
// one network and receiver), the next block the watch reads, so that the
// instance that takes a watch over (a new leader) resumes where the last
// one stopped instead of scanning a fixed span back. The PostgreSQL
// channel store has them; the embedded stores, used by one process, do
// not need them (the process remembers its own scans).
type WatchMarks interface {
	// WatchMark returns the next block the watch key reads; false when
	// none was recorded.
	WatchMark(ctx context.Context, key string) (uint64, bool, error)
	// SetWatchMark records that the watch key read every block below
	// next. A mark never goes back: a lower next (an instance that was
	// paused while another read further) leaves it as it is.
	SetWatchMark(ctx context.Context, key string, next uint64) error
}
