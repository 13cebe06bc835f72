//go:build !unix

package x402cmd

import (
	"errors"
	"os"
)

// tryLock, where flock is missing, makes a marker file beside the lock
// file exclusively: false while another holds it. A marker left by a
// killed command must be removed by hand (the error names it).
func tryLock(f *os.File) (bool, error) {
	m, err := os.OpenFile(f.Name()+".held", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, m.Close()
}

// unlock removes tryLock's marker.
func unlock(f *os.File) { _ = os.Remove(f.Name() + ".held") }
