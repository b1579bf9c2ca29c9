package clrs30_test

import (
	"fmt"
	"strings"

	"github.com/narlab/narlab/experiments/clrs30"
)

// Validate checks a training configuration before any work: the CLI, the
// sweeps' cells and Run itself check with it.
func ExampleConfig_Validate() {
	for _, c := range []clrs30.Config{
		{Algo: "bfs", Processor: "mpnn", Steps: 300, Hidden: 32, Batch: 8, TrainLength: 8, Backend: "go"},
		{Algo: "bfs", Processor: "lstm", Backend: "go"},
		{Algo: "bfs", Backend: "go", NoMLflow: true, Register: "bfs-model"},
	} {
		err := c.Validate()
		if err == nil {
			fmt.Println("ok")
			continue
		}
		msg, _, _ := strings.Cut(err.Error(), " (want one of") // the list is lib/nn's
		fmt.Println(msg)
	}
	// Output:
	// ok
	// train: unknown --processor "lstm"
	// train: --parent-run, --tag and --register place the run in MLflow, but --no-mlflow (or --tracking none) logs nothing; give one or the other
}
