package nn

import (
	"os"
	"runtime/debug"
)

// Go's collector lets the heap grow to twice its live size before it
// collects (GOGC=100). A narlab process's live heap is mostly the CLRS
// splits it holds (float64, as the samplers make them), and every
// evaluation batch makes its host tensors anew, so at GOGC=100 the garbage
// of a few batches rides on hundreds of megabytes of data. narlab collects
// at half that growth: with the single copy of a split batch (nn.go), the
// peak memory of lcs_length/Triplet-GMPNN's short
// protocol (BenchmarkProtocol) fell from 1.60–1.82 GB to 1.42–1.60 GB
// (docs/performance.md, "Step loop"), with no measurable change in its
// time. $GOGC takes precedence.
func init() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}
