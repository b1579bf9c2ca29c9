package nn

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// loopBatch is what the step loop's driver needs of a batch, whatever the
// graphs' layout (dense [B,N,…] or sparse edge lists). The programs take,
// in order: static() (constant over the steps: the inputs and the graph
// structure), then the program's own tensors (see newLoopPrograms).
type loopBatch interface {
	// steps is the number of processor steps S.
	steps() int
	// shapeKey tells batches that share compiled programs apart.
	shapeKey() string
	static() []*tensors.Tensor
	// initialCarry and readoutZeros are new tensors (the driver donates
	// them): the carry of step 0 (zero latents, the hints fed at step 0)
	// and a zero running readout.
	initialCarry() []*tensors.Tensor
	readoutZeros() []*tensors.Tensor
	// hintAt is hint i at step t (zeros for t ≥ T); validAt [B] is 1 for
	// the samples whose trajectory reaches step t; outStepAt [B] is 1 for
	// the samples whose last processor step is s; stepInputsAt are the
	// inputs given anew at step s (inputs with a time axis). All shared:
	// never donated.
	hintAt(i, t int) *tensors.Tensor
	validAt(t int) *tensors.Tensor
	outStepAt(s int) *tensors.Tensor
	// lastSteps [B] is each sample's last processor step s (the step
	// whose outStepAt is 1; -1 for a padding graph that has none). Shared.
	lastSteps() *tensors.Tensor
	stepInputsAt(s int) []*tensors.Tensor
	outputs() []*tensors.Tensor
	release()
}

// stepLoop runs a model's step-loop programs on batches: the forward and
// reverse loops of training, the loop of evaluation, and their compilation.
type stepLoop struct {
	backend compute.Backend
	store   *model.Store
	layout  loopLayout
	progs   *loopPrograms
	body    stepBody
	// evalOnDevice runs evaluation as one program whose loop over the steps
	// runs on the device (EvalLoopDevice), where the layout allows it
	// (no per-step inputs).
	evalOnDevice bool
	times        callTimes
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

// deviceEval tells whether evaluation runs its loop on the device.
func (sl *stepLoop) deviceEval() bool { return sl.evalOnDevice && sl.layout.nsi == 0 }

// zeros is a zero tensor of a float32 shape.
func zeros(dims ...int) *tensors.Tensor { return tensors.FromShape(shapeF32(dims...)) }

// zerosLike is a zero tensor of t's shape.
func zerosLike(t *tensors.Tensor) *tensors.Tensor { return tensors.FromShape(t.Shape()) }

// free releases tensors the driver no longer needs (their device buffers
// now, not when the garbage collector gets to them).
func free(ts ...*tensors.Tensor) {
	for _, t := range ts {
		if t != nil && t.Ok() {
			t.FinalizeAll()
		}
	}
}

// callOrdered runs a program on fixed, then donated, then tail, then
// donatedTail tensors, in that order of its inputs; the donated ones must
// not be used afterwards.
func (sl *stepLoop) callOrdered(e *model.Exec, fixed, donated, tail []*tensors.Tensor, donatedTail ...*tensors.Tensor) ([]*tensors.Tensor, error) {
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

// lossAndGradients runs the forward and backward passes on a batch and,
// when update, applies the optimizer; otherwise it returns the gradients of
// the loss, one per trainable variable (see trainableVariables), which the
// caller must free.
func (sl *stepLoop) lossAndGradients(b loopBatch, update bool) (float64, []*tensors.Tensor, error) {
	l, p, S := sl.layout, sl.progs, b.steps()
	if err := sl.prepare(b, true); err != nil {
		return 0, nil, err
	}
	static := b.static()
	k := p.k
	C := (S + k - 1) / k // calls each way; the last call's steps past S are zeros and weigh nothing
	// Forward.
	cur := b.initialCarry()
	acc := b.readoutZeros()
	totals := make([]*tensors.Tensor, 2*l.ns)
	for i := range totals {
		totals[i] = zeros()
	}
	carries := make([][]*tensors.Tensor, C) // the carry before each call's first step
	teachers := make([][]*tensors.Tensor, C)
	defer func() {
		for c := range carries {
			free(carries[c]...)
			free(teachers[c]...)
		}
	}()
	for c := 0; c < C; c++ {
		fixed := append(append([]*tensors.Tensor(nil), static...), cur...)
		donated := append(append([]*tensors.Tensor(nil), acc...), totals...)
		var tail []*tensors.Tensor
		for s := c * k; s < (c+1)*k; s++ {
			tail = append(tail, b.outStepAt(s))
			if l.ns > 0 {
				for i := 0; i < l.ns; i++ {
					tail = append(tail, b.hintAt(i, s+1))
				}
				tail = append(tail, b.validAt(s+1))
			}
			tail = append(tail, b.stepInputsAt(s)...)
		}
		// The running readout and totals come after the carry in the
		// program's inputs, the steps' data after them: donated buffers
		// are passed in place.
		res, err := sl.callOrdered(p.stepFwd, fixed, donated, tail)
		if err != nil {
			return 0, nil, fmt.Errorf("nn: train step (forward, %s): %w", callSteps(c, k, S), err)
		}
		carries[c] = cur
		n := 1 + l.nf
		cur = res[:n]
		acc = res[n : n+l.readoutSize()]
		n += l.readoutSize()
		totals = res[n : n+2*l.ns]
		n += 2 * l.ns
		if l.teacher {
			teachers[c] = res[n : n+k]
		}
	}
	free(cur...)
	// Head.
	fixed := append(append(append([]*tensors.Tensor(nil), static...), acc...), b.outputs()...)
	res, err := sl.callOrdered(p.head, fixed, totals, nil)
	free(acc...)
	if err != nil {
		return 0, nil, fmt.Errorf("nn: train step (output loss): %w", err)
	}
	lossT, inv := res[0], res[1:1+l.ns]
	dR := res[1+l.ns : 1+l.ns+l.readoutSize()]
	gradSums := res[1+l.ns+l.readoutSize():]
	defer free(inv...)
	defer free(dR...)
	// Backward.
	dCarry := b.initialCarry()
	for i, t := range dCarry {
		dCarry[i] = zerosLike(t)
		free(t)
	}
	for c := C - 1; c >= 0; c-- {
		fixed := append(append([]*tensors.Tensor(nil), static...), carries[c]...)
		for j, s := 0, c*k; j < k; j, s = j+1, s+1 {
			for i := 0; i < l.ns; i++ {
				fixed = append(fixed, b.hintAt(i, s+1))
			}
			if l.ns > 0 {
				fixed = append(fixed, b.validAt(s+1))
			}
			if l.teacher {
				fixed = append(fixed, teachers[c][j])
			}
			fixed = append(fixed, b.outStepAt(s))
			fixed = append(fixed, b.stepInputsAt(s)...)
		}
		// dCarry (donated), then dReadout and 1/counts (kept), then the
		// gradient sums (donated).
		res, err := sl.callOrdered(p.stepBwd, fixed, dCarry, append(append([]*tensors.Tensor(nil), dR...), inv...), gradSums...)
		if err != nil {
			return 0, nil, fmt.Errorf("nn: train step (backward, %s): %w", callSteps(c, k, S), err)
		}
		free(carries[c]...)
		free(teachers[c]...)
		carries[c], teachers[c] = nil, nil
		dCarry, gradSums = res[:1+l.nf], res[1+l.nf:]
	}
	free(dCarry...)
	loss, err := toFloat(lossT)
	free(lossT)
	if err != nil {
		return 0, nil, err
	}
	if !update {
		return loss, gradSums, nil
	}
	res, err = sl.callOrdered(p.update, nil, gradSums, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("nn: train step (update): %w", err)
	}
	free(res...)
	return loss, nil, nil
}

// predict runs the evaluation loop on a batch and returns the output
// logits.
func (sl *stepLoop) predict(b loopBatch) ([]*tensors.Tensor, error) {
	l, p, S := sl.layout, sl.progs, b.steps()
	if err := sl.prepare(b, false); err != nil {
		return nil, err
	}
	static := b.static()
	if l.nhoist > 0 {
		hoisted, err := sl.callOrdered(p.hoist, static, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("nn: predict (hoisted): %w", err)
		}
		defer free(hoisted...)
		static = append(static[:len(static):len(static)], hoisted...)
	}
	state := append(b.initialCarry(), b.readoutZeros()...)
	if sl.deviceEval() {
		steps := tensors.FromScalar(float32(S))
		defer free(steps)
		readout, err := sl.callOrdered(p.evalDevice, static, state, []*tensors.Tensor{b.lastSteps(), steps})
		if err != nil {
			return nil, fmt.Errorf("nn: predict (%d steps): %w", S, err)
		}
		res, err := sl.callOrdered(p.headEval, append(static, readout...), nil, nil)
		free(readout...)
		if err != nil {
			return nil, fmt.Errorf("nn: predict (outputs): %w", err)
		}
		return res, nil
	}
	for s := 0; s < S; s++ {
		tail := append([]*tensors.Tensor{b.outStepAt(s)}, b.stepInputsAt(s)...)
		res, err := sl.callOrdered(p.stepEval, static, state, tail)
		if err != nil {
			return nil, fmt.Errorf("nn: predict (step %d of %d): %w", s+1, S, err)
		}
		state = res
	}
	k := 1 + l.nf
	free(state[:k]...)
	res, err := sl.callOrdered(p.headEval, append(static, state[k:]...), nil, nil)
	free(state[k:]...)
	if err != nil {
		return nil, fmt.Errorf("nn: predict (outputs): %w", err)
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
func (sl *stepLoop) prepare(b loopBatch, training bool) error {
	p := sl.progs
	key := fmt.Sprintf("%s/%v/%v", b.shapeKey(), training, !training && sl.deviceEval())
	if p.prepared[key] {
		return nil
	}
	progs := []int{progStepEval, progHeadEval}
	if sl.layout.nhoist > 0 {
		progs = append(progs, progHoist)
	}
	if training {
		progs = []int{progStepFwd, progHead, progStepBwd, progUpdate}
	}
	compile := progs
	if !training && sl.deviceEval() {
		// The step program is built (not compiled): it creates the
		// variables the loop's body reads.
		compile = []int{progEvalDevice, progHeadEval}
		if sl.layout.nhoist > 0 {
			compile = append(compile, progHoist)
		}
	}
	dry, err := Backend("go")
	if err != nil {
		return err
	}
	for _, i := range progs {
		if i == progStepBwd {
			continue // reads the variables the forward step and head create
		}
		e, err := model.NewExec(dry, sl.store, p.fns[i])
		if err != nil {
			return fmt.Errorf("nn: %w", err)
		}
		_, err = e.Compile(sl.programShapes(i, b)...)
		e.Finalize()
		if err != nil {
			return fmt.Errorf("nn: building the step loop: %w", err)
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
		return fmt.Errorf("nn: compiling the step loop: %w", err)
	}
	p.prepared[key] = true
	return nil
}

// programShapes are the input shapes of step-loop program i for a batch,
// read off the batch's own tensors.
func (sl *stepLoop) programShapes(i int, b loopBatch) []shapes.Shape {
	l := sl.layout
	var out []shapes.Shape
	add := func(ts ...*tensors.Tensor) {
		for _, t := range ts {
			out = append(out, t.Shape())
		}
	}
	scalar := func(k int) {
		for range k {
			out = append(out, shapeF32())
		}
	}
	vars := func() {
		for _, v := range trainableVariables(sl.store.RootScope()) {
			out = append(out, v.Shape())
		}
	}
	if i == progUpdate {
		vars()
		return out
	}
	carry, readout := b.initialCarry(), b.readoutZeros()
	truth := make([]*tensors.Tensor, l.ns)
	for h := range truth {
		truth[h] = b.hintAt(h, 0)
	}
	w := b.outStepAt(0)
	add(b.static()...)
	if l.nhoist > 0 && (i == progStepEval || i == progHeadEval || i == progEvalDevice) {
		out = append(out, sl.body.(hoister).hoistedShapes(out)...)
	}
	switch i {
	case progStepFwd:
		add(carry...)
		add(readout...)
		scalar(2 * l.ns)
		for range sl.progs.k {
			add(w)
			add(truth...)
			if l.ns > 0 {
				add(w) // valid
			}
			add(b.stepInputsAt(0)...)
		}
	case progHead:
		add(readout...)
		add(b.outputs()...)
		scalar(2 * l.ns)
	case progStepBwd:
		add(carry...)
		for range sl.progs.k {
			add(truth...)
			if l.ns > 0 {
				add(w) // valid
			}
			if l.teacher {
				add(w)
			}
			add(w)
			add(b.stepInputsAt(0)...)
		}
		add(carry...) // dCarry
		add(readout...)
		scalar(l.ns)
		vars()
	case progStepEval:
		add(carry...)
		add(readout...)
		add(w)
		add(b.stepInputsAt(0)...)
	case progHeadEval:
		add(readout...)
	case progEvalDevice:
		add(carry...)
		add(readout...)
		add(b.lastSteps())
		scalar(1)
	}
	return out
}
