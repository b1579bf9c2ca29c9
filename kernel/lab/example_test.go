package lab_test

import (
	"context"

	"github.com/narlab/narlab/experiments/clrs30"
	"github.com/narlab/narlab/kernel"
	"github.com/narlab/narlab/kernel/lab"
)

// Runs as Search returns them, newest first, shown with chosen columns: a
// bare key is a metric, else a parameter; "%" shows a fraction in percent.
// In a notebook the table is HTML and "run" links to each run's MLflow page.
func ExampleRuns_Show() {
	runs := lab.Runs{
		{ID: "4f2a9c0e51b7", Params: map[string]string{"processor": "pgn", "train_steps": "200"},
			Metrics: map[string]float64{"val/best_score": 0.9375, "train/steps_per_s": 5.061}},
		{ID: "77b0d3e1aa02", Params: map[string]string{"processor": "mpnn", "train_steps": "200"},
			Metrics: map[string]float64{"val/best_score": 0.8125, "train/steps_per_s": 4.384}},
		{ID: "0c1de55f9a31", Params: map[string]string{"processor": "mpnn", "train_steps": "100"},
			Metrics: map[string]float64{"val/best_score": 0.5, "train/steps_per_s": 4.2}},
	}
	runs.Latest("processor").Show("processor", "train_steps", "val/best_score%", "train/steps_per_s", "run")
	// Output:
	// processor  train_steps  val/best_score (%)  train/steps_per_s  run
	// pgn        200          93.8                5.061              4f2a9c0e
	// mpnn       200          81.2                4.384              77b0d3e1
}

// A run's scores beside the CLRS paper's for its algorithm and processor.
func ExampleRuns_BesidePaper() {
	runs := lab.Runs{{ID: "4f2a9c0e51b7",
		Params:  map[string]string{"algorithm": "bfs", "processor": "pgn", "train_steps": "200", "hidden_size": "16"},
		Metrics: map[string]float64{"val/best_score": 0.9375, "test/score": 0.6016, "train/steps_per_s": 5.061}}}
	runs.BesidePaper()
	// Output:
	// algorithm  processor  steps  hidden  best val, n = 16 (%)  paper val (%)  test, n = 64 (%)  paper test (%)  steps/s  run
	// bfs        PGN        200    16      93.8                  100.0          60.2              99.6            5.061    4f2a9c0e
}

// The cells of a notebook that trains two processors and compares them
// through MLflow (notebooks/02_train_and_compare).
func Example() {
	ctx := context.Background()
	for _, p := range []string{"mpnn", "pgn"} {
		kernel.Must(lab.Train(ctx, clrs30.Config{Algo: "bfs", Processor: p, Steps: 200, Batch: 8, Hidden: 16,
			TrainLength: 8, EvalEvery: 20, ValSamples: 16, TestSamples: 4, Experiment: "narlab-notebook-02"}))
	}

	// A later cell (GoNB runs each cell as a new program): the runs, read back.
	runs := kernel.Must(lab.Search(ctx, "narlab-notebook-02", lab.Where("algorithm", "bfs"))).Latest("processor")
	kernel.Show(kernel.Must(runs.Curves(ctx, "val/score")))
	runs.BesidePaper()
}
