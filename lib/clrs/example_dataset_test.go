package clrs_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/narlab/narlab/lib/clrs"
)

// WriteDataset writes official CLRS-30 splits as .npz files with their
// manifest (what `narlab clrs generate` does); LoadSplit reads one back.
func ExampleWriteDataset() {
	dir, err := os.MkdirTemp("", "clrs30")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	m, err := clrs.WriteDataset(context.Background(), dir, clrs.DatasetOptions{
		Splits: []string{"val"}, Algorithms: []string{"bfs", "insertion_sort"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range m.Files {
		fmt.Printf("%s: %d samples of length %d, seed %d\n", f.File, f.NumSamples, f.Length, f.Seed)
	}
	fb, err := clrs.LoadSplit(dir, "bfs", "val")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("bfs val batch:", fb.BatchSize())
	// Output:
	// bfs_val.npz: 32 samples of length 16, seed 2
	// insertion_sort_val.npz: 32 samples of length 16, seed 2
	// bfs val batch: 32
}

// SampleBytes sizes a request before it is drawn: the bytes of one
// sample's arrays, extrapolated beyond length 32.
func ExampleSampleBytes() {
	for _, n := range []int{16, 64} {
		b, err := clrs.SampleBytes("floyd_warshall", n, 1)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("floyd_warshall at n=%d: %.1f MiB a sample\n", n, b/(1<<20))
	}
	// Output:
	// floyd_warshall at n=16: 0.1 MiB a sample
	// floyd_warshall at n=64: 6.0 MiB a sample
}
