package results_test

import (
	"fmt"
	"log"
	"os"

	"github.com/narlab/narlab/results"
)

// Load reads the committed rows, each checked against its file's schema.
func ExampleLoad() {
	s, err := results.Load(".") // the repository's results/ folder
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range s.Protocol {
		if r.Algo == "bubble_sort" && r.Processor == "mpnn" {
			fmt.Printf("%s/%s: protocol %.0f s (reference %.0f s)\n", r.Algo, r.Processor, r.Narlab.ProtocolS, r.Reference.ProtocolS)
		}
	}
	// Output: bubble_sort/mpnn: protocol 415 s (reference 1284 s)
}

// Summary is what `narlab demo` prints at its end, and what the README's
// transcript shows from the latest row of demo.jsonl.
func ExampleDemo_Summary() {
	d := results.Demo{Algo: "bfs", Processor: "mpnn", Backend: "xla-cpu", Steps: 200, Hidden: 128, Batch: 32,
		TrainNodes: 16, TestNodes: 64, TotalS: 53.2, TrainS: 51.0, FirstStepS: 8.1, StepsPerS: 4.99,
		Test: 0.999, BestVal: 1, BestStep: 50, PaperTest: 99.89, PaperStd: 0.05}
	d.Summary(os.Stdout)
	// Output:
	// == 3/3 summary (53s in all)
	//   narlab MPNN, test at n=64:           99.9%  (best validation 100.0% at step 50, n=16)
	//   paper's MPNN, test at n=64:          99.9%  (± 0.1, 10,000 steps, CLRS paper Table 2)
	//   chance:                               1.6%  (a uniformly random parent pointer among 64 nodes)
	//   speed:                             4.99 steps/s steady state on xla-cpu (first step, with compilation: 8.1s; training and test 51s)
}
