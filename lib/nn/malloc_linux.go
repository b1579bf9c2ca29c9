//go:build cgo && !noxla && linux && (amd64 || arm64)

package nn

/*
#include <malloc.h>
*/
import "C"

import (
	"os"
)

// XLA's CPU runtime allocates each program's temporary buffers with malloc
// on every execution, from many threads. glibc then keeps a heap per thread
// (up to eight per core) and, once a large buffer has been freed, raises its
// mmap threshold so that later large buffers come from those heaps and are
// kept when freed: the process's memory grows to the sum of the peaks of
// every heap. Two heaps and a fixed 128 KiB threshold (large buffers are
// mapped and unmapped) keep narlab's resident memory near what is live:
// −170 MB at the peak of the CLRS-30 protocol on bfs (BenchmarkProtocol,
// docs/performance.md). glibc's own environment variables
// (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_) take precedence.
func init() {
	if os.Getenv("MALLOC_ARENA_MAX") == "" {
		C.mallopt(C.M_ARENA_MAX, 2)
	}
	if os.Getenv("MALLOC_MMAP_THRESHOLD_") == "" {
		C.mallopt(C.M_MMAP_THRESHOLD, C.int(128<<10))
	}
}
