package nn

import (
	"fmt"

	"github.com/gomlx/compute/shapes"
	"github.com/narlab/narlab/lib/nn/engine"
)

// How the model runs its steps is the engine's to decide (engine.Plan):
// the model describes a batch (its graphs, algorithm steps and the bytes a
// step needs) and its processor, and runs the schedule it gets. The step
// loop compiles in a couple of seconds; an unrolled program (trainFn) does
// without per-step calls and recomputation and trains short trajectories
// about 1.45× as fast with MPNN-family processors, but takes seconds to
// minutes to compile per trajectory length (docs/log/performance-training.md, "Step
// loop"), so engine.StepLoopAuto compiles it in the background and
// switches to it only for short batches of long runs.

// plan asks the engine how a batch of shape s runs at training step step.
func (m *Model) plan(s engine.Shape, step int64) engine.Schedule {
	return engine.Plan(engine.Request{Options: m.cfg.Exec, Device: m.device, Traits: m.traits(), Shape: s, TrainingStep: step})
}

// traits are the processor's properties the engine schedules by.
func (m *Model) traits() engine.Traits { return engine.Traits{Triplets: m.proc.Triplets} }

// SetExecution changes how the model runs its steps (see Config.Exec),
// e.g. for a run resumed from a checkpoint (which does not record them):
// the function is the same. A change of the steps a call rebuilds the step
// loop's training programs (they compile again on first use).
func (m *Model) SetExecution(o engine.Options) error {
	if m.store == nil {
		return errClosed
	}
	if err := o.Validate(); err != nil {
		return fmt.Errorf("nn: %w", err)
	}
	if m.parts != nil {
		for _, p := range m.parts {
			if err := p.SetExecution(o); err != nil {
				return err
			}
		}
		m.cfg.Exec = o
		return nil
	}
	if err := m.loop.SetStepsPerCall(o.StepsPerCall); err != nil {
		return fmt.Errorf("nn: %w", err)
	}
	m.cfg.Exec = o
	m.loop.SetEvalOnDevice(m.plan(engine.Shape{}, 0).EvalOnDevice)
	return nil
}

// EvalLoopUsed is where evaluation's loop over the steps runs for this
// model on its backend: engine.EvalLoopDevice or engine.EvalLoopHost
// (Config.Exec.EvalLoop resolved; a model whose inputs change at each step
// evaluates on the host).
func (m *Model) EvalLoopUsed() string {
	if m.parts != nil {
		return m.parts[0].EvalLoopUsed() // the same options and backend
	}
	if m.loop.EvalOnDevice() {
		return engine.EvalLoopDevice
	}
	return engine.EvalLoopHost
}

// UnrollsEver tells whether this model, with its execution options on its
// backend, ever trains a batch unrolled (engine.UnrollsEver).
func (m *Model) UnrollsEver() bool {
	return engine.UnrollsEver(m.cfg.Exec, m.device, m.traits())
}

// ProgramsEver tells whether this model, with its execution options on
// its backend, ever trains a batch as one program (engine.ProgramsEver).
func (m *Model) ProgramsEver() bool {
	return engine.ProgramsEver(m.cfg.Exec, m.device, m.traits())
}

// StepCounts returns how many training steps this model (since New or
// Load) ran in the step loop and how many unrolled.
func (m *Model) StepCounts() (looped, unrolled int64) {
	looped, unrolled = m.unroll.Counts()
	for _, p := range m.parts {
		l, u := p.StepCounts()
		looped, unrolled = looped+l, unrolled+u
	}
	return looped, unrolled
}

// ProgramStepCount returns how many training steps this model (since New
// or Load) ran as one program (engine.StepLoopProgram, auto's pick on a
// card and, in long runs, on XLA's CPU).
func (m *Model) ProgramStepCount() int64 { return m.unroll.ProgramCount() }

// unrollShapes are the unrolled training program's input shapes for a
// batch.
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
	out = append(out, bd.adj.Shape(), shapeF32(bd.S, bd.B), shapeF32(bd.T, bd.B))
	// The training program's draws (unrolledTrainArgs).
	if bd.drawn.teacher {
		out = append(out, shapeF32(bd.S, bd.B))
	}
	if bd.drawn.dropout {
		out = append(out, shapeF32(bd.S, bd.B, bd.N, bd.hidden))
	}
	for range bd.drawn.perms {
		out = append(out, shapeF32(bd.B, bd.N, bd.N))
	}
	return out
}

// paddedTo returns the batch with S processor steps when S > bd.S, else bd.
// It shares bd's data (release bd, not the copy): the hints, step weights
// and output-step masks of the added steps are zeros, as past the end of
// any batch's data (stepSlice, unrolledArgs).
func (bd *batchTensors) paddedTo(S int) *batchTensors {
	if S <= bd.S {
		return bd
	}
	p := *bd
	p.S, p.T = S, S+1
	p.stepCache = nil
	return &p
}
