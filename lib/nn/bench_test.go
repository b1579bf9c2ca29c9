package nn

import (
	"testing"

	"github.com/narlab/narlab/lib/clrs"
)

// BenchmarkTrainStepMPNN measures training steps/s of MPNN at the paper's
// scale: batch 32 from the CLRS-30 insertion_sort train split (n=16),
// hidden 128, hints encoded and decoded. The backend is $GOMLX_BACKEND
// (default the pure-Go one). Run with -benchtime=3x: a step takes
// seconds on a CPU.
func BenchmarkTrainStepMPNN(b *testing.B) {
	be, err := Backend("")
	if err != nil {
		b.Fatal(err)
	}
	s, err := clrs.NewSplitSampler("insertion_sort", "train")
	if err != nil {
		b.Fatal(err)
	}
	fb, err := s.Next(32)
	if err != nil {
		b.Fatal(err)
	}
	m, err := New(be, DefaultConfig("insertion_sort", "mpnn"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := m.TrainStep(fb); err != nil { // compile outside the timing
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.TrainStep(fb); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
