package nn

import (
	"testing"

	"github.com/narlab/narlab/internal/hugepages"
	"github.com/narlab/narlab/internal/testenv"
	"github.com/narlab/narlab/lib/nn/engine"
)

// TestMain runs the tests and benchmarks as narlab's binaries run: with
// XLA's large buffers as huge pages (internal/hugepages) and the process
// tuned (engine.TuneProcess), under internal/testenv (a temporary data
// directory, no process left behind).
func TestMain(m *testing.M) {
	hugepages.Reexec()
	engine.TuneProcess()
	testenv.Main(m)
}
