package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"

	"github.com/narlab/narlab/experiments/train"
	"github.com/narlab/narlab/lib/nn"
)

// The train and eval commands: CLRS baselines (lib/nn) trained and scored.

func init() {
	register(command{name: "train", summary: "train a CLRS baseline (encode-process-decode) and log it to MLflow", run: trainCmd})
	register(command{name: "eval", summary: "score a CLRS baseline checkpoint on a CLRS-30 split", run: evalCmd})
}

func trainCmd(args []string) error {
	var c train.Config
	fs := newFlags("train", "--algo A [flags]   (defaults: the reference's run.py protocol)")
	fs.StringVar(&c.Algo, "algo", "", "CLRS algorithm (required), e.g. insertion_sort")
	fs.StringVar(&c.Processor, "processor", "triplet_gmpnn", "processor (the reference's names): "+strings.Join(nn.Processors, ", "))
	fs.StringVar(&c.HintMode, "hint-mode", "encoded_decoded", "hint mode: "+strings.Join(nn.HintModes, ", "))
	fs.StringVar(&c.HintRepred, "hint-repred", "soft", "how predicted hints are fed back: "+strings.Join(nn.HintRepredModes, ", "))
	fs.IntVar(&c.Steps, "steps", 10000, "training steps")
	fs.IntVar(&c.Batch, "batch", 32, "batch size")
	fs.IntVar(&c.Hidden, "hidden", 128, "hidden size")
	fs.Float64Var(&c.LR, "lr", 1e-3, "Adam learning rate")
	fs.Float64Var(&c.GradClip, "grad-clip", 1, "clip the gradients' global norm to this (negative: no clipping)")
	fs.Int64Var(&c.Seed, "seed", 42, "seed (initialisation, noise, training data)")
	fs.Float64Var(&c.TeacherForcing, "teacher-forcing", 0, "probability of feeding ground-truth hints in training")
	fs.IntVar(&c.EvalEvery, "eval-every", 50, "validate every this many steps (the best-val checkpoint is tested)")
	fs.StringVar(&c.TrainData, "train-data", "lengths", "training data: lengths (fresh samples of --train-lengths, cycled) or split (the fixed CLRS-30 train split, n=16: the paper's Table 1)")
	lengths := fs.String("train-lengths", "4,7,11,13,16", "lengths of fresh training samples, cycled one per step")
	randomPos := fs.Bool("random-pos", true, "random sorted pos inputs in training (the reference's random_pos)")
	perms := fs.Bool("enforce-permutations", true, "sorting outputs as permutation pointers decoded with Sinkhorn")
	predIn := fs.Bool("enforce-pred-as-input", true, "a constant pred_h hint becomes an input")
	fs.BoolVar(&c.Fresh, "fresh", false, "older spelling of --train-data lengths --train-lengths 16")
	fs.IntVar(&c.TrainLength, "train-length", 0, "reduced scale: train on 1000 fixed samples of this length instead")
	fs.IntVar(&c.ValSamples, "val-samples", 0, "use only the first N validation samples (0: all)")
	fs.IntVar(&c.TestSamples, "test-samples", 0, "use only the first N test samples (0: all)")
	fs.StringVar(&c.Backend, "backend", "", "GoMLX backend (default: narlab picks, see narlab backends)")
	fs.StringVar(&c.Dir, "dir", "", "run directory; the same command rerun there resumes exactly (default: data/train/ALGO-PROC-sSEED-SETTINGSID)")
	fs.StringVar(&c.Experiment, "experiment", "clrs-baselines", "MLflow experiment")
	fs.BoolVar(&c.NoMLflow, "no-mlflow", false, "do not log to MLflow")
	fs.StringVar(&c.TrackingURI, "tracking", "", "MLflow server (default: $MLFLOW_TRACKING_URI or the embedded one)")
	fs.StringVar(&c.TrackingURI, "tracking-uri", "", "older spelling of --tracking")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if c.Algo == "" {
		fs.Usage()
		return fmt.Errorf("train: --algo is required")
	}
	var set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.TrainData == "lengths" && (c.Fresh || c.TrainLength > 0) && !set["train-data"] {
		c.TrainData = "" // --fresh and --train-length choose the data themselves
	}
	if c.TrainData == "lengths" || c.TrainData == "" {
		if !c.Fresh || set["train-lengths"] {
			for _, f := range strings.Split(*lengths, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil {
					return fmt.Errorf("train: --train-lengths %q: %v", *lengths, err)
				}
				c.TrainLengths = append(c.TrainLengths, n)
			}
		}
	}
	c.FixedPos, c.NoPermutations, c.NoPredAsInput = !*randomPos, !*perms, !*predIn
	if c.GradClip == 0 {
		c.GradClip = -1 // --grad-clip 0: none
	}
	c.Progress = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := train.Run(ctx, c)
	if err != nil && (res == nil || res.Test == nil) {
		return err
	}
	fmt.Fprintf(stdout, "%s/%s on %s: best val %.2f%% at step %d; test %.2f%%  (%.2f steps/s)\n",
		c.Algo, c.Processor, res.Backend, 100*res.BestVal, res.BestStep, 100*res.Test["score"], res.StepsPerS)
	printScores(res.Test)
	fmt.Fprintf(stdout, "checkpoint: %s\n", res.Checkpoint)
	if res.RunURL != "" && err == nil {
		fmt.Fprintf(stdout, "mlflow run: %s\n", res.RunURL)
	}
	return err
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
	fs := newFlags("eval", "--checkpoint DIR [--split val|test|train]")
	ckpt := fs.String("checkpoint", "", "checkpoint directory (required), e.g. data/train/bfs-mpnn-s42/best")
	split := fs.String("split", "test", "CLRS-30 split: train, val or test")
	limit := fs.Int("samples", 0, "use only the first N samples (0: all)")
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
