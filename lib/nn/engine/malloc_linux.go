//go:build cgo && !noxla && linux && (amd64 || arm64)

package engine

/*
#include <malloc.h>
*/
import "C"

import (
	"os"
	"strings"
	"sync"
)

// XLA's CPU runtime allocates each program's temporary buffers with malloc
// on every execution, from many threads: tens of megabytes for a training
// step at the paper's size, executed hundreds of times a training step by
// the step loop. narlab sets glibc's malloc for that in two modes.
//
// Evaluation (and anything before the first training step): at most two
// heaps (arenas), which holds the resident memory down, and blocks above
// 32 MiB, glibc's largest mmap threshold, mapped on their own; smaller
// blocks are reused from the heaps at once. The mapped blocks go back to
// the kernel when freed, so peak memory follows the live buffers; they are
// mapped as huge pages (internal/hugepages). activity_selector/MPNN
// (BenchmarkProtocol, docs/log/performance-training.md, "Step loop"): training 1.51 →
// 1.93 steps/s against glibc's default 128 KiB threshold.
//
// Training (KeepBuffers(true), which lib/nn's TrainStep calls, until the
// next prediction's KeepBuffers(false)): no mapped blocks and no trimming below 2 GiB of free
// memory at a heap's top, so that the heaps grow to the training step's
// working set once and its pages are reused instead of being faulted in
// and zeroed by the kernel on every call: bfs/Triplet-MPNN trained 18%
// faster (docs/log/performance-training.md, "Keeping XLA's buffers in the heap").
// Only the main arena holds blocks of every size: glibc's other heaps are
// at most 64 MiB, so a thread on the second arena still has larger blocks
// mapped, and a heap of its deleted when it empties. In evaluation the
// same setting raised dfs/MPNN's peak memory by a quarter (the heap
// fragments over the varying buffers of long trajectories), so a
// prediction switches back and returns the free memory (malloc_trim).
//
// glibc's own settings, from its environment variables (MALLOC_ARENA_MAX,
// MALLOC_MMAP_THRESHOLD_, MALLOC_MMAP_MAX_, MALLOC_TRIM_THRESHOLD_) or
// GLIBC_TUNABLES, take precedence: a setting of the user's is left alone,
// and the training mode is off when any of the last three is set.

// setUpMalloc sets the evaluation mode's parameters and decides whether
// KeepBuffers switches modes, once (TuneProcess calls it).
var setUpMalloc = sync.OnceFunc(func() {
	if !glibcSet("MALLOC_ARENA_MAX", "glibc.malloc.arena_max") {
		C.mallopt(C.M_ARENA_MAX, 2)
	}
	mmapManaged := !glibcSet("MALLOC_MMAP_THRESHOLD_", "glibc.malloc.mmap_threshold")
	if mmapManaged {
		C.mallopt(C.M_MMAP_THRESHOLD, C.int(32<<20))
	}
	mallocMode.managed = mmapManaged && !glibcSet("MALLOC_MMAP_MAX_", "glibc.malloc.mmap_max") &&
		!glibcSet("MALLOC_TRIM_THRESHOLD_", "glibc.malloc.trim_threshold")
})

// glibc's defaults for the parameters the training mode changes.
const (
	defaultMmapMax       = 65536
	defaultTrimThreshold = 128 << 10
)

var mallocMode struct {
	sync.Mutex
	managed  bool // KeepBuffers switches modes (TuneProcess ran; the user set none of the parameters)
	training bool
}

// KeepBuffers switches malloc to the training mode (on) or back to the
// evaluation mode, returning the heaps' free memory to the kernel, in a
// process that called TuneProcess; elsewhere it does nothing.
func KeepBuffers(on bool) {
	mallocMode.Lock()
	defer mallocMode.Unlock()
	if !mallocMode.managed || mallocMode.training == on {
		return
	}
	mallocMode.training = on
	if on {
		C.mallopt(C.M_MMAP_MAX, 0)
		C.mallopt(C.M_TRIM_THRESHOLD, 1<<31-1)
		return
	}
	C.mallopt(C.M_MMAP_MAX, defaultMmapMax)
	C.mallopt(C.M_TRIM_THRESHOLD, defaultTrimThreshold)
	C.malloc_trim(0)
}

// glibcSet reports whether the user set a malloc parameter through glibc's
// environment variable or tunable for it.
func glibcSet(env, tunable string) bool {
	return os.Getenv(env) != "" || strings.Contains(os.Getenv("GLIBC_TUNABLES"), tunable+"=")
}

// heapKeeps reports, for TestMallocModes, whether malloc serves a block of
// size bytes from its heaps (no mapping of its own) and keeps the memory
// in them once the block is freed (no trimming).
func heapKeeps(size int) (fromHeap, kept bool) {
	before := C.mallinfo2()
	p := C.malloc(C.size_t(size))
	during := C.mallinfo2()
	C.free(p)
	after := C.mallinfo2()
	return during.hblks == before.hblks, after.arena >= during.arena
}
