package engine

import (
	"os"
	"runtime/debug"
	"sync"
)

// TuneProcess sets the process up for training and evaluating models, as
// narlab's binaries do at the start of main (cmd/narlab, the
// test binaries that measure speed or memory, and kernel/lab.Train in a
// notebook). No library does it on import: it changes the whole process.
// It is idempotent and does two things:
//
//   - The garbage collector collects at half the heap growth of Go's
//     default (GOGC=50 rather than 100), unless $GOGC is set. A narlab
//     process's live heap is mostly the CLRS splits it holds (float64, as
//     the samplers make them), and every evaluation batch makes its host
//     tensors anew, so at GOGC=100 the garbage of a few batches rides on
//     hundreds of megabytes of data: the peak memory of
//     lcs_length/Triplet-GMPNN's short protocol (BenchmarkProtocol) fell
//     from 1.60–1.82 GB to 1.42–1.60 GB (docs/log/performance-training.md, "Step loop"),
//     with no measurable change in its time.
//   - On Linux with glibc and XLA, malloc is set for XLA's CPU runtime
//     (malloc_linux.go): at most two arenas and large blocks mapped on
//     their own in evaluation, and, from then on, [KeepBuffers] switches
//     to a training mode that keeps large blocks in the heap. glibc's own
//     settings in the environment take precedence.
//
// Without TuneProcess, KeepBuffers does nothing and the process keeps Go's
// and glibc's defaults: the results are the same, the speed and peak
// memory those defaults give.
func TuneProcess() { tune() }

var tune = sync.OnceFunc(func() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	setUpMalloc()
})
