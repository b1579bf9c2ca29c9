package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/narlab/narlab/experiments/clrs30"
	"github.com/narlab/narlab/internal/cliflag"
	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/clrs/paper"
	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/results"
	"github.com/narlab/narlab/tracking"
)

func init() {
	register(command{name: "demo", summary: "the main job: CLRS-30 data, an MPNN trained on BFS (XLA), tested at n=64 beside the paper and chance, logged to MLflow", run: demo})
}

// The demo's model: BFS with an MPNN at the paper's width, on the CLRS-30
// train split. BFS generalises from n=16 to n=64, so a few hundred steps
// show a model that learns: its test score lands near the paper's, far
// above chance.
const (
	demoAlgo      = "bfs"
	demoProcessor = "mpnn"
	demoTestNodes = 64 // CLRS-30 test split size
)

// demo is the main job of `make run`: generate the CLRS-30 validation
// split, train an MPNN on BFS (logged to the local MLflow server, started
// or reused; a new run every time), test it at n=64, save its
// validation-curve plot and print a one-screen summary of where
// everything is.
func demo(args []string) error {
	fs := newFlags("demo")
	out := fs.String("out", "", "where to write the data, the run directory and the plot (default: the project's data/demo)")
	steps := fs.Int("steps", 200, "training steps of the MPNN (at least 1)")
	noMLflow := fs.Bool("no-mlflow", false, "do not log to MLflow")
	backend := fs.String("backend", "", backendUsage)
	trackingURI := fs.String("tracking", "", trackingUsage)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if err := checkTracking("demo", trackingURI, noMLflow); err != nil {
		return err
	}
	if *steps < 1 {
		return fmt.Errorf("demo: --steps %d; want at least 1", *steps)
	}
	if *out == "" {
		dir, err := project.DataDir()
		if err != nil {
			return err
		}
		*out = filepath.Join(dir, "demo")
	}
	// Everything is checked before the first step writes anything.
	if err := nn.CheckBackend(*backend, true); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if !*noMLflow {
		if _, err := tracking.TrackingTimeout(); err != nil {
			return err
		}
	}
	if err := cliflag.CheckOutputDir("out", *out); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return runDemo(demoRun{out: *out, steps: *steps, backend: *backend, tracking: *trackingURI, noMLflow: *noMLflow})
}

// demoRun is what `narlab demo` was asked for, checked.
type demoRun struct {
	out, backend, tracking string
	steps                  int
	noMLflow               bool
}

// runDemo generates the validation split and trains, then finishDemo
// writes the plot and the summary.
func runDemo(o demoRun) error {
	// A new run directory every time: a second `make run` trains again
	// (a new MLflow run) instead of resuming the finished one.
	runDir := filepath.Join(o.out, "runs", time.Now().UTC().Format("20060102-150405"))
	// clrs30.Run locks the run directory while it trains.
	ctx := commandContext()
	start := time.Now()
	data := filepath.Join(o.out, "clrs30-val")
	fmt.Fprintf(stdout, "== 1/3 generating the CLRS-30 validation split (30 algorithms) into %s\n", data)
	m, err := clrs.WriteDataset(ctx, data, clrs.DatasetOptions{Splits: []string{"val"}})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d files to %s in %.1fs\n", len(m.Files), data, m.Seconds)

	choice := nn.Choose(o.backend)
	d := clrs30.DefaultConfig() // the paper's width and batch
	sum := results.Demo{Algo: demoAlgo, Processor: demoProcessor, Steps: o.steps, Hidden: d.Hidden, Batch: d.Batch, TrainNodes: 16,
		TestNodes: demoTestNodes, Backend: choice.Kind, DataFiles: len(m.Files), DataS: m.Seconds}
	fmt.Fprintln(stdout)
	sum.TrainingHeader(stdout)
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	trainStart := time.Now()
	res, err := clrs30.Run(ctx, clrs30.Config{Algo: demoAlgo, Processor: demoProcessor, Steps: sum.Steps,
		Batch: sum.Batch, Hidden: sum.Hidden, TrainData: "split", EvalEvery: min(d.EvalEvery, o.steps), Backend: o.backend,
		Dir: runDir, Experiment: tracking.DefaultExperiment("narlab-demo"), NoMLflow: o.noMLflow, TrackingURI: o.tracking, Progress: os.Stderr})
	if err != nil {
		return err
	}
	sum.TrainS = time.Since(trainStart).Seconds()
	return finishDemo(&sum, res, runDir, data, start)
}

// finishDemo saves the validation curve and the summary (summary.json, for
// scripts/bench_demo.sh: results/demo.jsonl, from which the README's
// transcript is rendered by the same code), and prints the summary.
func finishDemo(sum *results.Demo, res *clrs30.Result, runDir, data string, start time.Time) error {
	png, err := clrs30.CurvePNG(demoAlgo, demoProcessor, res.History)
	if err != nil {
		return err
	}
	plot := filepath.Join(runDir, "val_curve.png")
	if err := fsutil.WriteFile(plot, png, fsutil.DataMode); err != nil {
		return err
	}

	sum.Backend, sum.StepsPerS, sum.FirstStepS = res.Backend, res.StepsPerS, res.FirstStep.Seconds()
	sum.Test, sum.BestVal, sum.BestStep = res.Test["score"], res.BestVal, res.BestStep
	if s, ok := paper.Test[demoAlgo]["MPNN"]; ok {
		sum.PaperTest, sum.PaperStd = s.Mean, s.Std
	}
	sum.TotalS = time.Since(start).Seconds()
	summaryPath := filepath.Join(runDir, "summary.json")
	raw, err := json.Marshal(sum)
	if err != nil {
		return err
	}
	if err := fsutil.WriteFile(summaryPath, append(raw, '\n'), fsutil.DataMode); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	sum.Summary(stdout)
	fmt.Fprintf(stdout, "\n  validation curve:  %s\n", plot)
	fmt.Fprintf(stdout, "  checkpoint:        %s\n", res.Checkpoint)
	if res.RunURL != "" {
		fmt.Fprintf(stdout, "  MLflow run:        %s\n", res.RunURL)
	}
	fmt.Fprintf(stdout, "  data (numpy):      numpy.load(%q)\n", filepath.Join(data, "bfs_val.npz"))
	fmt.Fprintf(stdout, "  summary (JSON):    %s\n", summaryPath)
	fmt.Fprintf(stdout, "  notebooks:         make jupyter   (Jupyter on notebooks/, kernel \"Go (narlab)\")\n")
	return nil
}
