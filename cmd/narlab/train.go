package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/narlab/narlab/experiments"
	"github.com/narlab/narlab/experiments/mlflow"
	"github.com/narlab/narlab/experiments/train"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
)

// The train and eval commands: CLRS baselines (lib/nn) trained and scored.

func init() {
	register(command{name: "train", summary: "train a CLRS baseline (encode-process-decode) and log it to MLflow", run: trainCmd})
	register(command{name: "eval", summary: "score a CLRS baseline checkpoint on a CLRS-30 split", run: evalCmd})
	// The same commands in the group vocabulary (docs/cli.md).
	register(command{group: "clrs", name: "train", summary: "train a CLRS baseline (same as `narlab train`)", run: trainCmd})
	register(command{group: "clrs", name: "eval", summary: "score a CLRS baseline checkpoint (same as `narlab eval`)", run: evalCmd})
}

func trainCmd(args []string) error {
	var c train.Config
	fs := trainFlags(&c)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if c.Algo == "" {
		fs.Usage()
		return fmt.Errorf("train: --algo is required")
	}
	// The names are checked before the run directory is created or locked.
	if _, ok := clrs.Specs[c.Algo]; !ok {
		return fmt.Errorf("train: unknown --algo %q (see `narlab clrs algos`)", c.Algo)
	}
	if !slices.Contains(nn.Processors, c.Processor) {
		return fmt.Errorf("train: unknown --processor %q (want one of %s)", c.Processor, strings.Join(nn.Processors, ", "))
	}
	if !slices.Contains(nn.HintModes, c.HintMode) {
		return fmt.Errorf("train: unknown --hint-mode %q (want one of %s)", c.HintMode, strings.Join(nn.HintModes, ", "))
	}
	// One edge activation of the processor holds batch × n² × hidden
	// float32s, in training (n = 16 or --train-length) and in the test
	// split's evaluation (32 graphs of 64 nodes).
	n := 16
	if c.TrainLength > 0 {
		n = c.TrainLength
	}
	edges := max(float64(c.Batch*n*n), 32*64*64)
	if err := checkMemory("hidden channels of an edge activation (batch × n² float32s)", c.Hidden, 4*edges, "; lower --hidden or --batch"); err != nil {
		return fmt.Errorf("train: --hidden %d with --batch %d: %w", c.Hidden, c.Batch, err)
	}
	if c.TrainLength > 0 { // train.Run holds 1000 fixed samples of this length
		if err := checkSamples(c.Algo, c.TrainLength, 1, 1000, "--train-length; the training set is 1000 samples"); err != nil {
			return fmt.Errorf("train: --train-length %d: %w", c.TrainLength, err)
		}
	}
	c.Progress = os.Stderr
	if !c.NoMLflow {
		if _, err := experiments.TrackingTimeout(); err != nil {
			return err
		}
	}
	ctx := commandContext()
	if c.Dir == "" { // the training loop's default, decided here so that it can be locked
		d, err := project.DataDir()
		if err != nil {
			return err
		}
		c.Dir = filepath.Join(d, "train", fmt.Sprintf("%s-%s-s%d", c.Algo, c.Processor, c.Seed))
	}
	if c.TeacherForcing == 0 {
		c.TeacherForcing = -1 // train.Config reads 0 as "unset" (0.5) and a negative value as 0
	}
	lock, err := experiments.LockRunDir(c.Dir)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	defer lock.Release()
	res, err := train.Run(ctx, c)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s/%s on %s: best val %.2f%% at step %d; test %.2f%%  (%.2f steps/s)\n",
		c.Algo, c.Processor, res.Backend, 100*res.BestVal, res.BestStep, 100*res.Test["score"], res.StepsPerS)
	printScores(res.Test)
	fmt.Fprintf(stdout, "checkpoint: %s\n", res.Checkpoint)
	if res.RunURL != "" {
		fmt.Fprintf(stdout, "mlflow run: %s\n", res.RunURL)
	}
	return nil
}

// trainFlags are the flags of `narlab train`, filling c; `narlab sweep`
// parses a cell's flags with them before it submits anything.
func trainFlags(c *train.Config) *flag.FlagSet {
	fs := newFlags("train")
	fs.StringVar(&c.Algo, "algo", "", "CLRS algorithm (required), e.g. insertion_sort")
	fs.StringVar(&c.Processor, "processor", "mpnn", "processor: "+strings.Join(nn.Processors, ", "))
	fs.StringVar(&c.HintMode, "hint-mode", "encoded_decoded", "hint mode: "+strings.Join(nn.HintModes, ", "))
	fs.IntVar(&c.Steps, "steps", 10000, "training steps")
	fs.IntVar(&c.Batch, "batch", 32, "batch size")
	fs.IntVar(&c.Hidden, "hidden", 128, "hidden size")
	fs.Float64Var(&c.LR, "lr", 1e-3, "Adam learning rate")
	fs.Int64Var(&c.Seed, "seed", 42, "seed (initialisation, teacher forcing)")
	fs.Float64Var(&c.TeacherForcing, "teacher-forcing", 0.5, "probability of feeding ground-truth hints in training (negative: 0)")
	fs.IntVar(&c.EvalEvery, "eval-every", 50, "validate every this many steps")
	fs.BoolVar(&c.Fresh, "fresh", false, "fresh length-16 samples each step instead of the CLRS-30 train split")
	fs.IntVar(&c.TrainLength, "train-length", 0, "reduced scale: train on 1000 fixed samples of this length instead of the n=16 train split")
	fs.IntVar(&c.ValSamples, "val-samples", 0, "use only the first N validation samples (0: all)")
	fs.IntVar(&c.TestSamples, "test-samples", 0, "use only the first N test samples (0: all)")
	fs.StringVar(&c.Backend, "backend", "", "GoMLX backend: go (default, or $GOMLX_BACKEND) or xla:PLUGIN (binary built with -tags xla)")
	fs.StringVar(&c.Dir, "dir", "", "run directory for checkpoints; an interrupted run there resumes (default: data/train/ALGO-PROC-sSEED)")
	fs.StringVar(&c.Experiment, "experiment", "clrs-baselines", "MLflow experiment")
	fs.BoolVar(&c.NoMLflow, "no-mlflow", false, "do not log to MLflow")
	fs.StringVar(&c.TrackingURI, "tracking", "", "MLflow server (default: $MLFLOW_TRACKING_URI or the embedded one)")
	alias(fs, "tracking-uri", "tracking")
	// Sweeps (narlab sweep): the cell's run is a child of the sweep's run.
	fs.StringVar(&c.ParentRun, "parent-run", "", "MLflow run id of the parent run (the run is nested under it)")
	fs.Var(tagFlag{&c.Tags}, "tag", "`key=value` tag of the MLflow run (repeatable)")
	return fs
}

// tagFlag collects repeated --tag key=value flags.
type tagFlag struct{ m *map[string]string }

func (f tagFlag) String() string {
	if f.m == nil || *f.m == nil {
		return ""
	}
	keys := make([]string, 0, len(*f.m))
	for k, v := range *f.m {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	return strings.Join(keys, ",")
}

func (f tagFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", s)
	}
	if err := mlflow.ValidateTag(k, v); err != nil {
		return err
	}
	if *f.m == nil {
		*f.m = map[string]string{}
	}
	(*f.m)[k] = v
	return nil
}

func printScores(sc map[string]float64) {
	keys := make([]string, 0, len(sc))
	for k := range sc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(stdout, "  %-12s %.4f\n", k, sc[k])
	}
}

func evalCmd(args []string) error {
	fs := newFlags("eval")
	ckpt := fs.String("checkpoint", "", "checkpoint directory (required), e.g. data/train/bfs-mpnn-s42/best")
	split := fs.String("split", "test", "CLRS-30 split: train, val or test")
	limit := fs.Int("count", 0, "use only the first N samples (0: all)")
	alias(fs, "samples", "count")
	backend := fs.String("backend", "", "GoMLX backend (default go)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *ckpt == "" {
		fs.Usage()
		return fmt.Errorf("eval: --checkpoint is required")
	}
	sc, err := train.Evaluate(*ckpt, *split, *backend, *limit)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s split score %.4f\n", *split, sc["score"])
	printScores(sc)
	return nil
}
