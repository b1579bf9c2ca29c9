package nn

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
// With Config.StepsPerCall k > 1, stepFwd and stepBwd run k steps (unrolled)
// per call, the last call's steps past the trajectory's end padded with
// zeros that weigh nothing, and the backward pass keeps the carry before
// each call's first step only.
//
// Evaluation runs stepEval (no losses) over a carry that it overwrites, then
// headEval: memory of one step. With Config.EvalLoop "device", evalDevice
// runs that loop itself, the step as the body of a While, in one call per
// batch instead of one per step (then headEval), for devices where a call's
// fixed cost outweighs a step's work. Teacher-forcing draws are made in the
// forward pass and handed to the backward pass, so the recomputed step is
// the same; Gumbel noise (permutation outputs) is drawn once, in the head.

// Step-loop modes (Config.StepLoop).
const (
	// StepLoopAuto trains in the step loop and, for batches of at most
	// UnrollMaxSteps steps whose unrolled training fits UnrollMemoryBudget
	// (with a processor other than the Triplet ones: unrollFits),
	// switches to an unrolled program from training step UnrollFromStep
	// on (compiled in the background meanwhile). It evaluates in the step
	// loop.
	StepLoopAuto = "auto"
	// StepLoopLoop always runs the step loop.
	StepLoopLoop = "loop"
	// StepLoopUnroll always unrolls (compile time and memory grow with
	// the trajectory's length).
	StepLoopUnroll = "unroll"
)

// StepLoopModes are the step-loop modes New accepts.
var StepLoopModes = []string{StepLoopAuto, StepLoopLoop, StepLoopUnroll}

// loopLayout is the static structure of the step loop's tensors for a
// model: how many static tensors, inputs, fed hints, scored hints, outputs
// and per-step inputs, and whether the readout carries triplet latents.
type loopLayout struct {
	nstatic        int // the batch's static tensors (inputs and graph structure)
	ni, nf, ns, no int
	nsi            int // inputs given anew at each step
	// triplets: the readout carries the triplet edge latents (a triplet
	// processor, and an output decoder that reads them).
	triplets bool
	teacher  bool
	// nhoist is the number of tensors an evaluation computes once per
	// batch, before its first step, and hands to every step and to the
	// head after the static tensors (see hoister); 0 for none.
	nhoist int
}

func (m *Model) loopLayout() loopLayout {
	l := loopLayout{ni: len(m.spec.inputs), no: len(m.spec.outputs), nstatic: len(m.spec.inputs) + 1}
	if m.encodeHints() {
		l.nf = len(m.spec.hints)
	}
	if m.decodeHints() {
		l.ns = len(m.spec.hints)
	}
	pk, ok := pgnKinds[m.cfg.Processor]
	l.triplets = ok && pk.triplets && m.outputsReadEdges()
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

// loopStepData are one step's tensors in a training program's inputs:
// the one-hot of the samples whose last step it is, the hints' truth at
// the next step and their validity, the teacher-forcing draws (backward
// only) and the inputs given anew at the step.
type loopStepData struct {
	w, valid, teacher *Node
	truth, stepIn     []*Node
}

// stepData takes one step's tensors: in the forward program's order (w,
// truth, valid, step inputs) or, backward, in the backward program's
// (truth, valid, teacher, w, step inputs).
func (c *cursor) stepData(l loopLayout, backward bool) loopStepData {
	var d loopStepData
	if !backward {
		d.w = c.next()
	}
	d.truth = c.take(l.ns)
	if l.ns > 0 {
		d.valid = c.next()
	}
	if backward {
		if l.teacher {
			d.teacher = c.next()
		}
		d.w = c.next()
	}
	d.stepIn = c.take(l.nsi)
	return d
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
	progHoist
	progEvalDevice
	numPrograms
)

// loopPrograms are the step loop's programs (compiled per batch and graph
// size on first use, see prepare).
type loopPrograms struct {
	stepFwd, head, stepBwd, update *model.Exec
	stepEval, headEval, hoist      *model.Exec
	evalDevice                     *model.Exec
	fns                            [numPrograms]programFn
	// k is the number of steps a training call runs (stepFwd and stepBwd
	// take k steps' data; Config.StepsPerCall).
	k int
	// prepared holds the batch shapes (loopBatch.shapeKey) whose training
	// or evaluation programs are compiled.
	prepared map[string]bool
}

func (p *loopPrograms) finalize() {
	for _, e := range []*model.Exec{p.stepFwd, p.head, p.stepBwd, p.update, p.stepEval, p.headEval, p.hoist, p.evalDevice} {
		if e != nil {
			e.Finalize()
		}
	}
}

// stepBody is a model written as one algorithm step, the way the step
// loop's programs use it: the dense model (Model) and the sparse one
// (Sparse). encoded is whatever the body makes of a batch's static
// tensors (its encoded inputs and graph structure).
type stepBody interface {
	loopLayout() loopLayout
	// encodeStatic encodes the static tensors.
	encodeStatic(scope *model.Scope, static []*Node) encoded
	// bodyStep is one step (see Model.step); stepIn are the inputs given
	// anew at this step.
	bodyStep(scope *model.Scope, e encoded, c carry, tg *hintTargets, stepIn []*Node, training bool) (carry, readout, []*Node, []*Node)
	// bodyOutputs decodes the outputs from a readout; bodyOutputLoss is
	// their loss against the truth.
	bodyOutputs(scope *model.Scope, e encoded, r readout, training bool) []*Node
	bodyOutputLoss(e encoded, outs, truth []*Node) *Node
	// readoutWeights broadcasts per-graph weights w [B] to each tensor of
	// a readout (multiplying them weighs each graph's rows).
	readoutWeights(e encoded, w *Node, r readout) readout
	// numGraphs is B; drawTeacher draws B teacher-forcing choices (or nil).
	numGraphs(e encoded) int
	drawTeacher(scope *model.Scope, g *Graph, b int) *Node
	// gradClip is the global-norm clipping of the gradients (0: none).
	gradClip() float64
}

// A hoister is a body whose evaluation steps share work that depends only
// on the batch's static tensors (its loopLayout's nhoist > 0): an
// evaluation computes it once, in the hoist program, instead of at every
// step.
type hoister interface {
	// hoist computes the shared tensors from the static ones.
	hoist(scope *model.Scope, static []*Node) []*Node
	// hoistedShapes are their shapes, from the static tensors' shapes.
	hoistedShapes(static []shapes.Shape) []shapes.Shape
	// withHoisted is e using them instead of its own computations.
	withHoisted(e encoded, hoisted []*Node) encoded
}

// encoded is a body's own encoding of a batch's static tensors.
type encoded interface{}

// denseEncoded is the dense model's: the encoded inputs and the adjacency.
type denseEncoded struct {
	in  features
	adj *Node
}

func (m *Model) encodeStatic(scope *model.Scope, static []*Node) encoded {
	l := m.loopLayout()
	adj := static[l.ni]
	return denseEncoded{in: m.encodeInputs(scope, static[:l.ni], adj.Shape().Dimensions[0], adj.Shape().Dimensions[1]), adj: adj}
}

func (m *Model) bodyStep(scope *model.Scope, e encoded, c carry, tg *hintTargets, _ []*Node, training bool) (carry, readout, []*Node, []*Node) {
	d := e.(denseEncoded)
	return m.step(scope, d.in, d.adj, c, tg, training)
}

func (m *Model) bodyOutputs(scope *model.Scope, e encoded, r readout, training bool) []*Node {
	d := e.(denseEncoded)
	return m.decodeOutputs(scope, d.in, d.adj, r, training)
}

func (m *Model) bodyOutputLoss(_ encoded, outs, truth []*Node) *Node {
	return m.outputLoss(outs, truth)
}

func (m *Model) readoutWeights(_ encoded, w *Node, r readout) readout {
	out := readout{h: broadcastSample(w, r.h)}
	for _, f := range r.fed {
		out.fed = append(out.fed, broadcastSample(w, f))
	}
	if r.extra != nil {
		out.extra = broadcastSample(w, r.extra)
	}
	return out
}

func (m *Model) numGraphs(e encoded) int { return e.(denseEncoded).adj.Shape().Dimensions[0] }

func (m *Model) gradClip() float64 { return m.cfg.GradClip }

// accumulate returns acc + w·r, per graph (see accumulateReadout).
func accumulate(body stepBody, e encoded, acc, r readout, w *Node) readout {
	ws := body.readoutWeights(e, w, r)
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
	out := readout{h: add(acc.h, ws.h, r.h), extra: add(acc.extra, ws.extra, r.extra)}
	for i := range r.fed {
		var a *Node
		if acc.fed != nil {
			a = acc.fed[i]
		}
		out.fed = append(out.fed, add(a, ws.fed[i], r.fed[i]))
	}
	return out
}

// newLoopPrograms builds a body's step-loop programs (they compile on their
// first call, see stepLoop.prepare). Their inputs, after the batch's
// static tensors:
//
//	stepFwd:  hidden, fed, running readout, sums, counts, then per step
//	          (k of them, Config.StepsPerCall): outStep [B], truth of the
//	          next step, valid [B], step inputs
//	          → hidden, fed, readout, sums, counts (, k teacher draws)
//	head:     readout, outputs, sums, counts
//	          → loss, 1/count per hint, dReadout, gradients of the output loss
//	stepBwd:  hidden_s, fed_s, per step (k): truth, valid, (teacher,)
//	          outStep, step inputs; then dHidden, dFed (after the k steps),
//	          dReadout, 1/count, gradient sums
//	          → dHidden_s, dFed_s, gradient sums
//	update:   gradient sums → (clipped, Adam applied) the global step
//	stepEval: hidden, fed, readout, outStep, step inputs → hidden, fed, readout
//	headEval: readout → output logits
//	evalDevice: hidden, fed, readout, last steps [B], steps (scalar) → the
//	          readout after the steps (Config.EvalLoop "device")
func newLoopPrograms(body stepBody, backend compute.Backend, store *model.Store, opt gradientUpdater, build *sync.Mutex, k int) (*loopPrograms, error) {
	l := body.loopLayout()
	k = max(k, 1)
	p := &loopPrograms{prepared: map[string]bool{}, k: k}
	var err error
	mk := func(i int, fn programFn) *model.Exec {
		fn = serialBuild(build, fn)
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
		static := c.take(l.nstatic)
		cr := carry{hidden: c.next(), fed: c.take(l.nf)}
		acc := c.readout(l)
		sums, counts := c.take(l.ns), c.take(l.ns)
		steps := make([]loopStepData, k)
		for j := range steps {
			steps[j] = c.stepData(l, false)
		}
		c.done("forward step")
		enc := body.encodeStatic(scope, static)
		var teachers []*Node
		for _, d := range steps {
			tg := &hintTargets{truth: d.truth, valid: d.valid}
			tg.teacher = body.drawTeacher(scope, d.w.Graph(), body.numGraphs(enc))
			if l.teacher {
				teachers = append(teachers, tg.teacher)
			}
			if l.ns == 0 {
				tg = nil
			}
			next, r, su, co := body.bodyStep(scope, enc, cr, tg, d.stepIn, true)
			acc = accumulate(body, enc, acc, r, d.w)
			for i := range su {
				sums[i], counts[i] = Add(sums[i], su[i]), Add(counts[i], co[i])
			}
			cr = next
		}
		out := append([]*Node{cr.hidden}, cr.fed...)
		out = appendReadout(out, acc)
		out = append(append(out, sums...), counts...)
		return append(out, teachers...)
	})
	p.head = mk(progHead, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		static := c.take(l.nstatic)
		r := c.readout(l)
		truth := c.take(l.no)
		sums, counts := c.take(l.ns), c.take(l.ns)
		c.done("head")
		enc := body.encodeStatic(scope, static)
		outs := body.bodyOutputs(scope, enc, r, true)
		outLoss := body.bodyOutputLoss(enc, outs, truth)
		loss := outLoss
		var inv []*Node
		if l.ns > 0 {
			loss = Add(loss, hintLossOf(sums, counts))
			for i := range counts {
				inv = append(inv, Inverse(Max(counts[i], OnesLike(counts[i]))))
			}
		}
		g := r.h.Graph()
		wrt := appendReadout(nil, r)
		for _, v := range trainableVariables(scope) {
			wrt = append(wrt, v.NodeValue(g))
		}
		grads := Gradient(outLoss, wrt...)
		return append(append([]*Node{loss}, inv...), grads...)
	})
	p.stepBwd = mk(progStepBwd, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		static := c.take(l.nstatic)
		cr := carry{hidden: c.next(), fed: c.take(l.nf)}
		steps := make([]loopStepData, k)
		for j := range steps {
			steps[j] = c.stepData(l, true)
		}
		dHidden, dFed := c.next(), c.take(l.nf)
		dR := c.readout(l)
		inv := c.take(l.ns)
		vars := trainableVariables(scope)
		gradSums := c.take(len(vars))
		c.done("backward step")
		g := dHidden.Graph()
		enc := body.encodeStatic(scope, static)
		// The objective whose gradient with respect to the carry at the
		// first of the k steps, and to the parameters, is what the steps
		// add to the gradient: the carry after the last step against its
		// gradient, each step's readout against the running readout's
		// (weighted by the step's one-hot of last steps), each step's hint
		// losses as the loss weighs them.
		start := append([]*Node{cr.hidden}, cr.fed...)
		type stepOut struct {
			r    readout
			sums []*Node
			w    *Node
		}
		outs := make([]stepOut, len(steps))
		for j, d := range steps {
			tg := &hintTargets{truth: d.truth, valid: d.valid, teacher: d.teacher}
			if l.ns == 0 {
				tg = nil
			}
			next, r, sums, _ := body.bodyStep(scope, enc, cr, tg, d.stepIn, true)
			outs[j] = stepOut{r: r, sums: sums, w: d.w}
			cr = next
		}
		obj := dot(dHidden, cr.hidden)
		for i := range dFed {
			obj = Add(obj, dot(dFed[i], cr.fed[i]))
		}
		for _, o := range outs {
			ws := body.readoutWeights(enc, o.w, o.r)
			obj = Add(obj, dot(Mul(ws.h, dR.h), o.r.h))
			for i := range dR.fed {
				obj = Add(obj, dot(Mul(ws.fed[i], dR.fed[i]), o.r.fed[i]))
			}
			if l.triplets {
				obj = Add(obj, dot(Mul(ws.extra, dR.extra), o.r.extra))
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
		out := grads[:1+l.nf]
		for i, gs := range gradSums {
			out = append(out, Add(gs, grads[1+l.nf+i]))
		}
		return out
	})
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
		if clip := body.gradClip(); clip > 0 {
			grads = clipByGlobalNorm(grads, clip)
		}
		opt.UpdateGraphWithGradients(scope, grads, in[0].DType())
		return []*Node{optimizer.GetGlobalStepVar(scope).NodeValue(g)}
	})
	// encodeEval encodes an evaluation program's static tensors, with the
	// hoisted ones that follow them when the body hoists.
	encodeEval := func(scope *model.Scope, c *cursor) encoded {
		enc := body.encodeStatic(scope, c.take(l.nstatic))
		if l.nhoist > 0 {
			enc = body.(hoister).withHoisted(enc, c.take(l.nhoist))
		}
		return enc
	}
	p.stepEval = mk(progStepEval, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		enc := encodeEval(scope, &c)
		cr := carry{hidden: c.next(), fed: c.take(l.nf)}
		acc := c.readout(l)
		w := c.next()
		stepIn := c.take(l.nsi)
		c.done("evaluation step")
		next, r, _, _ := body.bodyStep(scope, enc, cr, nil, stepIn, false)
		out := append([]*Node{next.hidden}, next.fed...)
		return appendReadout(out, accumulate(body, enc, acc, r, w))
	})
	p.headEval = mk(progHeadEval, func(scope *model.Scope, in []*Node) []*Node {
		c := cursor{in: in}
		enc := encodeEval(scope, &c)
		r := c.readout(l)
		c.done("evaluation head")
		return body.bodyOutputs(scope, enc, r, false)
	})
	if l.nhoist > 0 {
		p.hoist = mk(progHoist, func(scope *model.Scope, in []*Node) []*Node {
			c := cursor{in: in}
			static := c.take(l.nstatic)
			c.done("hoist")
			return body.(hoister).hoist(scope, static)
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
		vars := trainableVariables(scope) // the optimizer's own are not read
		values := make([]*Node, len(vars))
		for i, v := range vars {
			values[i] = v.NodeValue(g)
		}
		nfixed := l.nstatic + l.nhoist
		nstate := 1 + 1 + l.nf + l.readoutSize()                       // step, carry, readout
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
			cr := carry{hidden: c.next(), fed: c.take(l.nf)}
			acc := c.readout(l)
			c.done("evaluation loop's step")
			c = cursor{in: ps[nstate+2 : nstate+2+nfixed]}
			enc := encodeEval(scope, &c)
			c.done("evaluation loop's fixed tensors")
			step, last := ps[0], ps[nstate]
			w := ConvertDType(Equal(last, step), dtypes.Float32)
			next, r, _, _ := body.bodyStep(scope, enc, cr, nil, nil, false)
			out := append([]*Node{OnePlus(step), next.hidden}, next.fed...)
			out = appendReadout(out, accumulate(body, enc, acc, r, w))
			return append(out, ps[nstate:]...)
		})
		res := While(cond, loop, state...)
		return res[1+1+l.nf : nstate] // the readout
	})
	if err != nil {
		p.finalize()
		return nil, fmt.Errorf("nn: %w", err)
	}
	return p, nil
}
