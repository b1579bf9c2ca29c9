package dsrbench_test

import (
	"fmt"

	"github.com/narlab/narlab/experiments/dsrbench"
	"github.com/narlab/narlab/lib/dsr"
)

// The paper's Table 2 column of GPT-5, with the category averages and the
// overall score recomputed from the per-structure rows.
func ExamplePaperTables() {
	t, err := dsrbench.PaperTables("GPT-5")
	if err != nil {
		panic(err)
	}
	for _, c := range t.Categories {
		fmt.Printf("%-12s %.2f\n", c.Name, c.Binary)
	}
	fmt.Printf("%-12s %.2f\n", "Overall", t.Overall.Binary)
	// Output:
	// Linear       1.00
	// Temporal     0.88
	// Associative  0.87
	// Hierarchical 0.72
	// Network      0.71
	// Hybrid       0.56
	// Overall      0.79
}

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
	// score/structure/queue = 1
	// levenshtein/structure/queue = 1
	// score/task/queue/compound/short = 1
	// levenshtein/task/queue/compound/short = 1
	// responses/total = 4
	// responses/unscored = 0
}
