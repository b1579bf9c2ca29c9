package results

import (
	"testing"

	"github.com/narlab/narlab/internal/testenv"
)

// TestMain runs the tests under internal/testenv: a temporary data
// directory, and a failure for any process they leave running.
func TestMain(m *testing.M) { testenv.Main(m) }
