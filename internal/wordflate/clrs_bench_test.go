package wordflate_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"io"
	"testing"

	"github.com/narlab/narlab/internal/wordflate"
	"github.com/narlab/narlab/lib/clrs"
)

// BenchmarkCLRSTrainSplit deflates the .npy arrays of CLRS-30 train
// splits (1,000 samples at n=16; the arrays numpy.savez would store) with
// wordflate and with compress/flate's fastest level, one array at a time
// on one core. MB/s counts uncompressed bytes; "ratio" is compressed over
// uncompressed. Run:
//
//	go test -run '^$' -bench CLRSTrainSplit -benchtime 3x ./internal/wordflate
func BenchmarkCLRSTrainSplit(b *testing.B) {
	var arrays [][]byte
	total := 0
	for _, algo := range []string{"bfs", "insertion_sort", "floyd_warshall", "optimal_bst", "strongly_connected_components"} {
		s, err := clrs.NewSplitSampler(algo, "train")
		if err != nil {
			b.Fatal(err)
		}
		var archive bytes.Buffer
		if err := clrs.WriteTrajectoriesNPZ(&archive, s.Trajectories()); err != nil {
			b.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(archive.Bytes()), int64(archive.Len()))
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range zr.File {
			r, err := f.Open()
			if err != nil {
				b.Fatal(err)
			}
			data, err := io.ReadAll(r)
			if err != nil {
				b.Fatal(err)
			}
			arrays = append(arrays, data)
			total += len(data)
		}
	}
	for _, tc := range []struct {
		name string
		new  func(io.Writer) io.WriteCloser
	}{
		{"wordflate", func(w io.Writer) io.WriteCloser { return wordflate.NewWriter(w) }},
		{"flate-bestspeed", func(w io.Writer) io.WriteCloser { fw, _ := flate.NewWriter(w, flate.BestSpeed); return fw }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(total))
			var out int
			for b.Loop() {
				out = 0
				for _, a := range arrays {
					var c byteCounter
					w := tc.new(&c)
					if _, err := w.Write(a); err != nil {
						b.Fatal(err)
					}
					if err := w.Close(); err != nil {
						b.Fatal(err)
					}
					out += c.n
				}
			}
			b.ReportMetric(float64(out)/float64(total), "ratio")
		})
	}
}

type byteCounter struct{ n int }

func (c *byteCounter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }
