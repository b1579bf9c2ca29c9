package plots_test

import (
	"fmt"

	"github.com/narlab/narlab/plots"
)

// A results table computed from scores: the best score of each algorithm
// in bold, and the paper's win/tie/loss rule (A beats B when
// mean(A) − std(A) > mean(B)).
func ExampleNewResultsTable() {
	t, err := plots.NewResultsTable([]plots.Result{
		{Algorithm: "bfs", Model: "MPNN", Mean: 99.89, Std: 0.05},
		{Algorithm: "bfs", Model: "PGN", Mean: 99.63, Std: 0.29},
		{Algorithm: "dfs", Model: "MPNN", Mean: 6.54, Std: 0.51},
		{Algorithm: "dfs", Model: "PGN", Mean: 8.71, Std: 0.24},
	}, nil, nil)
	if err != nil {
		panic(err)
	}
	fmt.Print(t.Markdown())
	// Output:
	// | Algorithm | MPNN | PGN |
	// |---|---|---|
	// | bfs | **99.89 ± 0.05** | 99.63 ± 0.29 |
	// | dfs | 6.54 ± 0.51 | **8.71 ± 0.24** |
	// | Average | 53.22 | 54.17 |
	// | Win/Tie/Loss | 1/0/1 | 1/0/1 |
}

// A validation-curve figure rendered to PNG bytes, ready to display in a
// notebook or log as an MLflow artifact.
func ExampleValidationCurves() {
	fig, err := plots.ValidationCurves([]plots.Panel{{
		Title: "insertion_sort",
		Series: []plots.Series{{Label: "MPNN", Runs: []plots.Curve{
			{Steps: []float64{0, 50, 100}, Values: []float64{0.1, 0.6, 0.9}},
			{Steps: []float64{0, 50, 100}, Values: []float64{0.2, 0.5, 0.95}},
		}}},
	}}, plots.DefaultCurveOptions())
	if err != nil {
		panic(err)
	}
	png, err := fig.PNG()
	fmt.Println(err == nil && len(png) > 0)
	// Output: true
}
