package store

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestBoltGroup: writes committed in groups each get their own outcome: a
// failing write fails alone, and every other write is committed.
func TestBoltGroup(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "g.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g := &boltGroup{db: db}
	bad := errors.New("bad write")
	const n = 200
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = g.run(func(tx *bolt.Tx) error {
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
	db.View(func(tx *bolt.Tx) error {
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
