package salsa

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/narlab/narlab/lib/clrs"
)

// BenchmarkSet1600 generates the 1,600-node test sets as `narlab salsa
// generate` does (no hints, compressed .npz, every CPU), 100 samples per
// operation, and reports the time a whole 1,000-sample set takes
// (s/set, extrapolated: the work is per sample).
//
//	go test -run '^$' -bench Set1600 -benchtime 1x ./lib/salsa
func BenchmarkSet1600(b *testing.B) {
	const samples = 100
	for _, name := range []string{"er_1600", "ws_1600", "delaunay_1600"} {
		set, err := LookupSet(name)
		if err != nil {
			b.Fatal(err)
		}
		for _, algo := range algorithms {
			b.Run(algo+"/"+name, func(b *testing.B) {
				start := time.Now()
				for range b.N {
					d, err := NewDataset(context.Background(), algo, set, 0, samples, false, DatasetOptions{})
					if err != nil {
						b.Fatal(err)
					}
					if err := d.WriteNPZ(io.Discard, clrs.Compressed()); err != nil {
						b.Fatal(err)
					}
				}
				perSet := time.Since(start).Seconds() / float64(b.N) * float64(set.Samples) / samples
				b.ReportMetric(perSet, "s/set")
			})
		}
	}
}

// BenchmarkSample draws one sample per operation on one core, without
// hints, for each algorithm on each 1,600-node family.
func BenchmarkSample(b *testing.B) {
	for _, name := range []string{"er_1600", "ws_1600", "delaunay_1600"} {
		set, _ := LookupSet(name)
		for _, algo := range algorithms {
			b.Run(algo+"/"+name, func(b *testing.B) {
				for i := range b.N {
					if _, _, err := Sample(algo, set, 0, i, false); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDelaunay triangulates 1,600 uniform points.
func BenchmarkDelaunay(b *testing.B) {
	set, _ := LookupSet("delaunay_1600")
	for i := range b.N {
		if _, _, err := set.Family.Sample(newKey(0, "delaunay_1600", i)); err != nil {
			b.Fatal(err)
		}
	}
}
