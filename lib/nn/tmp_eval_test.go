package nn

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/narlab/narlab/lib/clrs"
)

func cpuTime() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func TestTmpEvalSpeed(t *testing.T) {
	algo := os.Getenv("ALGO")
	if algo == "" {
		t.Skip()
	}
	be, _, _ := BackendChoice("")
	te, _ := clrs.NewSplitSampler(algo, "test")
	tb, _ := clrs.Batch(te.Trajectories()[:32], 0)
	cfg := DefaultConfig(algo, os.Getenv("PROC"))
	cfg.StepLoop = os.Getenv("MODE")
	m, _ := New(be, cfg)
	for i := 0; i < 3; i++ {
		t0, c0 := time.Now(), cpuTime()
		if _, err := m.Predict(tb); err != nil {
			t.Fatal(err)
		}
		t.Logf("predict %d: %.2fs wall %.2fs cpu (T=%d)", i, time.Since(t0).Seconds(), cpuTime()-c0, tb.MaxSteps())
	}
}
