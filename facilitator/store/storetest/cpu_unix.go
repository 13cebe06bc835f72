//go:build unix

package storetest

import "syscall"

// processCPU is this process's CPU time so far (user and system), in
// nanoseconds: a store's own cost, without a database server's, which
// runs in a process of its own.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
