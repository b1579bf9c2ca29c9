package nn

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/lib/clrs"
)

// BenchmarkTrainStep measures training steps/s at the paper's scale and in
// the reference benchmark's setting (../shared/tools/clrs-ref/refbench.py):
// batches of 32 from the CLRS-30 train-split sampler (n=16, 1000 samples,
// seed 1), eight batches cycled, hidden 128, hints encoded and decoded,
// teacher forcing 0. The first step (graph compilation) is timed apart and
// reported as first_step_s; steps/s is the steady state. The backend is
// narlab's pick (XLA CPU after `make setup`; $GOMLX_BACKEND overrides).
// NARLAB_BENCH_ROWS=algo/proc,algo/proc narrows the grid. Run with
// -benchtime=Nx: a step takes from milliseconds (XLA) to seconds (pure Go).
func BenchmarkTrainStep(b *testing.B) {
	rows := []string{"bfs/mpnn", "bfs/pgn", "bfs/triplet_mpnn",
		"floyd_warshall/mpnn", "floyd_warshall/pgn", "floyd_warshall/triplet_mpnn",
		"insertion_sort/mpnn", "insertion_sort/pgn", "insertion_sort/triplet_mpnn"}
	if r := os.Getenv("NARLAB_BENCH_ROWS"); r != "" {
		rows = strings.Split(r, ",")
	}
	be, choice, err := BackendChoice("")
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("backend %s (%s)", choice.Kind, choice.Config)
	for _, row := range rows {
		algo, proc, ok := strings.Cut(row, "/")
		if !ok {
			b.Fatalf("NARLAB_BENCH_ROWS: %q is not ALGO/PROCESSOR", row)
		}
		b.Run(fmt.Sprintf("%s/%s", algo, proc), func(b *testing.B) {
			s, err := clrs.NewSampler(algo, clrs.Length(16), clrs.Seed(1), clrs.NumSamples(1000))
			if err != nil {
				b.Fatal(err)
			}
			var batches []*clrs.Feedback
			for range 8 {
				fb, err := s.Next(32)
				if err != nil {
					b.Fatal(err)
				}
				batches = append(batches, fb)
			}
			cfg := DefaultConfig(algo, proc)
			cfg.TeacherForcing = 0
			m, err := New(be, cfg)
			if err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			if _, err := m.TrainStep(batches[0]); err != nil { // compilation, outside the timing
				b.Fatal(err)
			}
			first := time.Since(t0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := m.TrainStep(batches[(i+1)%len(batches)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
			b.ReportMetric(first.Seconds(), "first_step_s")
		})
	}
}
