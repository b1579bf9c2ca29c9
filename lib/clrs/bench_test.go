package clrs

import (
	"testing"
)

// BenchmarkGenerate measures generating 1,000 trajectories at n=16 (the
// CLRS-30 train split setting) per algorithm, single-threaded (Workers(1))
// so the figure compares with the single-threaded reference, and with all
// CPUs. Run: go test -run '^$' -bench Generate ./lib/clrs/
func BenchmarkGenerate(b *testing.B) {
	for _, name := range CLRS30() {
		if _, ok := registry[name]; !ok {
			continue
		}
		for _, w := range []struct {
			label string
			opt   Option
		}{{"1cpu", Workers(1)}, {"allcpu", nil}} {
			b.Run(name+"/"+w.label, func(b *testing.B) {
				opts := []Option{Length(16), Seed(1), NumSamples(1000)}
				if w.opt != nil {
					opts = append(opts, w.opt)
				}
				for b.Loop() {
					if _, err := NewSampler(name, opts...); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(1000*b.N)/b.Elapsed().Seconds(), "samples/s")
			})
		}
	}
}

// BenchmarkTrainSplit measures the whole CLRS-30 train split (1,000
// samples × 30 algorithms at n=16) with all CPUs: the samplers alone
// (trajectories: what `narlab clrs generate` does before it writes
// anything), and followed by batching into feedback (batched). Run once in
// a fresh process, as the command runs, with
//
//	go test -run '^$' -bench TrainSplit/trajectories -benchtime 1x ./lib/clrs
func BenchmarkTrainSplit(b *testing.B) { benchmarkSplits(b, "train") }

// BenchmarkFullDataset measures generating every trajectory of the whole
// CLRS-30 dataset (train, val and test splits of the 30 algorithms) with
// all CPUs — what the reference's samplers do when they are built — and,
// as a sub-benchmark, the same followed by batching each split into padded
// feedback arrays (about 9 GB of float64 hints in all).
func BenchmarkFullDataset(b *testing.B) { benchmarkSplits(b, SplitNames...) }

// benchmarkSplits generates the given CLRS-30 splits of the 30 algorithms
// (sub-benchmark trajectories: samplers generate when they are made) and,
// in sub-benchmark batched, batches each into feedback.
func benchmarkSplits(b *testing.B, splits ...string) {
	for _, batch := range []bool{false, true} {
		name := "trajectories"
		if batch {
			name = "batched"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				for _, split := range splits {
					for _, algo := range CLRS30() {
						s, err := NewSplitSampler(algo, split)
						if err != nil {
							b.Fatal(err)
						}
						if batch {
							if _, err := s.Dataset(); err != nil {
								b.Fatal(err)
							}
						}
					}
				}
			}
		})
	}
}

// BenchmarkWriteNPZ measures writing the CLRS-30 train split of a few
// algorithms as .npz (WriteTrajectoriesNPZ into memory, no disk): stored,
// and deflated by the Compressed option. MB/s counts the .npy bytes;
// "ratio" is the archive's size over the stored archive's.
// Run: go test -run '^$' -bench WriteNPZ ./lib/clrs/
func BenchmarkWriteNPZ(b *testing.B) {
	for _, algo := range []string{"bfs", "floyd_warshall", "insertion_sort", "strongly_connected_components"} {
		s, err := NewSplitSampler(algo, "train")
		if err != nil {
			b.Fatal(err)
		}
		trajs := s.Trajectories()
		var stored counter
		if err := WriteTrajectoriesNPZ(&stored, trajs); err != nil {
			b.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			opts []NPZOption
		}{{"stored", nil}, {"compressed", []NPZOption{Compressed()}}} {
			b.Run(algo+"/"+tc.name, func(b *testing.B) {
				b.SetBytes(stored.n)
				var c counter
				for b.Loop() {
					c = counter{}
					if err := WriteTrajectoriesNPZ(&c, trajs, tc.opts...); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(c.n)/float64(stored.n), "ratio")
			})
		}
	}
}

// BenchmarkWriteTrainSplit writes all 30 files of the CLRS-30 train split
// (sampled once, beforehand) with WriteTrajectoriesNPZ on one goroutine,
// stored and deflated, into a byte counter: the writer of trajectories
// held in memory (`narlab clrs generate` samples SplitFiles instead; see
// BenchmarkSplitFiles). Run:
//
//	go test -run '^$' -bench WriteTrainSplit -benchtime 3x ./lib/clrs
func BenchmarkWriteTrainSplit(b *testing.B) {
	var files [][]*Trajectory
	for _, algo := range CLRS30() {
		s, err := NewSplitSampler(algo, "train")
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, s.Trajectories())
	}
	for _, tc := range []struct {
		name string
		opts []NPZOption
	}{{"stored", nil}, {"compressed", []NPZOption{Compressed()}}} {
		b.Run(tc.name, func(b *testing.B) {
			var c counter
			for b.Loop() {
				c = counter{}
				for _, trajs := range files {
					if err := WriteTrajectoriesNPZ(&c, trajs, tc.opts...); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(c.n)/1e6, "MB")
		})
	}
}

// counter is an io.Writer that only counts bytes.
type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkSplitFiles samples and writes the 30 files of the CLRS-30
// train split as `narlab clrs generate` does (SampleSplitFile, then
// WriteNPZ, deflated, into a byte counter), one file after the other:
// what generating costs without a disk. Run:
//
//	go test -run '^$' -bench SplitFiles -benchtime 3x ./lib/clrs
//
// It also reports what the deltas hold: the share of hint values (within
// the samples' lengths) that differ from the step before, and the size
// of the streams of changes.
func BenchmarkSplitFiles(b *testing.B) {
	var c counter
	var changed, values, words int64
	for b.Loop() {
		c = counter{}
		changed, values, words = 0, 0, 0
		for _, algo := range CLRS30() {
			f, err := SampleSplitFile(algo, "train")
			if err != nil {
				b.Fatal(err)
			}
			ch, v, w := deltaStats(f)
			changed, values, words = changed+ch, values+v, words+w
			if err := f.WriteNPZ(&c, Compressed()); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(c.n)/1e6, "MB")
	b.ReportMetric(100*float64(changed)/float64(values), "%changed")
	b.ReportMetric(float64(8*words)/1e6, "MB_of_changes")
}

// deltaStats walks a SplitFile's streams: the values changed from the
// step before, the hint values within the samples' lengths, and the
// streams' words.
func deltaStats(f *SplitFile) (changed, values, words int64) {
	for b, stream := range f.deltas.samples {
		t := f.trajs[b]
		c := 0
		for _, h := range t.Hints {
			values += int64(t.Length * shapeSize(h.Shape[1:]))
			for s := 0; s < t.Length; {
				n, skip := int(uint32(stream[c])), int(stream[c]>>32)
				changed += int64(n)
				c += 1 + 3*(n/2) + 2*(n%2)
				s += 1 + skip
			}
		}
		if c != len(stream) {
			panic("deltaStats: the stream is not where its headers say")
		}
		words += int64(len(stream))
	}
	return changed, values, words
}
