//go:build cgo && !noxla && linux && (amd64 || arm64)

package nn

/*
#include <malloc.h>
*/
import "C"

import (
	"os"
	"strings"
)

// XLA's CPU runtime allocates each program's temporary buffers with malloc
// on every execution (tens of megabytes for a step at the paper's size),
// and the step loop executes programs hundreds of times a training step.
// With glibc's defaults that memory goes back to the kernel after each
// execution, so the next one faults its pages in and the kernel zeroes
// them again: blocks above the mmap threshold (32 MiB at most) are mapped
// and unmapped on every call, and the heap's free top is trimmed.
// bfs/Triplet-MPNN training spent 15% of its steady state in the kernel
// clearing pages (perf, 2026-11-27).
//
// narlab keeps those buffers in malloc's heaps instead: no mmap for large
// blocks, and no trimming below 2 GiB of free memory at a heap's top, so
// the heaps grow to the largest working set once and their pages are
// reused; and at most two heaps (arenas), which holds the resident memory
// down (one arena would serialize XLA's parallel compilations: the first
// step took 50% longer). Peak memory is unchanged, memory freed after a
// peak stays resident until the process ends, and bfs/Triplet-MPNN trains
// about 9% faster (docs/performance.md, "Keeping XLA's buffers in the
// heap"). glibc's own settings, from its environment variables
// (MALLOC_ARENA_MAX, MALLOC_MMAP_MAX_, MALLOC_MMAP_THRESHOLD_,
// MALLOC_TRIM_THRESHOLD_) or GLIBC_TUNABLES, take precedence, one by one.
func init() {
	for _, s := range mallocSettings {
		if !glibcSet(s.env, s.tunable) {
			C.mallopt(s.param, s.value)
		}
	}
}

// mallocSettings are the mallopt parameters narlab sets, with the glibc
// variable and tunable that override each.
var mallocSettings = []struct {
	param, value C.int
	env, tunable string
}{
	{C.M_ARENA_MAX, 2, "MALLOC_ARENA_MAX", "glibc.malloc.arena_max"},
	{C.M_MMAP_MAX, 0, "MALLOC_MMAP_MAX_", "glibc.malloc.mmap_max"},
	{C.M_TRIM_THRESHOLD, 1<<31 - 1, "MALLOC_TRIM_THRESHOLD_", "glibc.malloc.trim_threshold"},
}

// glibcSet reports whether the user set a malloc parameter through glibc's
// environment variable or tunable for it; an mmap threshold set either way
// also leaves mmap on.
func glibcSet(env, tunable string) bool {
	tunables := os.Getenv("GLIBC_TUNABLES")
	if os.Getenv(env) != "" || strings.Contains(tunables, tunable+"=") {
		return true
	}
	if env == "MALLOC_MMAP_MAX_" {
		return os.Getenv("MALLOC_MMAP_THRESHOLD_") != "" || strings.Contains(tunables, "glibc.malloc.mmap_threshold=")
	}
	return false
}

// heapKeeps reports, for TestMallocKeepsBuffers, whether malloc serves a
// block of size bytes from its heaps (no mapping of its own) and keeps the
// memory in them once the block is freed (no trimming), as XLA's buffers
// should be served.
func heapKeeps(size int) (fromHeap, kept bool) {
	before := C.mallinfo2()
	p := C.malloc(C.size_t(size))
	during := C.mallinfo2()
	C.free(p)
	after := C.mallinfo2()
	fromHeap = during.hblks == before.hblks
	kept = after.arena >= during.arena
	return fromHeap, kept
}
