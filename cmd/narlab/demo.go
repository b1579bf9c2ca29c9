package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/narlab/narlab/experiments"
	"github.com/narlab/narlab/experiments/train"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/plots"
)

func init() {
	register(command{name: "demo", summary: "the main job: CLRS-30 sample, a small MPNN trained on CPU and logged to MLflow, its validation curve", run: demo})
}

// demo is the main job of `make run`: generate the CLRS-30 validation
// split, train a small MPNN on insertion_sort on CPU (logged to the local
// MLflow server, started or reused), save its validation-curve plot and
// say where to look.
func demo(args []string) error {
	fs := newFlags("demo", "[--out DIR] [--steps N] [--no-mlflow]")
	out := fs.String("out", "", "where to write the data and the plot (default: the project's data/demo)")
	steps := fs.Int("steps", 200, "training steps of the small processor")
	noMLflow := fs.Bool("no-mlflow", false, "do not log to MLflow")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *out == "" {
		dir, err := project.DataDir()
		if err != nil {
			return err
		}
		*out = filepath.Join(dir, "demo")
	}
	// Everything is checked before the first step writes anything.
	if err := checkOutputDir("out", *out); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if !*noMLflow {
		if _, err := experiments.TrackingTimeout(); err != nil {
			return err
		}
	}
	lock, err := experiments.LockRunDir(filepath.Join(*out, "train"))
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	defer lock.Release()
	ctx := commandContext()
	data := filepath.Join(*out, "clrs30-val")
	fmt.Fprintf(stdout, "== 1/3 generating the CLRS-30 validation split (30 algorithms) into %s\n", data)
	if err := clrsGenerate([]string{"--split", "val", "--out", data}); err != nil {
		return err
	}

	fmt.Fprintf(stdout, "\n== 2/3 training an MPNN on insertion_sort on CPU (%d steps, hidden 16, batch 8, trained on n=8)\n", *steps)
	if err := ctx.Err(); err != nil {
		return context.Cause(ctx)
	}
	res, err := train.Run(ctx, train.Config{Algo: "insertion_sort", Processor: "mpnn",
		Steps: *steps, Batch: 8, Hidden: 16, TrainLength: 8, EvalEvery: max(1, *steps/8), ValSamples: 16,
		TestSamples: 8, Dir: filepath.Join(*out, "train"), Experiment: "narlab-demo", NoMLflow: *noMLflow,
		Progress: os.Stderr})
	if err != nil {
		return err
	}
	curve := plots.Curve{}
	for _, p := range res.History {
		curve.Steps = append(curve.Steps, float64(p.Step))
		curve.Values = append(curve.Values, p.Score)
	}
	fig, err := plots.ValidationCurves([]plots.Panel{{Title: "insertion_sort", Series: []plots.Series{{Label: "MPNN", Runs: []plots.Curve{curve}}}}},
		plots.DefaultCurveOptions())
	if err != nil {
		return err
	}
	png, err := fig.PNG()
	if err != nil {
		return err
	}
	plot := filepath.Join(*out, "val_curve.png")
	if err := writeFileAtomic(plot, png); err != nil {
		return err
	}

	fmt.Fprintf(stdout, "\n== 3/3 results\n")
	fmt.Fprintf(stdout, "best validation score %.3f at step %d; test score (n=64, 8 samples) %.3f; %.2f steps/s on the %s backend\n",
		res.BestVal, res.BestStep, res.Test["score"], res.StepsPerS, res.Backend)
	fmt.Fprintf(stdout, "validation curve:  %s\n", plot)
	if res.RunURL != "" {
		fmt.Fprintf(stdout, "MLflow run:        %s\n", res.RunURL)
	}
	fmt.Fprintf(stdout, "data (numpy):      numpy.load(%q)\n", filepath.Join(data, "bfs_val.npz"))
	root, _ := project.Root()
	fmt.Fprintf(stdout, "notebooks:         .venv/bin/jupyter notebook %s   (kernel \"Go (narlab)\")\n", filepath.Join(root, "notebooks"))
	return nil
}
