package pgtest

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// CPU is the CPU time (user and system) the running server has used since
// it started: the postmaster's own, its ended backends' (which it reaped)
// and its live children's. Load runs divide it by the requests served; 0
// when the server is stopped.
func (s *Server) CPU() time.Duration {
	var total time.Duration
	for i, pid := range s.Processes() {
		total += ProcessCPU(pid, i == 0)
	}
	return total
}

// Processes are the running server's processes: the postmaster first,
// then its live children (backends and helpers); none when it is stopped.
// Load runs place them on cores of their own.
func (s *Server) Processes() []int {
	s.mu.Lock()
	p := s.p
	s.mu.Unlock()
	if p == nil {
		return nil
	}
	pm := p.cmd.Process.Pid
	return append([]int{pm}, childrenOf(pm)...)
}

// ProcessCPU is the CPU time (user and system) process pid has used, read
// from /proc/PID/stat (Linux; 0 when it cannot be read), with that of its
// ended children it waited for when reaped is set.
func ProcessCPU(pid int, reaped bool) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// "pid (comm) state ppid ...": utime, stime, cutime and cstime are
	// fields 14 to 17, the 12th to 15th after comm, in clock ticks of
	// 1/100 s (USER_HZ, which Linux fixes at 100 for /proc).
	f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:])
	if len(f) < 15 {
		return 0
	}
	n := 2
	if reaped {
		n = 4
	}
	var ticks int64
	for _, v := range f[11 : 11+n] {
		t, _ := strconv.ParseInt(string(v), 10, 64)
		ticks += t
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}
