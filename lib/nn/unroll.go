package nn

import (
	"fmt"
	"slices"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
)

// Unrolled training in StepLoopAuto.
//
// The step loop calls a few programs per step and recomputes each step's
// forward pass in its reverse loop; an unrolled program does neither and
// trains short trajectories about twice as fast, but takes seconds to
// minutes to compile per trajectory length (docs/performance.md, "Step
// loop"). StepLoopAuto has both: it trains in the loop, whose programs
// compile in a couple of seconds, and from step UnrollCompileFrom compiles
// the unrolled program of each short batch shape in the background; from
// training step UnrollFromStep on, short batches run unrolled (waiting for their
// compilation when it is not done yet). Which program runs a step depends
// only on the training step and the batch's shape, never on timing, so a
// run, and a run resumed from a checkpoint, are reproducible.

// UnrollMaxSteps is the longest batch (in processor steps, the hint length
// minus one) that StepLoopAuto trains unrolled: the CLRS-30 train split's
// fixed-length algorithms (n=16: 4 to 19 steps) but not its long ones
// (dfs 47, quicksort 91, jarvis_march 187), whose unrolled programs take
// minutes to compile and memory that grows with the length.
const UnrollMaxSteps = 24

// UnrollFromStep is the training step from which StepLoopAuto trains short
// batches unrolled; before it, from step UnrollCompileFrom, their programs
// compile in the background while the step loop trains.
const UnrollFromStep = 25

// UnrollCompileFrom is the training step from which StepLoopAuto compiles
// unrolled programs: a model trained for a few steps only (a smoke test,
// the short protocol of BenchmarkProtocol) spends no time or memory on
// programs it would never run.
const UnrollCompileFrom = 5

// UnrollMemoryBudget bounds the estimated activation memory of an unrolled
// training step (bytes); bigger batches train in the step loop.
var UnrollMemoryBudget int64 = 4 << 30

// unroller keeps StepLoopAuto's unrolled programs: which batch shapes are
// compiled or compiling, and counts of the steps each way.
type unroller struct {
	mu       sync.Mutex
	compiles map[string]*unrollCompile
	busy     bool // a background compilation is running
	wg       sync.WaitGroup
	// vars is held while training programs run (they replace the
	// variables' values) and, for reading, while the unrolled program's
	// graph is built (it reads their shapes).
	vars             sync.RWMutex
	looped, unrolled int64
}

type unrollCompile struct {
	done chan struct{}
	err  error
}

// SetStepLoop changes how the model runs the algorithm's steps (one of
// StepLoopModes; "" is StepLoopAuto), e.g. for a run resumed from a
// checkpoint saved under another mode: the function is the same.
func (m *Model) SetStepLoop(mode string) error {
	if mode == "" {
		mode = StepLoopAuto
	}
	if !slices.Contains(StepLoopModes, mode) {
		return fmt.Errorf("nn: unknown step-loop mode %q (want one of %v)", mode, StepLoopModes)
	}
	m.cfg.StepLoop = mode
	return nil
}

// SetEvalLoop changes where evaluation's loop over the steps runs (one of
// EvalLoopModes; "" is EvalLoopAuto), e.g. for a run
// resumed from a checkpoint saved with another: the predictions are the
// same.
func (m *Model) SetEvalLoop(mode string) error {
	if m.store == nil {
		return errClosed
	}
	if mode != "" && !slices.Contains(EvalLoopModes, mode) {
		return fmt.Errorf("nn: unknown evaluation-loop mode %q (want one of %v)", mode, EvalLoopModes)
	}
	m.cfg.EvalLoop = mode
	m.loop.evalOnDevice = evalLoopOnDevice(mode, m.loop.backend)
	return nil
}

// EvalLoopUsed is where evaluation's loop over the steps runs for this
// model on its backend: EvalLoopDevice or EvalLoopHost (Config.EvalLoop
// resolved; a model whose inputs change at each step evaluates on the
// host).
func (m *Model) EvalLoopUsed() string {
	if m.loop.deviceEval() {
		return EvalLoopDevice
	}
	return EvalLoopHost
}

// SetStepsPerCall changes the number of steps a training call of the step
// loop runs (see Config.StepsPerCall; 0 is one), rebuilding the step
// loop's programs when it changes (they compile again on first use): the
// function is the same.
func (m *Model) SetStepsPerCall(k int) error {
	if m.store == nil {
		return errClosed
	}
	if k < 0 || k > MaxStepsPerCall {
		return fmt.Errorf("nn: %d steps per call; want 1 to %d (0: one)", k, MaxStepsPerCall)
	}
	if max(k, 1) == m.loop.progs.k {
		m.cfg.StepsPerCall = k
		return nil
	}
	progs, err := newLoopPrograms(m, m.backend, m.store, m.opt, &m.build, k)
	if err != nil {
		return err
	}
	m.loop.progs.finalize()
	m.loop.progs = progs
	m.cfg.StepsPerCall = k
	return nil
}

// StepCounts returns how many training steps this model (since New or
// Load) ran in the step loop and how many unrolled.
func (m *Model) StepCounts() (looped, unrolled int64) {
	m.unroll.mu.Lock()
	defer m.unroll.mu.Unlock()
	return m.unroll.looped, m.unroll.unrolled
}

// unrollShapes are the unrolled program's input shapes for a batch.
func (bd *batchTensors) unrollShapes() []shapes.Shape {
	var out []shapes.Shape
	for _, t := range bd.inputs {
		out = append(out, t.Shape())
	}
	for i := range bd.hints {
		out = append(out, shapeF32(append([]int{bd.T}, bd.hintDims[i]...)...))
	}
	for _, t := range bd.outputT {
		out = append(out, t.Shape())
	}
	return append(out, bd.adj.Shape(), shapeF32(bd.S, bd.B), shapeF32(bd.T, bd.B))
}

func shapesKey(ss []shapes.Shape) string { return fmt.Sprint(ss) }

// unrollBucket is the number of steps StepLoopAuto pads a batch of S steps
// to before training it unrolled: the next even number, so that batches of
// nearby lengths share one compiled program (at most UnrollMaxSteps/2 per
// graph size) for at most one step of extra work. The padded steps change
// nothing: their hints weigh 0 and no output is read there.
func unrollBucket(S int) int { return (S + 1) / 2 * 2 }

// paddedTo returns the batch with S processor steps (S ≥ bd.S). It shares
// bd's data (release bd, not the copy): the hints, step weights and
// output-step masks of the added steps are zeros, as past the end of any
// batch's data (stepSlice, unrolledArgs).
func (bd *batchTensors) paddedTo(S int) *batchTensors {
	if S <= bd.S {
		return bd
	}
	p := *bd
	p.S, p.T = S, S+1
	p.stepCache = nil
	return &p
}

// AutoUnrolls tells whether StepLoopAuto ever trains a processor's short
// batches unrolled on a backend: every processor's on an NVIDIA card,
// where each call of the loop's step programs has a fixed cost of about a
// millisecond or two against a step's fraction of one (a Triplet-GMPNN
// mst_prim trains at a quarter of the reference's speed in the loop:
// docs/performance.md, "On a GPU", fourth lease); elsewhere not a Triplet
// processor's, whose unrolled programs take two to four times the loop's
// memory for a gain that depends on the algorithm and the CPU (bfs
// Triplet-MPNN slower unrolled, insertion_sort's up to 1.5× faster,
// kmp_matcher's Triplet-GMPNN at half the loop's speed: "Where auto's
// unrolling no longer pays", "Training speed with the step loop"), while
// MPNN-family processors gained 1.45×.
func AutoUnrolls(processor string, be compute.Backend) bool {
	if onNVIDIA(be) {
		return true
	}
	pk, ok := pgnKinds[processor]
	return !ok || !pk.triplets
}

// unrollFits reports whether StepLoopAuto may train a batch unrolled: a
// processor that unrolls on this backend (AutoUnrolls), a batch of at
// most UnrollMaxSteps steps whose activations fit UnrollMemoryBudget.
func (m *Model) unrollFits(bd *batchTensors) bool {
	if !AutoUnrolls(m.cfg.Processor, m.backend) {
		return false
	}
	if bd.S > UnrollMaxSteps {
		return false
	}
	// A training step keeps each step's activations for the backward pass:
	// about the widest evaluation step's, per step and sample.
	per := m.evalStepBytes(bd.N)
	return int64(bd.S)*int64(bd.B)*per <= UnrollMemoryBudget
}

// trainsUnrolled reports whether a training batch runs unrolled, having
// made sure its program is compiled when it does.
func (m *Model) trainsUnrolled(bd *batchTensors) (bool, error) {
	switch m.cfg.StepLoop {
	case StepLoopLoop:
		return false, nil
	case StepLoopAuto:
		if !m.unrollFits(bd) || m.Step() < UnrollFromStep {
			return false, nil
		}
	}
	return true, m.compileUnrolled(bd, false)
}

// compileUnrolled compiles the unrolled training program for a batch's
// shapes, in the background or waiting for it; one background compilation
// runs at a time, and none is started while one runs.
func (m *Model) compileUnrolled(bd *batchTensors, background bool) error {
	u := &m.unroll
	ss := bd.unrollShapes()
	key := shapesKey(ss)
	u.mu.Lock()
	c, ok := u.compiles[key]
	if !ok {
		if background && u.busy {
			u.mu.Unlock()
			return nil
		}
		if u.compiles == nil {
			u.compiles = map[string]*unrollCompile{}
		}
		c = &unrollCompile{done: make(chan struct{})}
		u.compiles[key] = c
		if background {
			u.busy = true
		}
		u.wg.Add(1)
		go func() {
			defer u.wg.Done()
			_, err := m.trainFn.Compile(ss...)
			u.mu.Lock()
			c.err = err
			if background {
				u.busy = false
			}
			u.mu.Unlock()
			close(c.done)
		}()
	}
	u.mu.Unlock()
	if background {
		return nil
	}
	<-c.done
	if c.err != nil {
		return fmt.Errorf("nn: compiling the unrolled training step (%d steps): %w", bd.S, c.err)
	}
	return nil
}

// serialBuild wraps a program's graph function to hold mu while it runs:
// programs compile in parallel, and building their graphs (GoMLX's scopes
// and optimizer) is not safe concurrently.
func serialBuild(mu *sync.Mutex, fn programFn) programFn {
	return func(scope *model.Scope, in []*Node) []*Node {
		mu.Lock()
		defer mu.Unlock()
		return fn(scope, in)
	}
}
