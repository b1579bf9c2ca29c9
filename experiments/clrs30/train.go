// Package clrs30 runs the protocol of the CLRS-30 benchmark (Veličković et
// al., "The CLRS Algorithmic Reasoning Benchmark"): it trains and evaluates
// the CLRS baselines of lib/nn on lib/trainloop, with batches from the
// CLRS-30 train split (or fresh samples), periodic validation on the val
// split (n=16), the best-validation checkpoint kept (early stopping), a
// final test on the test split (n=64), resumable runs, and everything
// logged to MLflow through package tracking.
package clrs30

import (
	"context"
	crand "crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/progress"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/clrs/paper"
	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/lib/nn/engine"
	"github.com/narlab/narlab/lib/nprand"
	"github.com/narlab/narlab/lib/trainloop"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// Config is a training run. A zero field takes DefaultConfig's value: the
// reference's protocol (dm-clrs examples/run.py), Triplet-GMPNN with 8
// triplet features and layer norm, hidden 128, batch 32, Adam 1e-3 after
// clipping the gradients' global norm to 1, hints encoded and decoded and
// fed back soft, teacher forcing 0, fresh training samples of lengths 4, 7,
// 11, 13, 16 (cycled, one length per step) with random positions,
// permutations enforced and a constant pred_h moved to an input,
// validation every 50 steps on the CLRS-30 val split, and the
// best-validation checkpoint tested on the CLRS-30 test split (n=64).
// What a zero cannot say is a boolean of its own (NoGradClip,
// NoPermutations, …).
type Config struct {
	// Algo is the CLRS algorithm, e.g. "insertion_sort", or several,
	// comma-separated ("bfs,dfs,insertion_sort"; "+" separates them too,
	// for a sweep's comma-separated lists): one model of them all, the
	// reference's run.py --algorithms (see Algorithms).
	Algo      string
	Processor string  // one of nn.Processors() (default triplet_gmpnn)
	HintMode  string  // one of nn.HintModes (default encoded_decoded)
	Steps     int     // training steps (default 10000, the paper's)
	Batch     int     // training batch size (default 32); validation and test batch EvalBatch
	Hidden    int     // latent size (default 128)
	LR        float64 // Adam learning rate (default 1e-3)
	Seed      int64   // model initialisation, noise and training-data draws (default 42)
	// TeacherForcing is the probability of feeding ground-truth hints in
	// training (default 0, the reference's: never).
	TeacherForcing float64
	// HintRepred is one of nn.HintRepredModes (default soft).
	HintRepred string
	// GradClip is the gradients' maximal global norm (default 1);
	// NoGradClip turns the clipping off.
	GradClip   float64
	NoGradClip bool
	// The reference's other model options (nn.Config's, run.py's flags of
	// the same names): attention heads of the GAT processors (default 1),
	// processor calls per algorithm step (default 1), the triplet
	// messages' width (default 8), the layer norm off, the LSTM (frozen as
	// the reference's; TrainLSTM trains it), the dropout rate (default 0),
	// the encoders' initialisation (default xavier_on_scalars) and a
	// frozen processor.
	Heads, MsgPassingSteps, TripletFeatures int
	NoLayerNorm, LSTM, TrainLSTM            bool
	Dropout                                 float64
	EncoderInit                             string
	FreezeProcessor                         bool
	EvalEvery                               int // validate every this many steps (default 50)
	// TrainData is "lengths" (default: fresh samples every step, of the
	// lengths TrainLengths, cycled) or "split" (batches drawn from the
	// fixed 1000-sample CLRS-30 train split, n=16: the paper's Table 1 and
	// the parity harness).
	TrainData string
	// TrainLengths are the lengths of "lengths" training (default 4, 7,
	// 11, 13, 16).
	TrainLengths []int
	// TrainLength, when > 0, trains on a fixed set of 1000 samples of this
	// length (seed 1) instead: a reduced scale for CPUs (validation and
	// test stay on the official splits).
	TrainLength int
	// FixedPos keeps the samplers' evenly spaced pos input in training
	// (default: random sorted positions, the reference's random_pos).
	FixedPos bool
	// LengthNeedle is the string matchers' (naive_string_matcher,
	// kmp_matcher) needle length in "lengths" training data, run.py's
	// --length_needle (default -8): k > 0 a needle of k characters, −k one
	// of 1..k drawn per sample. NoLengthNeedle gives none, and the sampler
	// its own rule (1 character below length 5, else length/5): run.py's
	// --length_needle 0. As run.py, string matchers train at 5/4 of the
	// longest of TrainLengths. The CLRS-30 splits (validation, test, the
	// "split" training data) keep the needles they were made with.
	LengthNeedle   int
	NoLengthNeedle bool
	// Chunked trains on chunks of ChunkLength steps (default 16) cut from
	// each algorithm's training batches, the reference's run.py
	// --chunked_training and --chunk_length (see chunked.go): every chunk
	// starts from its stream's initial state, as the reference's; with
	// ChunkCarry each chunk starts from the state the previous chunk of its
	// stream ended in (narlab's extra). A chunk's steps run as one unrolled
	// program (the step loop settings apply to evaluation).
	Chunked     bool
	ChunkLength int
	ChunkCarry  bool
	// TestEvery, when > 0, also tests the model on the test split every
	// this many steps (logged as test/score; run.py's --test_every, which
	// run.py itself never reads: the reference tests once, at the end, as
	// narlab does besides).
	TestEvery int
	// NoPermutations and NoPredAsInput turn off the reference's
	// enforce_permutations and enforce_pred_as_input.
	NoPermutations, NoPredAsInput bool
	// ValSamples and TestSamples cap the number of validation and test
	// samples (0: the whole official split).
	ValSamples, TestSamples int
	// Backend is the GoMLX backend ("" picks, see nn.BackendChoice).
	Backend string
	// StepLoop is how the model runs the algorithm's steps (one of
	// engine.StepLoopModes; default auto, which the engine keeps in the
	// loop for runs shorter than engine.ProgramMinRunTrainingSteps off an
	// NVIDIA card). It
	// changes speed and memory, not the function computed, so it is not
	// part of the run's settings; a resumed run uses this session's.
	StepLoop string
	// EvalLoop (engine.EvalLoopModes; default auto) and StepsPerCall
	// (default 1) are engine.Options': where evaluation's loop over the
	// steps runs, and how many steps a training call of the step loop runs.
	// Like StepLoop they change speed, not the function, so they are not
	// part of the run's settings; a resumed run uses this session's.
	EvalLoop     string
	StepsPerCall int
	// Dir keeps the run's checkpoints (best/, last/) and state; default
	// <data dir>/train/<algo>-<processor>-s<seed>-<settings id>. A run
	// finding there a checkpoint of the same settings resumes from it
	// exactly; one of other settings stops with an error.
	Dir string
	// Experiment is the MLflow experiment (default "clrs-baselines");
	// NoMLflow turns logging off. TrackingURI overrides the server.
	Experiment  string
	NoMLflow    bool
	TrackingURI string
	// ParentRun makes the MLflow run a nested run of that run id (a
	// sweep's parent run); Tags are extra tags set when the run is created
	// (a sweep's id and cell key).
	ParentRun string
	Tags      map[string]string
	// Register, when set, registers the run's model (the best checkpoint)
	// in MLflow's model registry as a new version of this registered model.
	Register string
	// Progress receives the progress line (steps/s, loss, scores); nil:
	// none.
	Progress io.Writer
	// AfterStep, when set, is called after every training step with the
	// step and its loss (tests use it to interrupt a run).
	AfterStep func(step int, loss float64)
	// Observers are told of the training loop's steps and evaluations as
	// they happen, after Progress (e.g. trainloop.Report(kernel.NewProgress(…))
	// in a notebook).
	Observers []trainloop.Observer
}

// DefaultTrainLengths are the reference's run.py training lengths.
var DefaultTrainLengths = []int{4, 7, 11, 13, 16}

// DefaultLengthNeedle is run.py's --length_needle: the string matchers'
// needles of 1..8 characters, drawn per sample.
const DefaultLengthNeedle = -8

// StringMatchers are the algorithms with a needle (their sampler's
// length_needle): run.py trains them at 5/4 of the longest training length.
var StringMatchers = []string{"naive_string_matcher", "kmp_matcher"}

// DefaultConfig is the reference's protocol with every default filled in:
// the one place the defaults of a training are written (the model's come
// from nn.DefaultConfig). Run gives a zero field of its Config this value;
// narlab train's flags, and so a sweep's cells, default to it.
func DefaultConfig() Config {
	m := nn.DefaultConfig("", nn.DefaultProcessor)
	return Config{Processor: m.Processor, HintMode: m.HintMode, HintRepred: m.HintRepred, Steps: 10000, Batch: 32,
		Hidden: m.Hidden, LR: m.LearningRate, Seed: m.Seed, TeacherForcing: m.TeacherForcing, GradClip: m.GradClip,
		NoGradClip: m.NoGradClip, Heads: m.Heads, MsgPassingSteps: m.MsgPassingSteps, TripletFeatures: m.TripletFeatures,
		NoLayerNorm: m.NoLayerNorm, LSTM: m.LSTM, TrainLSTM: m.TrainLSTM, Dropout: m.Dropout, EncoderInit: m.EncoderInit,
		FreezeProcessor: m.FreezeProcessor, EvalEvery: 50, TrainData: "lengths", TrainLengths: slices.Clone(DefaultTrainLengths),
		NoPermutations: !m.Permutations, NoPredAsInput: !m.PredAsInput, LengthNeedle: DefaultLengthNeedle, ChunkLength: 16,
		StepLoop: engine.StepLoopAuto,
		EvalLoop: engine.EvalLoopAuto, StepsPerCall: 1, Experiment: "clrs-baselines"}
}

func (c *Config) defaults() error {
	d := DefaultConfig()
	c.Algo = strings.Join(c.Algorithms(), ",") // one spelling of a list in the settings and the run's names
	setString := func(v *string, def string) {
		if *v == "" {
			*v = def
		}
	}
	setInt := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	setString(&c.Processor, d.Processor)
	setString(&c.HintMode, d.HintMode)
	setString(&c.HintRepred, d.HintRepred)
	setString(&c.EncoderInit, d.EncoderInit)
	setInt(&c.Heads, d.Heads)
	setInt(&c.MsgPassingSteps, d.MsgPassingSteps)
	setInt(&c.TripletFeatures, d.TripletFeatures)
	setString(&c.Experiment, d.Experiment)
	setString(&c.StepLoop, d.StepLoop)
	setString(&c.EvalLoop, d.EvalLoop)
	setInt(&c.Steps, d.Steps)
	setInt(&c.Batch, d.Batch)
	setInt(&c.Hidden, d.Hidden)
	setInt(&c.EvalEvery, d.EvalEvery)
	setInt(&c.StepsPerCall, d.StepsPerCall)
	if c.Chunked {
		setInt(&c.ChunkLength, d.ChunkLength)
	} else {
		c.ChunkLength, c.ChunkCarry = 0, false // one spelling of "not chunked" in the settings
	}
	switch {
	case c.NoLengthNeedle:
		c.LengthNeedle = 0 // one spelling of "the sampler's own rule"
	case c.LengthNeedle == 0:
		c.LengthNeedle = d.LengthNeedle
	}
	if c.LR == 0 {
		c.LR = d.LR
	}
	if c.Seed == 0 {
		c.Seed = d.Seed
	}
	switch {
	case c.NoGradClip:
		c.GradClip = 0 // one spelling of "no clipping" in the settings
	case c.GradClip == 0:
		c.GradClip = d.GradClip
	}
	switch {
	case c.TrainLength > 0 && c.TrainData == "lengths":
		return fmt.Errorf("train: a fixed train length (%d) and fresh samples of lengths %v contradict each other", c.TrainLength, c.TrainLengths)
	case c.TrainLength > 0:
		c.TrainData = "fixed"
	case c.TrainData == "":
		c.TrainData = d.TrainData
	}
	if c.TrainData == "lengths" && len(c.TrainLengths) == 0 {
		c.TrainLengths = d.TrainLengths
	}
	if c.TrainData != "lengths" {
		c.TrainLengths = nil
	}
	switch {
	case c.TrainData != "lengths" && c.TrainData != "split" && c.TrainData != "fixed":
		return fmt.Errorf("train: train data %q; want lengths or split", c.TrainData)
	case c.Steps < 1:
		return fmt.Errorf("train: steps %d; want at least 1", c.Steps)
	case c.Batch < 1:
		return fmt.Errorf("train: batch %d; want at least 1", c.Batch)
	case c.EvalEvery < 1:
		return fmt.Errorf("train: eval-every %d; want at least 1", c.EvalEvery)
	case c.Chunked && c.ChunkLength < 1:
		return fmt.Errorf("train: chunk length %d; want at least 1", c.ChunkLength)
	case c.TestEvery < 0:
		return fmt.Errorf("train: test-every %d; want 0 (off) or more", c.TestEvery)
	case c.ValSamples < 0 || c.TestSamples < 0:
		return fmt.Errorf("train: negative sample cap (val %d, test %d)", c.ValSamples, c.TestSamples)
	case !(c.TeacherForcing >= 0 && c.TeacherForcing <= 1):
		return fmt.Errorf("train: teacher forcing %v; want a probability in [0, 1]", c.TeacherForcing)
	case !c.NoGradClip && !(c.GradClip > 0):
		return fmt.Errorf("train: gradient clipping norm %v; want a positive number (--no-grad-clip turns clipping off)", c.GradClip)
	}
	for _, l := range c.TrainLengths {
		if l < 2 {
			return fmt.Errorf("train: train length %d; want at least 2", l)
		}
	}
	return nil
}

// defaultDir fills Dir, when empty, with the run's default directory:
// <data dir>/train/<algo>-<processor>-s<seed>-<settings id>.
func (c *Config) defaultDir() error {
	if c.Dir == "" {
		d, err := project.DataDir()
		if err != nil {
			return err
		}
		c.Dir = filepath.Join(d, "train", fmt.Sprintf("%s-%s-s%d-%s", c.Algo, c.Processor, c.Seed, c.settings().ID()))
	}
	return nil
}

// Algorithms are the run's algorithms: Algo's list. A run of several
// trains one model of them all as the reference's run.py does with
// --algorithms: one shared processor, each algorithm's own encoders and
// decoders; each step one batch of each algorithm, in the list's order, each
// its own optimizer update; every validation scores each algorithm, and the
// best checkpoint is the one with the highest mean (the reference's sum,
// divided by their number) of their validation scores; each algorithm is
// tested with it.
func (c Config) Algorithms() []string {
	var out []string
	for _, a := range strings.FieldsFunc(c.Algo, func(r rune) bool { return r == ',' || r == '+' }) {
		out = append(out, strings.TrimSpace(a))
	}
	return out
}

// several reports whether the run trains several algorithms in one model.
func (c Config) several() bool { return len(c.Algorithms()) > 1 }

func (c Config) modelConfig() nn.Config {
	mc := nn.Config{Algorithm: c.Algo, Processor: c.Processor, Hidden: c.Hidden, HintMode: c.HintMode,
		TeacherForcing: c.TeacherForcing, HintRepred: c.HintRepred, LearningRate: c.LR, GradClip: c.GradClip,
		NoGradClip: c.NoGradClip, Permutations: !c.NoPermutations, PredAsInput: !c.NoPredAsInput, Seed: c.Seed,
		Heads: c.Heads, MsgPassingSteps: c.MsgPassingSteps, TripletFeatures: c.TripletFeatures, NoLayerNorm: c.NoLayerNorm,
		LSTM: c.LSTM, TrainLSTM: c.TrainLSTM, Dropout: c.Dropout, EncoderInit: c.EncoderInit,
		FreezeProcessor: c.FreezeProcessor, Exec: c.execOptions()}
	if c.several() {
		mc.Algorithm, mc.Algorithms = "", c.Algorithms()
	}
	return mc
}

// modelConfigOf is the model configuration of one of the run's algorithms
// alone (its data's transforms and layout).
func (c Config) modelConfigOf(algo string) nn.Config { return c.modelConfig().Of(algo) }

// execOptions are how the run's model runs its steps: the modes asked for
// and the run's length, from which the engine decides (engine.Plan).
func (c Config) execOptions() engine.Options {
	return engine.Options{StepLoop: c.StepLoop, EvalLoop: c.EvalLoop, StepsPerCall: c.StepsPerCall, RunSteps: c.Steps}
}

// Settings are everything that changes a run's result except its number
// of steps: a run directory holds one settings' run (more steps extend
// it).
type Settings struct {
	Model        nn.Config `json:"model"`
	Batch        int       `json:"batch"`
	EvalEvery    int       `json:"eval_every"`
	TrainData    string    `json:"train_data"`
	TrainLengths []int     `json:"train_lengths,omitempty"`
	TrainLength  int       `json:"train_length,omitempty"`
	// LengthNeedle is set for "lengths" training data of a string matcher
	// (0: the sampler's own rule).
	LengthNeedle *int `json:"length_needle,omitempty"`
	RandomPos    bool `json:"random_pos"`
	// Chunked training: the chunk length and whether states are carried.
	ChunkLength int  `json:"chunk_length,omitempty"`
	ChunkCarry  bool `json:"chunk_carry_state,omitempty"`
	ValSamples  int  `json:"val_samples"`
	TestSamples int  `json:"test_samples"`
}

func (c Config) settings() Settings {
	// The model's execution options (not serialised) change the speed, not
	// the function: a run may resume under others.
	s := Settings{Model: c.modelConfig(), Batch: c.Batch, EvalEvery: c.EvalEvery, TrainData: c.TrainData,
		TrainLengths: c.TrainLengths, TrainLength: c.TrainLength, RandomPos: !c.FixedPos,
		ValSamples: c.ValSamples, TestSamples: c.TestSamples}
	if c.needles() {
		n := c.LengthNeedle
		s.LengthNeedle = &n
	}
	if c.Chunked {
		s.ChunkLength, s.ChunkCarry = c.ChunkLength, c.ChunkCarry
	}
	return s
}

// needles reports whether the run's training data draw string matchers'
// needles (LengthNeedle applies).
func (c Config) needles() bool {
	if c.TrainData != "lengths" {
		return false
	}
	for _, a := range c.Algorithms() {
		if slices.Contains(StringMatchers, a) {
			return true
		}
	}
	return false
}

// trainLengthsOf are the lengths algo trains at in "lengths" data:
// TrainLengths, or for a string matcher 5/4 of their longest, as run.py.
func (c Config) trainLengthsOf(algo string) []int {
	if slices.Contains(StringMatchers, algo) && len(c.TrainLengths) > 0 {
		return []int{slices.Max(c.TrainLengths) * 5 / 4}
	}
	return c.TrainLengths
}

// ID is a short hash of the settings (8 hex digits).
func (s Settings) ID() string {
	data, _ := json.Marshal(s)
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:4])
}

func (s Settings) equal(o Settings) bool {
	a, _ := json.Marshal(s)
	b, _ := json.Marshal(o)
	return string(a) == string(b)
}

// Params are the run's hyper-parameters and seeds as MLflow params, each
// with the value in effect.
func (c Config) Params() map[string]string {
	lengths := make([]string, len(c.TrainLengths))
	for i, l := range c.TrainLengths {
		lengths[i] = strconv.Itoa(l)
	}
	p := map[string]string{
		"algorithm": c.Algo, "processor": c.Processor, "hint_mode": c.HintMode, "hint_repred_mode": c.HintRepred,
		"train_steps": strconv.Itoa(c.Steps), "batch_size": strconv.Itoa(c.Batch), "hidden_size": strconv.Itoa(c.Hidden),
		"learning_rate": fmt.Sprint(c.LR), "seed": strconv.FormatInt(c.Seed, 10),
		"grad_clip_max_norm":   fmt.Sprint(c.GradClip), // 0 with no clipping, as the reference's run.py
		"hint_teacher_forcing": fmt.Sprint(c.TeacherForcing), "eval_every": strconv.Itoa(c.EvalEvery),
		"train_data": trainDataName(c), "train_lengths": strings.Join(lengths, ","),
		"random_pos":           strconv.FormatBool(!c.FixedPos),
		"enforce_permutations": strconv.FormatBool(!c.NoPermutations), "enforce_pred_as_input": strconv.FormatBool(!c.NoPredAsInput),
		"val_samples": capName(c.ValSamples), "test_samples": capName(c.TestSamples),
		"length_needle": strconv.Itoa(c.LengthNeedle), "chunked_training": strconv.FormatBool(c.Chunked),
		"test_every": strconv.Itoa(c.TestEvery),
		"val_split":  "CLRS-30 val (n=16, seed 2)", "test_split": "CLRS-30 test (n=64, seed 3)",
		"optimizer": "adam (b1 0.9, b2 0.999, eps 1e-8)", "nb_msg_passing_steps": strconv.Itoa(c.MsgPassingSteps),
		"use_ln": strconv.FormatBool(!c.NoLayerNorm), "use_lstm": strconv.FormatBool(c.LSTM),
		"encoder_init": c.EncoderInit, "dropout_prob": fmt.Sprint(c.Dropout), "freeze_processor": strconv.FormatBool(c.FreezeProcessor),
		"model_selection": "best val score, tested once",
		"settings_id":     c.settings().ID(), "run_dir": c.Dir,
		"step_loop": stepLoopName(c.StepLoop, engine.UnrollsEver(c.execOptions(), engine.DeviceCPU, nn.ProcessorTraits(c.Processor)),
			engine.ProgramsEver(c.execOptions(), engine.DeviceCPU, nn.ProcessorTraits(c.Processor))), // Run: on its backend
		"eval_loop": c.EvalLoop, "steps_per_call": strconv.Itoa(max(c.StepsPerCall, 1)),
	}
	if c.Chunked {
		p["chunk_length"] = strconv.Itoa(c.ChunkLength)
		p["chunk_state"] = "each chunk from its stream's initial state (the reference's)"
		if c.ChunkCarry {
			p["chunk_state"] = "carried from chunk to chunk of each stream (narlab's extra)"
		}
	}
	if proc, ok := nn.LookupProcessor(c.Processor); ok && proc.Triplets {
		p["nb_triplet_fts"] = strconv.Itoa(c.TripletFeatures)
	}
	if proc, ok := nn.LookupProcessor(c.Processor); ok && proc.Heads {
		p["nb_heads"] = strconv.Itoa(c.Heads)
	}
	if c.TrainLSTM {
		p["train_lstm"] = "true" // a narlab extra: the reference never trains its LSTM
	}
	return p
}

func trainDataName(c Config) string {
	switch c.TrainData {
	case "lengths":
		return fmt.Sprintf("fresh samples every step, lengths %v cycled (seeded by seed and step)", c.TrainLengths)
	case "fixed":
		return fmt.Sprintf("fixed 1000 samples, n=%d, seed 1 (reduced)", c.TrainLength)
	}
	return "CLRS-30 train split (1000, n=16, seed 1)"
}

// stepLoopName says how the model runs the steps, as logged: the mode
// asked for and, for auto, whether it ever trains as one program
// (engine.ProgramsEver) or unrolled (engine.UnrollsEver).
func stepLoopName(asked string, unrolls, programs bool) string {
	switch {
	case (asked == "" || asked == engine.StepLoopAuto) && programs:
		return fmt.Sprintf("auto (one compiled step in a loop; from training step %d, or the first on an NVIDIA card, each training step as one program)",
			engine.ProgramFromTrainingStep)
	case asked == engine.StepLoopProgram:
		return "program (each training step as one program: the loops over the steps inside it)"
	case (asked == "" || asked == engine.StepLoopAuto) && !unrolls:
		return fmt.Sprintf("auto: loop (one compiled step in a loop; runs under %d steps, and the Triplet processors off an NVIDIA card, do not compile unrolled programs)",
			engine.UnrollMinRunTrainingSteps)
	case asked == "" || asked == engine.StepLoopAuto:
		return fmt.Sprintf("auto (one compiled step in a loop; from training step %d, training batches of at most %d algorithm steps unrolled)",
			engine.UnrollFromTrainingStep, engine.UnrollMaxAlgorithmSteps)
	case asked == engine.StepLoopLoop:
		return "loop (one compiled step in a loop)"
	}
	return "unroll (every step in the program)"
}

func capName(n int) string {
	if n == 0 {
		return "all"
	}
	return strconv.Itoa(n)
}

// Point is one validation of a run: the step, its training loss and the
// validation score.
type Point = trainloop.Point

// Result is a finished run.
type Result struct {
	History  []Point // validation history
	BestStep int     // step of the best validation score
	BestVal  float64 // its score
	// Test are the test scores of the best checkpoint: per output and
	// "score". A run of several algorithms has per algorithm ALGO
	// "score/ALGO" and "ALGO/OUTPUT", and "score" is their mean.
	Test map[string]float64
	// Several algorithms: TestByAlgorithm is each algorithm's test
	// scores (per output and "score"), BestValByAlgorithm each one's
	// validation score at the best step, AlgorithmScores each
	// validation's scores (State.AlgorithmScores).
	TestByAlgorithm    map[string]map[string]float64
	BestValByAlgorithm map[string]float64
	AlgorithmScores    [][]float64
	Checkpoint         string // the best checkpoint's directory
	// StepsPerS is the steady-state training rate of this process: one
	// over the median step time (no compilation, no validation).
	StepsPerS float64
	// FirstStep is the time of this process's first step (compilation
	// included).
	FirstStep time.Duration
	// StepsLooped and StepsUnrolled count this session's training steps
	// run in the step loop and unrolled (Config.StepLoop).
	StepsLooped, StepsUnrolled int64
	// Saved: the run directory held this run finished, and these are its
	// saved results (result.json and state.json): this session trained and
	// tested nothing and logged no MLflow run (RunID is the finished
	// run's).
	Saved         bool
	Backend       string        // the backend used: "xla-cuda", "xla-cpu" or "go"
	BackendConfig string        // what GoMLX was given, e.g. "xla:/…/pjrt_c_api_cpu_plugin.so"
	Losses        []float64     // the training loss of every step (all sessions of a resumed run)
	Run           *tracking.Run // the MLflow run (nil with NoMLflow); ended
	RunID         string
	RunURL        string
	// ModelID is the best checkpoint as an MLflow logged model (models:/ID);
	// RegisteredModel and ModelVersion its registry entry (Config.Register).
	ModelID, RegisteredModel, ModelVersion string
}

// stateFile holds a run's state, in last/ and beside it.
const stateFile = "state.json"

// state is what Dir/last/state.json keeps for resuming (and Dir/state.json
// for readers): it always describes the last/ checkpoint (the loop's state: the step last/ holds,
// the training loss of every step up to it, the validation history and the
// best validation).
type state struct {
	Settings Settings `json:"settings"`
	// Execution is how the last session that trained ran (nil in run
	// directories older than the field).
	Execution *Execution `json:"execution,omitempty"`
	trainloop.State
	// AlgorithmScores, for a run of several algorithms, are each
	// validation's score per algorithm (in Config.Algorithms' order), one
	// row per History point; History's score is their mean.
	AlgorithmScores [][]float64 `json:"algorithm_scores,omitempty"`
	RunIDs          []string    `json:"run_ids,omitempty"` // the MLflow runs of each session
}

// ErrNotDelivered wraps the error of a run whose training finished but
// whose metrics did not all reach the MLflow server (they wait in the
// spool for `narlab mlflow sync`).
var ErrNotDelivered = errors.New("metrics not delivered to the tracking server")

// Run trains cfg to the end, evaluates the best checkpoint on the test
// split and logs the run to MLflow. A run directory holding an
// interrupted run of the same settings resumes it exactly (parameters,
// optimizer and random states from last/, training data derived from the
// seed and the step); one holding a run of other settings is an error.
// When the context is cancelled the run saves last/ and returns. When
// only the delivery of its metrics fails, Run returns the complete result
// with an error wrapping ErrNotDelivered.
func Run(ctx context.Context, cfg Config) (res *Result, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if err := cfg.defaultDir(); err != nil {
		return nil, err
	}
	be, choice, err := nn.BackendChoice(cfg.Backend)
	if err != nil {
		return nil, err
	}
	// One process trains in a run directory at a time.
	lock, err := tracking.LockRunDir(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	defer lock.Release()
	backendName := choice.Kind
	if choice.Kind == "go" && cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, "narlab: training on the pure-Go backend: %s\n", choice.Reason)
	}
	if why := cfg.ReferenceNeedleFailure(); why != "" && cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, "narlab: note: %s\n", why)
	}
	// A run directory holds one run: resumed when it was interrupted,
	// extended when more steps are asked for, reported when it is finished.
	settings := cfg.settings()
	exec := cfg.execution(backendName)
	lastDir := filepath.Join(cfg.Dir, "last")
	st, found, err := readState(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if found {
		if !st.Settings.equal(settings) {
			return nil, fmt.Errorf("train: %s holds a run of other settings (%s; settings id %s there, %s here): give another --dir "+
				"(or none: the default directory is per settings) or delete it", cfg.Dir, settingsDiff(st.Settings, settings), st.Settings.ID(), settings.ID())
		}
		if saved, err := finishedRun(cfg, st, exec); saved != nil || err != nil {
			return saved, err
		}
	} else if _, err := os.Stat(filepath.Join(cfg.Dir, "best")); err == nil {
		return nil, fmt.Errorf("train: %s holds a best/ checkpoint but no state.json; give another --dir", cfg.Dir)
	}
	res = &Result{Backend: backendName, BackendConfig: choice.Config, Checkpoint: filepath.Join(cfg.Dir, "best")}
	algos := cfg.Algorithms()
	// Per algorithm: its training data and validation batches.
	datas := make([]*trainData, len(algos))
	valTrajs := make([][]*clrs.Trajectory, len(algos))
	vals := make([][]*clrs.Feedback, len(algos))
	var chunks []*chunkData // chunked training's
	for i, a := range algos {
		if cfg.Chunked {
			cd, err := newChunkData(cfg, a, i)
			if err != nil {
				return nil, err
			}
			chunks, datas[i] = append(chunks, cd), cd.trainData
		} else if datas[i], err = newTrainData(cfg, a, i); err != nil {
			return nil, err
		}
		if valTrajs[i], err = splitTrajectories(a, "val", cfg.ValSamples); err != nil {
			return nil, err
		}
		if vals[i], err = batchTrajectories(valTrajs[i], EvalBatch); err != nil {
			return nil, err
		}
	}
	var m *nn.Model
	if found {
		if m, err = nn.Load(be, lastDir); err != nil {
			return nil, fmt.Errorf("train: resuming from %s: %w", lastDir, err)
		}
		// This session's execution options (a checkpoint records none).
		if err := m.SetExecution(cfg.execOptions()); err != nil {
			return nil, err
		}
		if iterations(m) != st.Step {
			return nil, fmt.Errorf("train: %s: state.json is at step %d but last/ at %d", cfg.Dir, st.Step, iterations(m))
		}
	}
	if m == nil {
		if m, err = nn.New(be, cfg.modelConfig()); err != nil {
			return nil, err
		}
		st = state{Settings: settings, State: trainloop.State{BestVal: -1}}
	}
	defer m.Close() // its compiled programs and variables: a grid trains many models in one process
	start := iterations(m)
	if start > cfg.Steps {
		return nil, fmt.Errorf("train: %s is already at step %d, beyond --steps %d", cfg.Dir, start, cfg.Steps)
	}
	for i, d := range datas {
		if cfg.Chunked {
			err = chunks[i].skipChunks(start)
		} else {
			err = d.skip(start)
		}
		if err != nil {
			return nil, err
		}
	}
	if cfg.ChunkCarry && start > 0 {
		if err := loadChunkStates(filepath.Join(lastDir, chunkStatesFile), chunks); err != nil {
			return nil, fmt.Errorf("train: resuming from %s: %w", lastDir, err)
		}
	}

	var run *tracking.Run
	var params map[string]string
	if !cfg.NoMLflow {
		opts := []tracking.Option{tracking.RunName(RunName(cfg, start)), tracking.Note(runNote(cfg, start)),
			tracking.Tags(map[string]string{"backend": backendName, "resumed_at_step": strconv.Itoa(start),
				"settings_id": settings.ID()})}
		if cfg.TrackingURI != "" {
			opts = append(opts, tracking.TrackingURI(cfg.TrackingURI))
		}
		if cfg.ParentRun != "" {
			opts = append(opts, tracking.Parent(cfg.ParentRun))
		}
		opts = append(opts, tracking.Tags(cfg.Tags))
		params = cfg.Params()
		params["backend"] = backendName
		params["backend_config"] = choice.Config
		params["step_loop"] = stepLoopName(cfg.StepLoop, m.UnrollsEver(), m.ProgramsEver())
		if cfg.EvalLoop == engine.EvalLoopAuto {
			params["eval_loop"] = "auto: " + m.EvalLoopUsed()
		}
		params["resumed_at_step"] = strconv.Itoa(start)
		if why := cfg.ReferenceNeedleFailure(); why != "" {
			params["reference_runs"] = "false: " + why
		}
		if run, err = tracking.Start(ctx, cfg.Experiment, params, opts...); err != nil {
			return nil, err
		}
		res.Run, res.RunID, res.RunURL = run, run.ID(), run.URL()
		st.RunIDs = append(st.RunIDs, run.ID())
		defer func() {
			// endErr says where what the server did not take waits (the
			// spool: `narlab mlflow sync`), or what was lost.
			if endErr := run.EndWith(context.WithoutCancel(ctx), err); endErr != nil {
				switch {
				case err == nil:
					err = fmt.Errorf("train: %w: %w", ErrNotDelivered, endErr)
				case errors.Is(endErr, mlflow.ErrLost):
					err = fmt.Errorf("%w; and the MLflow run: %w", err, endErr)
				}
			}
		}()
		// The data: the training set and the validation split as run
		// inputs (the test split once it is drawn, after training).
		if err = logDataInputs(run, cfg, datas, valTrajs); err != nil {
			return res, err
		}
		// A resumed run carries the validation curve it resumes from, so
		// each run has the whole curve (a sweep deletes the interrupted one).
		for k, p := range st.History {
			run.LogMetric("val/score", int64(p.Step), p.Score)
			if k < len(st.AlgorithmScores) {
				for i, a := range algos {
					run.LogMetric("val/score/"+a, int64(p.Step), st.AlgorithmScores[k][i])
				}
			}
		}
	}
	saveLast := func() error {
		st.Step = iterations(m)
		st.Execution = &exec // the session that trained last
		data, err := json.Marshal(st)
		if err != nil {
			return err
		}
		data = append(data, '\n')
		files := map[string][]byte{stateFile: data}
		if cfg.ChunkCarry {
			if files[chunkStatesFile], err = chunkStates(chunks); err != nil {
				return err
			}
		}
		if err := m.SaveWith(lastDir, files); err != nil {
			return err
		}
		return fsutil.WriteFile(filepath.Join(cfg.Dir, stateFile), data, fsutil.DataMode)
	}

	t0 := time.Now()
	loop := trainloop.Loop{
		Steps:     cfg.Steps,
		EvalEvery: cfg.EvalEvery,
		// Several algorithms: a batch of each, in order, one update each
		// (the reference's feedback per algorithm_index); the step's loss
		// is their mean, each algorithm's logged as train/loss/ALGO.
		Step: func(_ context.Context, step int) (float64, error) {
			sum := 0.0
			for i, d := range datas {
				var loss float64
				var err error
				if cfg.Chunked {
					loss, err = chunks[i].trainChunk(m, step, cfg.ChunkCarry)
				} else {
					var fb *clrs.Feedback
					if fb, err = d.batch(step); err == nil {
						loss, err = m.TrainStep(fb)
					}
				}
				if err != nil {
					return 0, err
				}
				if run != nil && len(algos) > 1 {
					run.LogMetric("train/loss/"+algos[i], int64(step), loss)
				}
				sum += loss
			}
			if cfg.TestEvery > 0 && step%cfg.TestEvery == 0 {
				if err := testNow(m, cfg, run, step); err != nil {
					return 0, err
				}
			}
			return sum / float64(len(datas)), nil
		},
		Eval: func(context.Context, int) (map[string]float64, error) {
			sc, per, err := evaluateEach(m, algos, vals)
			if err == nil && len(algos) > 1 {
				st.AlgorithmScores = append(st.AlgorithmScores, per)
			}
			return sc, err
		},
		Checkpoint: func(_ *trainloop.State, best bool) error {
			if best {
				if err := m.Save(filepath.Join(cfg.Dir, "best")); err != nil {
					return err
				}
			}
			return saveLast()
		},
	}
	if run != nil {
		loop.Observers = append(loop.Observers, trainloop.Metrics(run.LogMetric))
		if len(algos) > 1 {
			loop.Observers = append(loop.Observers, algorithmMetrics(run, algos))
		}
	}
	if cfg.AfterStep != nil {
		loop.Observers = append(loop.Observers, trainloop.ObserverFunc(func(e trainloop.Event) {
			if e.Kind == trainloop.Stepped {
				cfg.AfterStep(e.Step, e.Loss)
			}
		}))
	}
	if cfg.Progress != nil { // a redrawn bar with ETA on a terminal, plain lines elsewhere
		loop.Observers = append(loop.Observers, trainloop.Terminal(cfg.Progress, cfg.Algo+"/"+cfg.Processor))
		// Once compiled, a few steps say how long the run will take here:
		// a warning if hours, with how to shorten it.
		k := max(1, len(cfg.TrainLengths)) // one compilation per training length
		loop.Observers = append(loop.Observers, trainloop.Estimate(k, k, func(p trainloop.Projection) {
			if w := LongRunWarning(cfg, backendName, p); w != "" {
				if progress.IsTerminal(cfg.Progress) {
					w = "\n" + w // below the bar
				}
				fmt.Fprint(cfg.Progress, w)
			}
		}))
	}
	loop.Observers = append(loop.Observers, cfg.Observers...)
	stats, err := loop.Run(ctx, &st.State)
	res.FirstStep, res.StepsPerS = stats.FirstStep, stats.StepsPerS
	res.StepsLooped, res.StepsUnrolled = m.StepCounts()
	if errors.Is(err, trainloop.ErrInterrupted) {
		if serr := saveLast(); serr != nil {
			return res, serr
		}
		return res, fmt.Errorf("train: interrupted after step %d, saved in %s (rerun the same command to resume): %w", st.Step, lastDir, ctx.Err())
	}
	if err != nil {
		return res, err
	}
	res.History, res.BestStep, res.BestVal, res.Losses = st.History, st.BestStep, st.BestVal, st.Losses
	res.AlgorithmScores = st.AlgorithmScores

	// Test the best checkpoint.
	best, err := nn.Load(be, res.Checkpoint)
	if err != nil {
		return res, err
	}
	defer best.Close()
	// Drawn and batched as it goes: the whole test split is gigabytes for
	// the long algorithms (quickselect's 2,048 trajectories at n=64).
	// Several algorithms: each is tested.
	testSamples := make([]*sampleDigest, len(algos))
	tests := make([]map[string]float64, len(algos))
	for i, a := range algos {
		testSamples[i] = newSampleDigest()
		if tests[i], err = best.EvaluateTrajectories(testSamples[i].observe(clrs.SplitTrajectories(a, "test", cfg.TestSamples)), EvalBatch); err != nil {
			return res, err
		}
	}
	res.Test = joinScores(algos, tests)
	res.severalResults(algos, st.State)
	if err := writeResult(cfg, res, time.Since(t0)); err != nil {
		return res, err
	}
	if run != nil {
		for i, a := range algos {
			testSet, _ := clrs.CLRS30Split(a, "test")
			testDS, err := splitDataset(cfg.modelConfigOf(a), testSet, testSamples[i], "test")
			if err == nil {
				err = run.LogInputs(testDS)
			}
			if err != nil {
				return res, err
			}
		}
		scores := logRun(run, cfg, res)
		// The best checkpoint as the run's MLflow model (registered on
		// request), with its weights in dm-clrs's format beside. Without
		// a server it goes to the run's artifacts (checkpoint/), delivered
		// with the run's spool.
		reference := filepath.Join(cfg.Dir, "reference", "model.pkl")
		refErr := os.MkdirAll(filepath.Dir(reference), fsutil.DirMode)
		if refErr == nil {
			refErr = best.ExportReference(reference)
		}
		if refErr != nil {
			reference = ""
		}
		lm, merr := logModel(ctx, run, cfg, res, params, scores, reference, refErr)
		if lm != nil {
			res.ModelID, res.RegisteredModel, res.ModelVersion = lm.ID, lm.Registered, lm.Version
			if err := writeResult(cfg, res, time.Since(t0)); err != nil {
				return res, err
			}
		}
		if merr != nil {
			if lm == nil {
				// No model (no server now, or one without MLflow 3's
				// logged models): the checkpoint goes with the run.
				logCheckpointArtifacts(run, res)
			}
			if cfg.Register != "" || lm != nil {
				return res, fmt.Errorf("train: %w (the checkpoint is in %s)", merr, res.Checkpoint)
			}
			if cfg.Progress != nil {
				fmt.Fprintf(cfg.Progress, "narlab: the best checkpoint was not logged as an MLflow model (%v); it is the run's artifacts checkpoint/ instead\n", merr)
			}
		}
	}
	return res, nil
}

// LongRun is the training time beyond which a run warns (Config.Progress)
// that it will take long on this machine.
const LongRun = time.Hour

// LongRunWarning is the warning a run with Progress prints once its first
// steps have been timed (p) when the training left will take more than
// LongRun on this backend: the estimate and how to shorten it. It is ""
// for a shorter run.
func LongRunWarning(c Config, backend string, p trainloop.Projection) string {
	if p.Left <= LongRun {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "narlab: this run needs about %s more on %s: %d steps left at %s a step (timed after compilation; validation every %d steps comes on top).\n",
		roundDuration(p.Left), backend, p.Steps-p.Step, roundDuration(p.PerStep), c.EvalEvery)
	if strings.HasPrefix(backend, "xla-cuda") {
		b.WriteString("narlab: to shorten it: fewer --steps, or a smaller --hidden or --batch.\n")
		return b.String()
	}
	// What fits in minutes on a CPU: the README's first training.
	steps := max(1, int(10*time.Minute/max(p.PerStep, time.Millisecond)))
	fmt.Fprintf(&b, "narlab: to shorten it: --steps %d (about ten minutes at this pace), a CPU-sized model and data "+
		"(--processor pgn --hidden 32 --batch 8 --train-length 8: `narlab train --algo %s --processor pgn --steps 300 --hidden 32 --batch 8 --train-length 8`), "+
		"or a GPU (picked by itself where XLA's CUDA plugin is installed: `narlab backends`); the paper's protocol (%d steps of %s, hidden %d, batch %d) is a GPU job.\n",
		steps, c.Algo, c.Steps, c.Processor, c.Hidden, c.Batch)
	return b.String()
}

// roundDuration writes d for a message: 0.3s, 26s, 4m05s, 72h09m.
func roundDuration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	d = d.Round(time.Minute)
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// logCheckpointArtifacts logs the best checkpoint's files as run artifacts
// (checkpoint/…), what a run does when its model could not be logged.
func logCheckpointArtifacts(run *tracking.Run, res *Result) {
	entries, _ := os.ReadDir(res.Checkpoint)
	for _, e := range entries {
		if !e.IsDir() {
			run.LogArtifactFile(filepath.Join(res.Checkpoint, e.Name()), "checkpoint/"+e.Name())
		}
	}
}

// RunName is an MLflow run name that says what ran: algorithm, processor,
// width, batch, training data, seed, the settings id, for a resumed
// session the step it resumed at, and a random session id (so that two
// runs of the same settings are told apart).
func RunName(c Config, resumedAt int) string {
	data := c.TrainData
	if c.TrainData == "fixed" {
		data = fmt.Sprintf("fixed-n%d", c.TrainLength)
	}
	name := fmt.Sprintf("%s/%s h%d b%d %s s%d %s", c.Algo, c.Processor, c.Hidden, c.Batch, data, c.Seed, c.settings().ID())
	if resumedAt > 0 {
		name += fmt.Sprintf(" @%d", resumedAt)
	}
	var id [2]byte
	_, _ = crand.Read(id[:])
	return name + " #" + hex.EncodeToString(id[:])
}

// writeResult writes Dir/result.json: the settings, the best validation
// and the test scores, the best checkpoint and, once logged, the MLflow
// model and its registry entry (scripts/parity_train.sh and the Python
// package's narlab.train read it).
func writeResult(c Config, res *Result, took time.Duration) error {
	out := map[string]any{
		"algorithm": c.Algo, "processor": c.Processor, "steps": c.Steps, "hidden": c.Hidden, "batch": c.Batch,
		"seed": c.Seed, "train_data": c.TrainData, "best_val": res.BestVal, "best_step": res.BestStep,
		"test": res.Test["score"], "test_outputs": res.Test, "backend": res.Backend, "seconds": took.Seconds(),
		"steps_per_s": res.StepsPerS, "settings_id": c.settings().ID(), "run_id": res.RunID,
		"checkpoint": res.Checkpoint, "execution": c.execution(res.Backend),
	}
	if res.ModelID != "" {
		out["model_id"], out["model_uri"] = res.ModelID, "models:/"+res.ModelID
	}
	if res.RegisteredModel != "" {
		out["registered_model"], out["model_version"] = res.RegisteredModel, res.ModelVersion
	}
	if n := len(res.Losses); n > 0 {
		out["final_loss"] = res.Losses[n-1]
	}
	if algos := c.Algorithms(); len(algos) > 1 {
		per := map[string]any{}
		for _, a := range algos {
			per[a] = map[string]any{"best_val": res.BestValByAlgorithm[a], "test": res.TestByAlgorithm[a]["score"],
				"test_outputs": res.TestByAlgorithm[a]}
		}
		out["algorithms"] = per
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFile(filepath.Join(c.Dir, "result.json"), append(data, '\n'), fsutil.DataMode)
}

// ResultColumns are the columns of a training run's results table
// (results.json and results.md, one row); scores are percentages, the
// paper's (Tables 4 and 2) null where it has none. The Figure 3 driver's
// parent run holds one such row per cell.
var ResultColumns = []string{"algorithm", "processor", "hidden_size", "train_steps", "best_step",
	"val_score", "paper_val", "test_score", "paper_test", "steps_per_s", "backend"}

// ResultRow is the run's row of its results table (see [ResultColumns]);
// for a run of several algorithms the means of their scores (see
// ResultRows).
func ResultRow(cfg Config, res *Result) []any {
	pv, pt := paperScores(cfg.Algo, cfg.Processor)
	return []any{cfg.Algo, cfg.Processor, cfg.Hidden, cfg.Steps, res.BestStep, 100 * res.BestVal, pv,
		100 * res.Test["score"], pt, res.StepsPerS, res.Backend}
}

// ResultRows are the run's rows of its results table: ResultRow for a run
// of one algorithm; for several, one row per algorithm (its validation
// score at the best step, its test score, the paper's), then the row of
// their means.
func ResultRows(cfg Config, res *Result) [][]any {
	algos := cfg.Algorithms()
	if len(algos) < 2 {
		return [][]any{ResultRow(cfg, res)}
	}
	var rows [][]any
	for _, a := range algos {
		pv, pt := paperScores(a, cfg.Processor)
		rows = append(rows, []any{a, cfg.Processor, cfg.Hidden, cfg.Steps, res.BestStep, 100 * res.BestValByAlgorithm[a], pv,
			100 * res.TestByAlgorithm[a]["score"], pt, res.StepsPerS, res.Backend})
	}
	return append(rows, ResultRow(cfg, res))
}

// Summary metrics of a training run: single values, logged at step 0,
// which the MLflow UI draws as bars (results), not as one-point curves.
const (
	MetricTestScore = "test/score"         // the best checkpoint's test score (a fraction)
	MetricBestVal   = "val/best_score"     // the best validation score (a fraction)
	MetricStepsPerS = "train/steps_per_s"  // steady-state training rate of the session
	MetricFirstStep = "train/first_step_s" // the session's first step, compilation included
	// The session's training steps run in the step loop and unrolled
	// (how StepLoop "auto" chose).
	MetricLoopedSteps   = "train/looped_steps"
	MetricUnrolledSteps = "train/unrolled_steps"
)

// logRun logs the run's results: the summary metrics at step 0, the
// results table beside the paper's numbers (results.json, results.md), the
// per-output test scores (tables/test_outputs.json) and the validation
// curve. It returns the points of the test and best validation scores,
// which the run's logged model shares as its metrics (see logModel).
func logRun(run *tracking.Run, cfg Config, res *Result) []mlflow.Metric {
	at := time.Now()
	scores := []mlflow.Metric{{Key: MetricTestScore, Value: res.Test["score"], Timestamp: mlflow.Millis(at)},
		{Key: MetricBestVal, Value: res.BestVal, Timestamp: mlflow.Millis(at)}}
	for _, m := range scores {
		run.LogMetricAt(m.Key, m.Step, m.Value, at)
	}
	if res.StepsPerS > 0 { // a session that trained (not one that only tested)
		run.LogMetric(MetricStepsPerS, 0, res.StepsPerS)
		run.LogMetric(MetricFirstStep, 0, res.FirstStep.Seconds())
		run.LogMetric(MetricLoopedSteps, 0, float64(res.StepsLooped))
		run.LogMetric(MetricUnrolledSteps, 0, float64(res.StepsUnrolled))
	}
	rows := ResultRows(cfg, res)
	run.LogTable("results.json", ResultColumns, rows)
	for a, t := range res.TestByAlgorithm {
		run.LogMetric(MetricTestScore+"/"+a, 0, t["score"])
		run.LogMetric(MetricBestVal+"/"+a, 0, res.BestValByAlgorithm[a])
	}
	var outputs []string
	for k := range res.Test {
		if k != "score" && !strings.HasPrefix(k, "score/") {
			outputs = append(outputs, k)
		}
	}
	slices.Sort(outputs)
	var outRows [][]any
	for _, k := range outputs {
		outRows = append(outRows, []any{k, 100 * res.Test[k]})
	}
	run.LogTable("tables/test_outputs.json", []string{"output", "test_score"}, outRows)
	md := fmt.Sprintf("# %s/%s: results\n\nThe best-validation checkpoint (step %d) tested on the CLRS-30 test split; "+
		"scores in %%, the paper's from its Tables 4 (val) and 2 (test).\n\n%s\nTest score per output:\n\n%s",
		cfg.Algo, cfg.Processor, res.BestStep, tracking.MarkdownTable(ResultColumns, rows),
		tracking.MarkdownTable([]string{"output", "test_score"}, outRows))
	run.LogArtifact("results.md", []byte(md))
	if png, err := curvesOf(cfg, res); err == nil {
		run.LogArtifact("plots/validation_curve.png", png)
	}
	return scores
}

// CurvePNG draws one training's validation curve (its History: the score
// at each evaluation) as a PNG: one panel titled algo, one line in the
// processor's colour, labeled with its name in the CLRS paper
// (nn.PaperModel). A run logs it as plots/validation_curve.png; `narlab
// demo` writes it beside the run directory.
func CurvePNG(algo, processor string, history []Point) ([]byte, error) {
	var c plots.Curve
	for _, p := range history {
		c.Steps, c.Values = append(c.Steps, float64(p.Step)), append(c.Values, p.Score)
	}
	s := plots.Series{Label: nn.PaperModel(processor), Runs: []plots.Curve{c}}
	if col, ok := nn.ProcessorColor(processor); ok {
		s.Color = col
	}
	fig, err := plots.ValidationCurves([]plots.Panel{{Title: algo, Series: []plots.Series{s}}},
		plots.DefaultCurveOptions())
	if err != nil {
		return nil, err
	}
	return fig.PNG()
}

// curvesOf draws a run's validation curves: CurvePNG for one algorithm;
// for several, one panel per algorithm (its scores at each validation).
func curvesOf(cfg Config, res *Result) ([]byte, error) {
	algos := cfg.Algorithms()
	if len(algos) < 2 {
		return CurvePNG(cfg.Algo, cfg.Processor, res.History)
	}
	var panels []plots.Panel
	for i, a := range algos {
		var c plots.Curve
		for k, p := range res.History {
			if k < len(res.AlgorithmScores) {
				c.Steps, c.Values = append(c.Steps, float64(p.Step)), append(c.Values, res.AlgorithmScores[k][i])
			}
		}
		s := plots.Series{Label: nn.PaperModel(cfg.Processor), Runs: []plots.Curve{c}}
		if col, ok := nn.ProcessorColor(cfg.Processor); ok {
			s.Color = col
		}
		panels = append(panels, plots.Panel{Title: a, Series: []plots.Series{s}})
	}
	fig, err := plots.ValidationCurves(panels, plots.DefaultCurveOptions())
	if err != nil {
		return nil, err
	}
	return fig.PNG()
}

// paperScores returns the paper's validation (Table 4) and test (Table 2)
// means in percent for an algorithm and processor, or nil.
func paperScores(algo, processor string) (val, test any) {
	if s, ok := paper.Validation[algo][nn.PaperModel(processor)]; ok {
		val = s.Mean
	}
	if s, ok := paper.Test[algo][nn.PaperModel(processor)]; ok {
		test = s.Mean
	}
	return val, test
}

// trainData yields the training batch of each step of one algorithm.
// Everything random is a function of (seed, step, the algorithm's index)
// or replayed from the start, so that a run resumed at any step sees the
// batches an uninterrupted one would; a run's first algorithm sees the
// batches a run of it alone would.
type trainData struct {
	cfg     Config
	algo    string
	stream  int           // the first of the algorithm's two seed streams (2 × its index)
	fixed   *clrs.Sampler // split or fixed-length data: batches drawn from its stream
	steps   map[int]int   // lengths mode: the hint steps batches of each length are padded to
	drawn   int           // fixed data: batches drawn so far
	posSeed int64
	lengths []int         // lengths mode: the algorithm's lengths, cycled
	kw      []clrs.Option // lengths mode: the sampler's arguments (a string matcher's needle)
}

func newTrainData(cfg Config, algo string, index int) (*trainData, error) {
	d := &trainData{cfg: cfg, algo: algo, stream: 2 * index, posSeed: cfg.Seed}
	var err error
	switch cfg.TrainData {
	case "split":
		d.fixed, err = clrs.NewSplitSampler(algo, "train")
	case "fixed":
		d.fixed, err = clrs.NewSampler(algo, clrs.Length(cfg.TrainLength), clrs.Seed(1), clrs.NumSamples(1000))
	default:
		// As the reference's on-the-fly samplers, pad each length's
		// batches to the longest trajectory of 1000 samples drawn first.
		d.steps = map[int]int{}
		d.lengths = cfg.trainLengthsOf(algo)
		if slices.Contains(StringMatchers, algo) && cfg.LengthNeedle != 0 {
			d.kw = []clrs.Option{clrs.Kwarg("length_needle", cfg.LengthNeedle)}
		}
		for _, l := range d.lengths {
			s, err := clrs.NewSampler(algo, append([]clrs.Option{clrs.Length(l), clrs.Seed(cfg.Seed)}, d.kw...)...)
			if err != nil {
				return nil, err
			}
			fb, err := s.Next(1)
			if err != nil {
				return nil, err
			}
			d.steps[l] = fb.MaxSteps()
		}
	}
	return d, err
}

// skip advances past the batches of steps 1..n (a resumed run).
func (d *trainData) skip(n int) error {
	if d.fixed == nil {
		return nil
	}
	for d.drawn < n {
		if _, err := d.fixed.Next(d.cfg.Batch); err != nil {
			return err
		}
		d.drawn++
	}
	return nil
}

// stepSeed derives a seed in [0, 2³¹) from the run's seed, the step and a
// stream number.
func stepSeed(seed int64, step, stream int) int64 {
	h := sha256.Sum256([]byte(fmt.Sprintf("narlab/%d/%d/%d", seed, step, stream)))
	return int64(binary.LittleEndian.Uint32(h[:4]) & 0x7fffffff)
}

// batch returns step's training batch (steps are asked for in order).
func (d *trainData) batch(step int) (*clrs.Feedback, error) {
	var fb *clrs.Feedback
	var err error
	if d.fixed != nil {
		if d.drawn != step-1 {
			return nil, fmt.Errorf("train: batch of step %d asked after %d batches", step, d.drawn)
		}
		fb, err = d.fixed.Next(d.cfg.Batch)
		d.drawn++
	} else {
		l := d.lengths[(step-1)%len(d.lengths)]
		var s *clrs.Sampler
		s, err = clrs.NewSampler(d.algo, append([]clrs.Option{clrs.Length(l), clrs.Seed(stepSeed(d.cfg.Seed, step, d.stream)),
			clrs.TrackMaxSteps(false)}, d.kw...)...)
		if err != nil {
			return nil, err
		}
		trajs := make([]*clrs.Trajectory, d.cfg.Batch)
		for i := range trajs {
			if trajs[i], err = s.Sample(); err != nil {
				return nil, err
			}
		}
		fb, err = clrs.Batch(trajs, d.steps[l])
	}
	if err != nil {
		return nil, err
	}
	if !d.cfg.FixedPos {
		fb, err = clrs.RandomPos(fb, nprand.New(stepSeed(d.posSeed, step, d.stream+1)))
	}
	return fb, err
}

// splitTrajectories returns an official split's samples (its first limit
// when limit > 0).
func splitTrajectories(algo, split string, limit int) ([]*clrs.Trajectory, error) {
	s, err := clrs.NewSplitSampler(algo, split)
	if err != nil {
		return nil, err
	}
	trajs := s.Trajectories()
	if limit > 0 && limit < len(trajs) {
		trajs = trajs[:limit]
	}
	return trajs, nil
}

// batchTrajectories batches samples, at most batch at a time, all padded
// to the longest one's number of steps, as the reference's split batches
// (the model drops the steps past a batch's own longest). For the
// validation split, evaluated again and again; a split evaluated once goes
// through nn.Model.EvaluateTrajectories, which batches as it goes.
func batchTrajectories(trajs []*clrs.Trajectory, batch int) ([]*clrs.Feedback, error) {
	steps := 0
	for _, t := range trajs {
		steps = max(steps, t.Length)
	}
	var out []*clrs.Feedback
	for i := 0; i < len(trajs); i += batch {
		fb, err := clrs.Batch(trajs[i:min(i+batch, len(trajs))], steps)
		if err != nil {
			return nil, err
		}
		out = append(out, fb)
	}
	return out, nil
}

// EvalBatch is the batch size of validation and test, whatever the
// training batch: run.py's val_batch_size and test_batch_size. Batching is
// part of what a score is: a sample's predictions do not depend on its
// batch-mates (nn's TestPredictionIgnoresBatchMates), but the backends
// round differently for different batch shapes, and a network run for 64
// steps can turn that into another pointer (4 test samples of
// insertion_sort, predicted in batches of 2 and of 4 by a model trained
// for 6 steps, differ in 49 of 256 pointers). Run and Evaluate (narlab
// eval) both batch at EvalBatch, so evaluating a run's checkpoint again
// reproduces its scores exactly.
const EvalBatch = 32

// Evaluate scores a checkpoint on a CLRS-30 split ("train", "val" or
// "test"; limit > 0 takes its first limit samples) and returns the
// per-output scores and their mean under "score"; a model of several
// algorithms is scored on each one's split (the keys of evaluateEach).
func Evaluate(checkpoint, split, backend string, limit int) (map[string]float64, error) {
	be, err := nn.Backend(backend)
	if err != nil {
		return nil, err
	}
	m, err := nn.Load(be, checkpoint)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	sc, _, err := evaluateSplit(m, split, limit, nil)
	return sc, err
}

// evaluateSplit scores a model on a CLRS-30 split, each of its algorithms
// on its own (the keys of evaluateEach), drawing the split as it scores
// it; each algorithm's samples pass through its digest when digests is
// given (one per algorithm). It returns the algorithms' sample counts too.
func evaluateSplit(m *nn.Model, split string, limit int, digests []*sampleDigest) (map[string]float64, []int, error) {
	algos := m.Config().AlgorithmNames()
	all := make([]map[string]float64, len(algos))
	counts := make([]int, len(algos))
	for i, a := range algos {
		d := newSampleDigest()
		if digests != nil {
			d = digests[i]
		}
		var err error
		if all[i], err = m.EvaluateTrajectories(d.observe(clrs.SplitTrajectories(a, split, limit)), EvalBatch); err != nil {
			return nil, nil, err
		}
		counts[i] = d.samples
	}
	return joinScores(algos, all), counts, nil
}

// iterations is the training steps a model has taken: its optimizer's
// updates, of which a model of several algorithms takes one per algorithm
// a step.
func iterations(m *nn.Model) int {
	return int(m.Step()) / len(m.Config().AlgorithmNames())
}

// evaluateEach scores the model on each algorithm's batches. One
// algorithm: its scores. Several: per algorithm ALGO "score/ALGO" and
// "ALGO/OUTPUT", "score" their mean (as the reference, the best checkpoint
// is the one whose scores' sum, here divided by their number, is highest),
// and the algorithms' scores in order.
func evaluateEach(m *nn.Model, algos []string, batches [][]*clrs.Feedback) (map[string]float64, []float64, error) {
	all := make([]map[string]float64, len(algos))
	per := make([]float64, len(algos))
	for i := range algos {
		sc, err := m.Evaluate(batches[i])
		if err != nil {
			return nil, nil, err
		}
		all[i], per[i] = sc, sc["score"]
	}
	return joinScores(algos, all), per, nil
}

// joinScores joins each algorithm's scores (per output and "score") into
// one map: one algorithm's as they are; several as evaluateEach says.
func joinScores(algos []string, scores []map[string]float64) map[string]float64 {
	if len(algos) == 1 {
		return scores[0]
	}
	out := map[string]float64{}
	sum := 0.0
	for i, a := range algos {
		for k, v := range scores[i] {
			if k == "score" {
				out["score/"+a] = v
				sum += v
			} else {
				out[a+"/"+k] = v
			}
		}
	}
	out["score"] = sum / float64(len(algos))
	return out
}

// bestIndex is the History index of the best validation (-1: none).
func bestIndex(st trainloop.State) int {
	for k, p := range st.History {
		if p.Step == st.BestStep {
			return k
		}
	}
	return -1
}

// algorithmMetrics logs, for a run of several algorithms, each
// validation's score per algorithm as val/score/ALGO.
func algorithmMetrics(run *tracking.Run, algos []string) trainloop.Observer {
	return trainloop.ObserverFunc(func(e trainloop.Event) {
		if e.Kind != trainloop.Stepped || e.Scores == nil {
			return
		}
		for _, a := range algos {
			run.LogMetric("val/score/"+a, int64(e.Step), e.Scores["score/"+a])
		}
	})
}

// severalResults fills, for a run of several algorithms, the per-algorithm
// results from Test and AlgorithmScores: TestByAlgorithm and
// BestValByAlgorithm.
func (r *Result) severalResults(algos []string, st trainloop.State) {
	if len(algos) < 2 {
		return
	}
	r.TestByAlgorithm = map[string]map[string]float64{}
	for _, a := range algos {
		t := map[string]float64{}
		for k, v := range r.Test {
			if out, ok := strings.CutPrefix(k, a+"/"); ok {
				t[out] = v
			}
		}
		if v, ok := r.Test["score/"+a]; ok {
			t["score"] = v
		}
		r.TestByAlgorithm[a] = t
	}
	if k := bestIndex(st); k >= 0 && k < len(r.AlgorithmScores) {
		r.BestValByAlgorithm = map[string]float64{}
		for i, a := range algos {
			r.BestValByAlgorithm[a] = r.AlgorithmScores[k][i]
		}
	}
}

// MetricTestNow is the test score of the model as it is at a step
// (Config.TestEvery), beside the best checkpoint's (MetricTestScore); per
// algorithm ALGO of several, MetricTestNow/ALGO.
const MetricTestNow = "test/current_score"

// testNow tests the model as it is (Config.TestEvery) and logs its scores
// at step.
func testNow(m *nn.Model, cfg Config, run *tracking.Run, step int) error {
	sc, _, err := evaluateSplit(m, "test", cfg.TestSamples, nil)
	if err != nil {
		return err
	}
	if cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, "narlab: step %d: test score %.4f (the model at this step)\n", step, sc["score"])
	}
	if run == nil {
		return nil
	}
	run.LogMetric(MetricTestNow, int64(step), sc["score"])
	for _, a := range cfg.Algorithms() {
		if v, ok := sc["score/"+a]; ok {
			run.LogMetric(MetricTestNow+"/"+a, int64(step), v)
		}
	}
	return nil
}
