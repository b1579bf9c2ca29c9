package salsaclrs_test

import (
	"context"
	"fmt"

	"github.com/narlab/narlab/experiments/salsaclrs"
)

// Run trains one algorithm on SALSA-CLRS's training graphs and tests the
// best validation's parameters on the test sets asked for. Here a tiny
// budget on the pure-Go backend, without MLflow; `narlab salsa run` is the
// same call with the protocol's defaults.
func ExampleRun() {
	res, err := salsaclrs.Run(context.Background(), salsaclrs.Config{
		Algos:        []string{"bfs"},
		TestSets:     []string{"er_16", "delaunay_160"},
		Steps:        4,
		EvalEvery:    2,
		TrainSamples: 16,
		ValSamples:   4,
		TestSamples:  func(int) int { return 2 },
		Hidden:       8,
		Backend:      "go",
		NoMLflow:     true,
	})
	if err != nil {
		panic(err)
	}
	for _, t := range res[0].Tests {
		s := t.Scores["score"]
		fmt.Printf("%s: %s graphs of %d nodes, %d of them, score in [0, 1]: %v\n",
			t.Set, t.Family, t.N, t.Samples, s >= 0 && s <= 1)
	}
	// Output:
	// er_16: er graphs of 16 nodes, 2 of them, score in [0, 1]: true
	// delaunay_160: delaunay graphs of 160 nodes, 2 of them, score in [0, 1]: true
}

// Table lays results out as docs/salsa.md shows them: a row per test set,
// a column per algorithm in SALSA-CLRS's order, scores in percent.
func ExampleTable() {
	results := []salsaclrs.Result{
		{Algo: "dfs", BestVal: 0.75, BestStep: 1800, Tests: []salsaclrs.SetResult{
			{Set: "er_16", Family: "er", N: 16, Samples: 1000, Scores: map[string]float64{"score": 0.737}},
			{Set: "ws_1600", Family: "ws", N: 1600, Samples: 20, Scores: map[string]float64{"score": 0.187}},
		}},
		{Algo: "bfs", BestVal: 1, BestStep: 1200, Tests: []salsaclrs.SetResult{
			{Set: "er_16", Family: "er", N: 16, Samples: 1000, Scores: map[string]float64{"score": 1}},
			{Set: "ws_1600", Family: "ws", N: 1600, Samples: 20, Scores: map[string]float64{"score": 0.766}},
		}},
	}
	fmt.Print(salsaclrs.Table(results))
	// Output:
	// | family | n | graphs | bfs | dfs |
	// |---|---:|---:|---:|---:|
	// | er | 16 | 1000 | 100.0 | 73.7 |
	// | ws | 1600 | 20 | 76.6 | 18.7 |
	// | best validation (ER, n=16) | | | 100.0 (step 1200) | 75.0 (step 1800) |
}
