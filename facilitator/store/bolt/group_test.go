package bolt

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"go.etcd.io/bbolt"
)

// TestBoltGroup: writes committed in groups each get their own outcome: a
// failing write fails alone, and every other write is committed.
func TestBoltGroup(t *testing.T) {
	db, err := bbolt.Open(filepath.Join(t.TempDir(), "g.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g := &group{db: db}
	bad := errors.New("bad write")
	const n = 200
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = g.run(func(tx *bbolt.Tx) error {
				if i%7 == 3 {
					return bad
				}
				bk, err := tx.CreateBucketIfNotExists([]byte("b"))
				if err != nil {
					return err
				}
				return bk.Put([]byte(fmt.Sprint(i)), []byte{1})
			})
		}()
	}
	wg.Wait()
	db.View(func(tx *bbolt.Tx) error {
		for i := 0; i < n; i++ {
			stored := tx.Bucket([]byte("b")).Get([]byte(fmt.Sprint(i))) != nil
			if i%7 == 3 {
				if !errors.Is(errs[i], bad) || stored {
					t.Errorf("write %d: %v, stored %v; want its own error, nothing stored", i, errs[i], stored)
				}
			} else if errs[i] != nil || !stored {
				t.Errorf("write %d: %v, stored %v; want committed", i, errs[i], stored)
			}
		}
		return nil
	})
	if g.running || len(g.queue) != 0 {
		t.Fatalf("the group is left running %v with %d queued", g.running, len(g.queue))
	}
}

// BenchmarkBoltGroup: a write of a channel-sized record committed by the
// group commit against bbolt's Batch (the baseline), alone and from 8
// goroutines at once.
func BenchmarkBoltGroup(b *testing.B) {
	val := make([]byte, 600)
	for _, mode := range []string{"group", "batch"} {
		for _, par := range []int{0, 4} {
			name := mode + "/serial"
			if par > 0 {
				name = fmt.Sprintf("%s/parallel%d", mode, par*2)
			}
			b.Run(name, func(b *testing.B) {
				db, err := bbolt.Open(filepath.Join(b.TempDir(), "g.db"), 0o600, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				g := &group{db: db}
				var n atomic.Int64
				write := func() {
					k := []byte(fmt.Sprint(n.Add(1) % 1000))
					fn := func(tx *bbolt.Tx) error {
						bk, err := tx.CreateBucketIfNotExists([]byte("b"))
						if err != nil {
							return err
						}
						return bk.Put(k, val)
					}
					var err error
					if mode == "group" {
						err = g.run(fn)
					} else {
						err = db.Batch(fn)
					}
					if err != nil {
						b.Error(err)
					}
				}
				if par == 0 {
					for i := 0; i < b.N; i++ {
						write()
					}
					return
				}
				b.SetParallelism(par)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						write()
					}
				})
			})
		}
	}
}
