package nn

import (
	"os"
	"testing"

	"github.com/narlab/narlab/internal/hugepages"
)

// TestMain runs the tests and benchmarks as narlab's binaries run: with
// XLA's large buffers as huge pages (internal/hugepages).
func TestMain(m *testing.M) {
	hugepages.Reexec()
	os.Exit(m.Run())
}
