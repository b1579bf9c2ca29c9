//go:build cgo && !noxla && linux && (amd64 || arm64)

package nn

/*
#include <malloc.h>
*/
import "C"

import "os"

// XLA's CPU runtime allocates each program's temporary buffers with malloc
// on every execution, from many threads. By default glibc keeps up to eight
// heaps per core and maps every buffer above a threshold that it moves
// between 128 KiB and 32 MiB, so a step loop's buffers are mapped, faulted
// in, zeroed and unmapped on every call until the threshold has grown.
// narlab fixes the threshold at its maximum, 32 MiB (smaller buffers are
// reused from the heaps at once), and keeps two heaps, which holds the
// resident memory down; buffers above 32 MiB are mapped as huge pages
// (internal/hugepages). BenchmarkProtocol on activity_selector/MPNN
// (docs/performance.md, "Step loop"): training 1.51 → 1.93 steps/s against
// a 128 KiB threshold. glibc's own environment variables
// (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_) take precedence.
func init() {
	if os.Getenv("MALLOC_ARENA_MAX") == "" {
		C.mallopt(C.M_ARENA_MAX, 2)
	}
	if os.Getenv("MALLOC_MMAP_THRESHOLD_") == "" {
		C.mallopt(C.M_MMAP_THRESHOLD, C.int(32<<20))
	}
}
