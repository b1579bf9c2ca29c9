package clrs_test

import (
	"fmt"
	"log"
	"os"

	"github.com/narlab/narlab/lib/clrs"
)

// Reading back a file of `narlab clrs generate`: the whole split as one
// Feedback, then a batch of it and one trajectory.
func ExampleLoadSplit() {
	dir, err := os.MkdirTemp("", "clrs30")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// What `narlab clrs generate --algos bfs --split val --out DIR` writes
	// (beside a manifest.json).
	sf, err := clrs.SampleSplitFile("bfs", "val")
	if err != nil {
		log.Fatal(err)
	}
	if err := sf.SaveNPZ(dir+"/bfs_val.npz", clrs.Compressed()); err != nil {
		log.Fatal(err)
	}

	fb, err := clrs.LoadSplit(dir, "bfs", "val")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("samples:", fb.BatchSize(), "hint steps:", fb.MaxSteps())
	for _, d := range fb.Inputs {
		fmt.Printf("input %-4s %-6s %-9s %s %v\n", d.Name, d.Location, d.Type, d.DType, d.Shape)
	}
	batch, err := fb.Select(0, 1, 2, 3)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("batch:", batch.BatchSize(), "samples, lengths", batch.Lengths)
	tr, err := fb.Trajectory(0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("trajectory 0:", tr.Length, "steps, pi =", tr.Output("pi").Data)
	// Output:
	// samples: 32 hint steps: 7
	// input pos  node   scalar    float64 [32 16]
	// input s    node   mask_one  float64 [32 16]
	// input A    edge   scalar    int64 [32 16 16]
	// input adj  edge   mask      float64 [32 16 16]
	// batch: 4 samples, lengths [4 5 5 5]
	// trajectory 0: 4 steps, pi = [2 4 15 11 6 2 15 2 7 2 2 6 6 14 15 15]
}
