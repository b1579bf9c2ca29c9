package spectralgnn

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestNoProcessTuning checks that importing lib/nn (as this package does)
// leaves the process as it was: the collector at Go's default pace (no
// GOGC=50 on import), as for any program that did not ask for
// engine.TuneProcess.
func TestNoProcessTuning(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("$GOGC is set: the collector's pace is the environment's")
	}
	prev := debug.SetGCPercent(100)
	if prev != 100 {
		t.Errorf("the collector's pace is GOGC=%d in a process that imports lib/nn without tuning; want Go's default 100", prev)
	}
}
