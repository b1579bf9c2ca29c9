package clrs_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/narlab/narlab/lib/clrs"
)

// Sample trajectories of BFS on 8-node graphs, exactly as the reference
// sampler draws them for seed 42, and look at their shapes.
func ExampleNewSampler() {
	s, err := clrs.NewSampler("bfs", clrs.Length(8), clrs.Seed(42), clrs.NumSamples(4))
	if err != nil {
		log.Fatal(err)
	}
	fb, err := s.Next(2) // a batch of 2 trajectories drawn from the 4
	if err != nil {
		log.Fatal(err)
	}
	adj, _ := fb.Probe("adj")
	reach, _ := fb.Probe("reach_h")
	fmt.Println("inputs adj:", adj.Shape)
	fmt.Println("hint reach_h [B N] per step:", reach.Shape[1:])
	fmt.Println("T is the longest trajectory:", fb.MaxSteps() == max(fb.Lengths[0], fb.Lengths[1]))
	// Output:
	// inputs adj: [2 8 8]
	// hint reach_h [B N] per step: [2 8]
	// T is the longest trajectory: true
}

// Run insertion sort on the paper's Figure 2 input and read the `pred_h`
// hint step by step. As in the reference, pred_h[i] is the position of
// the element before i once the array is seen as a linked list in its
// current order: the sorted prefix first (its smallest element points to
// itself), then the untouched tail.
func ExampleTrajectory_Hint() {
	t, err := clrs.Run("insertion_sort", clrs.Args{[]float64{5, 2, 4, 3, 1}})
	if err != nil {
		log.Fatal(err)
	}
	pred := t.Hint("pred_h")
	for step := range t.Length {
		fmt.Println(pred.Step(step))
	}
	fmt.Println("output pred:", t.Output("pred").Data)
	// Output:
	// [0 0 1 2 3]
	// [1 1 0 2 3]
	// [2 1 1 0 3]
	// [2 1 3 1 0]
	// [2 4 3 1 4]
	// output pred: [2 4 3 1 4]
}

// Generate the official validation split of one algorithm and save it as
// a numpy .npz file.
func ExampleNewSplitSampler() {
	s, err := clrs.NewSplitSampler("insertion_sort", "val")
	if err != nil {
		log.Fatal(err)
	}
	fb, err := s.Dataset()
	if err != nil {
		log.Fatal(err)
	}
	path := filepath.Join(os.TempDir(), "insertion_sort_val.npz")
	if err := clrs.SaveNPZ(path, fb); err != nil {
		log.Fatal(err)
	}
	defer os.Remove(path)
	key, _ := fb.Probe("key")
	fmt.Println("val split:", fb.BatchSize(), "trajectories, key shape", key.Shape)
	// Output:
	// val split: 32 trajectories, key shape [32 16]
}

// SampleSplitFile samples an official CLRS-30 split for writing; SaveNPZ
// writes it once, deflated here, as `narlab clrs generate` does.
func ExampleSampleSplitFile() {
	f, err := clrs.SampleSplitFile("bfs", "val")
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "clrs")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := f.SaveNPZ(filepath.Join(dir, "bfs_val.npz"), clrs.Compressed()); err != nil {
		panic(err)
	}
	fmt.Printf("%s %s: %d samples, hints of %d steps, %d bytes of arrays\n", f.Algorithm, f.Split.Name, f.Len(), f.MaxSteps(), f.Bytes())
	fmt.Println(f.SaveNPZ(filepath.Join(dir, "again.npz")) == clrs.ErrSplitFileWritten)
	// Output:
	// bfs val: 32 samples, hints of 7 steps, 200960 bytes of arrays
	// true
}
