package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/narlab/narlab/tracking"
)

// logOutputSpread records the GNN's output spread under relabelings as a
// table (spectral/output_spread.json: task, spread) and one summary
// metric, test/gnn/output_spread_max.
func logOutputSpread(run *tracking.Run, spreads map[string]float64) error {
	tasks := make([]string, 0, len(spreads))
	for t := range spreads {
		tasks = append(tasks, t)
	}
	sort.Strings(tasks)
	rows := make([][]any, len(tasks))
	mx := 0.0
	for i, t := range tasks {
		rows[i] = []any{t, spreads[t]}
		mx = max(mx, spreads[t])
	}
	if err := run.LogTable("spectral/output_spread.json", []string{"task", "output_spread"}, rows); err != nil {
		return err
	}
	return run.LogMetric("test/gnn/output_spread_max", 0, mx)
}

// spectralRunText is the run name and Markdown description of a
// spectral-eval run.
func spectralRunText(predictors []string, testGraphs int, params map[string]string) (name, note string) {
	name = tracking.RunNameFor("spectral-eval", strings.Join(predictors, "+"), fmt.Sprintf("%d graphs", testGraphs))
	var b strings.Builder
	fmt.Fprintf(&b, "`narlab graphs spectral-eval`: the twelve spectral tasks of \"Lost in Serialization\" (Table 10) "+
		"on %d test graphs, predictors %s.\n\n", testGraphs, strings.Join(predictors, ", "))
	b.WriteString("Results: `spectral/table10.json` (every metric per task and predictor), `spectral/groups.json` " +
		"(difficulty-group means), `spectral/densities.png`; summary metrics `test/<predictor>/smape`, `relmae`.")
	if v := params["gnn.train_steps"]; v != "" {
		fmt.Fprintf(&b, "\n\nGNN: %s steps, hidden size %s.", v, params["gnn.hidden_size"])
	}
	return name, b.String()
}
