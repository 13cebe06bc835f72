package cluster

import (
	"fmt"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// layout is where the load's processes run on this machine's cores.
type layout string

// The layouts of the cluster load (X402_LOAD_LAYOUTS).
const (
	// sharedCores: every process on every core, the database competing
	// with Caddy and the buyers for them.
	sharedCores layout = "shared"
	// dbCore: PostgreSQL on a core of its own (the last), the two Caddy
	// processes and this process (the buyers, the devnet) on the others,
	// as a cluster has its database on a machine of its own. The unpaid
	// 402s and the vouchers get the same cores for Caddy.
	dbCore layout = "db-core"
)

// place puts the cluster's processes on the cores of l (Linux
// sched_setaffinity, every thread of each; a database backend started
// later inherits its postmaster's cores).
func (c *cluster) place(l layout) error {
	n := runtime.NumCPU()
	var web, db unix.CPUSet
	for i := range n {
		web.Set(i)
		db.Set(i)
	}
	switch l {
	case sharedCores:
	case dbCore:
		if n < 2 {
			return fmt.Errorf("layout %s needs 2 cores, this machine has %d", l, n)
		}
		web.Clear(n - 1)
		db.Zero()
		db.Set(n - 1)
	default:
		return fmt.Errorf("layout %q: want %s or %s", l, sharedCores, dbCore)
	}
	pids := []int{os.Getpid()}
	for _, in := range c.nodes {
		in.mu.Lock()
		if in.cmd != nil && in.cmd.Process != nil {
			pids = append(pids, in.cmd.Process.Pid)
		}
		in.mu.Unlock()
	}
	if err := pin(pids, &web); err != nil {
		return err
	}
	return pin(c.pg.Processes(), &db)
}

// pin puts every thread of the processes on the cores of set.
func pin(pids []int, set *unix.CPUSet) error {
	for _, pid := range pids {
		tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
		if err != nil {
			continue // ended meanwhile
		}
		for _, e := range tasks {
			tid, _ := strconv.Atoi(e.Name())
			if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
				return fmt.Errorf("placing thread %d of process %d: %w", tid, pid, err)
			}
		}
	}
	return nil
}
