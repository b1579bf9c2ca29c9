package nn

import (
	"fmt"
	"math"
	"testing"

	"github.com/gomlx/compute"
	"github.com/narlab/narlab/lib/nn/engine"
)

// TestOneProgramSameFunction checks that a training step run as one
// program (engine.StepLoopProgram: the forward and reverse loops, the head
// and the update in one compiled program) computes the step loop's
// function: the same loss and gradient with respect to every variable on a
// batch, and the same parameters after several training steps (clipping
// and Adam inside the program), on both backends, over probe types and
// processors that exercise the carry's fed hints, triplet readouts, and
// training's random draws (draws.go: made on the host from the step's key,
// stacked over the steps and sliced inside the loops' bodies): teacher
// forcing below 1 with dropout, and the Gumbel noise of permutation
// outputs in the head. Every case runs on the pure-Go backend; XLA, which
// compiles slowly, runs heapsort/triplet_gmpnn, the case that draws all
// three kinds of random values (teacher forcing, dropout, Gumbel noise)
// through a triplet processor: the other cases' probe types and
// processors are the same graph on either backend (XLA's step loop is
// checked against the unrolled model by TestStepLoopSameFunction).
func TestOneProgramSameFunction(t *testing.T) {
	cases := []struct {
		algo, processor  string
		teacher, dropout float64
		n                int
		xla              bool // also on XLA
	}{
		{"insertion_sort", "mpnn", 0, 0, 5, false},         // permutation pointer (Gumbel noise) + mask_one output, node pointer and mask hints
		{"bfs", "pgn", 0.5, 0.1, 6, false},                 // edge mask input, teacher forcing < 1 and dropout
		{"heapsort", "triplet_gmpnn", 0.5, 0.2, 4, true},   // permutation pointer, triplet processor, teacher forcing and dropout
		{"floyd_warshall", "triplet_mpnn", 0, 0, 4, false}, // edge outputs read the triplet edge latents
		{"binary_search", "memnet", 0, 0, 5, false},        // graph pointer output, memory network
	}
	for name, be := range testBackends(t) {
		for _, c := range cases {
			if name != "go" && !c.xla {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s/%s", name, c.algo, c.processor), func(t *testing.T) {
				testOneProgram(t, be, c.algo, c.processor, c.teacher, c.dropout, c.n)
			})
		}
	}
}

func testOneProgram(t *testing.T, be compute.Backend, algo, processor string, teacher, dropout float64, n int) {
	fb := fixedBatch(t, algo, n, 3)
	mk := func(mode string) *Model {
		cfg := DefaultConfig(algo, processor)
		cfg.Hidden, cfg.TeacherForcing, cfg.Dropout, cfg.Exec.StepLoop = 16, teacher, dropout, mode
		m, err := New(be, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		return m
	}
	loop, one := mk(engine.StepLoopLoop), mk(engine.StepLoopProgram)
	S := fb.MaxSteps() - 1
	if S < 2 {
		t.Fatalf("the batch has %d algorithm steps; want several", S)
	}

	dl := one.drawLayout()
	if (teacher > 0 && teacher < 1) != dl.teacher || (dropout > 0) != dl.dropout {
		t.Fatalf("draws %+v for teacher forcing %g and dropout %g", dl, teacher, dropout)
	}
	if perm := algo == "insertion_sort" || algo == "heapsort"; perm != (len(dl.perms) > 0) {
		t.Fatalf("%s: head draws for %d permutation outputs", algo, len(dl.perms))
	}

	// Loss and gradients from the same parameters and draws (the first
	// training step's key: loopGradients draws with it too).
	ll, gl := loopGradients(t, loop, fb)
	bd, err := one.batchOf(fb)
	if err != nil {
		t.Fatal(err)
	}
	one.setDraws(bd, one.stepKey(one.Step()))
	lo, gs, err := one.loop.TrainProgram(bd, engine.StepBucket(bd.S), false)
	bd.Release()
	if err != nil {
		t.Fatal(err)
	}
	var gp [][]float64
	for _, g := range gs {
		gp = append(gp, flat32(t, g))
	}
	engine.Free(gs...)
	if math.Abs(ll-lo) > 1e-5*math.Max(1, math.Abs(ll)) {
		t.Errorf("loss: loop %.7f, one program %.7f", ll, lo)
	}
	compareModelGradients(t, loop, one, gl, gp)

	// Parameters after training steps (clipping, Adam, the random draws).
	for step := 1; step <= 3; step++ {
		a, err := loop.TrainStep(fb)
		if err != nil {
			t.Fatal(err)
		}
		b, err := one.TrainStep(fb)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(a-b) > 1e-4*math.Max(1, math.Abs(a)) {
			t.Errorf("training step %d: loss %.7f in the loop, %.7f as one program", step, a, b)
		}
	}
	if a, b := loop.Step(), one.Step(); a != 3 || b != 3 {
		t.Errorf("global steps %d (loop) and %d (one program); want 3", a, b)
	}
	params := func(m *Model) map[string][]float64 {
		out := map[string][]float64{}
		for _, v := range engine.TrainableVariables(m.store.RootScope()) {
			val, err := v.Value()
			if err != nil {
				t.Fatal(err)
			}
			out[v.Path()] = flat32(t, val)
		}
		return out
	}
	pl, po := params(loop), params(one)
	if len(pl) != len(po) {
		t.Fatalf("%d trainable variables in the loop model, %d in the one-program model", len(pl), len(po))
	}
	for path, want := range pl {
		got, ok := po[path]
		if !ok {
			t.Fatalf("variable %s missing from the one-program model", path)
		}
		if d := relDiff(got, want); d > 1e-4 {
			t.Errorf("%s after 3 steps: relative difference %.2g", path, d)
		}
	}
}

// compareModelGradients compares gradients of two models' trainable
// variables, matched by path, as TestStepLoopSameFunction does.
func compareModelGradients(t *testing.T, a, b *Model, ga, gb [][]float64) {
	t.Helper()
	va := engine.TrainableVariables(a.store.RootScope())
	index := map[string]int{}
	for i, v := range engine.TrainableVariables(b.store.RootScope()) {
		index[v.Path()] = i
	}
	if len(ga) != len(gb) || len(ga) != len(va) || len(index) != len(va) {
		t.Fatalf("%d and %d gradients, %d trainable variables", len(ga), len(gb), len(va))
	}
	var global float64
	for _, g := range ga {
		for _, x := range g {
			global += x * x
		}
	}
	global = math.Sqrt(global)
	nonzero := 0
	for i, v := range va {
		j, ok := index[v.Path()]
		if !ok {
			t.Fatalf("variable %s is in one model only", v.Path())
		}
		if d := relDiff(gb[j], ga[i]); d > 1e-4 && d*l2(ga[i]) > 1e-6*global {
			t.Errorf("gradient of %s: relative difference %.2g (norm %.3g, global norm %.3g)", v.Path(), d, l2(ga[i]), global)
		}
		if l2(ga[i]) > 0 {
			nonzero++
		}
	}
	if nonzero < len(va)/2 {
		t.Errorf("only %d of %d gradients are nonzero: the comparison checks little", nonzero, len(va))
	}
}
