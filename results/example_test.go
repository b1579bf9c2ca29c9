package results_test

import (
	"fmt"
	"log"

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
