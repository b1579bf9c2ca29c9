package nn

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn/engine"
)

// TestAutoUnroll checks engine.StepLoopAuto's switch from the step loop to
// unrolled training (the pure-Go backend) or one-program steps (XLA's CPU):
// it compiles neither before its compile step
// (engine.UnrollCompileFromTrainingStep, engine.ProgramCompileFromTrainingStep);
// before its switch step (engine.UnrollFromTrainingStep,
// engine.ProgramFromTrainingStep) it trains exactly as the step loop (the same
// programs: bit-equal losses); from then on the batches run unrolled or as
// one program (StepCounts, ProgramStepCount) and the losses stay those of
// the loop up to rounding; and the run is reproducible: a second model, and
// one resumed from a checkpoint taken before the switch, give bit-equal
// losses although their background compilations finish at other times.
func TestAutoUnroll(t *testing.T) {
	for name, be := range testBackends(t) {
		t.Run(name, func(t *testing.T) { testAutoUnroll(t, be) })
	}
}

func testAutoUnroll(t *testing.T, be compute.Backend) {
	s, err := clrs.NewSampler("insertion_sort", clrs.Length(5), clrs.Seed(3), clrs.NumSamples(200))
	if err != nil {
		t.Fatal(err)
	}
	steps := engine.UnrollFromTrainingStep + 4
	var batches []*clrs.Feedback
	for range steps {
		fb, err := s.Next(4)
		if err != nil {
			t.Fatal(err)
		}
		batches = append(batches, fb)
	}
	mk := func(mode string) *Model {
		cfg := DefaultConfig("insertion_sort", "mpnn")
		cfg.Hidden, cfg.Exec.StepLoop = 16, mode
		m, err := New(be, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(m.Close)
		return m
	}
	train := func(m *Model, from, to int) []float64 {
		var losses []float64
		for _, fb := range batches[from:to] {
			l, err := m.TrainStep(fb)
			if err != nil {
				t.Fatal(err)
			}
			losses = append(losses, l)
		}
		return losses
	}
	// again saves a checkpoint two steps before the switch, which a model
	// resumes from as in a new process.
	loop, auto, again := mk(engine.StepLoopLoop), mk(engine.StepLoopAuto), mk(engine.StepLoopAuto)
	want := train(loop, 0, steps)
	program := engine.ProgramsEver(auto.cfg.Exec, auto.device, auto.traits())
	if engine.ProgramFromTrainingStep != engine.UnrollFromTrainingStep || engine.ProgramCompileFromTrainingStep != engine.UnrollCompileFromTrainingStep {
		t.Fatal("the test assumes one-program and unrolled steps switch at the same training steps")
	}
	got := train(auto, 0, engine.UnrollCompileFromTrainingStep-1)
	if n, p := auto.unroll.Compilations(), auto.loop.ProgramCompilations(); n != 0 || p != 0 {
		t.Errorf("%d unrolled programs and %d one-program steps compiled after %d steps; want none before step %d",
			n, p, engine.UnrollCompileFromTrainingStep-1, engine.UnrollCompileFromTrainingStep)
	}
	got = append(got, train(auto, engine.UnrollCompileFromTrainingStep-1, steps)...)
	cut := engine.UnrollFromTrainingStep - 2
	twice := train(again, 0, cut)
	dir := filepath.Join(t.TempDir(), "ckpt")
	if err := again.Save(dir); err != nil {
		t.Fatal(err)
	}
	twice = append(twice, train(again, cut, steps)...)
	for i := range steps {
		switch {
		case got[i] != twice[i]:
			t.Errorf("step %d: two auto runs give losses %v and %v", i, got[i], twice[i])
		case i < engine.UnrollFromTrainingStep && got[i] != want[i]:
			t.Errorf("step %d (looped): auto's loss %v, the loop's %v", i, got[i], want[i])
		case math.Abs(got[i]-want[i]) > 1e-4*math.Max(1, math.Abs(want[i])):
			t.Errorf("step %d (unrolled or one program): auto's loss %v, the loop's %v", i, got[i], want[i])
		}
	}
	wantU, wantP := int64(4), int64(0)
	if program {
		wantU, wantP = 0, 4
	}
	if l, u := auto.StepCounts(); l != int64(engine.UnrollFromTrainingStep) || u != wantU || auto.ProgramStepCount() != wantP {
		t.Errorf("auto ran %d steps in the loop, %d unrolled and %d as one program; want %d, %d and %d",
			l, u, auto.ProgramStepCount(), engine.UnrollFromTrainingStep, wantU, wantP)
	}
	if l, u := loop.StepCounts(); l != int64(steps) || u != 0 {
		t.Errorf("the loop model ran %d steps looped and %d unrolled; want %d and 0", l, u, steps)
	}

	resumed, err := Load(be, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(resumed.Close)
	rest := train(resumed, cut, steps)
	for i, l := range rest {
		if k := cut + i; l != got[k] {
			t.Errorf("step %d after resuming: loss %v, uninterrupted %v", k, l, got[k])
		}
	}
}

// TestPaddedSteps checks that padding a batch with steps (what engine.StepLoopAuto
// does to share unrolled programs between nearby lengths) changes neither
// the loss nor any gradient: on bfs, whose samples end at different steps,
// on the pure-Go backend (the backend whose StepLoopAuto switches to
// unrolled programs; on XLA it switches to one-program steps, and compiling
// the two unrolled programs there took most of this test's time).
func TestPaddedSteps(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for name, be := range map[string]compute.Backend{"go": be} {
		t.Run(name, func(t *testing.T) {
			cfg := DefaultConfig("bfs", "mpnn")
			cfg.Hidden, cfg.Exec.StepLoop = 16, engine.StepLoopUnroll
			m := testModel(t, be, cfg)
			bd, err := m.batchOf(fixedBatch(t, "bfs", 7, 4))
			if err != nil {
				t.Fatal(err)
			}
			defer bd.Release()
			padded := bd.paddedTo(bd.S + 5)
			if padded.S == bd.S || padded.T != padded.S+1 {
				t.Fatalf("padded to %d steps (T %d) from %d", padded.S, padded.T, bd.S)
			}
			lu, gu := unrolledGradientsOf(t, m, bd)
			lp, gp := unrolledGradientsOf(t, m, padded)
			if math.Abs(lu-lp) > 1e-6*math.Max(1, math.Abs(lu)) {
				t.Errorf("loss %v unpadded, %v padded to %d steps", lu, lp, padded.S)
			}
			for i := range gu {
				if d := relDiff(gp[i], gu[i]); d > 1e-5 {
					t.Errorf("gradient %d: relative difference %.2g padded", i, d)
				}
			}
		})
	}
}

// TestPaddedArgs checks the unrolled programs' arguments of a padded batch
// (which shares the unpadded batch's data): each per-step argument is the
// unpadded one followed by zero steps, every other argument is unchanged,
// and the step loop's per-step tensors past the data are zeros.
func TestPaddedArgs(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		algo  string
		extra int // steps added
	}{
		{"bfs", 1},
		{"floyd_warshall", 3}, // edge-pointer hints, [T,B,N,N,N] one-hot
		{"insertion_sort", 6},
	} {
		t.Run(tc.algo, func(t *testing.T) {
			m := testModel(t, be, DefaultConfig(tc.algo, "mpnn"))
			bd, err := m.batchOf(fixedBatch(t, tc.algo, 6, 3))
			if err != nil {
				t.Fatal(err)
			}
			defer bd.Release()
			padded := bd.paddedTo(bd.S + tc.extra)
			if padded.S != bd.S+tc.extra || padded.T != padded.S+1 {
				t.Fatalf("padded to S=%d T=%d from S=%d", padded.S, padded.T, bd.S)
			}
			plain, long := bd.unrolledArgs(), padded.unrolledArgs()
			if len(plain) != len(long) {
				t.Fatalf("%d arguments padded, %d unpadded", len(long), len(plain))
			}
			for k := range plain {
				a, b := plain[k].(*tensors.Tensor), long[k].(*tensors.Tensor)
				ad, bdims := a.Shape().Dimensions, b.Shape().Dimensions
				av, bv := tensors.MustCopyFlatData[float32](a), tensors.MustCopyFlatData[float32](b)
				switch {
				case slices.Equal(ad, bdims):
					if !slices.Equal(av, bv) {
						t.Errorf("argument %d %v: changed by padding", k, ad)
					}
				case ad[0] == bd.T && bdims[0] == padded.T || ad[0] == bd.S && bdims[0] == padded.S:
					if !slices.Equal(ad[1:], bdims[1:]) {
						t.Fatalf("argument %d: %v padded to %v", k, ad, bdims)
					}
					if !slices.Equal(bv[:len(av)], av) {
						t.Errorf("argument %d %v: the first %d steps differ from the unpadded batch's", k, ad, ad[0])
					}
					if i := slices.IndexFunc(bv[len(av):], func(x float32) bool { return x != 0 }); i >= 0 {
						t.Errorf("argument %d %v: padded step %d is not zero", k, bdims, ad[0]+i/(len(av)/ad[0]))
					}
				default:
					t.Errorf("argument %d: %v padded to %v", k, ad, bdims)
				}
			}
			for i := range padded.hints {
				for _, st := range []int{bd.T - 1, bd.T, padded.T - 1} {
					got := tensors.MustCopyFlatData[float32](padded.newHint(i, st))
					want := tensors.MustCopyFlatData[float32](bd.newHint(i, st))
					if !slices.Equal(got, want) {
						t.Errorf("hint %d at step %d: the padded batch's differs", i, st)
					}
					if st >= bd.T && slices.ContainsFunc(got, func(x float32) bool { return x != 0 }) {
						t.Errorf("hint %d at step %d (past the data): not zero", i, st)
					}
				}
			}
		})
	}
}

// TestAutoUnrollsProcessors checks which processors engine.StepLoopAuto trains
// unrolled on the pure-Go backend: the MPNN family's short batches, never a
// Triplet processor's (on XLA every processor trains as one program:
// engine.TestPlan).
func TestAutoUnrollsProcessors(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	fb := fixedBatch(t, "insertion_sort", 5, 4)
	for _, tt := range []struct {
		processor string
		unrolls   bool
	}{
		{"mpnn", true},
		{"pgn", true},
		{"gat", true},
		{"triplet_mpnn", false},
		{"triplet_gmpnn", false},
		{"triplet_pgn", false},
	} {
		cfg := DefaultConfig("insertion_sort", tt.processor)
		cfg.Hidden = 8
		m, err := New(be, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.UnrollsEver(); got != tt.unrolls {
			t.Errorf("%s: UnrollsEver() = %v, want %v", tt.processor, got, tt.unrolls)
		}
		bd, err := m.batchOf(fb)
		if err != nil {
			t.Fatal(err)
		}
		sc := m.plan(engine.Shape{Graphs: bd.B, AlgorithmSteps: bd.S, StepBytes: m.evalStepBytes(bd.N)}, engine.UnrollFromTrainingStep)
		if got := sc.Unrolled; got != tt.unrolls {
			t.Errorf("%s: a %d-step batch fits auto's unrolling: %v, want %v", tt.processor, bd.S, got, tt.unrolls)
		}
		bd.Release()
		m.Close()
	}
}
