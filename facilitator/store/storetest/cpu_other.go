//go:build !unix

package storetest

// processCPU is not read on this system: the benchmarks report 0.
func processCPU() int64 { return 0 }
