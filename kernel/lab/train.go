package lab

import (
	"context"
	"fmt"
	"os"

	"github.com/narlab/narlab/experiments/clrs30"
	"github.com/narlab/narlab/kernel"
	"github.com/narlab/narlab/lib/nn/engine"
	"github.com/narlab/narlab/lib/trainloop"
)

// Train runs a CLRS-30 training (clrs30.Run) with a live progress line under
// the cell (steps, rate, loss, validation scores), then prints its result —
// best validation score and step, test score, speed — and links to its
// MLflow run. With no cfg.Dir the checkpoints go to a scratch directory that
// is removed afterwards (the run's MLflow model or artifacts keep the best
// checkpoint), so that running the cell again trains again rather than
// resuming the finished run; the result's Checkpoint is then gone. Train
// tunes the process as narlab's binaries do (engine.TuneProcess).
func Train(ctx context.Context, cfg clrs30.Config) (*clrs30.Result, error) {
	// A notebook cell is a program of its own: tuned as narlab's binaries
	// are (the collector's pace, malloc's modes for XLA).
	engine.TuneProcess()
	label := trainLabel(cfg)
	if cfg.Dir == "" {
		dir, err := os.MkdirTemp("", "narlab-lab-")
		if err != nil {
			return nil, fmt.Errorf("lab: %w", err)
		}
		defer os.RemoveAll(dir)
		cfg.Dir = dir
	}
	cfg.Observers = append(append([]trainloop.Observer(nil), cfg.Observers...),
		trainloop.Report(kernel.NewProgress(label)))
	res, err := clrs30.Run(ctx, cfg)
	if err != nil {
		return res, err
	}
	kernel.Printf("%s\n", summary(label, res))
	if res.RunURL != "" {
		kernel.RunLink(res.RunURL, "MLflow run "+shortID(res.RunID))
	}
	return res, nil
}

// trainLabel names a training: algorithm/processor (the reference's
// processor when none is set).
func trainLabel(cfg clrs30.Config) string {
	p := cfg.Processor
	if p == "" {
		p = clrs30.DefaultConfig().Processor
	}
	return cfg.Algo + "/" + p
}

// summary is the line Train prints after a training.
func summary(label string, res *clrs30.Result) string {
	return fmt.Sprintf("%s: best validation %.1f %% at step %d (n = 16), test %.1f %% (n = 64), %.2f steps/s on %s",
		label, 100*res.BestVal, res.BestStep, 100*res.Test["score"], res.StepsPerS, res.Backend)
}
