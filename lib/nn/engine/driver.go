package engine

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	_ "github.com/gomlx/compute/gobackend" // the pure-Go backend the step loop builds its graphs on first
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Batch is what the step loop's driver needs of a batch, whatever the
// graphs' layout (dense [B,N,…] or sparse edge lists). The programs take,
// in order: Static() (constant over the steps: the inputs and the graph
// structure), then the program's own tensors (see newPrograms).
type Batch interface {
	// Steps is the number of processor steps S.
	Steps() int
	// ShapeKey tells batches that share compiled programs apart.
	ShapeKey() string
	Static() []*tensors.Tensor
	// InitialCarry and ReadoutZeros are new tensors (the driver donates
	// them): the carry of step 0 (zero latents, the hints fed at step 0)
	// and a zero running readout.
	InitialCarry() []*tensors.Tensor
	ReadoutZeros() []*tensors.Tensor
	// HintAt is hint i at step t (zeros for t ≥ T); ValidAt [B] is 1 for
	// the samples whose trajectory reaches step t; OutStepAt [B] is 1 for
	// the samples whose last processor step is s; StepInputsAt are the
	// inputs given anew at step s (inputs with a time axis). All shared:
	// never donated.
	HintAt(i, t int) *tensors.Tensor
	ValidAt(t int) *tensors.Tensor
	OutStepAt(s int) *tensors.Tensor
	// LastSteps [B] is each sample's last processor step s (the step
	// whose OutStepAt is 1; -1 for a padding graph that has none). Shared.
	LastSteps() *tensors.Tensor
	StepInputsAt(s int) []*tensors.Tensor
	// DrawsAt are a training step's random draws (Layout.Draws tensors,
	// made on the host: teacher-forcing choices, dropout masks; zeros for
	// a padding step past S), HeadDraws the output head's (Layout.HeadDraws:
	// Gumbel noise). Training only; shared: never donated.
	DrawsAt(s int) []*tensors.Tensor
	HeadDraws() []*tensors.Tensor
	Outputs() []*tensors.Tensor
	Release()
}

// Loop runs a body's step-loop programs on batches: the forward and
// reverse loops of training, the loop of evaluation, and their compilation.
type Loop struct {
	backend compute.Backend
	store   *model.Store
	layout  Layout
	progs   *programs
	body    Body
	opt     Optimizer
	build   *sync.Mutex
	// evalOnDevice runs evaluation as one program whose loop over the steps
	// runs on the device, where the layout allows it (no per-step inputs).
	evalOnDevice bool
	times        callTimes
	// one holds the one-program training steps (TrainProgram).
	one onePrograms
	// varsLock is held for reading while a program compiles in the
	// background (SetVariablesLock).
	varsLock *sync.RWMutex
}

// NewLoop builds a body's step loop on a backend, over the variables of
// store, training with opt, k steps a training call (0 or 1: one), its
// evaluation loop on the device when evalOnDevice (see [Plan]). build is
// held while a program's graph is built: the body's other programs (a
// model's unrolled ones) take it too. The programs compile on first use.
func NewLoop(backend compute.Backend, store *model.Store, body Body, opt Optimizer, build *sync.Mutex, k int, evalOnDevice bool) (*Loop, error) {
	progs, err := newPrograms(body, backend, store, opt, build, k)
	if err != nil {
		return nil, err
	}
	return &Loop{backend: backend, store: store, layout: body.Layout(), progs: progs, body: body, opt: opt,
		build: build, evalOnDevice: evalOnDevice}, nil
}

// Close releases the loop's compiled programs.
func (sl *Loop) Close() {
	sl.progs.finalize()
	sl.one.finalize()
}

// StepsPerCall is the number of steps a training call runs.
func (sl *Loop) StepsPerCall() int { return sl.progs.k }

// SetStepsPerCall rebuilds the training programs to run k steps a call
// (0 or 1: one) when that changes; they compile again on first use. The
// function is the same.
func (sl *Loop) SetStepsPerCall(k int) error {
	if max(k, 1) == sl.progs.k {
		return nil
	}
	progs, err := newPrograms(sl.body, sl.backend, sl.store, sl.opt, sl.build, k)
	if err != nil {
		return err
	}
	sl.progs.finalize()
	sl.progs = progs
	return nil
}

// SetEvalOnDevice sets where evaluation's loop over the steps runs.
func (sl *Loop) SetEvalOnDevice(on bool) { sl.evalOnDevice = on }

// EvalOnDevice tells whether evaluation runs its loop on the device: asked
// for, and a layout without per-step inputs.
func (sl *Loop) EvalOnDevice() bool { return sl.evalOnDevice && sl.layout.StepInputs == 0 }

// Program names the step loop's programs for [Loop.CallTime].
type Program int

// The programs whose call times benchmarks report.
const (
	ForwardStep  Program = progStepFwd
	BackwardStep Program = progStepBwd
)

// CallTime returns a program's total call time and number of calls so far
// (BenchmarkTrainStep reports the forward and backward steps').
func (sl *Loop) CallTime(p Program) (time.Duration, int) {
	execs := [numPrograms]*model.Exec{sl.progs.stepFwd, sl.progs.head, sl.progs.stepBwd, sl.progs.update,
		sl.progs.stepEval, sl.progs.headEval, sl.progs.hoist, sl.progs.evalDevice}
	return sl.times.of(execs[p])
}

// callTimes are the wall time and the number of calls of each program
// (BenchmarkTrainStep reports the forward and backward steps').
type callTimes struct {
	mu    sync.Mutex
	total map[*model.Exec]time.Duration
	calls map[*model.Exec]int
}

func (c *callTimes) add(e *model.Exec, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total == nil {
		c.total, c.calls = map[*model.Exec]time.Duration{}, map[*model.Exec]int{}
	}
	c.total[e] += d
	c.calls[e]++
}

// of returns a program's total call time and number of calls so far.
func (c *callTimes) of(e *model.Exec) (time.Duration, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total[e], c.calls[e]
}

// ZeroTensor is a zero tensor of a float32 shape.
func ZeroTensor(dims ...int) *tensors.Tensor {
	return tensors.FromShape(shapes.Make(dtypes.Float32, dims...))
}

// zerosLike is a zero tensor of t's shape.
func zerosLike(t *tensors.Tensor) *tensors.Tensor { return tensors.FromShape(t.Shape()) }

// Free releases tensors no longer needed (their device buffers now, not
// when the garbage collector gets to them).
func Free(ts ...*tensors.Tensor) {
	for _, t := range ts {
		if t != nil && t.Ok() {
			t.FinalizeAll()
		}
	}
}

// callOrdered runs a program on fixed, then donated, then tail, then
// donatedTail tensors, in that order of its inputs; the donated ones must
// not be used afterwards.
func (sl *Loop) callOrdered(e *model.Exec, fixed, donated, tail []*tensors.Tensor, donatedTail ...*tensors.Tensor) ([]*tensors.Tensor, error) {
	args := make([]any, 0, len(fixed)+len(donated)+len(tail)+len(donatedTail))
	for _, group := range []struct {
		ts     []*tensors.Tensor
		donate bool
	}{{fixed, false}, {donated, true}, {tail, false}, {donatedTail, true}} {
		for _, t := range group.ts {
			if !group.donate {
				args = append(args, t)
				continue
			}
			d, err := DonateTensorBuffer(t, sl.backend, 0)
			if err != nil {
				return nil, err
			}
			args = append(args, d)
		}
	}
	t0 := time.Now()
	res, err := e.Call(args...)
	sl.times.add(e, time.Since(t0))
	return res, err
}

// callSteps names the steps of the trajectory that call c runs ("step 3
// of 7", "steps 5–7 of 7"; the padding past the end unnamed).
func callSteps(c, k, S int) string {
	first, last := c*k+1, min((c+1)*k, S)
	if first >= last {
		return fmt.Sprintf("step %d of %d", first, S)
	}
	return fmt.Sprintf("steps %d–%d of %d", first, last, S)
}

// LossAndGradients runs the forward and backward passes on a batch and,
// when update, applies the optimizer; otherwise it returns the gradients of
// the loss, one per trainable variable (see BodyVariables), which the
// caller must free.
func (sl *Loop) LossAndGradients(b Batch, update bool) (float64, []*tensors.Tensor, error) {
	l, p, S := sl.layout, sl.progs, b.Steps()
	if err := sl.prepare(b, true); err != nil {
		return 0, nil, err
	}
	static := b.Static()
	k := p.k
	C := (S + k - 1) / k // calls each way; the last call's steps past S are zeros and weigh nothing
	// Forward.
	cur := b.InitialCarry()
	acc := b.ReadoutZeros()
	totals := make([]*tensors.Tensor, 2*l.Scored)
	for i := range totals {
		totals[i] = ZeroTensor()
	}
	carries := make([][]*tensors.Tensor, C) // the carry before each call's first step
	teachers := make([][]*tensors.Tensor, C)
	defer func() {
		for c := range carries {
			Free(carries[c]...)
			Free(teachers[c]...)
		}
	}()
	for c := 0; c < C; c++ {
		fixed := append(append([]*tensors.Tensor(nil), static...), cur...)
		donated := append(append([]*tensors.Tensor(nil), acc...), totals...)
		var tail []*tensors.Tensor
		for s := c * k; s < (c+1)*k; s++ {
			tail = append(tail, b.OutStepAt(s))
			if l.Scored > 0 {
				for i := 0; i < l.Scored; i++ {
					tail = append(tail, b.HintAt(i, s+1))
				}
				tail = append(tail, b.ValidAt(s+1))
			}
			tail = append(tail, b.StepInputsAt(s)...)
			tail = append(tail, b.DrawsAt(s)...)
		}
		// The running Readout and totals come after the carry in the
		// program's inputs, the steps' data after them: donated buffers
		// are passed in place.
		res, err := sl.callOrdered(p.stepFwd, fixed, donated, tail)
		if err != nil {
			return 0, nil, fmt.Errorf("engine: train step (forward, %s): %w", callSteps(c, k, S), err)
		}
		carries[c] = cur
		n := 1 + l.Fed
		cur = res[:n]
		acc = res[n : n+l.readoutSize()]
		n += l.readoutSize()
		totals = res[n : n+2*l.Scored]
		n += 2 * l.Scored
		if l.Teacher {
			teachers[c] = res[n : n+k]
		}
	}
	Free(cur...)
	// Head.
	fixed := append(append(append(append([]*tensors.Tensor(nil), static...), acc...), b.Outputs()...), b.HeadDraws()...)
	res, err := sl.callOrdered(p.head, fixed, totals, nil)
	Free(acc...)
	if err != nil {
		return 0, nil, fmt.Errorf("engine: train step (output loss): %w", err)
	}
	lossT, inv := res[0], res[1:1+l.Scored]
	dR := res[1+l.Scored : 1+l.Scored+l.readoutSize()]
	gradSums := res[1+l.Scored+l.readoutSize():]
	defer Free(inv...)
	defer Free(dR...)
	// Backward.
	dCarry := b.InitialCarry()
	for i, t := range dCarry {
		dCarry[i] = zerosLike(t)
		Free(t)
	}
	for c := C - 1; c >= 0; c-- {
		fixed := append(append([]*tensors.Tensor(nil), static...), carries[c]...)
		for j, s := 0, c*k; j < k; j, s = j+1, s+1 {
			for i := 0; i < l.Scored; i++ {
				fixed = append(fixed, b.HintAt(i, s+1))
			}
			if l.Scored > 0 {
				fixed = append(fixed, b.ValidAt(s+1))
			}
			if l.Teacher {
				fixed = append(fixed, teachers[c][j])
			}
			fixed = append(fixed, b.OutStepAt(s))
			fixed = append(fixed, b.StepInputsAt(s)...)
			fixed = append(fixed, b.DrawsAt(s)...)
		}
		// dCarry (donated), then dReadout and 1/counts (kept), then the
		// gradient sums (donated).
		res, err := sl.callOrdered(p.stepBwd, fixed, dCarry, append(append([]*tensors.Tensor(nil), dR...), inv...), gradSums...)
		if err != nil {
			return 0, nil, fmt.Errorf("engine: train step (backward, %s): %w", callSteps(c, k, S), err)
		}
		Free(carries[c]...)
		Free(teachers[c]...)
		carries[c], teachers[c] = nil, nil
		dCarry, gradSums = res[:1+l.Fed], res[1+l.Fed:]
	}
	Free(dCarry...)
	loss, err := ToFloat(lossT)
	Free(lossT)
	if err != nil {
		return 0, nil, err
	}
	if !update {
		return loss, gradSums, nil
	}
	res, err = sl.callOrdered(p.update, nil, gradSums, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("engine: train step (update): %w", err)
	}
	Free(res...)
	return loss, nil, nil
}

// Predict runs the evaluation loop on a batch and returns the output
// logits.
func (sl *Loop) Predict(b Batch) ([]*tensors.Tensor, error) {
	l, p, S := sl.layout, sl.progs, b.Steps()
	if err := sl.prepare(b, false); err != nil {
		return nil, err
	}
	static := b.Static()
	if l.Hoisted > 0 {
		hoisted, err := sl.callOrdered(p.hoist, static, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("engine: predict (hoisted): %w", err)
		}
		defer Free(hoisted...)
		static = append(static[:len(static):len(static)], hoisted...)
	}
	state := append(b.InitialCarry(), b.ReadoutZeros()...)
	if sl.EvalOnDevice() {
		steps := tensors.FromScalar(float32(S))
		defer Free(steps)
		readout, err := sl.callOrdered(p.evalDevice, static, state, []*tensors.Tensor{b.LastSteps(), steps})
		if err != nil {
			return nil, fmt.Errorf("engine: predict (%d steps): %w", S, err)
		}
		res, err := sl.callOrdered(p.headEval, append(static, readout...), nil, nil)
		Free(readout...)
		if err != nil {
			return nil, fmt.Errorf("engine: predict (outputs): %w", err)
		}
		return res, nil
	}
	for s := 0; s < S; s++ {
		tail := append([]*tensors.Tensor{b.OutStepAt(s)}, b.StepInputsAt(s)...)
		res, err := sl.callOrdered(p.stepEval, static, state, tail)
		if err != nil {
			return nil, fmt.Errorf("engine: predict (step %d of %d): %w", s+1, S, err)
		}
		state = res
	}
	k := 1 + l.Fed
	Free(state[:k]...)
	res, err := sl.callOrdered(p.headEval, append(static, state[k:]...), nil, nil)
	Free(state[k:]...)
	if err != nil {
		return nil, fmt.Errorf("engine: predict (outputs): %w", err)
	}
	return res, nil
}

// prepare compiles, the first time a batch shape is seen, the programs it
// needs (training: forward step, head, backward step, update; evaluation:
// step and head) all at once. Their graphs are first built once on the
// pure-Go backend, which creates every variable they use, so that building
// them again only reads the model's store; then they are compiled for the
// model's backend in parallel, one per CPU. On two cores this halves the
// wait before the first step.
func (sl *Loop) prepare(b Batch, training bool) error {
	p := sl.progs
	key := fmt.Sprintf("%s/%v/%v", b.ShapeKey(), training, !training && sl.EvalOnDevice())
	if p.prepared[key] {
		return nil
	}
	progs := []int{progStepEval, progHeadEval}
	if sl.layout.Hoisted > 0 {
		progs = append(progs, progHoist)
	}
	if training {
		progs = []int{progStepFwd, progHead, progStepBwd, progUpdate}
	}
	compile := progs
	if !training && sl.EvalOnDevice() {
		// The step program is built (not compiled): it creates the
		// variables the loop's body reads.
		compile = []int{progEvalDevice, progHeadEval}
		if sl.layout.Hoisted > 0 {
			compile = append(compile, progHoist)
		}
	}
	dry, err := dryBackend()
	if err != nil {
		return err
	}
	for _, i := range progs {
		if i == progStepBwd {
			continue // reads the variables the forward step and head create
		}
		e, err := model.NewExec(dry, sl.store, p.fns[i])
		if err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		_, err = e.Compile(sl.programShapes(i, b)...)
		e.Finalize()
		if err != nil {
			return fmt.Errorf("engine: building the step loop: %w", err)
		}
	}
	progs = compile
	execs := [numPrograms]*model.Exec{p.stepFwd, p.head, p.stepBwd, p.update, p.stepEval, p.headEval, p.hoist, p.evalDevice}
	errs := make([]error, len(progs))
	sem := make(chan struct{}, max(1, runtime.NumCPU()))
	var wg sync.WaitGroup
	shapes := make([][]shapes.Shape, len(progs)) // first: they read the variables, which building touches
	for k, i := range progs {
		shapes[k] = sl.programShapes(i, b)
	}
	for k, i := range progs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			_, errs[k] = execs[i].Compile(shapes[k]...)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("engine: compiling the step loop: %w", err)
	}
	p.prepared[key] = true
	return nil
}

// programShapes are the input shapes of step-loop program i for a batch,
// read off the batch's own tensors.
func (sl *Loop) programShapes(i int, b Batch) []shapes.Shape {
	l := sl.layout
	var out []shapes.Shape
	add := func(ts ...*tensors.Tensor) {
		for _, t := range ts {
			out = append(out, t.Shape())
		}
	}
	scalar := func(k int) {
		for range k {
			out = append(out, shapes.Make(dtypes.Float32))
		}
	}
	vars := func() {
		for _, v := range BodyVariables(sl.body, sl.store.RootScope()) {
			out = append(out, v.Shape())
		}
	}
	if i == progUpdate {
		vars()
		return out
	}
	carry, readout := b.InitialCarry(), b.ReadoutZeros()
	truth := make([]*tensors.Tensor, l.Scored)
	for h := range truth {
		truth[h] = b.HintAt(h, 0)
	}
	w := b.OutStepAt(0)
	add(b.Static()...)
	if l.Hoisted > 0 && (i == progStepEval || i == progHeadEval || i == progEvalDevice) {
		out = append(out, sl.body.(Hoister).HoistedShapes(out)...)
	}
	switch i {
	case progStepFwd:
		add(carry...)
		add(readout...)
		scalar(2 * l.Scored)
		for range sl.progs.k {
			add(w)
			add(truth...)
			if l.Scored > 0 {
				add(w) // valid
			}
			add(b.StepInputsAt(0)...)
			add(b.DrawsAt(0)...)
		}
	case progHead:
		add(readout...)
		add(b.Outputs()...)
		add(b.HeadDraws()...)
		scalar(2 * l.Scored)
	case progStepBwd:
		add(carry...)
		for range sl.progs.k {
			add(truth...)
			if l.Scored > 0 {
				add(w) // valid
			}
			if l.Teacher {
				add(w)
			}
			add(w)
			add(b.StepInputsAt(0)...)
			add(b.DrawsAt(0)...)
		}
		add(carry...) // dCarry
		add(readout...)
		scalar(l.Scored)
		vars()
	case progStepEval:
		add(carry...)
		add(readout...)
		add(w)
		add(b.StepInputsAt(0)...)
	case progHeadEval:
		add(readout...)
	case progEvalDevice:
		add(carry...)
		add(readout...)
		add(b.LastSteps())
		scalar(1)
	}
	return out
}

// dryBackend is the pure-Go backend the step loop first builds its graphs
// on (see prepare): one per process.
var dryBackend = sync.OnceValues(func() (compute.Backend, error) {
	return compute.NewWithConfig("go:ops_sequential")
})

// ToFloat is a scalar tensor's value (a loss) as a float64.
func ToFloat(t *tensors.Tensor) (float64, error) {
	switch v := t.Value().(type) {
	case float32:
		return float64(v), nil
	case float64:
		return v, nil
	}
	return 0, fmt.Errorf("engine: unexpected loss type %T", t.Value())
}

// EvalStepCalls prepares a batch's evaluation loop on the host (compiling
// it when needed) and returns calls, which runs the evaluation step program
// once per step of the batch, the carry donated, and reads the last result
// back to the host (so that the device has finished): what a step call
// costs (BenchmarkStepCall). release frees what calls shares.
func (sl *Loop) EvalStepCalls(b Batch) (calls func() error, release func(), err error) {
	if err := sl.prepare(b, false); err != nil {
		return nil, nil, err
	}
	p, S := sl.progs, b.Steps()
	static := b.Static()
	var hoisted []*tensors.Tensor
	if sl.layout.Hoisted > 0 {
		if hoisted, err = sl.callOrdered(p.hoist, static, nil, nil); err != nil {
			return nil, nil, err
		}
		static = append(static[:len(static):len(static)], hoisted...)
	}
	tails := make([][]*tensors.Tensor, S)
	for i := range tails {
		tails[i] = append([]*tensors.Tensor{b.OutStepAt(i)}, b.StepInputsAt(i)...)
	}
	calls = func() error {
		state := append(b.InitialCarry(), b.ReadoutZeros()...)
		for i := 0; i < S; i++ {
			res, err := sl.callOrdered(p.stepEval, static, state, tails[i])
			if err != nil {
				return err
			}
			state = res
		}
		err := state[0].ConstFlatData(func(any) {})
		Free(state...)
		return err
	}
	return calls, func() { Free(hoisted...) }, nil
}
