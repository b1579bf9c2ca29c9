package clrs

import "testing"

func BenchmarkTmpSample(b *testing.B) {
	for b.Loop() {
		for _, algo := range CLRS30() {
			f, err := SampleSplitFile(algo, "train")
			if err != nil {
				b.Fatal(err)
			}
			f.deltas.release()
		}
	}
}
