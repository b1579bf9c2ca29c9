package nn

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn/engine"
	"github.com/narlab/narlab/lib/salsa"
)

// flat32 copies a float32 tensor's values.
func flat32(t *testing.T, x *tensors.Tensor) []float64 {
	t.Helper()
	var out []float64
	if err := x.ConstFlatData(func(f any) {
		for _, v := range f.([]float32) {
			out = append(out, float64(v))
		}
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// unrolledGradients is the loss of a batch and its gradient with respect to
// every trainable variable, computed by differentiating the unrolled
// program (GoMLX's reverse mode over the whole graph): the reference the
// step loop's reverse loop is checked against.
func unrolledGradients(t *testing.T, m *Model, fb *clrs.Feedback) (float64, [][]float64) {
	t.Helper()
	bd, err := m.batchOf(fb)
	if err != nil {
		t.Fatal(err)
	}
	defer bd.Release()
	return unrolledGradientsOf(t, m, bd)
}

// unrolledGradientsOf is unrolledGradients of a laid-out batch (its draws
// those of the model's next training step, unless it has its own).
func unrolledGradientsOf(t *testing.T, m *Model, bd *batchTensors) (float64, [][]float64) {
	t.Helper()
	if bd.draws == nil {
		m.setDraws(bd, m.stepKey(m.Step()))
	}
	exec, err := model.NewExec(m.backend, m.store, func(scope *model.Scope, in []*Node) []*Node {
		g := in[0].Graph()
		scope.Store().SetTraining(g, true)
		gi := splitInputs(m.spec, in, m.drawLayout(), true)
		outs, hintLoss := m.forward(scope, gi, true)
		loss := m.outputLoss(outs, gi.outputs)
		if hintLoss != nil {
			loss = Add(loss, hintLoss)
		}
		var wrt []*Node
		for _, v := range engine.TrainableVariables(scope) {
			wrt = append(wrt, v.NodeValue(g))
		}
		return append([]*Node{loss}, Gradient(loss, wrt...)...)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	res, err := exec.Call(bd.unrolledTrainArgs()...)
	if err != nil {
		t.Fatal(err)
	}
	loss := flat32(t, res[0])[0]
	var grads [][]float64
	for _, g := range res[1:] {
		grads = append(grads, flat32(t, g))
	}
	return loss, grads
}

// loopGradients is the same from the step loop's forward and reverse loops.
func loopGradients(t *testing.T, m *Model, fb *clrs.Feedback) (float64, [][]float64) {
	t.Helper()
	bd, err := m.batchOf(fb)
	if err != nil {
		t.Fatal(err)
	}
	defer bd.Release()
	m.setDraws(bd, m.stepKey(m.Step()))
	loss, gs, err := m.loop.LossAndGradients(bd, false)
	if err != nil {
		t.Fatal(err)
	}
	var grads [][]float64
	for _, g := range gs {
		grads = append(grads, flat32(t, g))
	}
	engine.Free(gs...)
	return loss, grads
}

func l2(a []float64) float64 {
	var n float64
	for _, x := range a {
		n += x * x
	}
	return math.Sqrt(n)
}

// relDiff is ‖a − b‖ / max(‖b‖, tiny).
func relDiff(a, b []float64) float64 {
	var d, n float64
	for i := range a {
		d += (a[i] - b[i]) * (a[i] - b[i])
		n += b[i] * b[i]
	}
	return math.Sqrt(d) / math.Max(math.Sqrt(n), 1e-12)
}

// TestStepLoopSameFunction checks that the step loop computes the unrolled
// model's function: the same predictions, the same loss and the same
// gradient with respect to every variable (from the same initial
// parameters, which depend only on the seed), over algorithms that cover
// every probe type at every location (node, edge and graph scalars, masks,
// mask_one, categoricals, node, edge and graph pointers, permutation
// pointers with their Gumbel noise) and every processor family, in the
// three hint modes and with teacher forcing, on the pure-Go backend. XLA,
// which compiles slowly (an unrolled program holds the whole trajectory),
// runs insertion_sort/mpnn: permutation pointers with their Gumbel noise,
// mask_one, node pointer and mask probes, with the step loop at one step a
// call and at three (TestStepsPerCall's XLA case, sharing the unrolled
// model and its compiled programs); the cases' processors and probe types
// are the same graph on either backend, and XLA's step loop is checked
// further against the one-program step (TestOneProgramSameFunction, a
// triplet processor with every random draw).
func TestStepLoopSameFunction(t *testing.T) {
	cases := []struct {
		algo, processor, hintMode string
		teacher                   float64
		n                         int
	}{
		{"insertion_sort", "mpnn", "", 0, 5},                      // permutation pointer + mask_one, node pointer and mask hints
		{"bfs", "pgn", "", 0.5, 6},                                // edge mask input, node mask/pointer, teacher forcing
		{"dfs", "triplet_gmpnn", "", 0, 5},                        // categorical hints, gated update, triplets
		{"floyd_warshall", "gatv2", "", 0, 4},                     // edge scalars and edge masks, GATv2
		{"matrix_chain_order", "triplet_mpnn", "", 0, 4},          // edge pointers, edge masks
		{"find_maximum_subarray_kadane", "gat", "", 0, 5},         // graph scalar and graph pointer probes, GAT
		{"lcs_length", "pgn_mask", "decoded_only", 0, 8},          // edge categoricals, inf_bias
		{"dag_shortest_paths", "deepsets", "", 0, 5},              // node scalar, Deep Sets
		{"binary_search", "memnet", "none", 0, 5},                 // graph pointer output, memory network
		{"minimum", "triplet_gpgn_mask", "encoded_decoded", 0, 5}, // mask_one output, gated triplets with masks
	}
	for name, be := range testBackends(t) {
		for _, c := range cases {
			if name != "go" && c.algo != "insertion_sort" {
				continue // XLA compiles slowly: one case keeps that path checked (see above)
			}
			ks := []int{1}
			if name != "go" {
				ks = append(ks, 3) // TestStepsPerCall's XLA case
			}
			t.Run(fmt.Sprintf("%s/%s/%s", name, c.algo, c.processor), func(t *testing.T) {
				testStepLoopSameFunction(t, be, c.algo, c.processor, c.hintMode, c.teacher, c.n, ks...)
			})
		}
	}
}

// testStepLoopSameFunction compares models trained in the step loop, one
// for each of stepsPerCall (its steps a call), with the unrolled one.
func testStepLoopSameFunction(t *testing.T, be compute.Backend, algo, processor, hintMode string, teacher float64, n int, stepsPerCall ...int) {
	fb := fixedBatch(t, algo, n, 3)
	mk := func(mode string, k int) *Model {
		cfg := DefaultConfig(algo, processor)
		cfg.Hidden, cfg.TeacherForcing, cfg.Exec.StepLoop = 16, teacher, mode
		if mode == engine.StepLoopLoop {
			cfg.Exec.StepsPerCall = k
		}
		if hintMode != "" {
			cfg.HintMode = hintMode
		}
		m, err := New(be, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		return m
	}
	unrolled := mk(engine.StepLoopUnroll, 0)
	var loops []*Model
	for _, k := range stepsPerCall {
		loops = append(loops, mk(engine.StepLoopLoop, k))
	}
	if T := fb.MaxSteps(); T < 3 {
		t.Fatalf("the batch has %d hint steps; want several", T)
	}

	// Predictions.
	pu, err := unrolled.Predict(fb)
	if err != nil {
		t.Fatal(err)
	}
	for i, loop := range loops {
		pl, err := loop.Predict(fb)
		if err != nil {
			t.Fatal(err)
		}
		for k, want := range pu {
			if d := relDiff(pl[k], want); d > 1e-5 {
				t.Errorf("%d steps a call: prediction %s: relative difference %.2g between the loop and the unrolled model", stepsPerCall[i], k, d)
			}
		}
	}

	// Loss and gradients, from the same parameters and random state.
	lu, gu := unrolledGradients(t, unrolled, fb)
	for i, loop := range loops {
		compareLoopGradients(t, fmt.Sprintf("%d steps a call: ", stepsPerCall[i]), loop, unrolled, fb, lu, gu)
	}

	// Training steps through each driver stay together (clipping, Adam,
	// and the random draws of teacher forcing and Gumbel noise).
	for step := 1; step <= 3; step++ {
		b, err := unrolled.TrainStep(fb)
		if err != nil {
			t.Fatal(err)
		}
		for i, loop := range loops {
			a, err := loop.TrainStep(fb)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(a-b) > 1e-4*math.Max(1, math.Abs(b)) {
				t.Errorf("%d steps a call: training step %d: loss %.7f with the loop, %.7f unrolled", stepsPerCall[i], step, a, b)
			}
		}
	}
}

// compareLoopGradients compares the step loop's loss and gradients on fb
// with the unrolled model's (lu, gu), what prefixing its errors.
func compareLoopGradients(t *testing.T, what string, loop, unrolled *Model, fb *clrs.Feedback, lu float64, gu [][]float64) {
	t.Helper()
	ll, gl := loopGradients(t, loop, fb)
	if math.Abs(ll-lu) > 1e-5*math.Max(1, math.Abs(lu)) {
		t.Errorf("%sloss: loop %.7f, unrolled %.7f", what, ll, lu)
	}
	// The two models may have created their variables in another order
	// (the first program built creates them): match them by path.
	vars := engine.TrainableVariables(loop.store.RootScope())
	unrolledIndex := map[string]int{}
	for i, v := range engine.TrainableVariables(unrolled.store.RootScope()) {
		unrolledIndex[v.Path()] = i
	}
	if len(gl) != len(gu) || len(gl) != len(vars) || len(unrolledIndex) != len(vars) {
		t.Fatalf("%s%d loop gradients, %d unrolled, %d trainable variables", what, len(gl), len(gu), len(vars))
	}
	// A gradient that is zero in exact arithmetic (the bias of a logit
	// that a softmax ignores) is rounding noise on each side: differences
	// count relative to the gradient's size, or to the global norm for
	// those.
	var global float64
	for _, g := range gu {
		for _, x := range g {
			global += x * x
		}
	}
	global = math.Sqrt(global)
	nonzero := 0
	for i, v := range vars {
		j, ok := unrolledIndex[v.Path()]
		if !ok {
			t.Fatalf("%svariable %s of the loop model is not in the unrolled one", what, v.Path())
		}
		if d := relDiff(gl[i], gu[j]); d > 1e-4 && d*l2(gu[j]) > 1e-6*global {
			t.Errorf("%sgradient of %s: relative difference %.2g (norm %.3g, global norm %.3g)", what, v.Path(), d, l2(gu[j]), global)
		}
		for _, x := range gu[j] {
			if x != 0 {
				nonzero++
				break
			}
		}
	}
	if nonzero < len(vars)/2 {
		t.Errorf("%sonly %d of %d gradients are nonzero: the comparison checks little", what, nonzero, len(vars))
	}
}

// TestStepsPerCall checks training programs that run several steps a call
// (Config.Exec.StepsPerCall) against the unrolled model, as
// TestStepLoopSameFunction does for one step a call: trajectories whose
// length is not a multiple of the steps a call (the last call padded),
// a call longer than the whole trajectory, triplet readouts, teacher
// forcing (the first step's loss and gradients), on the pure-Go backend.
// On XLA, insertion_sort/mpnn at three steps a call runs in
// TestStepLoopSameFunction's XLA case, beside the loop at one step a call
// and sharing its unrolled model (XLA compiles slowly).
func TestStepsPerCall(t *testing.T) {
	cases := []struct {
		algo, processor string
		teacher         float64
		n, k            int
	}{
		{"insertion_sort", "mpnn", 0, 5, 3},
		{"bfs", "pgn", 0.5, 6, 2},
		{"floyd_warshall", "triplet_mpnn", 0, 4, 4},
		{"binary_search", "memnet", 0, 5, 64},
	}
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("go/%s/%s/k%d", c.algo, c.processor, c.k), func(t *testing.T) {
			testStepLoopSameFunction(t, be, c.algo, c.processor, "", c.teacher, c.n, c.k)
		})
	}
}

// TestPredictInParts checks that a batch predicted in parts (as Predict
// does when a whole batch would exceed its evaluation budget) gives the whole
// batch's predictions, with trajectories of one length and of several
// (each part then runs only to its own longest).
func TestPredictInParts(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		algo, processor string
		n               int
		mixed           bool // the batch's trajectories differ in length
	}{
		{"floyd_warshall", "triplet_mpnn", 5, false}, // edge pointers: the widest decoders
		{"mst_kruskal", "mpnn", 5, true},
	} {
		t.Run(tt.algo, func(t *testing.T) {
			fb := fixedBatch(t, tt.algo, tt.n, 5)
			if mixed := slices.Min(fb.Lengths) < slices.Max(fb.Lengths); mixed != tt.mixed {
				t.Fatalf("lengths %v: want mixed lengths %v", fb.Lengths, tt.mixed)
			}
			cfg := DefaultConfig(tt.algo, tt.processor)
			cfg.Hidden = 8
			m := testModel(t, be, cfg)
			whole, err := m.Predict(fb)
			if err != nil {
				t.Fatal(err)
			}
			if m.EvalBatchSize(tt.n) < 5 {
				t.Fatalf("EvalBatchSize(%d) = %d at the default budget; the whole batch should fit", tt.n, m.EvalBatchSize(tt.n))
			}
			perSample := m.evalStepBytes(tt.n)
			// Parts of one sample; parts of two, the last padded with a
			// repeat of its sample (5 = 2 + 2 + 1).
			for _, part := range []int{1, 2} {
				if err := m.SetExecution(engine.Options{EvalMemory: int64(part) * perSample}); err != nil {
					t.Fatal(err)
				}
				if got := m.EvalBatchSize(tt.n); got != part {
					t.Fatalf("EvalBatchSize(%d) = %d under a budget of %d samples", tt.n, got, part)
				}
				parts, err := m.Predict(fb)
				if err != nil {
					t.Fatal(err)
				}
				for k, want := range whole {
					if len(parts[k]) != len(want) {
						t.Fatalf("parts of %d: %s: %d values in parts, %d whole", part, k, len(parts[k]), len(want))
					}
					if d := relDiff(parts[k], want); d > 1e-6 {
						t.Errorf("parts of %d: %s: predictions in parts differ from the whole batch's (relative %.2g)", part, k, d)
					}
				}
			}
		})
	}
}

// TestLogSinkhornHost checks evaluation's host-side Sinkhorn against the
// in-graph operator's values (both backends).
func TestLogSinkhornHost(t *testing.T) {
	x := []float32{0.3, -1.2, 2.0, 0.5, 0.1, -0.7, 1.1, 0.0, -0.4, 0.9, 0.2, -1.5, 0.6, 1.3, -0.2, 0.8, 0.05, -0.9}
	host := slices.Clone(x)
	logSinkhornHost(host, 3, 50, 0.1)
	want := make([]float64, len(host))
	for i, v := range host {
		want[i] = float64(v)
	}
	for name, be := range testBackends(t) {
		t.Run(name, func(t *testing.T) {
			e, err := model.NewExec(be, model.NewStore(), func(_ *model.Scope, in []*Node) *Node {
				return logSinkhorn(in[0], 50, 0.1, nil)
			})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Finalize()
			res, err := e.Call(tensors.FromFlatDataAndDimensions(x, 2, 3, 3))
			if err != nil {
				t.Fatal(err)
			}
			if d := relDiff(want, flat32(t, res[0])); d > 1e-5 {
				t.Errorf("host Sinkhorn differs from the graph's: relative %.2g", d)
			}
		})
	}
}

// TestReadoutEdgeLatents checks which models' step loops carry the triplet
// edge latents to the output head: only triplet processors whose outputs
// include a node pointer or an edge probe (the decoders that read edge
// latents). The outputs named here are the CLRS-30 specs' (lib/clrs).
func TestReadoutEdgeLatents(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		algo, processor string
		want            bool
	}{
		{"find_maximum_subarray_kadane", "triplet_gmpnn", false}, // start, end: node mask_one
		{"minimum", "triplet_mpnn", false},                       // min: node mask_one
		{"segments_intersect", "triplet_gmpnn", false},           // intersect: graph mask
		{"activity_selector", "triplet_gmpnn", false},            // selected: node mask
		{"bfs", "triplet_gmpnn", true},                           // pi: node pointer
		{"insertion_sort", "triplet_gmpnn", true},                // pred: permutation pointer
		{"mst_kruskal", "triplet_gmpnn", true},                   // in_mst: edge mask
		{"floyd_warshall", "triplet_pgn", true},                  // Pi: edge pointer
		{"bfs", "mpnn", false},                                   // no triplet latents at all
	}
	for _, c := range cases {
		cfg := DefaultConfig(c.algo, c.processor)
		cfg.Hidden = 8
		m, err := New(be, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.loopLayout().Extra; got != c.want {
			t.Errorf("%s/%s: the readout carries triplet latents: %v, want %v", c.algo, c.processor, got, c.want)
		}
		m.Close()
	}
}

// TestEvalLoopDevice checks that evaluation with its loop on the device
// (engine.EvalLoopDevice: one program, the step in a While) predicts what the
// host's loop over the compiled step does, on dense models of each readout
// kind (node masks, node and edge pointers with triplet latents,
// permutations) and on sparse ones with and without hoisted encodings,
// after a few training steps so that no parameter is at its
// initialisation. The batches mix trajectory lengths, so each sample's
// readout comes from a different step of the loop. The pure-Go backend runs
// every case; XLA, which compiles slowly, runs the sparse cases and two
// dense ones: bfs/mpnn (mixed lengths: the per-sample readout step; node
// pointers and masks) and floyd_warshall/triplet_mpnn (the triplet edge
// latents carried to the readout, edge pointers). The other dense cases'
// readouts (permutations, mask_one, GAT) are the same graph on either
// backend.
func TestEvalLoopDevice(t *testing.T) {
	dense := []struct {
		algo, processor string
		xla             bool // also on XLA
	}{
		{"bfs", "mpnn", true},
		{"floyd_warshall", "triplet_mpnn", true},
		{"insertion_sort", "pgn", false},
		{"find_maximum_subarray_kadane", "triplet_gmpnn", false},
		{"dfs", "gat", false},
	}
	set, err := salsa.LookupSet("er_16")
	if err != nil {
		t.Fatal(err)
	}
	sparse := []struct{ algo, processor, hintMode string }{
		{"dfs", "pgn", "none"},
		{"bfs", "gmpnn", "decoded_only"},
	}
	same := func(t *testing.T, what string, got, want Predictions) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d outputs on the device, %d on the host", what, len(got), len(want))
		}
		for k, w := range want {
			if len(got[k]) != len(w) {
				t.Fatalf("%s: %s has %d predictions on the device, %d on the host", what, k, len(got[k]), len(w))
			}
			if d := relDiff(got[k], w); d > 1e-5 {
				t.Errorf("%s: %s differs between the device's loop and the host's (relative %.2g)", what, k, d)
			}
		}
	}
	mixed := 0 // dense batches whose trajectories have different lengths
	for name, be := range testBackends(t) {
		xlaMixed := false
		for _, tt := range dense {
			if name != "go" && !tt.xla {
				continue
			}
			what := fmt.Sprintf("%s %s/%s", name, tt.algo, tt.processor)
			fb := fixedBatch(t, tt.algo, 6, 4)
			if slices.Min(fb.Lengths) < slices.Max(fb.Lengths) {
				mixed++
				xlaMixed = xlaMixed || name != "go"
			}
			cfg := DefaultConfig(tt.algo, tt.processor)
			cfg.Hidden = 8
			m, err := New(be, cfg)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, err := m.TrainStep(fb); err != nil {
					t.Fatal(err)
				}
			}
			host, err := m.Predict(fb)
			if err != nil {
				t.Fatal(err)
			}
			m.loop.SetEvalOnDevice(true)
			device, err := m.Predict(fb)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			m.Close()
			same(t, what, device, host)
		}
		if name != "go" && !xlaMixed {
			t.Errorf("%s: no dense batch mixed trajectory lengths: the per-sample readout step went untested there", name)
		}
		for _, tt := range sparse {
			what := fmt.Sprintf("%s sparse %s/%s", name, tt.algo, tt.processor)
			ds, err := salsa.NewDataset(t.Context(), tt.algo, set, 5, 3, false, salsa.DatasetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := DefaultConfig(tt.algo, tt.processor)
			cfg.Hidden, cfg.HintMode, cfg.Exec.EvalLoop = 8, tt.hintMode, engine.EvalLoopDevice
			m, err := NewSparse(be, cfg)
			if err != nil {
				t.Fatal(err)
			}
			b, err := m.Batch(ds.Trajectories)
			if err != nil {
				t.Fatal(err)
			}
			if !m.loop.EvalOnDevice() {
				t.Fatalf("%s: evaluates on the host although EvalLoop is %q", what, cfg.Exec.EvalLoop)
			}
			device, err := m.Predict(b)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			m.loop.SetEvalOnDevice(false)
			host, err := m.Predict(b)
			if err != nil {
				t.Fatal(err)
			}
			b.Release()
			m.Close()
			same(t, what, device, host)
		}
	}
	if mixed == 0 {
		t.Error("no dense batch mixed trajectory lengths: the per-sample readout step went untested")
	}
}

// TestSetExecution checks the setter a resumed run uses to apply this
// session's execution options to a model loaded from a checkpoint: a change
// of the steps a call rebuilds the training programs (the same loss and
// gradients after it as before), a change of the evaluation loop moves it
// (the same predictions), and it refuses what New refuses.
func TestSetExecution(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	// bfs draws nothing at random in training (no permutation's Gumbel
	// noise, no teacher forcing), so two gradients in a row are comparable.
	fb := fixedBatch(t, "bfs", 6, 3)
	cfg := DefaultConfig("bfs", "mpnn")
	cfg.Hidden, cfg.Exec.StepLoop = 8, engine.StepLoopLoop
	m := testModel(t, be, cfg)
	l1, g1 := loopGradients(t, m, fb)
	p1, err := m.Predict(fb)
	if err != nil {
		t.Fatal(err)
	}
	three := engine.Options{StepLoop: engine.StepLoopLoop, StepsPerCall: 3, EvalLoop: engine.EvalLoopDevice}
	if err := m.SetExecution(three); err != nil {
		t.Fatal(err)
	}
	if m.loop.StepsPerCall() != 3 || !m.loop.EvalOnDevice() || m.Config().Exec != three {
		t.Fatalf("after the setters: %d steps a call, evaluation on the device %v, config %+v", m.loop.StepsPerCall(), m.loop.EvalOnDevice(), m.Config())
	}
	l3, g3 := loopGradients(t, m, fb)
	if math.Abs(l1-l3) > 1e-5*math.Max(1, math.Abs(l1)) {
		t.Errorf("loss %.7f at one step a call, %.7f at three", l1, l3)
	}
	for i := range g1 {
		if d := relDiff(g3[i], g1[i]); d > 1e-4 {
			t.Errorf("gradient %d: relative difference %.2g between one and three steps a call", i, d)
		}
	}
	p3, err := m.Predict(fb)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range p1 {
		if d := relDiff(p3[k], want); d > 1e-5 {
			t.Errorf("prediction %s: relative difference %.2g between the host's loop and the device's", k, d)
		}
	}
	for _, bad := range []engine.Options{{StepsPerCall: -1}, {StepsPerCall: engine.MaxStepsPerCall + 1}, {EvalLoop: "gpu"}} {
		if err := m.SetExecution(bad); err == nil {
			t.Errorf("SetExecution(%+v) accepted", bad)
		}
	}
	if m.Config().Exec != three {
		t.Errorf("a refused SetExecution changed the options to %+v", m.Config().Exec)
	}
	if err := m.SetExecution(engine.Options{}); err != nil || m.loop.StepsPerCall() != 1 {
		t.Errorf("SetExecution(defaults): %v, %d steps a call; want one", err, m.loop.StepsPerCall())
	}
}

// TestPartSize checks how a batch over the evaluation limit is split: into
// parts that divide it where one is above half the limit, else into the
// fewest equal parts (the last padded).
func TestPartSize(t *testing.T) {
	for _, tt := range []struct{ b, limit, want int }{
		{32, 25, 16},
		{32, 15, 8},
		{32, 7, 4},
		{32, 6, 4},
		{32, 1, 1},
		{5, 2, 2}, // 2 + 2 + 1, the last part padded
		{7, 3, 3}, // 3 + 3 + 1
		{30, 7, 6},
		{31, 8, 8}, // a prime: 8 + 8 + 8 + 7
	} {
		got := partSize(tt.b, tt.limit)
		if got != tt.want {
			t.Errorf("partSize(%d, %d) = %d, want %d", tt.b, tt.limit, got, tt.want)
		}
		if got > tt.limit || got < 1 {
			t.Errorf("partSize(%d, %d) = %d: outside 1..%d", tt.b, tt.limit, got, tt.limit)
		}
	}
}
