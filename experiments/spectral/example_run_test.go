package spectral_test

import (
	"context"
	"fmt"
	"log"

	"github.com/narlab/narlab/experiments/spectral"
)

// Run is the spectral-tasks protocol (what `narlab graphs spectral-eval`
// runs): here the mean baseline alone on a few synthetic graphs, offline.
func ExampleRun() {
	res, err := spectral.Run(context.Background(), spectral.Config{Count: 5, TrainCount: 20, Seed: 1, NoGNN: true,
		NoMLflow: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.TestGraphs, "test graphs,", len(res.Report.Tasks), "tasks, predictors", res.Report.Predictors)
	// Output:
	// 5 test graphs, 12 tasks, predictors [mean]
}
