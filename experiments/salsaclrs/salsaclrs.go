// Package salsaclrs runs SALSA-CLRS's extrapolation protocol (Minder et
// al., "SALSA-CLRS: A Sparse and Scalable Benchmark for Algorithmic
// Reasoning", LoG 2023) with lib/nn's sparse model: train on Erdős–Rényi
// graphs of 4 to 16 nodes (lib/salsa's train set), select the
// parameters on the validation set (n = 16), then test on the fifteen sets
// of Erdős–Rényi, Watts–Strogatz and Delaunay graphs of 16 to 1,600 nodes.
// Each algorithm is a parent MLflow run, each test set a child run.
//
// The defaults follow SALSA-CLRS's PGN baseline (baselines/configs/*/
// PGN.yml: max aggregation over the edges, layer norm, no hint loss,
// batches of 8, learning rate 4.2e-4) at a budget a CPU affords: fewer
// steps than its 100 epochs over 10,000 graphs, and fewer test graphs for
// the larger sets (TestSamples).
package salsaclrs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/lib/salsa"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// Config is an extrapolation run. Zero values take the defaults.
type Config struct {
	Algos     []string // default: SALSA-CLRS's six
	Processor string   // one of nn.SparseProcessors() (default pgn)
	HintMode  string   // default none (SALSA-CLRS's hint loss weight is 0)
	Hidden    int      // default 64
	Batch     int      // training graphs per step (default 8)
	Steps     int      // training steps (default 2000)
	LR        float64  // default 4.2e-4 (SALSA-CLRS's)
	Seed      int64    // model seed (default 42)
	DataSeed  uint32   // lib/salsa's sample seed (default 1)
	// TrainSamples and ValSamples are the training and validation set
	// sizes (default SALSA-CLRS's 10,000 and a CPU's 200 of its 1,000).
	TrainSamples, ValSamples int
	EvalEvery                int // validate every this many steps (default 200)
	// TestSets are lib/salsa's test set names (default all fifteen).
	TestSets []string
	// TestSamples caps a test set of n nodes at TestSamples(n) graphs
	// (default: 1,000 up to 160 nodes, 40 at 800, 20 at 1,600).
	TestSamples func(n int) int
	// NodesPerBatch bounds the nodes of an evaluation batch (default
	// 16,384).
	NodesPerBatch int
	Backend       string
	Experiment    string // MLflow experiment (default salsa-clrs)
	NoMLflow      bool
	TrackingURI   string
	Progress      io.Writer // progress lines (nil: none)
	// Dir, when set, keeps each finished algorithm's result (DIR/ALGO.json,
	// with its settings), the table DIR/results.md and the figure
	// DIR/figure.png; an algorithm already there with the same settings
	// is not run again, so a killed run resumes. Training checkpoints go
	// to DIR/ALGO (last/, best/): an interrupted training resumes from
	// its last evaluation.
	Dir string

	// afterStep, when set, is called after every training step (tests
	// interrupt a training with it).
	afterStep func(algo string, step int)
}

// DefaultTestSamples is the default test-set cap.
func DefaultTestSamples(n int) int {
	switch {
	case n <= 160:
		return 1000
	case n <= 800:
		return 40
	}
	return 20
}

func (c *Config) defaults() error {
	if len(c.Algos) == 0 {
		c.Algos = salsa.Algorithms()
	}
	if c.Processor == "" {
		c.Processor = "pgn"
	}
	if c.HintMode == "" {
		c.HintMode = "none"
	}
	def := func(x *int, v int) {
		if *x == 0 {
			*x = v
		}
	}
	def(&c.Hidden, 64)
	def(&c.Batch, 8)
	def(&c.Steps, 2000)
	def(&c.TrainSamples, 10000)
	def(&c.ValSamples, 200)
	def(&c.EvalEvery, 200)
	def(&c.NodesPerBatch, 16384)
	if c.LR == 0 {
		c.LR = 4.2e-4
	}
	if c.Seed == 0 {
		c.Seed = 42
	}
	if c.DataSeed == 0 {
		c.DataSeed = 1
	}
	if c.TestSamples == nil {
		c.TestSamples = DefaultTestSamples
	}
	if c.Experiment == "" {
		c.Experiment = "salsa-clrs"
	}
	if len(c.TestSets) == 0 {
		for _, s := range salsa.Sets() {
			if s.Split == "test" {
				c.TestSets = append(c.TestSets, s.Name)
			}
		}
	}
	for _, a := range c.Algos {
		if !slices.Contains(salsa.Algorithms(), a) {
			return fmt.Errorf("salsaclrs: unknown algorithm %q (want one of %s)", a, strings.Join(salsa.Algorithms(), ", "))
		}
	}
	for _, s := range c.TestSets {
		set, err := salsa.LookupSet(s)
		if err != nil {
			return err
		}
		if set.Split != "test" {
			return fmt.Errorf("salsaclrs: %s is not a test set", s)
		}
	}
	if !slices.Contains(nn.SparseProcessors(), c.Processor) {
		return fmt.Errorf("salsaclrs: processor %q has no sparse form (want one of %s)", c.Processor, strings.Join(nn.SparseProcessors(), ", "))
	}
	if c.HintMode == "encoded_decoded" {
		return fmt.Errorf("salsaclrs: hint mode encoded_decoded needs the test sets' hints, which lib/salsa does not keep; use decoded_only or none")
	}
	if c.Steps < 1 || c.Batch < 1 || c.Hidden < 1 || c.EvalEvery < 1 {
		return fmt.Errorf("salsaclrs: steps, batch, hidden and eval-every must be positive")
	}
	return nil
}

// SetResult is one test set's evaluation.
type SetResult struct {
	Set     string             `json:"set"`
	Family  string             `json:"family"`
	N       int                `json:"n"`
	Samples int                `json:"samples"`
	Scores  map[string]float64 `json:"scores"`
	Seconds float64            `json:"seconds"`
	RunID   string             `json:"run_id,omitempty"`
}

// Result is one algorithm's run.
type Result struct {
	Algo     string      `json:"algo"`
	BestVal  float64     `json:"best_val"`
	BestStep int         `json:"best_step"`
	Tests    []SetResult `json:"tests"`
	RunID    string      `json:"run_id,omitempty"`
	Seconds  float64     `json:"seconds"`
}

func (c *Config) say(format string, args ...any) {
	if c.Progress != nil {
		fmt.Fprintf(c.Progress, format+"\n", args...)
	}
}

// Params are an algorithm's run parameters as logged.
func (c *Config) Params(algo string) map[string]string {
	return map[string]string{
		"algorithm": algo, "processor": c.Processor, "hint_mode": c.HintMode, "hidden_size": strconv.Itoa(c.Hidden),
		"batch_size": strconv.Itoa(c.Batch), "train_steps": strconv.Itoa(c.Steps), "learning_rate": fmt.Sprint(c.LR),
		"seed": strconv.FormatInt(c.Seed, 10), "data_seed": strconv.FormatUint(uint64(c.DataSeed), 10),
		"train_samples": strconv.Itoa(c.TrainSamples), "val_samples": strconv.Itoa(c.ValSamples),
		"eval_every": strconv.Itoa(c.EvalEvery), "test_sets": strings.Join(c.TestSets, ","),
		"nodes_per_eval_batch": strconv.Itoa(c.NodesPerBatch),
		"protocol":             "SALSA-CLRS: train ER n in {4,7,11,13,16}, best val (ER n=16), test ER/WS/Delaunay n=16..1600",
	}
}

// Run trains and tests each algorithm in turn.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if _, choice, err := nn.BackendChoice(cfg.Backend); err != nil {
		return nil, err
	} else {
		cfg.say("backend %s", choice.Kind)
	}
	var out []Result
	for _, algo := range cfg.Algos {
		var r, prior *Result
		var err error
		if cfg.Dir != "" {
			if r, err = loadDone(cfg.Dir, algo, cfg.Params(algo)); err != nil {
				return out, err
			}
			if r != nil {
				cfg.say("%s: done before (%s), not run again", algo, filepath.Join(cfg.Dir, algo+".json"))
			} else if prior, err = loadPartial(cfg.Dir, algo, cfg.Params(algo)); err != nil {
				return out, err
			}
		}
		if r == nil {
			if r, err = runAlgo(ctx, &cfg, algo, prior); err != nil {
				return out, err
			}
			if cfg.Dir != "" {
				if err := saveResult(cfg.Dir, cfg.Params(algo), r); err != nil {
					return append(out, *r), err
				}
			}
		}
		out = append(out, *r)
		if cfg.Dir != "" {
			if err := writeSummary(cfg.Dir, finishedIn(&cfg, out)); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// finishedIn is out with the algorithms DIR holds finished with this run's
// settings though this run did not ask for them (an earlier run's
// --algos): the summary (results.md, figure.png) covers the whole
// directory.
func finishedIn(cfg *Config, out []Result) []Result {
	all := slices.Clone(out)
	for _, a := range salsa.Algorithms() {
		if slices.ContainsFunc(out, func(r Result) bool { return r.Algo == a }) {
			continue
		}
		if r, err := loadDone(cfg.Dir, a, cfg.Params(a)); err == nil && r != nil {
			all = append(all, *r)
		}
	}
	return all
}

// runAlgo trains and tests one algorithm. With a directory (Config.Dir)
// the training is checkpointed at every evaluation (DIR/ALGO/last, the best
// in DIR/ALGO/best) and an interrupted one resumes there exactly; prior,
// when not nil, is an interrupted run's partial result: when the trained
// model's best validation is prior's, the test sets prior holds are not
// evaluated again.
func runAlgo(ctx context.Context, cfg *Config, algo string, prior *Result) (res *Result, err error) {
	t0 := time.Now()
	_, choice, err := nn.BackendChoice(cfg.Backend) // cached: the one backend of the run
	if err != nil {
		return nil, err
	}
	tr, err := newTraining(ctx, cfg, algo)
	if err != nil {
		return nil, err
	}
	defer tr.close()
	res = &Result{Algo: algo, BestVal: -1}
	var run *tracking.Run
	if !cfg.NoMLflow {
		if run, err = startRun(ctx, cfg, algo, choice.Kind, &tr.st); err != nil {
			return nil, err
		}
		res.RunID = run.ID()
		defer func() {
			if endErr := run.EndWith(context.WithoutCancel(ctx), err); endErr != nil {
				switch {
				case err == nil:
					err = endErr
				case errors.Is(endErr, mlflow.ErrLost):
					err = fmt.Errorf("%w; and the MLflow run: %w", err, endErr)
				}
			}
		}()
	}
	if err := tr.train(ctx, run); err != nil {
		return nil, err
	}
	res.BestVal, res.BestStep = tr.st.BestVal, tr.st.BestStep
	if err := logMetric(run, "val/best_score", int64(res.BestStep), res.BestVal); err != nil {
		return nil, err
	}
	if err := testAll(ctx, cfg, tr.m, run, res, prior); err != nil {
		return nil, err
	}
	res.Seconds = time.Since(t0).Seconds()
	if run != nil {
		rows := make([][]any, len(res.Tests))
		for i, t := range res.Tests {
			rows[i] = []any{t.Set, t.Family, t.N, t.Samples, t.Scores["score"], t.Seconds}
		}
		if err := run.LogTable("tables/test_sets.json", []string{"set", "family", "n", "samples", "score", "seconds"}, rows); err != nil {
			return nil, fmt.Errorf("salsaclrs: %s: logging to MLflow: %w", algo, err)
		}
	}
	return res, nil
}

// startRun starts an algorithm's MLflow run; a resumed training's run
// carries the validation curve it resumes from.
func startRun(ctx context.Context, cfg *Config, algo, backend string, st *trainState) (*tracking.Run, error) {
	params := cfg.Params(algo)
	params["backend"] = backend
	params["resumed_at_step"] = strconv.Itoa(st.Step)
	name := fmt.Sprintf("salsa %s/%s h%d", algo, cfg.Processor, cfg.Hidden)
	if st.Step > 0 {
		name += fmt.Sprintf(" @%d", st.Step)
	}
	opts := []tracking.Option{tracking.RunName(name),
		tracking.Source("narlab salsa run"), tracking.Tags(map[string]string{"benchmark": "SALSA-CLRS", "algorithm": algo,
			"resumed_at_step": strconv.Itoa(st.Step)}),
		tracking.Note(fmt.Sprintf("SALSA-CLRS extrapolation of %s: %s trained on ER graphs of 4–16 nodes, "+
			"tested on %d sets up to 1,600 nodes (a child run per set).", algo, cfg.Processor, len(cfg.TestSets)))}
	if cfg.TrackingURI != "" {
		opts = append(opts, tracking.TrackingURI(cfg.TrackingURI))
	}
	run, err := tracking.Start(ctx, cfg.Experiment, params, opts...)
	if err != nil {
		return nil, err
	}
	for _, p := range st.History {
		if err := logMetric(run, "val/score", int64(p.Step), p.Score); err != nil {
			run.EndWith(context.WithoutCancel(ctx), err)
			return nil, err
		}
	}
	return run, nil
}

// logMetric logs one value to run (nothing when run is nil), saying what
// failed when it fails.
func logMetric(run *tracking.Run, key string, step int64, v float64) error {
	if run == nil {
		return nil
	}
	if err := run.LogMetric(key, step, v); err != nil {
		return fmt.Errorf("salsaclrs: logging %s to MLflow: %w", key, err)
	}
	return nil
}

// testAll tests the model on every test set, keeping those of prior (an
// interrupted run's) when the model is prior's, and logs their scores.
func testAll(ctx context.Context, cfg *Config, m *nn.Sparse, run *tracking.Run, res *Result, prior *Result) error {
	reuse := map[string]SetResult{}
	if prior != nil {
		// The same best step and validation score (up to float rounding: the
		// score is a mean of counts, summed per graph or pooled) is the
		// same model.
		if prior.BestStep == res.BestStep && math.Abs(prior.BestVal-res.BestVal) <= 1e-9 {
			for _, t := range prior.Tests {
				reuse[t.Set] = t
			}
			cfg.say("%s: the model is the interrupted run's (best val %.3f at step %d): %d test sets kept",
				res.Algo, res.BestVal, res.BestStep, len(reuse))
		} else {
			cfg.say("%s: the model differs from the interrupted run's (best val %.4f at step %d, then %.4f at %d): every set is tested again",
				res.Algo, res.BestVal, res.BestStep, prior.BestVal, prior.BestStep)
		}
	}
	for _, name := range cfg.TestSets {
		var sr *SetResult
		var err error
		if t, ok := reuse[name]; ok {
			sr = &t
			cfg.say("%s: %s: score %.3f (kept from the interrupted run)", res.Algo, name, sr.Scores["score"])
			if err := logSet(ctx, cfg, run, res.Algo, sr, t.RunID); err != nil {
				return err
			}
		} else if sr, err = testSet(ctx, cfg, m, run, res.Algo, name); err != nil {
			return err
		}
		res.Tests = append(res.Tests, *sr)
		if cfg.Dir != "" {
			if err := savePartial(cfg.Dir, cfg.Params(res.Algo), res); err != nil {
				return err
			}
		}
		if err := logMetric(run, "test/"+name+"/score", 0, sr.Scores["score"]); err != nil {
			return err
		}
	}
	return nil
}

// logSet logs a test set's result as a child run of parent (nothing when
// parent is nil); evaluatedIn, when set, is the run whose session evaluated
// it (a resumed run reusing its scores).
func logSet(ctx context.Context, cfg *Config, parent *tracking.Run, algo string, sr *SetResult, evaluatedIn string) error {
	if parent == nil {
		return nil
	}
	tags := map[string]string{"benchmark": "SALSA-CLRS", "algorithm": algo, "test_set": sr.Set, "family": sr.Family}
	if evaluatedIn != "" {
		tags["evaluated_in_run"] = evaluatedIn
	}
	opts := []tracking.Option{tracking.Parent(parent.ID()), tracking.RunName(fmt.Sprintf("salsa %s %s", algo, sr.Set)),
		tracking.Source("narlab salsa run"), tracking.Tags(tags),
		tracking.Note(fmt.Sprintf("%s tested on %s: %d graphs of %d nodes.", algo, sr.Set, sr.Samples, sr.N))}
	if cfg.TrackingURI != "" {
		opts = append(opts, tracking.TrackingURI(cfg.TrackingURI))
	}
	child, err := tracking.Start(ctx, cfg.Experiment, map[string]string{"algorithm": algo, "test_set": sr.Set,
		"family": sr.Family, "n": strconv.Itoa(sr.N), "samples": strconv.Itoa(sr.Samples)}, opts...)
	if err != nil {
		return err
	}
	sr.RunID = child.ID()
	var lerr error
	for _, k := range slices.Sorted(maps.Keys(sr.Scores)) {
		if lerr = logMetric(child, "test/"+k, 0, sr.Scores[k]); lerr != nil {
			break
		}
	}
	if lerr == nil {
		lerr = logMetric(child, "test/seconds", 0, sr.Seconds)
	}
	if lerr != nil {
		child.EndWith(context.WithoutCancel(ctx), lerr)
		return lerr
	}
	return child.End(context.WithoutCancel(ctx), mlflow.StatusFinished)
}

// protocolScores are the scores the protocol selects on and reports:
// SALSA-CLRS's, means over the graphs of each graph's score ("score" and
// each output's name: node accuracy for pointers, node F1 for masks,
// rounded-value graph accuracy for scalars; nn.Sparse's "salsa_score" and
// "salsa/OUTPUT"), with CLRS's pooled scores beside them ("clrs_score",
// "clrs/OUTPUT"). For pointer outputs on a set of equal-sized graphs the
// two agree.
func protocolScores(sc map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range sc {
		switch {
		case k == "score":
			out["clrs_score"] = v
		case k == "salsa_score":
			out["score"] = v
		case strings.HasPrefix(k, "salsa/"):
			out[strings.TrimPrefix(k, "salsa/")] = v
		default:
			out["clrs/"+k] = v
		}
	}
	return out
}

// testSet evaluates the model on one test set, logged as a child run.
func testSet(ctx context.Context, cfg *Config, m *nn.Sparse, parent *tracking.Run, algo, name string) (*SetResult, error) {
	set, err := salsa.LookupSet(name)
	if err != nil {
		return nil, err
	}
	n := set.Family.N[0]
	count := min(cfg.TestSamples(n), set.Samples)
	t0 := time.Now()
	ds, err := salsa.NewDataset(ctx, algo, set, cfg.DataSeed, count, false, salsa.DatasetOptions{})
	if err != nil {
		return nil, err
	}
	bs, err := batches(m, ds.Trajectories, cfg.NodesPerBatch)
	if err != nil {
		return nil, err
	}
	sc, err := m.EvaluateProgress(bs, func(i int) {
		if len(bs) > 1 {
			cfg.say("%s: %s: batch %d of %d evaluated (%.0f s)", algo, name, i+1, len(bs), time.Since(t0).Seconds())
		}
	})
	release(bs)
	if err != nil {
		return nil, err
	}
	sc = protocolScores(sc)
	sr := &SetResult{Set: name, Family: set.Family.Kind.String(), N: n, Samples: count, Scores: sc, Seconds: time.Since(t0).Seconds()}
	cfg.say("%s: %s (%d graphs of %d nodes): score %.3f in %.1f s", algo, name, count, n, sc["score"], sr.Seconds)
	if err := logSet(ctx, cfg, parent, algo, sr, ""); err != nil {
		return nil, err
	}
	return sr, nil
}

// batches splits trajectories into batches of at most nodes nodes (at
// least one graph each).
func batches(m *nn.Sparse, trajs []*salsa.Trajectory, nodes int) ([]*nn.SparseBatch, error) {
	var out []*nn.SparseBatch
	for lo := 0; lo < len(trajs); {
		hi, total := lo, 0
		for hi < len(trajs) && (hi == lo || total+trajs[hi].Graph.N <= nodes) {
			total += trajs[hi].Graph.N
			hi++
		}
		b, err := m.Batch(trajs[lo:hi])
		if err != nil {
			release(out)
			return nil, err
		}
		out = append(out, b)
		lo = hi
	}
	return out, nil
}

func release(bs []*nn.SparseBatch) {
	for _, b := range bs {
		b.Release()
	}
}
