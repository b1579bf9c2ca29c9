package nn

import (
	"math"
	"testing"

	"github.com/gomlx/compute"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn/engine"
)

// TestRunPyMultiAlgorithm replays the reference's examples/run.py training
// several algorithms in one model (fixture runpy-multi-bfs-dfs-
// insertion_sort-mpnn: bfs, dfs and insertion_sort, MPNN, hidden 8,
// batch 4, lengths 4 and 7, 4 steps, validation every 2) through a narlab
// model of the same algorithms, from the reference's initial parameters:
//
//   - the data: runPyData draws every training batch run.py drew (checked
//     against the recorded ones, bit for bit) and the validation batches;
//   - each feedback call in run.py's order (per step, one per algorithm,
//     in the list's order): its loss, the first call's gradients per
//     algorithm, and the parameters after the update (sum and sum of
//     squares of each: the processor's and that algorithm's moved, the
//     other algorithms' did not);
//   - each validation's score per algorithm, the best checkpoint by the
//     sum of the algorithms' scores (saved at the first validation too),
//     and the test scores of that checkpoint.
//
// insertion_sort's Gumbel noise is the reference's own draws (lib/jaxrand
// from the recorded keys).
func TestRunPyMultiAlgorithm(t *testing.T) {
	fx := readRunPy(t, "runpy-multi-bfs-dfs-insertion_sort-mpnn")
	for name, be := range testBackends(t) {
		for _, loop := range []string{engine.StepLoopLoop, engine.StepLoopUnroll} {
			if name != "go" && loop == engine.StepLoopUnroll {
				continue // compiling the unrolled programs on XLA takes minutes; the go backend checks that path
			}
			t.Run(name+"/"+loop, func(t *testing.T) {
				cfg := DefaultConfig("", fx.Flags.ProcessorType)
				cfg.Algorithms = fx.Flags.Algorithms
				cfg.Hidden = fx.Flags.HiddenSize
				cfg.LearningRate = fx.Flags.LearningRate
				cfg.Exec.StepLoop = loop
				replayRunPy(t, fx, be, cfg)
			})
		}
	}
}

// replayRunPy runs a (non-chunked) run.py fixture through a narlab model
// of cfg (see TestRunPyMultiAlgorithm).
func replayRunPy(t *testing.T, fx *runPyFixture, be compute.Backend, cfg Config) {
	t.Helper()
	algos := cfg.AlgorithmNames()
	data, err := newRunPyData(algos, fx.trainLengths(t), fx.Flags.Seed, fx.Flags.BatchSize, fx.Flags.LengthNeedle, fx.Flags.RandomPos)
	if err != nil {
		t.Fatal(err)
	}
	for i := range algos { // BaselineModel's dummy_trajectory: one validation batch each
		if _, err := data.val(i); err != nil {
			t.Fatal(err)
		}
	}
	m, err := New(be, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	part := func(i int) *Model {
		if m.parts == nil {
			return m
		}
		return m.parts[i]
	}
	setNoise := withReferenceNoise(t, m)
	call, evalIdx, nextEval := 0, 0, 0
	valScores := make([]float64, len(algos))
	bestScore := -1.0
	var best snapshot
	var saves []int // after how many calls best was saved
	for step := 0; step < fx.Flags.TrainSteps; step++ {
		batches := make([]*clrs.Feedback, len(algos))
		for i := range algos {
			if batches[i], err = data.train(i); err != nil {
				t.Fatal(err)
			}
		}
		if step == 0 {
			for _, fb := range batches { // creates the variables
				if _, err := m.Predict(fb); err != nil {
					t.Fatal(err)
				}
			}
			setParams(t, m, fx.Init[0].Params)
		}
		for i, fb := range batches {
			c := fx.Calls[call]
			if ai, _ := c.algorithm(t); ai != i {
				t.Fatalf("call %d: the reference trained algorithm %d, narlab %d", call, ai, i)
			}
			tf, err := cfg.Transform(fb) // the recorded batches are transformed (permutations, pred_h as an input)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameData(tf, feedbackOf(t, algos[i], c.Batch)); err != nil {
				t.Fatalf("call %d (%s): narlab's run.py data differ from the reference's: %v", call, algos[i], err)
			}
			p := part(i)
			setNoise(p, fb, c.RNG)
			if c.Grads != nil {
				checkGradients(t, call, p, fb, c.Grads)
			}
			loss, err := m.TrainStep(fb)
			if err != nil {
				t.Fatal(err)
			}
			if !closeTo(loss, c.Loss, 3e-5) {
				t.Errorf("call %d (%s): loss %.7f, the reference's %.7f", call, algos[i], loss, c.Loss)
			}
			checkDigests(t, call, digests(t, m), c.ParamsDigest)
			call++
		}
		if step < nextEval {
			continue
		}
		for i := range algos {
			vb, err := data.valRound(i)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := m.Evaluate(vb)
			if err != nil {
				t.Fatal(err)
			}
			e := fx.Evals[evalIdx]
			evalIdx++
			if e.Algorithm != algos[i] || e.Step != step {
				t.Fatalf("evaluation %d: the reference validated %s at step %d, narlab %s at %d", evalIdx, e.Algorithm, e.Step, algos[i], step)
			}
			if math.Abs(sc["score"]-e.Score) > 1e-9 {
				t.Errorf("step %d: %s validation score %.6f, the reference's %.6f", step, algos[i], sc["score"], e.Score)
			}
			valScores[i] = sc["score"]
		}
		nextEval += fx.Flags.EvalEvery
		sum := 0.0
		for _, s := range valScores {
			sum += s
		}
		if sum > bestScore || step == 0 {
			bestScore, best = sum, takeSnapshot(t, m)
			saves = append(saves, call)
		}
	}
	if call != len(fx.Calls) {
		t.Fatalf("narlab made %d feedback calls, the reference %d", call, len(fx.Calls))
	}
	if len(saves) != len(fx.Saves) {
		t.Fatalf("best checkpoint saved after calls %v; the reference saved %d times", saves, len(fx.Saves))
	}
	for k, s := range fx.Saves {
		if saves[k] != s.AfterCall {
			t.Errorf("save %d after call %d, the reference's after call %d", k, saves[k], s.AfterCall)
		}
	}
	// The test of the best checkpoint, each algorithm on the test split's
	// first 4 samples (the fixture's stand-in for the download).
	best.restore(t, m)
	checkDigests(t, -1, digests(t, m), fx.Saves[len(fx.Saves)-1].ParamsDigest)
	for i, a := range algos {
		s, err := clrs.NewSampler(a, clrs.Length(64), clrs.Seed(3), clrs.NumSamples(4))
		if err != nil {
			t.Fatal(err)
		}
		fb, err := s.Dataset()
		if err != nil {
			t.Fatal(err)
		}
		sc, err := m.Evaluate([]*clrs.Feedback{fb})
		if err != nil {
			t.Fatal(err)
		}
		e := fx.Evals[evalIdx+i]
		if e.Algorithm != a || e.SampleCount != 4 {
			t.Fatalf("evaluation %d is %s of %d samples; want %s's test", evalIdx+i, e.Algorithm, e.SampleCount, a)
		}
		if math.Abs(sc["score"]-e.Score) > 1e-9 {
			t.Errorf("%s test score of the best checkpoint %.6f, the reference's %.6f", a, sc["score"], e.Score)
		}
	}
}

// checkGradients compares a part's gradients on fb with the reference's
// (every parameter's: the other algorithms' must be zero there).
func checkGradients(t *testing.T, call int, p *Model, fb *clrs.Feedback, want map[string]refArray) {
	t.Helper()
	got := partGradients(t, p, fb)
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			for _, x := range w.Data {
				if x != 0 {
					t.Errorf("call %d: the reference's gradient of %s is nonzero; narlab's part does not train it", call, name)
					break
				}
			}
			continue
		}
		scale := 0.0
		for _, x := range w.Data {
			scale = math.Max(scale, math.Abs(x))
		}
		for k, x := range w.Data {
			if math.Abs(float64(g[k])-x) > 1e-4*math.Max(scale, 1e-3) {
				t.Errorf("call %d: gradient of %s[%d] %.7g, the reference's %.7g (largest |g| %.3g)", call, name, k, g[k], x, scale)
				break
			}
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("call %d: narlab trains %s, which the reference has no gradient for", call, name)
		}
	}
}

// checkDigests compares the parameters' sums and sums of squares with the
// reference's after a call (call -1: the best checkpoint).
func checkDigests(t *testing.T, call int, got, want map[string][2]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("call %d: %d parameters, the reference %d", call, len(got), len(want))
	}
	for name, w := range want {
		g := got[name]
		for k := range 2 {
			if !closeTo(g[k], w[k], 2e-5) {
				t.Errorf("call %d: parameter %s: sum%s %.8g, the reference's %.8g", call, name, []string{"", " of squares"}[k], g[k], w[k])
			}
		}
	}
}
