// Package engine runs lib/nn's models: it is the execution engine behind
// the model package. A model is written once, as one algorithm step (a
// [Body]); the engine compiles that step into programs and drives them over
// a batch's steps:
//
//   - the step loop ([Loop]): one compiled step called once per step of the
//     batch's longest trajectory, training by a forward loop that keeps each
//     step's carry and a reverse loop that recomputes each step and runs its
//     vector-Jacobian product, as jax.lax.scan's transpose does; evaluation
//     by a loop on the host, or on the device (one program whose While runs
//     the steps);
//   - a training step as one program ([Loop.TrainProgram]): the forward and
//     reverse loops as XLA While loops, the head, clipping and Adam in one
//     compiled program per batch shape and bucket of lengths, one call a
//     training step;
//   - unrolled programs (the model's own, every step in one program), whose
//     background compilation [Unrolled] manages;
//   - [Plan], the one pure function that picks, for a backend, a
//     processor's properties, a batch's shape and the run's length, how a
//     batch runs: in the loop, as one program or unrolled, evaluation on the host or the
//     device, steps a call, how many graphs an evaluation call holds
//     ([Schedule]);
//   - the process tuning narlab's binaries ask for explicitly
//     ([TuneProcess]: the collector's pace and glibc malloc's modes).
//
// The engine knows nothing of CLRS probes, processors or checkpoints: those
// are lib/nn's. It imports only GoMLX. Two workarounds of that stack's
// versions live here: [GoClosures] (the pure-Go backend's loop bodies) and
// freshCaches (per-graph caches that loop bodies must not share).
package engine

import (
	"fmt"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
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
// With k steps a call (Options.StepsPerCall) > 1, stepFwd and stepBwd run k
// steps (unrolled) per call, the last call's steps past the trajectory's
// end padded with zeros that weigh nothing, and the backward pass keeps the
// carry before each call's first step only.
//
// Evaluation runs stepEval (no losses) over a carry that it overwrites, then
// headEval: memory of one step. With the evaluation loop on the device,
// evalDevice runs that loop itself, the step as the body of a While, in one
// call per batch instead of one per step (then headEval), for devices where
// a call's fixed cost outweighs a step's work. A body's random draws come
// from the batch, made on the host (Layout.Draws per step, given to the
// forward and backward passes alike, so the recomputed step is the same;
// Layout.HeadDraws to the training head); a body may instead draw its
// teacher forcing in the forward pass (Layout.Teacher), which hands the
// draws to the backward pass.

// Carry is what one step hands to the next: the node latents and, when
// hints are fed back, the hint values fed to the next step (nil otherwise).
type Carry struct {
	Hidden *Node
	Fed    []*Node
}

// Readout is what the output decoders read from a step: the node latents H
// the decoders read, the hints fed to the step (nil when hints are not fed
// back) and extra edge latents (a triplet processor's, when an output
// decoder reads them; nil otherwise).
type Readout struct {
	H     *Node
	Fed   []*Node
	Extra *Node
}

// HintTargets are the ground truth a training step's hint predictions are
// scored against: the hints of the next step, the per-graph weights [B]
// (1 where that step is within the graph's trajectory) and, with teacher
// forcing, the per-graph draws [B] (1: feed the truth).
type HintTargets struct {
	Truth   []*Node
	Valid   *Node
	Teacher *Node
}

// Layout is the static structure of a body's step-loop tensors: how many
// static tensors, inputs, fed hints, scored hints, outputs and per-step
// inputs, and whether the readout carries extra edge latents.
type Layout struct {
	Static     int // the batch's static tensors (inputs and graph structure)
	Inputs     int // encoded inputs (the first of the static tensors)
	Fed        int // hints fed back at each step (in the carry and readout)
	Scored     int // hints predicted and scored at each step
	Outputs    int
	StepInputs int // inputs given anew at each step
	// Extra: the readout carries extra edge latents (a triplet processor,
	// and an output decoder that reads them).
	Extra bool
	// Teacher: training draws teacher-forcing choices at each step.
	Teacher bool
	// Hoisted is the number of tensors an evaluation computes once per
	// batch, before its first step, and hands to every step and to the
	// head after the static tensors (see Hoister); 0 for none.
	Hoisted int
	// Draws is the number of tensors of random draws a training step
	// takes after its step inputs (Batch.DrawsAt: drawn on the host by the
	// model, so the forward and backward passes see the same ones);
	// HeadDraws the number the training head takes after the outputs
	// (Batch.HeadDraws).
	Draws, HeadDraws int
}

// readoutSize is the number of tensors of a readout: H, Fed, Extra.
func (l Layout) readoutSize() int {
	n := 1 + l.Fed
	if l.Extra {
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

func (c *cursor) readout(l Layout) Readout {
	r := Readout{H: c.next(), Fed: c.take(l.Fed)}
	if l.Extra {
		r.Extra = c.next()
	}
	return r
}

// stepData are one step's tensors in a training program's inputs:
// the one-hot of the samples whose last step it is, the hints' truth at
// the next step and their validity, the teacher-forcing draws (backward
// only) and the inputs given anew at the step.
type stepData struct {
	w, valid, teacher    *Node
	truth, stepIn, draws []*Node
}

// stepData takes one step's tensors: in the forward program's order (w,
// truth, valid, step inputs) or, backward, in the backward program's
// (truth, valid, teacher, w, step inputs).
func (c *cursor) stepData(l Layout, backward bool) stepData {
	var d stepData
	if !backward {
		d.w = c.next()
	}
	d.truth = c.take(l.Scored)
	if l.Scored > 0 {
		d.valid = c.next()
	}
	if backward {
		if l.Teacher {
			d.teacher = c.next()
		}
		d.w = c.next()
	}
	d.stepIn = c.take(l.StepInputs)
	d.draws = c.take(l.Draws)
	return d
}

func (c *cursor) done(what string) {
	if c.i != len(c.in) {
		panic(fmt.Sprintf("engine: %s program: %d inputs, %d used", what, len(c.in), c.i))
	}
}

func appendReadout(out []*Node, r Readout) []*Node {
	out = append(append(out, r.H), r.Fed...)
	if r.Extra != nil {
		out = append(out, r.Extra)
	}
	return out
}

// TrainableVariables are a scope's trainable variables, in the order
// Adam visits them (and the order of the gradients the step loop returns).
func TrainableVariables(scope *model.Scope) []*model.Variable {
	var vs []*model.Variable
	for v := range scope.IterVariables() {
		if v.Trainable {
			vs = append(vs, v)
		}
	}
	return vs
}

// A VariableFilter is a body whose programs train only some of the store's
// trainable variables: one algorithm of a model of several, which shares
// its store (the processor) with the others and trains the processor and
// its own encoders and decoders only, as the reference's per-algorithm
// update does.
type VariableFilter interface {
	Trains(v *model.Variable) bool
}

// BodyVariables are the trainable variables a body's programs train (all
// of the scope's, or those its VariableFilter keeps), in TrainableVariables'
// order.
func BodyVariables(body Body, scope *model.Scope) []*model.Variable {
	vs := TrainableVariables(scope)
	f, ok := body.(VariableFilter)
	if !ok {
		return vs
	}
	out := vs[:0]
	for _, v := range vs {
		if f.Trains(v) {
			out = append(out, v)
		}
	}
	return out
}

// dot is ⟨a, b⟩, the sum of their elementwise products.
func dot(a, b *Node) *Node { return ReduceAllSum(Mul(a, b)) }

// ProgramFn builds one program's graph.
type ProgramFn = func(scope *model.Scope, in []*Node) []*Node

// SerialBuild wraps a program's graph function to hold mu while it runs:
// programs compile in parallel, and building their graphs (GoMLX's scopes
// and optimizer) is not safe concurrently.
func SerialBuild(mu *sync.Mutex, fn ProgramFn) ProgramFn {
	return func(scope *model.Scope, in []*Node) []*Node {
		mu.Lock()
		defer mu.Unlock()
		return fn(scope, in)
	}
}

// The step loop's programs, by index into programs.fns.
const (
	progStepFwd = iota
	progHead
	progStepBwd
	progUpdate
	progStepEval
	progHeadEval
	progHoist
	progEvalDevice
	numPrograms
)

// programs are the step loop's programs (compiled per batch and graph
// size on first use, see Loop.prepare).
type programs struct {
	stepFwd, head, stepBwd, update *model.Exec
	stepEval, headEval, hoist      *model.Exec
	evalDevice                     *model.Exec
	fns                            [numPrograms]ProgramFn
	// k is the number of steps a training call runs (stepFwd and stepBwd
	// take k steps' data).
	k int
	// prepared holds the batch shapes (Batch.ShapeKey) whose training
	// or evaluation programs are compiled.
	prepared map[string]bool
}

func (p *programs) finalize() {
	for _, e := range []*model.Exec{p.stepFwd, p.head, p.stepBwd, p.update, p.stepEval, p.headEval, p.hoist, p.evalDevice} {
		if e != nil {
			e.Finalize()
		}
	}
}

// Body is a model written as one algorithm step, the way the step loop's
// programs use it (lib/nn's dense and sparse models). Encoded is whatever
// the body makes of a batch's static tensors (its encoded inputs and graph
// structure).
//
// A step's hint losses are returned as a sum and a count per hint; the
// engine adds them up over the steps, and the hint loss is
// Σᵢ sumᵢ / max(countᵢ, 1) ([HintLoss]), as the reference normalises each
// hint's loss once over all steps.
type Body interface {
	Layout() Layout
	// EncodeStatic encodes the static tensors.
	EncodeStatic(scope *model.Scope, static []*Node) Encoded
	// Step is one algorithm step: the next carry, the step's readout and,
	// when tg is given, the hints' loss sums and counts; stepIn are the
	// inputs given anew at this step, draws the step's random draws in
	// training (Layout.Draws of them; nil in evaluation).
	Step(scope *model.Scope, e Encoded, c Carry, tg *HintTargets, stepIn, draws []*Node, training bool) (Carry, Readout, []*Node, []*Node)
	// Outputs decodes the outputs from a readout (draws: the head's random
	// draws in training, Layout.HeadDraws of them; nil in evaluation);
	// OutputLoss is their loss against the truth.
	Outputs(scope *model.Scope, e Encoded, r Readout, draws []*Node, training bool) []*Node
	OutputLoss(e Encoded, outs, truth []*Node) *Node
	// ReadoutWeights broadcasts per-graph weights w [B] to each tensor of
	// a readout (multiplying them weighs each graph's rows).
	ReadoutWeights(e Encoded, w *Node, r Readout) Readout
	// NumGraphs is B; DrawTeacher draws B teacher-forcing choices (or nil).
	NumGraphs(e Encoded) int
	DrawTeacher(scope *model.Scope, g *Graph, b int) *Node
	// GradClip is the global norm the gradients are clipped to, when on.
	GradClip() (norm float64, on bool)
}

// A Hoister is a body whose evaluation steps share work that depends only
// on the batch's static tensors (its Layout's Hoisted > 0): an evaluation
// computes it once, in the hoist program, instead of at every step.
type Hoister interface {
	// Hoist computes the shared tensors from the static ones.
	Hoist(scope *model.Scope, static []*Node) []*Node
	// HoistedShapes are their shapes, from the static tensors' shapes.
	HoistedShapes(static []shapes.Shape) []shapes.Shape
	// WithHoisted is e using them instead of its own computations.
	WithHoisted(e Encoded, hoisted []*Node) Encoded
}

// Encoded is a body's own encoding of a batch's static tensors.
type Encoded interface{}

// Optimizer is the part of GoMLX's Adam that applies given gradients (so
// that they can be clipped first).
type Optimizer interface {
	UpdateGraphWithGradients(scope *model.Scope, grads []*Node, lossDType dtypes.DType)
}

// HintLoss is the hint loss from each hint's summed loss and count over
// all steps: Σᵢ sumᵢ / max(countᵢ, 1).
func HintLoss(sums, counts []*Node) *Node {
	var loss *Node
	for i := range sums {
		li := Div(sums[i], Max(counts[i], OnesLike(counts[i])))
		if loss == nil {
			loss = li
		} else {
			loss = Add(loss, li)
		}
	}
	return loss
}

// ClipByGlobalNorm is optax's clip_by_global_norm: when the global norm
// ‖g‖ = √(Σ all squared gradients) exceeds maxNorm, every gradient is
// scaled by maxNorm/‖g‖.
func ClipByGlobalNorm(grads []*Node, maxNorm float64) []*Node {
	var sq *Node
	for _, g := range grads {
		s := ReduceAllSum(Square(g))
		if sq == nil {
			sq = s
		} else {
			sq = Add(sq, s)
		}
	}
	norm := Sqrt(sq)
	limit := ConstAs(norm, maxNorm)
	scale := Where(LessThan(norm, limit), OnesLike(norm), Div(limit, norm))
	out := make([]*Node, len(grads))
	for i, g := range grads {
		out[i] = Mul(g, scale)
	}
	return out
}

// accumulate returns acc + w·r, per graph: with w one-hot over the steps
// for each graph (its last step), the sum over the steps is exactly that
// step's readout (products with 0 and 1 and sums with zeros are exact). A
// zero acc starts the sum.
func accumulate(body Body, e Encoded, acc, r Readout, w *Node) Readout {
	ws := body.ReadoutWeights(e, w, r)
	add := func(a, wx, x *Node) *Node {
		if x == nil {
			return nil
		}
		t := Mul(wx, x)
		if a == nil {
			return t
		}
		return Add(a, t)
	}
	out := Readout{H: add(acc.H, ws.H, r.H), Extra: add(acc.Extra, ws.Extra, r.Extra)}
	for i := range r.Fed {
		var a *Node
		if acc.Fed != nil {
			a = acc.Fed[i]
		}
		out.Fed = append(out.Fed, add(a, ws.Fed[i], r.Fed[i]))
	}
	return out
}

// newPrograms builds a body's step-loop programs (they compile on their
// first call, see Loop.prepare). Their inputs, after the batch's
// static tensors:
//
//	stepFwd:  hidden, fed, running readout, sums, counts, then per step
//	          (k of them, Options.StepsPerCall): outStep [B], truth of the
//	          next step, valid [B], step inputs, draws
//	          → hidden, fed, readout, sums, counts (, k teacher draws)
//	head:     readout, outputs, head draws, sums, counts
//	          → loss, 1/count per hint, dReadout, gradients of the output loss
//	stepBwd:  hidden_s, fed_s, per step (k): truth, valid, (teacher,)
//	          outStep, step inputs, draws; then dHidden, dFed (after the k steps),
//	          dReadout, 1/count, gradient sums
//	          → dHidden_s, dFed_s, gradient sums
//	update:   gradient sums → (clipped, Adam applied) the global step
//	stepEval: hidden, fed, readout, outStep, step inputs → hidden, fed, readout
//	headEval: readout → output logits
//	evalDevice: hidden, fed, readout, last steps [B], steps (scalar) → the
//	          readout after the steps (the evaluation loop on the device)
func newPrograms(body Body, backend compute.Backend, store *model.Store, opt Optimizer, build *sync.Mutex, k int) (*programs, error) {
	l := body.Layout()
	k = max(k, 1)
	p := &programs{prepared: map[string]bool{}, k: k}
	var err error
	mk := func(i int, fn ProgramFn) *model.Exec {
		fn = SerialBuild(build, fn)
		p.fns[i] = fn
		if err != nil {
			return nil
		}
		var e *model.Exec
		e, err = model.NewExec(backend, store, fn)
		return e
	}
	p.stepFwd = mk(progStepFwd, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		static := c.take(l.Static)
		cr := Carry{Hidden: c.next(), Fed: c.take(l.Fed)}
		acc := c.readout(l)
		sums, counts := c.take(l.Scored), c.take(l.Scored)
		steps := make([]stepData, k)
		for j := range steps {
			steps[j] = c.stepData(l, false)
		}
		c.done("forward step")
		enc := body.EncodeStatic(scope, static)
		var teachers []*Node
		for _, d := range steps {
			tg := &HintTargets{Truth: d.truth, Valid: d.valid}
			tg.Teacher = body.DrawTeacher(scope, d.w.Graph(), body.NumGraphs(enc))
			if l.Teacher {
				teachers = append(teachers, tg.Teacher)
			}
			if l.Scored == 0 {
				tg = nil
			}
			next, r, su, co := body.Step(scope, enc, cr, tg, d.stepIn, d.draws, true)
			acc = accumulate(body, enc, acc, r, d.w)
			for i := range su {
				sums[i], counts[i] = Add(sums[i], su[i]), Add(counts[i], co[i])
			}
			cr = next
		}
		out := append([]*Node{cr.Hidden}, cr.Fed...)
		out = appendReadout(out, acc)
		out = append(append(out, sums...), counts...)
		return append(out, teachers...)
	})
	p.head = mk(progHead, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		static := c.take(l.Static)
		r := c.readout(l)
		truth := c.take(l.Outputs)
		draws := c.take(l.HeadDraws)
		sums, counts := c.take(l.Scored), c.take(l.Scored)
		c.done("head")
		enc := body.EncodeStatic(scope, static)
		outs := body.Outputs(scope, enc, r, draws, true)
		outLoss := body.OutputLoss(enc, outs, truth)
		loss := outLoss
		var inv []*Node
		if l.Scored > 0 {
			loss = Add(loss, HintLoss(sums, counts))
			for i := range counts {
				inv = append(inv, Inverse(Max(counts[i], OnesLike(counts[i]))))
			}
		}
		g := r.H.Graph()
		wrt := appendReadout(nil, r)
		for _, v := range BodyVariables(body, scope) {
			wrt = append(wrt, v.NodeValue(g))
		}
		grads := Gradient(outLoss, wrt...)
		return append(append([]*Node{loss}, inv...), grads...)
	})
	p.stepBwd = mk(progStepBwd, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		static := c.take(l.Static)
		cr := Carry{Hidden: c.next(), Fed: c.take(l.Fed)}
		steps := make([]stepData, k)
		for j := range steps {
			steps[j] = c.stepData(l, true)
		}
		dHidden, dFed := c.next(), c.take(l.Fed)
		dR := c.readout(l)
		inv := c.take(l.Scored)
		vars := BodyVariables(body, scope)
		gradSums := c.take(len(vars))
		c.done("backward step")
		g := dHidden.Graph()
		enc := body.EncodeStatic(scope, static)
		// The objective whose gradient with respect to the carry at the
		// first of the k steps, and to the parameters, is what the steps
		// add to the gradient: the carry after the last step against its
		// gradient, each step's readout against the running readout's
		// (weighted by the step's one-hot of last steps), each step's hint
		// losses as the loss weighs them.
		start := append([]*Node{cr.Hidden}, cr.Fed...)
		type stepOut struct {
			r    Readout
			sums []*Node
			w    *Node
		}
		outs := make([]stepOut, len(steps))
		for j, d := range steps {
			tg := &HintTargets{Truth: d.truth, Valid: d.valid, Teacher: d.teacher}
			if l.Scored == 0 {
				tg = nil
			}
			next, r, sums, _ := body.Step(scope, enc, cr, tg, d.stepIn, d.draws, true)
			outs[j] = stepOut{r: r, sums: sums, w: d.w}
			cr = next
		}
		obj := dot(dHidden, cr.Hidden)
		for i := range dFed {
			obj = Add(obj, dot(dFed[i], cr.Fed[i]))
		}
		for _, o := range outs {
			ws := body.ReadoutWeights(enc, o.w, o.r)
			obj = Add(obj, dot(Mul(ws.H, dR.H), o.r.H))
			for i := range dR.Fed {
				obj = Add(obj, dot(Mul(ws.Fed[i], dR.Fed[i]), o.r.Fed[i]))
			}
			if l.Extra {
				obj = Add(obj, dot(Mul(ws.Extra, dR.Extra), o.r.Extra))
			}
			for i := range o.sums {
				obj = Add(obj, Mul(inv[i], o.sums[i]))
			}
		}
		wrt := start
		for _, v := range vars {
			wrt = append(wrt, v.NodeValue(g))
		}
		grads := Gradient(obj, wrt...)
		out := grads[:1+l.Fed]
		for i, gs := range gradSums {
			out = append(out, Add(gs, grads[1+l.Fed+i]))
		}
		return out
	})
	p.update = mk(progUpdate, func(scope *model.Scope, in []*Node) []*Node {
		g := in[0].Graph()
		vars := BodyVariables(body, scope)
		if len(vars) != len(in) {
			panic(fmt.Sprintf("engine: update: %d gradients for %d trainable variables", len(in), len(vars)))
		}
		for _, v := range vars {
			v.NodeValue(g) // in use: Adam updates the variables the graph uses
		}
		grads := in
		if clip, on := body.GradClip(); on {
			grads = ClipByGlobalNorm(grads, clip)
		}
		opt.UpdateGraphWithGradients(scope, grads, in[0].DType())
		return []*Node{optimizer.GetGlobalStepVar(scope).NodeValue(g)}
	})
	// encodeEval encodes an evaluation program's static tensors, with the
	// hoisted ones that follow them when the body hoists.
	encodeEval := func(scope *model.Scope, c *cursor) Encoded {
		enc := body.EncodeStatic(scope, c.take(l.Static))
		if l.Hoisted > 0 {
			enc = body.(Hoister).WithHoisted(enc, c.take(l.Hoisted))
		}
		return enc
	}
	p.stepEval = mk(progStepEval, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		enc := encodeEval(scope, &c)
		cr := Carry{Hidden: c.next(), Fed: c.take(l.Fed)}
		acc := c.readout(l)
		w := c.next()
		stepIn := c.take(l.StepInputs)
		c.done("evaluation step")
		next, r, _, _ := body.Step(scope, enc, cr, nil, stepIn, nil, false)
		out := append([]*Node{next.Hidden}, next.Fed...)
		return appendReadout(out, accumulate(body, enc, acc, r, w))
	})
	p.headEval = mk(progHeadEval, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		enc := encodeEval(scope, &c)
		r := c.readout(l)
		c.done("evaluation head")
		return body.Outputs(scope, enc, r, nil, false)
	})
	if l.Hoisted > 0 {
		p.hoist = mk(progHoist, func(scope *model.Scope, in []*Node) []*Node {
			c := cursor{in: in}
			static := c.take(l.Static)
			c.done("hoist")
			return body.(Hoister).Hoist(scope, static)
		})
	}
	p.evalDevice = mk(progEvalDevice, func(scope *model.Scope, in []*Node) []*Node {
		// Everything the loop's body reads enters it as loop state, the
		// constant parts passed through unchanged: the static (and hoisted)
		// tensors, each sample's last step, the number of steps and the
		// variables' values. go-xla v0.4.1 cannot combine a value of the
		// program with one of the body in one operation, and GoMLX v0.28
		// caches scalar constants per graph, not per function, so the
		// program itself makes no constant either: the body makes them all,
		// and the output head, which needs its own, is another program
		// (headEval).
		g := in[0].Graph()
		vars := BodyVariables(body, scope) // the optimizer's own are not read
		values := make([]*Node, len(vars))
		for i, v := range vars {
			values[i] = v.NodeValue(g)
		}
		nfixed := l.Static + l.Hoisted
		nstate := 1 + 1 + l.Fed + l.readoutSize()                      // step, carry, readout
		state := append([]*Node{Const(g, float32(0))}, in[nfixed:]...) // step, carry, readout, last, steps
		state = append(append(state, in[:nfixed]...), values...)
		params := func(g *Graph) []*Node {
			ps := make([]*Node, len(state))
			for i, x := range state {
				ps[i] = Parameter(g, fmt.Sprintf("state%d", i), x.Shape())
			}
			return ps
		}
		cond := NewClosure(g, func(g *Graph) []*Node {
			ps := params(g)
			return []*Node{LessThan(ps[0], ps[nstate+1])}
		})
		loop := NewClosure(g, func(g *Graph) []*Node {
			ps := params(g)
			for i, v := range vars {
				v.SetNodeValue(ps[nstate+2+nfixed+i])
			}
			defer func() {
				for i, v := range vars {
					v.SetNodeValue(values[i])
				}
			}()
			c := cursor{in: ps[1:nstate]}
			cr := Carry{Hidden: c.next(), Fed: c.take(l.Fed)}
			acc := c.readout(l)
			c.done("evaluation loop's step")
			c = cursor{in: ps[nstate+2 : nstate+2+nfixed]}
			enc := encodeEval(scope, &c)
			c.done("evaluation loop's fixed tensors")
			step, last := ps[0], ps[nstate]
			w := ConvertDType(Equal(last, step), dtypes.Float32)
			next, r, _, _ := body.Step(scope, enc, cr, nil, nil, nil, false)
			out := append([]*Node{OnePlus(step), next.Hidden}, next.Fed...)
			out = appendReadout(out, accumulate(body, enc, acc, r, w))
			return append(out, ps[nstate:]...)
		})
		res := While(cond, loop, state...)
		return res[1+1+l.Fed : nstate] // the readout
	})
	if err != nil {
		p.finalize()
		return nil, fmt.Errorf("engine: %w", err)
	}
	return p, nil
}
