package nn

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/gomlx/compute/shapes"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// The step loop runs one compiled algorithm step once per step of a batch,
// so that what is compiled, and how long that takes, does not depend on the
// length of the trajectories. GoMLX v0.28 cannot differentiate through a
// While loop, so training builds the reverse loop itself, as jax.lax.scan's
// transpose does:
//
//  1. forward: stepFwd maps the carry c_s (node latents, fed hints) to
//     c_{s+1}; the driver keeps every c_s. It also adds the step's hint
//     loss sums and counts to running totals, and the step's readout,
//     weighted by the one-hot of each sample's last step, to a running
//     readout (so after the last step that holds each sample's last
//     readout, exactly).
//  2. head: the output decoders on the running readout give the output
//     loss; the program returns the total loss, the gradient of the output
//     loss with respect to the parameters (the first gradient sum) and to
//     the running readout (dR), and 1/max(count, 1) per hint.
//  3. backward, s = S−1 … 0: stepBwd recomputes step s from c_s and returns
//     the gradient of ⟨dc_{s+1}, c_{s+1}⟩ + ⟨w_s·dR, readout_s⟩ + Σᵢ
//     sumᵢ,s/max(countᵢ, 1) with respect to c_s (dc_s) and to the
//     parameters, added to the gradient sum. Only the carries are kept
//     between the passes: O(T × carry) memory, one step's activations at a
//     time.
//  4. update: global-norm clipping and Adam on the gradient sum.
//
// Evaluation runs stepEval (no losses) over a carry that it overwrites, then
// headEval: memory of one step. Teacher-forcing draws are made in the
// forward pass and handed to the backward pass, so the recomputed step is
// the same; Gumbel noise (permutation outputs) is drawn once, in the head.

// Step-loop modes (Config.StepLoop).
const (
	// StepLoopAuto unrolls batches of at most UnrollMaxSteps steps and
	// loops over longer ones.
	StepLoopAuto = "auto"
	// StepLoopLoop always runs the step loop.
	StepLoopLoop = "loop"
	// StepLoopUnroll always unrolls (compile time and memory grow with
	// the trajectory's length).
	StepLoopUnroll = "unroll"
)

// StepLoopModes are the step-loop modes New accepts.
var StepLoopModes = []string{StepLoopAuto, StepLoopLoop, StepLoopUnroll}

// UnrollMaxSteps is the longest batch (in processor steps, the hint length
// minus one) that StepLoopAuto unrolls. Unrolled programs are compiled once
// per trajectory length, so only short, few-valued lengths pay off; see
// docs/performance.md ("Step loop").
const UnrollMaxSteps = 0

// unrolls reports whether a batch of S processor steps runs unrolled.
func (m *Model) unrolls(S int) bool {
	switch m.cfg.StepLoop {
	case StepLoopUnroll:
		return true
	case StepLoopLoop:
		return false
	}
	return S <= UnrollMaxSteps
}

// loopLayout is the static structure of the step loop's tensors for a
// model: how many inputs, fed hints, scored hints and outputs, and whether
// the readout carries triplet latents.
type loopLayout struct {
	ni, nf, ns, no int
	triplets       bool
	teacher        bool
}

func (m *Model) loopLayout() loopLayout {
	l := loopLayout{ni: len(m.spec.inputs), no: len(m.spec.outputs)}
	if m.encodeHints() {
		l.nf = len(m.spec.hints)
	}
	if m.decodeHints() {
		l.ns = len(m.spec.hints)
	}
	pk, ok := pgnKinds[m.cfg.Processor]
	l.triplets = ok && pk.triplets
	l.teacher = m.encodeHints() && m.cfg.TeacherForcing > 0
	return l
}

// readoutSize is the number of tensors of a readout: h, fed, extra.
func (l loopLayout) readoutSize() int {
	n := 1 + l.nf
	if l.triplets {
		n++
	}
	return n
}

// cursor hands out a program's inputs in order.
type cursor struct {
	in []*Node
	i  int
}

func (c *cursor) next() *Node { n := c.in[c.i]; c.i++; return n }

func (c *cursor) take(k int) []*Node {
	ns := c.in[c.i : c.i+k]
	c.i += k
	if k == 0 {
		return nil
	}
	return ns
}

func (c *cursor) readout(l loopLayout) readout {
	r := readout{h: c.next(), fed: c.take(l.nf)}
	if l.triplets {
		r.extra = c.next()
	}
	return r
}

func (c *cursor) done(what string) {
	if c.i != len(c.in) {
		panic(fmt.Sprintf("nn: %s program: %d inputs, %d used", what, len(c.in), c.i))
	}
}

func appendReadout(out []*Node, r readout) []*Node {
	out = append(append(out, r.h), r.fed...)
	if r.extra != nil {
		out = append(out, r.extra)
	}
	return out
}

// trainableVariables are the model's trainable variables, in the order
// Adam visits them.
func trainableVariables(scope *model.Scope) []*model.Variable {
	var vs []*model.Variable
	for v := range scope.IterVariables() {
		if v.Trainable {
			vs = append(vs, v)
		}
	}
	return vs
}

// dot is ⟨a, b⟩, the sum of their elementwise products.
func dot(a, b *Node) *Node { return ReduceAllSum(Mul(a, b)) }

// programFn builds one of the step loop's programs.
type programFn = func(scope *model.Scope, in []*Node) []*Node

// The step loop's programs, by index into loopPrograms.fns.
const (
	progStepFwd = iota
	progHead
	progStepBwd
	progUpdate
	progStepEval
	progHeadEval
	numPrograms
)

// loopPrograms are the step loop's programs (compiled per batch and graph
// size on first use, see prepare).
type loopPrograms struct {
	stepFwd, head, stepBwd, update *model.Exec
	stepEval, headEval             *model.Exec
	fns                            [numPrograms]programFn
	// prepared holds the batch and graph sizes whose training (true) or
	// evaluation (false) programs are compiled.
	prepared map[[3]int]bool
}

func (p *loopPrograms) finalize() {
	for _, e := range []*model.Exec{p.stepFwd, p.head, p.stepBwd, p.update, p.stepEval, p.headEval} {
		if e != nil {
			e.Finalize()
		}
	}
}

// newLoopPrograms builds the step loop's programs for m (they compile on
// their first call).
func (m *Model) newLoopPrograms(opt gradientUpdater) (*loopPrograms, error) {
	l := m.loopLayout()
	p := &loopPrograms{prepared: map[[3]int]bool{}}
	var err error
	mk := func(i int, fn programFn) *model.Exec {
		p.fns[i] = fn
		if err != nil {
			return nil
		}
		var e *model.Exec
		e, err = model.NewExec(m.backend, m.store, fn)
		return e
	}

	// stepFwd: inputs, adj, hidden, fed, running readout, sums, counts,
	// outStep [B], truth of the next step, valid [B] → hidden, fed,
	// readout, sums, counts (, teacher draws).
	p.stepFwd = mk(progStepFwd, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		inputs, adj := c.take(l.ni), c.next()
		cr := carry{hidden: c.next(), fed: c.take(l.nf)}
		acc := c.readout(l)
		sums, counts := c.take(l.ns), c.take(l.ns)
		w := c.next()
		tg := &hintTargets{truth: c.take(l.ns)}
		if l.ns > 0 {
			tg.valid = c.next()
		}
		c.done("forward step")
		B, N := adj.Shape().Dimensions[0], adj.Shape().Dimensions[1]
		tg.teacher = m.drawTeacher(scope, adj.Graph(), B)
		if l.ns == 0 {
			tg = nil
		}
		enc := m.encodeInputs(scope, inputs, B, N)
		next, r, su, co := m.step(scope, enc, adj, cr, tg, true)
		out := append([]*Node{next.hidden}, next.fed...)
		out = appendReadout(out, accumulateReadout(acc, r, w))
		for i := range su {
			sums[i], counts[i] = Add(sums[i], su[i]), Add(counts[i], co[i])
		}
		out = append(append(out, sums...), counts...)
		if l.teacher {
			out = append(out, tg.teacher)
		}
		return out
	})

	// head: inputs, adj, readout, outputs, sums, counts → loss, 1/count
	// per hint, dReadout, gradients of the output loss.
	p.head = mk(progHead, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		inputs, adj := c.take(l.ni), c.next()
		r := c.readout(l)
		truth := c.take(l.no)
		sums, counts := c.take(l.ns), c.take(l.ns)
		c.done("head")
		enc := m.encodeInputs(scope, inputs, adj.Shape().Dimensions[0], adj.Shape().Dimensions[1])
		outs := m.decodeOutputs(scope, enc, adj, r, true)
		outLoss := m.outputLoss(outs, truth)
		loss := outLoss
		var inv []*Node
		if l.ns > 0 {
			loss = Add(loss, hintLossOf(sums, counts))
			for i := range counts {
				inv = append(inv, Inverse(Max(counts[i], OnesLike(counts[i]))))
			}
		}
		vars := trainableVariables(scope)
		wrt := appendReadout(nil, r)
		for _, v := range vars {
			wrt = append(wrt, v.NodeValue(adj.Graph()))
		}
		grads := Gradient(outLoss, wrt...)
		return append(append([]*Node{loss}, inv...), grads...)
	})

	// stepBwd: inputs, adj, hidden_s, fed_s, truth, valid, (teacher,)
	// outStep [B], dHidden, dFed, dReadout, 1/count, gradient sums →
	// dHidden_s, dFed_s, gradient sums.
	p.stepBwd = mk(progStepBwd, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		inputs, adj := c.take(l.ni), c.next()
		cr := carry{hidden: c.next(), fed: c.take(l.nf)}
		tg := &hintTargets{truth: c.take(l.ns)}
		if l.ns > 0 {
			tg.valid = c.next()
		}
		if l.teacher {
			tg.teacher = c.next()
		}
		w := c.next()
		dHidden, dFed := c.next(), c.take(l.nf)
		dR := c.readout(l)
		inv := c.take(l.ns)
		vars := trainableVariables(scope)
		gradSums := c.take(len(vars))
		c.done("backward step")
		if l.ns == 0 {
			tg = nil
		}
		g := adj.Graph()
		B, N := adj.Shape().Dimensions[0], adj.Shape().Dimensions[1]
		enc := m.encodeInputs(scope, inputs, B, N)
		next, r, sums, _ := m.step(scope, enc, adj, cr, tg, true)
		obj := dot(dHidden, next.hidden)
		for i := range dFed {
			obj = Add(obj, dot(dFed[i], next.fed[i]))
		}
		weighted := func(d, x *Node) *Node { return dot(Mul(broadcastSample(w, d), d), x) }
		obj = Add(obj, weighted(dR.h, r.h))
		for i := range dR.fed {
			obj = Add(obj, weighted(dR.fed[i], r.fed[i]))
		}
		if l.triplets {
			obj = Add(obj, weighted(dR.extra, r.extra))
		}
		for i := range sums {
			obj = Add(obj, Mul(inv[i], sums[i]))
		}
		wrt := append([]*Node{cr.hidden}, cr.fed...)
		for _, v := range vars {
			wrt = append(wrt, v.NodeValue(g))
		}
		grads := Gradient(obj, wrt...)
		out := grads[:1+l.nf]
		for i, gs := range gradSums {
			out = append(out, Add(gs, grads[1+l.nf+i]))
		}
		return out
	})

	// update: gradient sums → clipped, Adam applied; returns the global
	// step.
	p.update = mk(progUpdate, func(scope *model.Scope, in []*Node) []*Node {
		g := in[0].Graph()
		vars := trainableVariables(scope)
		if len(vars) != len(in) {
			panic(fmt.Sprintf("nn: update: %d gradients for %d trainable variables", len(in), len(vars)))
		}
		for _, v := range vars {
			v.NodeValue(g) // in use: Adam updates the variables the graph uses
		}
		grads := in
		if m.cfg.GradClip > 0 {
			grads = clipByGlobalNorm(grads, m.cfg.GradClip)
		}
		opt.UpdateGraphWithGradients(scope, grads, in[0].DType())
		return []*Node{optimizer.GetGlobalStepVar(scope).NodeValue(g)}
	})

	// stepEval: inputs, adj, hidden, fed, readout, outStep → hidden, fed,
	// readout.
	p.stepEval = mk(progStepEval, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		inputs, adj := c.take(l.ni), c.next()
		cr := carry{hidden: c.next(), fed: c.take(l.nf)}
		acc := c.readout(l)
		w := c.next()
		c.done("evaluation step")
		B, N := adj.Shape().Dimensions[0], adj.Shape().Dimensions[1]
		enc := m.encodeInputs(scope, inputs, B, N)
		next, r, _, _ := m.step(scope, enc, adj, cr, nil, false)
		out := append([]*Node{next.hidden}, next.fed...)
		return appendReadout(out, accumulateReadout(acc, r, w))
	})

	// headEval: inputs, adj, readout → output logits.
	p.headEval = mk(progHeadEval, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		inputs, adj := c.take(l.ni), c.next()
		r := c.readout(l)
		c.done("evaluation head")
		B, N := adj.Shape().Dimensions[0], adj.Shape().Dimensions[1]
		enc := m.encodeInputs(scope, inputs, B, N)
		return m.decodeOutputs(scope, enc, adj, r, false)
	})
	if err != nil {
		p.finalize()
		return nil, fmt.Errorf("nn: %w", err)
	}
	return p, nil
}

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

// readoutZeros is a zero running readout for a batch.
func (m *Model) readoutZeros(bd *batchTensors) []*tensors.Tensor {
	l := m.loopLayout()
	out := []*tensors.Tensor{zeros(bd.B, bd.N, 3*m.cfg.Hidden)}
	for i := 0; i < l.nf; i++ {
		out = append(out, zerosLike(bd.hintAt(i, 0)))
	}
	if l.triplets {
		out = append(out, zeros(bd.B, bd.N, bd.N, m.cfg.Hidden))
	}
	return out
}

// initialCarry is the carry of step 0: zero latents and the hints of step
// 0 (new tensors, which the driver may donate).
func (m *Model) initialCarry(bd *batchTensors) []*tensors.Tensor {
	out := []*tensors.Tensor{zeros(bd.B, bd.N, m.cfg.Hidden)}
	for i := 0; i < m.loopLayout().nf; i++ {
		out = append(out, bd.newHint(i, 0))
	}
	return out
}

// trainStepLoop takes one optimizer step on a batch with the step loop
// and returns its loss.
func (m *Model) trainStepLoop(bd *batchTensors) (float64, error) {
	loss, _, err := m.lossAndGradientsLoop(bd, true)
	return loss, err
}

// lossAndGradientsLoop runs the step loop's forward and backward passes on
// a batch and, when update, applies the optimizer; otherwise it returns the
// gradients of the loss, one per trainable variable (see
// trainableVariables), which the caller must free.
func (m *Model) lossAndGradientsLoop(bd *batchTensors, update bool) (float64, []*tensors.Tensor, error) {
	l := m.loopLayout()
	p := m.loop
	S := bd.S
	if err := m.prepareLoop(bd, true); err != nil {
		return 0, nil, err
	}
	static := append(append([]*tensors.Tensor(nil), bd.inputs...), bd.adj)
	// Forward.
	cur := m.initialCarry(bd)
	acc := m.readoutZeros(bd)
	totals := make([]*tensors.Tensor, 2*l.ns)
	for i := range totals {
		totals[i] = zeros()
	}
	carries := make([][]*tensors.Tensor, S)
	teachers := make([]*tensors.Tensor, S)
	defer func() {
		for _, c := range carries {
			free(c...)
		}
		free(teachers...)
	}()
	for s := 0; s < S; s++ {
		fixed := append(append([]*tensors.Tensor(nil), static...), cur...)
		var donated []*tensors.Tensor
		donated = append(append(donated, acc...), totals...)
		tail := []*tensors.Tensor{bd.outStepAt(s)}
		if l.ns > 0 {
			for i := 0; i < l.ns; i++ {
				tail = append(tail, bd.hintAt(i, s+1))
			}
			tail = append(tail, bd.validAt(s+1))
		}
		// The running readout and totals come after the carry in the
		// program's inputs, the step's data after them: donated buffers
		// are passed in place.
		res, err := m.callOrdered(p.stepFwd, fixed, donated, tail)
		if err != nil {
			return 0, nil, fmt.Errorf("nn: train step (forward, step %d of %d): %w", s+1, S, err)
		}
		carries[s] = cur
		k := 1 + l.nf
		cur = res[:k]
		acc = res[k : k+l.readoutSize()]
		k += l.readoutSize()
		totals = res[k : k+2*l.ns]
		k += 2 * l.ns
		if l.teacher {
			teachers[s] = res[k]
		}
	}
	free(cur...)
	// Head.
	fixed := append(append(append([]*tensors.Tensor(nil), static...), acc...), bd.outputs...)
	res, err := m.callOrdered(p.head, fixed, totals, nil)
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
	dCarry := []*tensors.Tensor{zeros(bd.B, bd.N, m.cfg.Hidden)}
	for i := 0; i < l.nf; i++ {
		dCarry = append(dCarry, zerosLike(bd.hintAt(i, 0)))
	}
	for s := S - 1; s >= 0; s-- {
		fixed := append(append([]*tensors.Tensor(nil), static...), carries[s]...)
		for i := 0; i < l.ns; i++ {
			fixed = append(fixed, bd.hintAt(i, s+1))
		}
		if l.ns > 0 {
			fixed = append(fixed, bd.validAt(s+1))
		}
		if l.teacher {
			fixed = append(fixed, teachers[s])
		}
		fixed = append(fixed, bd.outStepAt(s))
		// dCarry (donated), then dReadout and 1/counts (kept), then the
		// gradient sums (donated).
		res, err := m.callOrdered(p.stepBwd, fixed, dCarry, append(append([]*tensors.Tensor(nil), dR...), inv...), gradSums...)
		if err != nil {
			return 0, nil, fmt.Errorf("nn: train step (backward, step %d of %d): %w", s+1, S, err)
		}
		free(carries[s]...)
		carries[s] = nil
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
	res, err = m.callOrdered(p.update, nil, gradSums, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("nn: train step (update): %w", err)
	}
	free(res...)
	return loss, nil, nil
}

// callOrdered runs a program on fixed, then donated, then tail, then
// donatedTail tensors, in that order of its inputs; the donated ones must
// not be used afterwards.
func (m *Model) callOrdered(e *model.Exec, fixed, donated, tail []*tensors.Tensor, donatedTail ...*tensors.Tensor) ([]*tensors.Tensor, error) {
	be := m.backend
	args := make([]any, 0, len(fixed)+len(donated)+len(tail)+len(donatedTail))
	for _, t := range fixed {
		args = append(args, t)
	}
	for _, t := range donated {
		d, err := DonateTensorBuffer(t, be, 0)
		if err != nil {
			return nil, err
		}
		args = append(args, d)
	}
	for _, t := range tail {
		args = append(args, t)
	}
	for _, t := range donatedTail {
		d, err := DonateTensorBuffer(t, be, 0)
		if err != nil {
			return nil, err
		}
		args = append(args, d)
	}
	return e.Call(args...)
}

// predictLoop runs the model on a batch with the step loop and returns the
// output logits.
func (m *Model) predictLoop(bd *batchTensors) ([]*tensors.Tensor, error) {
	p := m.loop
	if err := m.prepareLoop(bd, false); err != nil {
		return nil, err
	}
	static := append(append([]*tensors.Tensor(nil), bd.inputs...), bd.adj)
	state := append(m.initialCarry(bd), m.readoutZeros(bd)...)
	l := m.loopLayout()
	for s := 0; s < bd.S; s++ {
		res, err := m.callOrdered(p.stepEval, static, state, []*tensors.Tensor{bd.outStepAt(s)})
		if err != nil {
			return nil, fmt.Errorf("nn: predict (step %d of %d): %w", s+1, bd.S, err)
		}
		state = res
	}
	k := 1 + l.nf
	free(state[:k]...)
	res, err := m.callOrdered(p.headEval, append(static, state[k:]...), nil, nil)
	free(state[k:]...)
	if err != nil {
		return nil, fmt.Errorf("nn: predict (outputs): %w", err)
	}
	return res, nil
}

// prepareLoop compiles, the first time a batch and graph size is seen, the
// programs it needs (training: forward step, head, backward step, update;
// evaluation: step and head) all at once. Their graphs are first built
// once on the pure-Go backend, which creates every variable they use, so
// that building them again only reads the model's store; then they are
// compiled for the model's backend in parallel, one per CPU. On two cores
// this halves the wait before the first step.
func (m *Model) prepareLoop(bd *batchTensors, training bool) error {
	key := [3]int{bd.B, bd.N, 0}
	if training {
		key[2] = 1
	}
	p := m.loop
	if p.prepared[key] {
		return nil
	}
	progs := []int{progStepEval, progHeadEval}
	if training {
		progs = []int{progStepFwd, progHead, progStepBwd, progUpdate}
	}
	// Create the variables: build each program that may create some on
	// the pure-Go backend (cheap: nothing is compiled to machine code),
	// in the order of a step.
	dry, err := Backend("go")
	if err != nil {
		return err
	}
	for _, i := range progs {
		if i == progStepBwd {
			continue // reads the variables the forward step and head create
		}
		e, err := model.NewExec(dry, m.store, p.fns[i])
		if err != nil {
			return fmt.Errorf("nn: %w", err)
		}
		_, err = e.Compile(m.programShapes(i, bd)...)
		e.Finalize()
		if err != nil {
			return fmt.Errorf("nn: building the step loop: %w", err)
		}
	}
	execs := [numPrograms]*model.Exec{p.stepFwd, p.head, p.stepBwd, p.update, p.stepEval, p.headEval}
	errs := make([]error, len(progs))
	sem := make(chan struct{}, max(1, runtime.NumCPU()))
	var wg sync.WaitGroup
	for k, i := range progs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			_, errs[k] = execs[i].Compile(m.programShapes(i, bd)...)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("nn: compiling the step loop: %w", err)
	}
	p.prepared[key] = true
	return nil
}

// programShapes are the input shapes of step-loop program i for a batch.
func (m *Model) programShapes(i int, bd *batchTensors) []shapes.Shape {
	l := m.loopLayout()
	B, N, H := bd.B, bd.N, m.cfg.Hidden
	var out []shapes.Shape
	add := func(dims ...int) { out = append(out, shapeF32(dims...)) }
	addHints := func(k int) {
		for h := 0; h < k; h++ {
			add(bd.hintDims[h]...)
		}
	}
	addReadout := func() {
		add(B, N, 3*H)
		addHints(l.nf)
		if l.triplets {
			add(B, N, N, H)
		}
	}
	addVars := func() {
		for _, v := range trainableVariables(m.store.RootScope()) {
			out = append(out, v.Shape())
		}
	}
	if i == progUpdate {
		addVars()
		return out
	}
	for _, t := range bd.inputs {
		out = append(out, t.Shape())
	}
	add(B, N, N)
	switch i {
	case progStepFwd:
		add(B, N, H)
		addHints(l.nf)
		addReadout()
		for range 2 * l.ns {
			add()
		}
		add(B)
		addHints(l.ns)
		if l.ns > 0 {
			add(B)
		}
	case progHead:
		addReadout()
		for _, t := range bd.outputs {
			out = append(out, t.Shape())
		}
		for range 2 * l.ns {
			add()
		}
	case progStepBwd:
		add(B, N, H)
		addHints(l.nf)
		addHints(l.ns)
		if l.ns > 0 {
			add(B)
		}
		if l.teacher {
			add(B)
		}
		add(B)
		add(B, N, H)
		addHints(l.nf)
		addReadout()
		for range l.ns {
			add()
		}
		addVars()
	case progStepEval:
		add(B, N, H)
		addHints(l.nf)
		addReadout()
		add(B)
	case progHeadEval:
		addReadout()
	}
	return out
}
