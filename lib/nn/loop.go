package nn

import (
	"fmt"

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
	// prepared holds the batch shapes (loopBatch.shapeKey) whose training
	// or evaluation programs are compiled.
	prepared map[string]bool
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
	p := &loopPrograms{prepared: map[string]bool{}}
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
