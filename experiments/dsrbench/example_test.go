package dsrbench_test

import (
	"fmt"

	"github.com/narlab/narlab/experiments/dsrbench"
	"github.com/narlab/narlab/lib/dsr"
)

// Scoring a baseline's answers and listing the metrics a run logs.
func ExampleMetrics() {
	task, _ := dsr.LookupTask("queue", "compound")
	insts, _ := task.Generate(dsr.GenConfig{Level: dsr.Short, Count: 4, Seed: 1})
	preds, _ := dsrbench.Baseline("oracle", insts)
	results, _ := dsr.ScoreAll(insts, preds, dsr.ScoreConfig{Strategy: dsr.Stepwise})
	for _, m := range dsrbench.Metrics(dsr.Aggregate(results)) {
		fmt.Printf("%s = %g\n", m.Key, m.Value)
	}
	// Output:
	// score/overall = 1
	// levenshtein/overall = 1
	// score/category/temporal = 1
	// levenshtein/category/temporal = 1
	// responses/total = 4
	// responses/unscored = 0
}
