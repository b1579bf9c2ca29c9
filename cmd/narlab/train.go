package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/narlab/narlab/experiments/clrs30"
	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/lib/nn/engine"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
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
	var c clrs30.Config
	fs, finish := trainFlags(&c)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if c.Algo == "" {
		fs.Usage()
		return fmt.Errorf("train: --algo is required")
	}
	// Everything is checked before a run directory is created or locked.
	if err := finish(); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	if !c.NoMLflow {
		if _, err := tracking.TrackingTimeout(); err != nil {
			return err
		}
	}
	c.Progress = os.Stderr
	res, err := clrs30.Run(commandContext(), c)
	if err != nil && (res == nil || res.Test == nil) {
		return err
	}
	fmt.Fprintf(stdout, "%s/%s on %s: best val %.2f%% at step %d; test %.2f%%  (%.2f steps/s)\n",
		c.Algo, c.Processor, res.Backend, 100*res.BestVal, res.BestStep, 100*res.Test["score"], res.StepsPerS)
	printScores(res.Test)
	fmt.Fprintf(stdout, "checkpoint: %s\n", res.Checkpoint)
	if res.Saved {
		fmt.Fprintf(stdout, "saved results of the finished run in %s: nothing was trained now\n", filepath.Dir(res.Checkpoint))
	}
	if res.RunURL != "" && err == nil {
		fmt.Fprintf(stdout, "mlflow run: %s\n", res.RunURL)
	}
	if res.ModelID != "" {
		fmt.Fprintf(stdout, "mlflow model: models:/%s\n", res.ModelID)
	}
	if res.RegisteredModel != "" {
		fmt.Fprintf(stdout, "registered: %s version %s (models:/%s/%s)\n", res.RegisteredModel, res.ModelVersion, res.RegisteredModel, res.ModelVersion)
	}
	return err
}

// trainFlags are the flags of `narlab train`, filling c; their defaults
// are clrs30.DefaultConfig's (the reference's run.py protocol). finish,
// called after parsing, turns the flags that have no Config field of their
// own (train lengths, the data transforms) into c. `narlab sweep` parses a
// cell's flags with them before it submits anything.
func trainFlags(c *clrs30.Config) (fs *flag.FlagSet, finish func() error) {
	d := clrs30.DefaultConfig()
	fs = newFlags("train")
	fs.StringVar(&c.Algo, "algo", "", "CLRS algorithm (required), e.g. insertion_sort; or several, comma-separated (bfs,dfs,insertion_sort): one model of them all, a shared processor and each algorithm's encoders and decoders, trained as the reference's run.py --algorithms")
	fs.StringVar(&c.Processor, "processor", d.Processor, "processor (the reference's names): "+strings.Join(nn.Processors(), ", "))
	fs.StringVar(&c.HintMode, "hint-mode", d.HintMode, "hint mode: "+strings.Join(nn.HintModes, ", "))
	fs.StringVar(&c.HintRepred, "hint-repred", d.HintRepred, "how predicted hints are fed back: "+strings.Join(nn.HintRepredModes, ", "))
	fs.IntVar(&c.Steps, "steps", d.Steps, "training steps")
	fs.IntVar(&c.Batch, "batch", d.Batch, "batch size")
	fs.IntVar(&c.Hidden, "hidden", d.Hidden, "hidden size")
	fs.Float64Var(&c.LR, "lr", d.LR, "Adam learning rate")
	fs.Float64Var(&c.GradClip, "grad-clip", d.GradClip, "clip the gradients' global norm to this (a positive number)")
	fs.BoolVar(&c.NoGradClip, "no-grad-clip", d.NoGradClip, "do not clip the gradients (Adam alone)")
	fs.Int64Var(&c.Seed, "seed", d.Seed, "seed (initialisation, noise, training data)")
	fs.Float64Var(&c.TeacherForcing, "teacher-forcing", d.TeacherForcing, "probability of feeding ground-truth hints in training (0: never)")
	fs.IntVar(&c.Heads, "nb-heads", d.Heads, "attention heads of gat, gat_full, gatv2, gatv2_full (divides --hidden)")
	fs.IntVar(&c.MsgPassingSteps, "nb-msg-passing-steps", d.MsgPassingSteps, "processor calls per algorithm step (the same parameters each time)")
	fs.IntVar(&c.TripletFeatures, "nb-triplet-fts", d.TripletFeatures, "width of the triplet processors' messages")
	useLN := fs.Bool("use-ln", !d.NoLayerNorm, "layer norm at the end of the processor's step")
	fs.BoolVar(&c.LSTM, "use-lstm", d.LSTM, "an LSTM per node after the processor (frozen at its initial values, as the reference's)")
	fs.BoolVar(&c.TrainLSTM, "train-lstm", d.TrainLSTM, "with --use-lstm: train the LSTM too (a narlab extra: the reference drops its gradients)")
	fs.Float64Var(&c.Dropout, "dropout-prob", d.Dropout, "dropout rate of the processor's output in training")
	fs.StringVar(&c.EncoderInit, "encoder-init", d.EncoderInit, "encoder initialisation: "+strings.Join(nn.EncoderInits, ", "))
	fs.BoolVar(&c.FreezeProcessor, "freeze-processor", d.FreezeProcessor, "keep the processor's parameters at their initial values")
	fs.IntVar(&c.EvalEvery, "eval-every", d.EvalEvery, "validate every this many steps (the best-val checkpoint is tested)")
	fs.StringVar(&c.TrainData, "train-data", d.TrainData, "training data: lengths (fresh samples of --train-lengths, cycled) or split (the fixed CLRS-30 train split, n=16: the paper's Table 1)")
	lengths := fs.String("train-lengths", intList(d.TrainLengths), "lengths of fresh training samples, cycled one per step")
	randomPos := fs.Bool("random-pos", !d.FixedPos, "random sorted pos inputs in training (the reference's random_pos)")
	perms := fs.Bool("enforce-permutations", !d.NoPermutations, "sorting outputs as permutation pointers decoded with Sinkhorn")
	predIn := fs.Bool("enforce-pred-as-input", !d.NoPredAsInput, "a constant pred_h hint becomes an input")
	fs.IntVar(&c.TrainLength, "train-length", 0, "reduced scale: train on 1000 fixed samples of this length instead")
	fs.BoolVar(&c.Chunked, "chunked-training", false, "train on chunks of --chunk-length steps cut from the batches, each slot's trajectories back to back (run.py's --chunked_training; every chunk starts from its stream's initial state, as the reference's)")
	fs.IntVar(&c.ChunkLength, "chunk-length", d.ChunkLength, "with --chunked-training: the chunks' steps (run.py's --chunk_length)")
	fs.BoolVar(&c.ChunkCarry, "chunk-carry-state", false, "with --chunked-training: each chunk starts from the state the previous chunk of its stream ended in (narlab's extra; the reference restarts every chunk from the initial state)")
	fs.IntVar(&c.TestEvery, "test-every", 0, "also test the model as it is every this many steps, logged as "+clrs30.MetricTestNow+" (run.py's --test_every, which run.py never reads; 0: off, the test of the best checkpoint at the end only)")
	needle := fs.Int("length-needle", d.LengthNeedle, "string matchers (naive_string_matcher, kmp_matcher) in fresh training samples: needles of k characters, or −k: 1..k drawn per sample; 0: the sampler's own rule (run.py's --length_needle; they train at 5/4 of the longest --train-lengths, as run.py)")
	fs.IntVar(&c.ValSamples, "val-samples", 0, "use only the first N validation samples (0: all)")
	fs.IntVar(&c.TestSamples, "test-samples", 0, "use only the first N test samples (0: all)")
	fs.StringVar(&c.Backend, "backend", "", backendUsage)
	fs.StringVar(&c.StepLoop, "step-loop", d.StepLoop, "how the steps run: "+strings.Join(engine.StepLoopModes, ", ")+
		fmt.Sprintf(" (auto: one compiled step in a loop; on XLA's CPU in runs of %d training steps or more each training step as one program from training step %d, on an NVIDIA card from the first; program: always; the same function either way)",
			engine.ProgramMinRunTrainingSteps, engine.ProgramFromTrainingStep))
	fs.StringVar(&c.EvalLoop, "eval-loop", d.EvalLoop, "where evaluation's loop over the steps runs: "+strings.Join(engine.EvalLoopModes, ", ")+
		" (device: one program a batch instead of one call a step, 3× faster on Kadane on an H100; auto: device on an NVIDIA GPU, host elsewhere; the same predictions)")
	fs.IntVar(&c.StepsPerCall, "steps-per-call", d.StepsPerCall, "algorithm steps a call of the step loop's training programs runs (more: fewer calls, longer compilation; for GPUs; the same function)")
	fs.StringVar(&c.Dir, "dir", "", "run directory; the same command rerun there resumes exactly, or reports the finished run's saved results (default: data/train/ALGO-PROC-sSEED-SETTINGSID)")
	fs.StringVar(&c.Experiment, "experiment", tracking.DefaultExperiment(d.Experiment), "MLflow experiment (default: $MLFLOW_EXPERIMENT_NAME, else "+d.Experiment+")")
	fs.BoolVar(&c.NoMLflow, "no-mlflow", false, "do not log to MLflow")
	fs.StringVar(&c.TrackingURI, "tracking", "", trackingUsage)
	// Sweeps (narlab sweep): the cell's run is a child of the sweep's run.
	fs.StringVar(&c.ParentRun, "parent-run", "", "MLflow run id of the parent run (the run is nested under it)")
	fs.Var(tagFlag{&c.Tags}, "tag", "`key=value` tag of the MLflow run (repeatable)")
	fs.StringVar(&c.Register, "register", "", "register the run's model (the best checkpoint, logged as an MLflow model) in MLflow's model registry as a new version of the registered model `NAME` (created if missing)")
	finish = func() error {
		if err := checkTracking("train", &c.TrackingURI, &c.NoMLflow); err != nil {
			return err
		}
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if c.TrainData == "lengths" && c.TrainLength > 0 && !set["train-data"] {
			c.TrainData = "" // --train-length chooses the data itself
		}
		if c.TrainData == "lengths" {
			for _, f := range strings.Split(*lengths, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(f))
				if err != nil || n < 2 || n > 64 {
					return fmt.Errorf("train: --train-lengths %q: want comma-separated lengths 2..64", *lengths)
				}
				c.TrainLengths = append(c.TrainLengths, n)
			}
		}
		c.FixedPos, c.NoPermutations, c.NoPredAsInput, c.NoLayerNorm = !*randomPos, !*perms, !*predIn, !*useLN
		c.LengthNeedle, c.NoLengthNeedle = *needle, *needle == 0
		return nil
	}
	return fs, finish
}

// intList writes ints as a comma-separated list.
func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
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
	ckpt := fs.String("checkpoint", "", "checkpoint (required): the directory train printed, e.g. data/train/bfs-mpnn-s42-8f38d2ac/best, or a dm-clrs checkpoint file (BaselineModel.save_model's pickle)")
	split := fs.String("split", "test", "CLRS-30 split: train, val or test")
	data := fs.String("data", "", "score an .npz file instead of a split: a file of narlab clrs generate or clrs sample --format npz of the model's algorithm (any length, seed, count), or a batch's features alone (such a file less its outputs: predicted, not scored)")
	preds := fs.String("predictions", "", "with --data: write the model's predictions to this .npz file (output/NAME arrays [B, …], float64: node indices for pointers, probabilities for masks, class scores for categorical outputs, values for scalars)")
	limit := fs.Int("count", 0, "use only the first N samples (0: all)")
	backend := fs.String("backend", "", backendUsage)
	ref, refSet := dmclrsFlags(fs)
	tf := addTrackingFlags(fs, "clrs-eval", "score without logging a run")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *ckpt == "" {
		fs.Usage()
		return fmt.Errorf("eval: --checkpoint is required")
	}
	if err := tf.check("eval"); err != nil {
		return err
	}
	if *preds != "" && *data == "" {
		return fmt.Errorf("eval: --predictions writes the predictions on a --data file; give one")
	}
	if *data != "" && *limit != 0 {
		return fmt.Errorf("eval: --count takes the first samples of a split; a --data file is evaluated whole")
	}
	cfg := clrs30.EvalConfig{Checkpoint: *ckpt, Split: *split, Limit: *limit, Backend: *backend,
		Experiment: *tf.experiment, TrackingURI: *tf.tracking, NoMLflow: tf.off(), Data: *data, Predictions: *preds}
	set := refSet()
	if st, err := os.Stat(*ckpt); err == nil && !st.IsDir() {
		cfg.Reference = ref // a dm-clrs checkpoint file
	} else if set {
		return fmt.Errorf("eval: --algo, --processor, --nb-msg-passing-steps and --hint-repred are for dm-clrs checkpoint files; %s is a narlab checkpoint, which records them", *ckpt)
	}
	res, err := clrs30.Eval(commandContext(), cfg)
	if res == nil {
		return err
	}
	if cfg.Reference != nil {
		fmt.Fprintf(stdout, "dm-clrs checkpoint: %s\n", res.Config.ReferenceDescription())
	}
	// What was scored; the checkpoint's path goes to standard error, so
	// that the scores of a checkpoint and of its export print the same.
	fmt.Fprintf(os.Stderr, "eval: %s %s\n", res.Format, res.CheckpointPath)
	algo := strings.Join(res.Config.AlgorithmNames(), ",")
	switch {
	case *data != "" && !res.Scored:
		fmt.Fprintf(stdout, "%s/%s (hidden %d) on the features in %s: %d samples at n=%d (not scored: the file has no outputs)\n",
			algo, res.Config.Processor, res.Config.Hidden, *data, res.Samples, res.Length)
	case *data != "":
		fmt.Fprintf(stdout, "%s/%s (hidden %d) on %s: %d samples at n=%d\n",
			algo, res.Config.Processor, res.Config.Hidden, *data, res.Samples, res.Length)
		fmt.Fprintf(stdout, "data score %.4f\n", res.Scores["score"])
		printScores(res.Scores)
	default:
		fmt.Fprintf(stdout, "%s/%s (hidden %d) on the CLRS-30 %s split: %d samples at n=%d\n",
			algo, res.Config.Processor, res.Config.Hidden, res.Split, res.Samples, res.Length)
		fmt.Fprintf(stdout, "%s split score %.4f", *split, res.Scores["score"])
		if len(res.Config.Algorithms) > 1 {
			fmt.Fprintf(stdout, " (the mean of its %d algorithms')", len(res.Config.Algorithms))
		}
		fmt.Fprintln(stdout)
		printScores(res.Scores)
	}
	if *preds != "" {
		fmt.Fprintf(stdout, "predictions: %s\n", *preds)
	}
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if res.RunURL != "" {
		fmt.Fprintf(os.Stderr, "MLflow run %s: %s\n", res.RunID, res.RunURL)
	}
	return nil
}
