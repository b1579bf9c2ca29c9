// Command fig3 trains processors on the eight algorithms of the CLRS
// paper's Figure 3, one after another, logging every run to MLflow, and
// prints a markdown table of validation and test scores beside the paper's
// Tables 4 and 2. Flags set the scale (defaults: the paper's protocol);
// docs/results.md records the reduced CPU run.
//
//	go run ./experiments/train/fig3 -processors mpnn,pgn -hidden 16 -steps 100 ...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/narlab/narlab/experiments/train"
	"github.com/narlab/narlab/lib/clrs/paper"
)

// Figure3 are the algorithms of the CLRS paper's Figure 3.
var Figure3 = []string{"activity_selector", "bellman_ford", "binary_search", "find_maximum_subarray_kadane",
	"graham_scan", "insertion_sort", "matrix_chain_order", "naive_string_matcher"}

func main() {
	procs := flag.String("processors", "mpnn,pgn,triplet_gmpnn", "comma-separated processors")
	algos := flag.String("algos", strings.Join(Figure3, ","), "comma-separated algorithms")
	var c train.Config
	flag.IntVar(&c.Steps, "steps", 10000, "training steps")
	flag.IntVar(&c.Batch, "batch", 32, "batch size")
	flag.IntVar(&c.Hidden, "hidden", 128, "hidden size")
	flag.IntVar(&c.EvalEvery, "eval-every", 50, "validate every N steps")
	flag.StringVar(&c.TrainData, "train-data", "split", "training data: split (the CLRS-30 train split, as the paper's Figure 3) or lengths (run.py's fresh samples)")
	flag.IntVar(&c.TrainLength, "train-length", 0, "reduced: train on 1000 fixed samples of this length (0: CLRS-30 train split)")
	flag.IntVar(&c.ValSamples, "val-samples", 0, "first N validation samples (0: all)")
	flag.IntVar(&c.TestSamples, "test-samples", 0, "first N test samples (0: all)")
	flag.StringVar(&c.Backend, "backend", "", "GoMLX backend")
	flag.StringVar(&c.Experiment, "experiment", "clrs-figure3", "MLflow experiment")
	dirRoot := flag.String("dir", "", "root of the run directories (default: data/train)")
	flag.Parse()
	c.Progress = os.Stderr
	fmt.Println("| algorithm | processor | our val % | paper val % | our test % | paper test % | best step | steps/s | MLflow run |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, a := range strings.Split(*algos, ",") {
		for _, p := range strings.Split(*procs, ",") {
			cfg := c
			cfg.Algo, cfg.Processor = a, p
			if cfg.TrainLength > 0 {
				cfg.TrainData = "" // the fixed-length set chooses the data
			}
			if *dirRoot != "" {
				cfg.Dir = fmt.Sprintf("%s/%s-%s", *dirRoot, a, p)
			}
			res, err := train.Run(context.Background(), cfg)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s/%s: %v\n", a, p, err)
				fmt.Printf("| %s | %s | error: %v |||||||\n", a, p, err)
				continue
			}
			model := train.PaperModel(p)
			fmt.Printf("| %s | %s | %.2f | %s | %.2f | %s | %d | %.2f | %s |\n", a, p, 100*res.BestVal,
				paperScore(paper.Validation[a], model), 100*res.Test["score"], paperScore(paper.Test[a], model),
				res.BestStep, res.StepsPerS, res.RunURL)
		}
	}
}

// paperScore is a table cell of the paper's mean score, or "—" where the
// paper has none for the model.
func paperScore(row map[string]paper.Score, model string) string {
	if s, ok := row[model]; ok {
		return fmt.Sprintf("%.2f", s.Mean)
	}
	return "—"
}
