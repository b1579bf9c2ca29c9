// Package train trains and evaluates the CLRS baselines of lib/nn: batches
// from the CLRS-30 train split (or fresh samples), periodic validation on
// the val split (n=16), the best-validation checkpoint kept (early
// stopping), a final test on the test split (n=64), resumable runs, and
// everything logged to MLflow through package experiments.
package train

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/narlab/narlab/experiments"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/clrs/paper"
	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/plots"
)

// Config is a training run.
type Config struct {
	Algo      string  // CLRS algorithm, e.g. "insertion_sort"
	Processor string  // one of nn.Processors
	HintMode  string  // one of nn.HintModes (default encoded_decoded)
	Steps     int     // training steps (default 10000, the paper's)
	Batch     int     // batch size (default 32)
	Hidden    int     // latent size (default 128)
	LR        float64 // Adam learning rate (default 1e-3)
	Seed      int64   // model initialisation, teacher forcing and batch draws (default 42)
	// TeacherForcing is the probability of feeding ground-truth hints in
	// training (default 0.5; negative means 0).
	TeacherForcing float64
	EvalEvery      int // validate every this many steps (default 50)
	// Fresh draws new length-16 training samples every step instead of
	// batches from the fixed 1000-sample CLRS-30 train split.
	Fresh bool
	// TrainLength, when > 0, trains on a fixed set of 1000 samples of this
	// length (seed 1) instead of the n=16 CLRS-30 train split: a reduced
	// scale for CPUs (validation and test stay on the official splits).
	TrainLength int
	// ValSamples and TestSamples cap the number of validation and test
	// samples (0: the whole official split).
	ValSamples, TestSamples int
	// Backend is the GoMLX backend ("go" default, or "xla:…").
	Backend string
	// Dir keeps the run's checkpoints (best/, last/) and state; default
	// <data dir>/train/<algo>-<processor>-s<seed>. A run finding a last/
	// checkpoint of the same configuration there resumes from it.
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
	// Progress receives the progress line (steps/s, loss, scores); nil:
	// none.
	Progress io.Writer
}

func (c *Config) defaults() error {
	if c.HintMode == "" {
		c.HintMode = "encoded_decoded"
	}
	if c.Steps == 0 {
		c.Steps = 10000
	}
	if c.Batch == 0 {
		c.Batch = 32
	}
	if c.Hidden == 0 {
		c.Hidden = 128
	}
	if c.LR == 0 {
		c.LR = 1e-3
	}
	if c.Seed == 0 {
		c.Seed = 42
	}
	if c.TeacherForcing == 0 {
		c.TeacherForcing = 0.5
	} else if c.TeacherForcing < 0 {
		c.TeacherForcing = 0
	}
	if c.EvalEvery == 0 {
		c.EvalEvery = 50
	}
	if c.Experiment == "" {
		c.Experiment = "clrs-baselines"
	}
	switch {
	case c.Steps < 1:
		return fmt.Errorf("train: steps %d; want at least 1", c.Steps)
	case c.Batch < 1:
		return fmt.Errorf("train: batch %d; want at least 1", c.Batch)
	case c.EvalEvery < 1:
		return fmt.Errorf("train: eval-every %d; want at least 1", c.EvalEvery)
	case c.ValSamples < 0 || c.TestSamples < 0:
		return fmt.Errorf("train: negative sample cap (val %d, test %d)", c.ValSamples, c.TestSamples)
	}
	if c.Dir == "" {
		d, err := project.DataDir()
		if err != nil {
			return err
		}
		c.Dir = filepath.Join(d, "train", fmt.Sprintf("%s-%s-s%d", c.Algo, c.Processor, c.Seed))
	}
	return nil
}

func (c Config) modelConfig() nn.Config {
	return nn.Config{Algorithm: c.Algo, Processor: c.Processor, Hidden: c.Hidden, HintMode: c.HintMode,
		TeacherForcing: c.TeacherForcing, LearningRate: c.LR, Seed: c.Seed}
}

// Params are the run's hyper-parameters and seeds as MLflow params.
func (c Config) Params() map[string]string {
	return map[string]string{
		"algorithm": c.Algo, "processor": c.Processor, "hint_mode": c.HintMode,
		"train_steps": strconv.Itoa(c.Steps), "batch_size": strconv.Itoa(c.Batch), "hidden_size": strconv.Itoa(c.Hidden),
		"learning_rate": fmt.Sprint(c.LR), "seed": strconv.FormatInt(c.Seed, 10),
		"hint_teacher_forcing": fmt.Sprint(c.TeacherForcing), "eval_every": strconv.Itoa(c.EvalEvery),
		"train_data":  map[bool]string{true: "fresh length-16 samples", false: "CLRS-30 train split (1000, n=16, seed 1)"}[c.Fresh],
		"val_samples": capName(c.ValSamples), "test_samples": capName(c.TestSamples),
		"val_split": "CLRS-30 val (n=16, seed 2)", "test_split": "CLRS-30 test (n=64, seed 3)",
		"optimizer": "adam", "nb_msg_passing_steps": "1",
	}
}

func trainData(c Config) string {
	switch {
	case c.Fresh:
		return "fresh length-16 samples"
	case c.TrainLength > 0:
		return fmt.Sprintf("fixed 1000 samples, n=%d, seed 1 (reduced)", c.TrainLength)
	}
	return "CLRS-30 train split (1000, n=16, seed 1)"
}

func capName(n int) string {
	if n == 0 {
		return "all"
	}
	return strconv.Itoa(n)
}

// Point is one validation of a run.
type Point struct {
	Step  int     `json:"step"`
	Loss  float64 `json:"loss"`
	Score float64 `json:"score"`
}

// Result is a finished run.
type Result struct {
	History    []Point            // validation history
	BestStep   int                // step of the best validation score
	BestVal    float64            // its score
	Test       map[string]float64 // test scores of the best checkpoint: per output and "score"
	Checkpoint string             // the best checkpoint's directory
	// StepsPerS is the steady-state training rate of this process: one
	// over the median step time (no compilation, no validation).
	StepsPerS float64
	// FirstStep is the time of this process's first step (compilation
	// included).
	FirstStep     time.Duration
	Backend       string           // the backend used: "xla-cuda", "xla-cpu" or "go"
	BackendConfig string           // what GoMLX was given, e.g. "xla:/…/pjrt_c_api_cpu_plugin.so"
	Run           *experiments.Run // the MLflow run (nil with NoMLflow); ended
	RunID         string
	RunURL        string
}

// state is what Dir/state.json keeps for resuming.
type state struct {
	Config   nn.Config `json:"config"`
	History  []Point   `json:"history"`
	BestStep int       `json:"best_step"`
	BestVal  float64   `json:"best_val"`
	RunID    string    `json:"run_id,omitempty"`
}

// Run trains cfg to the end, evaluates the best checkpoint on the test
// split and logs the run to MLflow.
func Run(ctx context.Context, cfg Config) (res *Result, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	be, choice, err := nn.BackendChoice(cfg.Backend)
	if err != nil {
		return nil, err
	}
	backendName := choice.Kind
	if choice.Kind == "go" && cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, "narlab: training on the pure-Go backend: %s\n", choice.Reason)
	}
	res = &Result{Backend: backendName, BackendConfig: choice.Config, Checkpoint: filepath.Join(cfg.Dir, "best")}
	trainS, err := trainSampler(cfg)
	if err != nil {
		return nil, err
	}
	val, err := splitBatches(cfg.Algo, "val", cfg.ValSamples, cfg.Batch)
	if err != nil {
		return nil, err
	}

	// Resume from Dir when a matching run was interrupted.
	var st state
	var m *nn.Model
	lastDir := filepath.Join(cfg.Dir, "last")
	if data, err := os.ReadFile(filepath.Join(cfg.Dir, "state.json")); err == nil {
		if json.Unmarshal(data, &st) == nil && st.Config == cfg.modelConfig() {
			if m, err = nn.Load(be, lastDir); err != nil {
				return nil, fmt.Errorf("train: resuming from %s: %w", lastDir, err)
			}
		} else {
			st = state{}
		}
	}
	if m == nil {
		if m, err = nn.New(be, cfg.modelConfig()); err != nil {
			return nil, err
		}
		st = state{Config: cfg.modelConfig(), BestVal: -1}
	}
	start := int(m.Step())

	var run *experiments.Run
	if !cfg.NoMLflow {
		opts := []experiments.Option{experiments.RunName(fmt.Sprintf("%s/%s", cfg.Algo, cfg.Processor)),
			experiments.Tags(map[string]string{"backend": backendName, "resumed_at_step": strconv.Itoa(start)})}
		if cfg.TrackingURI != "" {
			opts = append(opts, experiments.TrackingURI(cfg.TrackingURI))
		}
		if cfg.ParentRun != "" {
			opts = append(opts, experiments.Parent(cfg.ParentRun))
		}
		opts = append(opts, experiments.Tags(cfg.Tags))
		params := cfg.Params()
		params["backend"] = backendName
		params["backend_config"] = choice.Config
		if run, err = experiments.Start(ctx, cfg.Experiment, params, opts...); err != nil {
			return nil, err
		}
		res.Run, res.RunID, res.RunURL = run, run.ID(), run.URL()
		st.RunID = run.ID()
		defer func() {
			if endErr := run.EndWith(context.WithoutCancel(ctx), err); endErr != nil && err == nil {
				err = endErr // the run's data waits in the spool: say so and exit non-zero
			}
		}()
		// A resumed run carries the validation curve it resumes from, so
		// each run has the whole curve (a sweep deletes the interrupted one).
		for _, p := range st.History {
			run.LogMetric("val/score", int64(p.Step), p.Score)
		}
	}
	logMetric := func(key string, step int, v float64) {
		if run != nil {
			run.LogMetric(key, int64(step), v)
		}
	}

	t0 := time.Now()
	var stepTimes []time.Duration // each training step's time, validation excluded
	var loss float64
	for step := start + 1; step <= cfg.Steps; step++ {
		if err := ctx.Err(); err != nil {
			return res, fmt.Errorf("train: interrupted at step %d (resume with the same settings): %w", step-1, err)
		}
		fb, err := trainS.Next(cfg.Batch)
		if err != nil {
			return res, err
		}
		ts := time.Now()
		if loss, err = m.TrainStep(fb); err != nil {
			return res, err
		}
		stepTimes = append(stepTimes, time.Since(ts))
		if len(stepTimes) == 1 {
			res.FirstStep = stepTimes[0]
			logMetric("train/first_step_s", step, stepTimes[0].Seconds())
		}
		logMetric("train/loss", step, loss)
		if step%cfg.EvalEvery == 0 || step == cfg.Steps {
			sc, err := m.Evaluate(val)
			if err != nil {
				return res, err
			}
			st.History = append(st.History, Point{Step: step, Loss: loss, Score: sc["score"]})
			logMetric("val/score", step, sc["score"])
			if sc["score"] > st.BestVal {
				st.BestVal, st.BestStep = sc["score"], step
				if err := m.Save(filepath.Join(cfg.Dir, "best")); err != nil {
					return res, err
				}
			}
			if err := m.Save(lastDir); err != nil {
				return res, err
			}
			if err := writeState(cfg.Dir, st); err != nil {
				return res, err
			}
		}
		if cfg.Progress != nil {
			done := step - start
			rate := float64(done) / time.Since(t0).Seconds()
			last := "-"
			if n := len(st.History); n > 0 {
				last = fmt.Sprintf("%.3f (best %.3f @%d)", st.History[n-1].Score, st.BestVal, st.BestStep)
			}
			fmt.Fprintf(cfg.Progress, "\r%s/%s %s %d/%d %.2f steps/s loss %.4f val %s   ",
				cfg.Algo, cfg.Processor, bar(step, cfg.Steps), step, cfg.Steps, rate, loss, last)
		}
	}
	if cfg.Progress != nil {
		fmt.Fprintln(cfg.Progress)
	}
	if rate := SteadyRate(stepTimes); rate > 0 {
		res.StepsPerS = rate
		logMetric("train/steps_per_s", cfg.Steps, res.StepsPerS)
	}
	res.History, res.BestStep, res.BestVal = st.History, st.BestStep, st.BestVal

	// Test the best checkpoint.
	best, err := nn.Load(be, res.Checkpoint)
	if err != nil {
		return res, err
	}
	test, err := splitBatches(cfg.Algo, "test", cfg.TestSamples, cfg.Batch)
	if err != nil {
		return res, err
	}
	if res.Test, err = best.Evaluate(test); err != nil {
		return res, err
	}
	if run != nil {
		logRun(run, cfg, res)
	}
	return res, nil
}

// SteadyRate is the steady-state rate of steps with the given durations:
// one over their median, so that the first step (compilation) and the
// steps that recompile for a new shape do not count; 0 with no steps.
func SteadyRate(times []time.Duration) float64 {
	if len(times) == 0 {
		return 0
	}
	s := slices.Clone(times)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	if med <= 0 {
		return 0
	}
	return 1 / med.Seconds()
}

func bar(i, n int) string {
	const w = 20
	k := i * w / max(n, 1)
	return "[" + strings.Repeat("#", k) + strings.Repeat(".", w-k) + "]"
}

func writeState(dir string, st state) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, ".state.json.tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return os.Rename(tmp, filepath.Join(dir, "state.json"))
}

// logRun logs the test scores, the validation curve, a results table
// beside the paper's numbers and the best checkpoint.
func logRun(run *experiments.Run, cfg Config, res *Result) {
	for k, v := range res.Test {
		key := "test/" + k
		if k != "score" {
			key = "test/output/" + k
		}
		run.LogMetric(key, int64(res.BestStep), v)
	}
	run.LogMetric("val/best_score", int64(res.BestStep), res.BestVal)
	var steps, vals []float64
	for _, p := range res.History {
		steps, vals = append(steps, float64(p.Step)), append(vals, p.Score)
	}
	fig, err := plots.ValidationCurves([]plots.Panel{{Title: cfg.Algo, Series: []plots.Series{{Label: PaperModel(cfg.Processor),
		Runs: []plots.Curve{{Steps: steps, Values: vals}}}}}}, plots.DefaultCurveOptions())
	if err == nil {
		if png, err := fig.PNG(); err == nil {
			run.LogArtifact("plots/validation_curve.png", png)
		}
	}
	pv, pt := paperScores(cfg.Algo, cfg.Processor)
	run.LogTable("results.json", []string{"algorithm", "processor", "hidden", "steps", "best_step", "val_score", "test_score", "paper_val", "paper_test"},
		[][]any{{cfg.Algo, cfg.Processor, cfg.Hidden, cfg.Steps, res.BestStep, 100 * res.BestVal, 100 * res.Test["score"], pv, pt}})
	entries, _ := os.ReadDir(res.Checkpoint)
	for _, e := range entries {
		if !e.IsDir() {
			run.LogArtifactFile(filepath.Join(res.Checkpoint, e.Name()), "checkpoint/"+e.Name())
		}
	}
}

// PaperModel maps a processor to the CLRS paper's column name (processors
// the paper has no column for are returned unchanged).
func PaperModel(p string) string {
	switch p {
	case "mpnn":
		return "MPNN"
	case "pgn":
		return "PGN"
	case "gat":
		return "GAT"
	case "deepsets":
		return "Deep Sets"
	case "memnet":
		return "Memnet"
	}
	return p
}

// paperScores returns the paper's validation (Table 4) and test (Table 2)
// means in percent for an algorithm and processor, or nil.
func paperScores(algo, processor string) (val, test any) {
	if s, ok := paper.Validation[algo][PaperModel(processor)]; ok {
		val = s.Mean
	}
	if s, ok := paper.Test[algo][PaperModel(processor)]; ok {
		test = s.Mean
	}
	return val, test
}

func trainSampler(cfg Config) (*clrs.Sampler, error) {
	if cfg.Fresh {
		return clrs.NewSampler(cfg.Algo, clrs.Length(16), clrs.Seed(cfg.Seed))
	}
	if cfg.TrainLength > 0 {
		return clrs.NewSampler(cfg.Algo, clrs.Length(cfg.TrainLength), clrs.Seed(1), clrs.NumSamples(1000))
	}
	return clrs.NewSplitSampler(cfg.Algo, "train")
}

// splitBatches returns an official split (its first limit samples when
// limit > 0) in batches of at most batch samples, all padded to the
// split's number of steps so that one compiled graph serves them all.
func splitBatches(algo, split string, limit, batch int) ([]*clrs.Feedback, error) {
	s, err := clrs.NewSplitSampler(algo, split)
	if err != nil {
		return nil, err
	}
	trajs := s.Trajectories()
	if limit > 0 && limit < len(trajs) {
		trajs = trajs[:limit]
	}
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

// Evaluate scores a checkpoint on a CLRS-30 split ("train", "val" or
// "test"; limit > 0 takes its first limit samples) and returns the
// per-output scores and their mean under "score".
func Evaluate(checkpoint, split, backend string, limit int) (map[string]float64, error) {
	be, err := nn.Backend(backend)
	if err != nil {
		return nil, err
	}
	m, err := nn.Load(be, checkpoint)
	if err != nil {
		return nil, err
	}
	batches, err := splitBatches(m.Config().Algorithm, split, limit, 32)
	if err != nil {
		return nil, err
	}
	return m.Evaluate(batches)
}
