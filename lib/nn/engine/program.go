package engine

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// A training step as one program: the step loop's four kinds of programs
// (forward step, head, backward step, update: 2⌈S/k⌉+2 calls a training
// step) fused into one compiled program, called once per training step,
// as jax.lax.scan and its transpose run the reference's:
//
//  1. forward: an XLA While over s < S runs the step on carry c_s, storing
//     c_s into a stacked buffer [P,…] (P the program's bucket of steps,
//     StepBucket), and adds up the readout (each graph's last step) and the
//     hint losses' sums and counts;
//  2. head: the output decoders, the loss, and the gradient of the output
//     loss with respect to the readout (dR) and the parameters;
//  3. reverse: a While over s = S−1 … 0 reads c_s from the stacked buffer,
//     recomputes step s and takes, inside the loop's body, the gradient of
//     ⟨dc_{s+1}, c_{s+1}⟩ + ⟨w_s·dR, readout_s⟩ + Σᵢ sumᵢ,s/max(countᵢ, 1)
//     with respect to c_s and to the parameters (the objective of the step
//     loop's backward step), adding the latter to the gradient sum;
//  4. update: global-norm clipping and Adam on the gradient sum.
//
// The per-step data (the hints' truth, their validity, the one-hot of each
// graph's last step, the inputs given anew at each step and, with teacher
// forcing, the draws of the forward pass) are stacked along a leading axis
// of P steps, P ≥ S the bucket; S, the number of steps that run, is an
// input. So one program, compiled once per batch shape and bucket, serves
// every trajectory length of the bucket, and its size does not depend on
// the length: the bucket only sizes the stacked buffers.
//
// Everything a loop's body reads enters it as loop state (the static
// tensors, the stacked data, the parameters' values), the constant parts
// passed through unchanged: neither go-xla nor the pure-Go backend lets a
// loop's body read a value of the enclosing program. For the same reason
// each function (the program, each body, each condition) makes its own
// constants (freshCaches).

// StepBucket is the number of steps P of the stacked buffers of the
// one-program training step for a batch of S algorithm steps: the next
// power of two (at least 2), so that a run compiles a few programs (one
// per octave of lengths) at the cost of at most twice the memory of the
// stored carries, never more work (only S steps run).
func StepBucket(S int) int {
	p := 2
	for p < S {
		p *= 2
	}
	return p
}

// freshCaches forgets what the graph's builders cache per graph but hand
// out to whatever function asks: GoMLX v0.28's scalar constants
// (Graph.scalars) and go-xla v0.4.1's reduction functions (its Builder's
// cacheReductions, cacheArgMinMax and cacheSelections, each a closure of
// the function that first asked). A loop's body, or the program after a
// loop, would otherwise get a constant or a reduction of another function,
// which neither backend accepts (go-xla: "cannot add operation … after
// returning", "… is not a StableHLO closure of main"; pure Go: "a node from
// a different function scope"). It is called when a function's building
// starts and ends; the caches only save work, so forgetting them changes
// no result. The fields are reached by reflection (both modules are
// pinned); TestFreshCaches fails if either changes them.
func freshCaches(g *Graph) {
	gv := reflect.ValueOf(g).Elem()
	clearField(gv, "scalars")
	b := exposed(gv, "builder").Interface()
	if w, ok := b.(goBuilder); ok {
		b = w.Builder // the pure-Go backend caches nothing across functions
	}
	bv := reflect.ValueOf(b)
	if bv.Kind() != reflect.Pointer || bv.Elem().Type().String() != "xla.Builder" {
		return
	}
	for _, name := range xlaBuilderCaches {
		clearField(bv.Elem(), name)
	}
}

// xlaBuilderCaches are go-xla's Builder's caches of functions.
var xlaBuilderCaches = []string{"cacheReductions", "cacheArgMinMax", "cacheSelections"}

// exposed is struct field name of v (addressable), readable and writable
// although unexported.
func exposed(v reflect.Value, name string) reflect.Value {
	f := v.FieldByName(name)
	if !f.IsValid() {
		panic(fmt.Sprintf("engine: %s has no field %s (freshCaches follows GoMLX v0.28.2 and go-xla v0.4.1)", v.Type(), name))
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// clearField empties the map field name of v.
func clearField(v reflect.Value, name string) {
	f := exposed(v, name)
	if f.Kind() != reflect.Map {
		panic(fmt.Sprintf("engine: %s.%s is a %s, not a map (freshCaches follows GoMLX v0.28.2 and go-xla v0.4.1)", v.Type(), name, f.Kind()))
	}
	f.Clear()
}

// loopClosure is NewClosure with the closure's parameters made from the
// shapes of state, and fresh scalar constants on entry and exit.
func loopClosure(g *Graph, state []*Node, fn func(ps []*Node) []*Node) *Function {
	freshCaches(g)
	defer freshCaches(g)
	return NewClosure(g, func(g *Graph) []*Node {
		ps := make([]*Node, len(state))
		for i, x := range state {
			ps[i] = Parameter(g, fmt.Sprintf("state%d", i), x.Shape())
		}
		return fn(ps)
	})
}

// atStep is row s of a stacked tensor [P,…] (the row dropped): a dynamic
// slice where the backend has one (XLA), a gather otherwise (pure Go).
func atStep(x, s *Node) *Node {
	dims := x.Shape().Dimensions
	if !dynamicSlices(x.Graph()) {
		return Gather(x, Reshape(s, 1))
	}
	starts := make([]*Node, len(dims))
	starts[0] = s
	for i := 1; i < len(dims); i++ {
		starts[i] = ScalarZero(s.Graph(), s.DType())
	}
	size := append([]int{1}, dims[1:]...)
	return Reshape(DynamicSlice(x, starts, size), dims[1:]...)
}

// setStep writes x into row s of the stacked tensor [P,…], whose row s is
// zero: an in-place dynamic update where the backend has one (XLA), a
// scatter-add into the zero row otherwise (pure Go; exact, as x + 0 = x).
func setStep(stack, x, s *Node) *Node {
	dims := stack.Shape().Dimensions
	if !dynamicSlices(stack.Graph()) {
		return ScatterSum(stack, Reshape(s, 1, 1), InsertAxes(x, 0), true, true)
	}
	starts := make([]*Node, len(dims))
	starts[0] = s
	for i := 1; i < len(dims); i++ {
		starts[i] = ScalarZero(s.Graph(), s.DType())
	}
	return DynamicUpdateSlice(stack, InsertAxes(x, 0), starts)
}

// dynamicSlices tells whether the graph's backend has dynamic slices and
// updates (XLA does; GoMLX's pure-Go backend v0.1.2 does not).
func dynamicSlices(g *Graph) bool {
	ops := g.Backend().Capabilities().Operations
	return ops[compute.OpTypeDynamicSlice] && ops[compute.OpTypeDynamicUpdateSlice]
}

// stackedData are the stacked per-step tensors of the one-program
// training step's inputs, in its order: outStep [P,B], each scored hint's
// truth at the next step [P,…], valid [P,B] (when hints are scored), each
// step input [P,…], each of the step's random draws [P,…] (Layout.Draws).
type stackedData struct {
	w, valid *Node
	truth    []*Node
	stepIn   []*Node
	draws    []*Node
}

func (c *cursor) stacked(l Layout) stackedData {
	d := stackedData{w: c.next(), truth: c.take(l.Scored)}
	if l.Scored > 0 {
		d.valid = c.next()
	}
	d.stepIn = c.take(l.StepInputs)
	d.draws = c.take(l.Draws)
	return d
}

func (d stackedData) nodes() []*Node {
	out := append([]*Node{d.w}, d.truth...)
	if d.valid != nil {
		out = append(out, d.valid)
	}
	out = append(out, d.stepIn...)
	return append(out, d.draws...)
}

// at is step s's data (teacher: the step's teacher-forcing draws made in
// the program (Layout.Teacher), or nil), draws the step's random draws
// from the batch (Layout.Draws).
func (d stackedData) at(s *Node, teacher *Node) (w *Node, tg *HintTargets, stepIn, draws []*Node) {
	w = atStep(d.w, s)
	if len(d.truth) > 0 {
		tg = &HintTargets{Valid: atStep(d.valid, s), Teacher: teacher}
		for _, t := range d.truth {
			tg.Truth = append(tg.Truth, atStep(t, s))
		}
	}
	for _, x := range d.stepIn {
		stepIn = append(stepIn, atStep(x, s))
	}
	for _, x := range d.draws {
		draws = append(draws, atStep(x, s))
	}
	return w, tg, stepIn, draws
}

// withVariables sets the trainable variables' values in the graph to
// values (a loop body's parameters) for the time fn builds, then back.
func withVariables(vars []*model.Variable, values, restore []*Node, fn func()) {
	for i, v := range vars {
		v.SetNodeValue(values[i])
	}
	defer func() {
		for i, v := range vars {
			v.SetNodeValue(restore[i])
		}
	}()
	fn()
}

// rngVariable is the store's random-state variable (teacher-forcing draws
// in a loop's body advance it).
func rngVariable(scope *model.Scope) *model.Variable {
	return scope.Store().GetVariable(model.JoinPath("/", model.RNGStateVariableName))
}

// trainProgram builds the one-program training step's graph. Its inputs:
// the static tensors, the initial carry, the zero readout, the stacked
// per-step data (stackedData), the outputs' truth, the head's random draws
// (Layout.HeadDraws) and S (int32). Its
// outputs: the loss and, when update, the global step after the update
// (the optimizer's update applied); otherwise the gradient of the loss with
// respect to each trainable variable.
func trainProgram(body Body, opt Optimizer, update bool) ProgramFn {
	return func(scope *model.Scope, in []*Node) []*Node {
		l := body.Layout()
		g := in[0].Graph()
		freshCaches(g)
		defer freshCaches(g)
		c := cursor{in: in}
		static := c.take(l.Static)
		carry0 := c.take(1 + l.Fed)
		acc0 := c.take(l.readoutSize())
		data := c.stacked(l)
		truth := c.take(l.Outputs)
		headDraws := c.take(l.HeadDraws)
		steps := c.next()
		c.done("one-program training step")
		P := data.w.Shape().Dimensions[0]
		B := data.w.Shape().Dimensions[1]
		vars := TrainableVariables(scope)
		values := make([]*Node, len(vars))
		for i, v := range vars {
			values[i] = v.NodeValue(g)
		}
		var rng *model.Variable
		var rngMain *Node // the random state's value in the program
		if l.Teacher {
			rng = rngVariable(scope)
			if rng == nil {
				panic("engine: teacher forcing without the store's random state")
			}
			rngMain = rng.NodeValue(g)
		}

		// Forward: state = s, carry, readout, sums, counts, stored carries
		// (, draws, random state), then the fixed tensors.
		zero := Scalar(g, dtypes.Float32, 0)
		state := []*Node{Const(g, int32(0))}
		state = append(state, carry0...)
		state = append(state, acc0...)
		for range 2 * l.Scored {
			state = append(state, zero)
		}
		for _, x := range carry0 {
			state = append(state, Zeros(g, shapes.Make(x.DType(), append([]int{P}, x.Shape().Dimensions...)...)))
		}
		if l.Teacher {
			state = append(state, Zeros(g, shapes.Make(dtypes.Float32, P, B)), rngMain)
		}
		nvar := len(state)
		fixed := append(append(append([]*Node(nil), static...), data.nodes()...), steps)
		state = append(append(state, fixed...), values...)
		nc := 1 + l.Fed
		cond := loopClosure(g, state, func(ps []*Node) []*Node {
			return []*Node{LessThan(ps[0], ps[nvar+len(fixed)-1])}
		})
		fwd := loopClosure(g, state, func(ps []*Node) []*Node {
			out := make([]*Node, 0, len(ps))
			withVariables(vars, ps[nvar+len(fixed):], values, func() {
				k := cursor{in: ps}
				s := k.next()
				cr := Carry{Hidden: k.next(), Fed: k.take(l.Fed)}
				acc := k.readout(l)
				sums, counts := k.take(l.Scored), k.take(l.Scored)
				stored := k.take(nc)
				var draws, rngState *Node
				if l.Teacher {
					draws, rngState = k.next(), k.next()
					rng.SetNodeValue(rngState)
				}
				fx := cursor{in: ps[nvar : nvar+len(fixed)]}
				enc := body.EncodeStatic(scope, fx.take(l.Static))
				d := fx.stacked(l)
				w, tg, stepIn, sd := d.at(s, nil)
				teacher := body.DrawTeacher(scope, g, body.NumGraphs(enc))
				if tg != nil {
					tg.Teacher = teacher
				}
				next, r, su, co := body.Step(scope, enc, cr, tg, stepIn, sd, true)
				acc = accumulate(body, enc, acc, r, w)
				for i := range su {
					sums[i], counts[i] = Add(sums[i], su[i]), Add(counts[i], co[i])
				}
				for i, x := range append([]*Node{cr.Hidden}, cr.Fed...) {
					stored[i] = setStep(stored[i], x, s)
				}
				out = append(out, OnePlus(s), next.Hidden)
				out = append(out, next.Fed...)
				out = appendReadout(out, acc)
				out = append(append(append(out, sums...), counts...), stored...)
				if l.Teacher {
					out = append(out, setStep(draws, teacher, s), rng.NodeValue(g))
					rng.SetNodeValue(rngMain) // back to the program's own value
				}
				out = append(out, ps[nvar:]...)
			})
			return out
		})
		res := While(cond, fwd, state...)
		k := cursor{in: res[:nvar]}
		k.next()
		k.take(nc) // the last carry: unused
		acc := k.readout(l)
		sums, counts := k.take(l.Scored), k.take(l.Scored)
		stored := k.take(nc)
		var draws *Node
		if l.Teacher {
			draws = k.next()
			rng.SetNodeValue(k.next()) // the random state after the draws
		}
		// The head's gradient stops at the readout (GoMLX cannot
		// differentiate a While): an identity after the stop is what it is
		// taken with respect to.
		cut := func(x *Node) *Node { return Identity(StopGradient(x)) }
		for i := range acc.Fed {
			acc.Fed[i] = cut(acc.Fed[i])
		}
		acc.H = cut(acc.H)
		if acc.Extra != nil {
			acc.Extra = cut(acc.Extra)
		}

		// Head.
		enc := body.EncodeStatic(scope, static)
		outs := body.Outputs(scope, enc, acc, headDraws, true)
		outLoss := body.OutputLoss(enc, outs, truth)
		loss := outLoss
		var inv []*Node
		if l.Scored > 0 {
			loss = Add(loss, HintLoss(sums, counts))
			for i := range counts {
				inv = append(inv, Inverse(Max(counts[i], OnesLike(counts[i]))))
			}
		}
		wrt := appendReadout(nil, acc)
		wrt = append(wrt, values...)
		gradsOut := Gradient(outLoss, wrt...)
		dR := gradsOut[:l.readoutSize()]
		gradSums := gradsOut[l.readoutSize():]

		// Reverse: state = s, dCarry, gradient sums, then the fixed
		// tensors: static, stacked data, stored carries (, draws), dR,
		// 1/count, the variables' values.
		state = []*Node{Sub(steps, Const(g, int32(1)))}
		for _, x := range carry0 {
			state = append(state, ZerosLike(x))
		}
		state = append(state, gradSums...)
		nvar = len(state)
		fixed = append(append(append([]*Node(nil), static...), data.nodes()...), stored...)
		if l.Teacher {
			fixed = append(fixed, draws)
		}
		fixed = append(append(fixed, dR...), inv...)
		state = append(append(state, fixed...), values...)
		cond = loopClosure(g, state, func(ps []*Node) []*Node {
			return []*Node{GreaterOrEqual(ps[0], ScalarZero(ps[0].Graph(), dtypes.Int32))}
		})
		bwd := loopClosure(g, state, func(ps []*Node) []*Node {
			var out []*Node
			params := ps[nvar+len(fixed):]
			withVariables(vars, params, values, func() {
				k := cursor{in: ps}
				s := k.next()
				dHidden, dFed := k.next(), k.take(l.Fed)
				sums := k.take(len(vars))
				fx := cursor{in: ps[nvar : nvar+len(fixed)]}
				enc := body.EncodeStatic(scope, fx.take(l.Static))
				d := fx.stacked(l)
				storedP := fx.take(nc)
				var teacher *Node
				if l.Teacher {
					teacher = atStep(fx.next(), s)
				}
				dR := fx.readout(l)
				inv := fx.take(l.Scored)
				fx.done("reverse loop's fixed tensors")
				start := make([]*Node, nc)
				for i, x := range storedP {
					start[i] = atStep(x, s)
				}
				w, tg, stepIn, sd := d.at(s, teacher)
				next, r, su, _ := body.Step(scope, enc, Carry{Hidden: start[0], Fed: start[1:]}, tg, stepIn, sd, true)
				obj := dot(dHidden, next.Hidden)
				for i := range dFed {
					obj = Add(obj, dot(dFed[i], next.Fed[i]))
				}
				ws := body.ReadoutWeights(enc, w, r)
				obj = Add(obj, dot(Mul(ws.H, dR.H), r.H))
				for i := range dR.Fed {
					obj = Add(obj, dot(Mul(ws.Fed[i], dR.Fed[i]), r.Fed[i]))
				}
				if l.Extra {
					obj = Add(obj, dot(Mul(ws.Extra, dR.Extra), r.Extra))
				}
				for i := range su {
					obj = Add(obj, Mul(inv[i], su[i]))
				}
				grads := Gradient(obj, append(start, params...)...)
				out = append([]*Node{Sub(s, OnesLike(s))}, grads[:nc]...)
				for i, gs := range sums {
					out = append(out, Add(gs, grads[nc+i]))
				}
				out = append(out, ps[nvar:]...)
			})
			return out
		})
		res = While(cond, bwd, state...)
		grads := res[1+nc : 1+nc+len(vars)]

		if !update {
			// Identities after the loop: the pure-Go backend (compute
			// v0.1.2) sizes a program's buffers to its last output node and
			// fails on a loop whose unused outputs come after it.
			out := []*Node{Identity(loss)}
			for _, x := range grads {
				out = append(out, Identity(x))
			}
			return out
		}
		// Update.
		if clip, on := body.GradClip(); on {
			grads = ClipByGlobalNorm(grads, clip)
		}
		opt.UpdateGraphWithGradients(scope, grads, loss.DType())
		return []*Node{loss}
	}
}

// programArgs are the one-program training step's inputs for a batch, its
// per-step data stacked to P steps (zeros past the batch's S).
func programArgs(l Layout, b Batch, P int, zeros []*tensors.Tensor) ([]any, error) {
	S := b.Steps()
	var args []any
	for _, t := range b.Static() {
		args = append(args, t)
	}
	for _, t := range b.InitialCarry() {
		args = append(args, t)
	}
	for _, t := range zeros {
		args = append(args, t)
	}
	stacks := []func(s int) *tensors.Tensor{b.OutStepAt}
	for i := 0; i < l.Scored; i++ {
		stacks = append(stacks, func(s int) *tensors.Tensor { return b.HintAt(i, s+1) })
	}
	if l.Scored > 0 {
		stacks = append(stacks, func(s int) *tensors.Tensor { return b.ValidAt(s + 1) })
	}
	for j := 0; j < l.StepInputs; j++ {
		stacks = append(stacks, func(s int) *tensors.Tensor { return b.StepInputsAt(s)[j] })
	}
	for j := 0; j < l.Draws; j++ {
		stacks = append(stacks, func(s int) *tensors.Tensor { return b.DrawsAt(s)[j] })
	}
	for _, at := range stacks {
		t, err := stackSteps(at, S, P)
		if err != nil {
			return nil, err
		}
		args = append(args, t)
	}
	for _, t := range b.Outputs() {
		args = append(args, t)
	}
	for _, t := range b.HeadDraws() {
		args = append(args, t)
	}
	return append(args, tensors.FromScalar(int32(S))), nil
}

// stackSteps stacks at(0), …, at(S−1) (float32 tensors of one shape) into
// a tensor [P,…], zeros after the S rows.
func stackSteps(at func(s int) *tensors.Tensor, S, P int) (*tensors.Tensor, error) {
	first := at(0)
	dims := first.Shape().Dimensions
	n := first.Shape().Size()
	flat := make([]float32, P*n)
	for s := 0; s < S; s++ {
		t := first
		if s > 0 {
			t = at(s)
		}
		if !t.Shape().Equal(first.Shape()) {
			return nil, fmt.Errorf("engine: step %d's tensor has shape %s, step 0's %s", s, t.Shape(), first.Shape())
		}
		err := t.ConstFlatData(func(f any) {
			copy(flat[s*n:(s+1)*n], f.([]float32))
		})
		if err != nil {
			return nil, fmt.Errorf("engine: stacking step %d: %w", s, err)
		}
	}
	return tensors.FromFlatDataAndDimensions(flat, append([]int{P}, dims...)...), nil
}

// onePrograms are a loop's one-program training steps (built on first use,
// compiled per batch shape and step bucket by their model.Exec).
type onePrograms struct {
	train, grads *model.Exec
	// zeros are the zero readouts the programs start from, per batch
	// shape: kept (on the device after the first call), never donated.
	zeros map[string][]*tensors.Tensor
	// compiles are the training program's compilations by input shapes,
	// busy whether one runs in the background (CompileProgram).
	mu       sync.Mutex
	compiles map[string]*unrollCompile
	busy     bool
	wg       sync.WaitGroup
}

func (o *onePrograms) finalize() {
	o.wg.Wait()
	for _, e := range []*model.Exec{o.train, o.grads} {
		if e != nil {
			e.Finalize()
		}
	}
	for _, z := range o.zeros {
		Free(z...)
	}
}

// TrainProgram runs a batch's training step as one program (see
// trainProgram), its per-step data stacked to P ≥ S steps (StepBucket;
// one program is compiled per batch shape and P). With update it applies
// the optimizer and returns the loss; otherwise it returns the loss and
// the gradient with respect to each trainable variable (see
// TrainableVariables), which the caller must free. The same function as
// LossAndGradients (TestOneProgramSameFunction).
func (sl *Loop) TrainProgram(b Batch, P int, update bool) (float64, []*tensors.Tensor, error) {
	S := b.Steps()
	if P < S {
		return 0, nil, fmt.Errorf("engine: a one-program step of %d steps for a batch of %d", P, S)
	}
	if isGoBackend(sl.backend) && GoClosures(sl.backend) != sl.backend {
		return 0, nil, fmt.Errorf("engine: a one-program training step on the pure-Go backend needs it wrapped by GoClosures")
	}
	exec, err := sl.programExec(b, update)
	if err != nil {
		return 0, nil, err
	}
	args, err := programArgs(sl.layout, b, P, sl.programZeros(b))
	if err != nil {
		return 0, nil, err
	}
	t0 := time.Now()
	res, err := exec.Call(args...)
	sl.times.add(exec, time.Since(t0))
	sl.freeProgramArgs(b, args)
	if err != nil {
		return 0, nil, fmt.Errorf("engine: train step (one program, %d steps of %d): %w", S, P, err)
	}
	loss, err := ToFloat(res[0])
	Free(res[0])
	if err != nil {
		Free(res[1:]...)
		return 0, nil, err
	}
	if update {
		Free(res[1:]...)
		return loss, nil, nil
	}
	return loss, res[1:], nil
}

// programExec is the one-program training step's executable (update: the
// training step; otherwise the one returning gradients), made on first use
// after the batch's variables exist.
func (sl *Loop) programExec(b Batch, update bool) (*model.Exec, error) {
	if err := sl.createVariables(b); err != nil {
		return nil, err
	}
	o := &sl.one
	o.mu.Lock()
	defer o.mu.Unlock()
	exec := &o.grads
	if update {
		exec = &o.train
	}
	if *exec == nil {
		e, err := model.NewExec(sl.backend, sl.store, SerialBuild(sl.build, trainProgram(sl.body, sl.opt, update)))
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		*exec = e
	}
	return *exec, nil
}

// programZeros is the kept zero readout of the batch's shape.
func (sl *Loop) programZeros(b Batch) []*tensors.Tensor {
	o := &sl.one
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.zeros == nil {
		o.zeros = map[string][]*tensors.Tensor{}
	}
	key := b.ShapeKey()
	if o.zeros[key] == nil {
		o.zeros[key] = b.ReadoutZeros()
	}
	return o.zeros[key]
}

// SetVariablesLock gives the loop the lock its owner holds while training
// steps replace the variables' values: a program compiled in the background
// (CompileProgram) holds it for reading while its graph is built.
func (sl *Loop) SetVariablesLock(mu *sync.RWMutex) { sl.varsLock = mu }

// CompileProgram compiles a batch's one-program training step for P steps
// (see TrainProgram), in the background or waiting for it: one background
// compilation at a time, and none started while one runs. Call it without
// holding the variables' lock (SetVariablesLock).
func (sl *Loop) CompileProgram(b Batch, P int, background bool) error {
	exec, err := sl.programExec(b, true)
	if err != nil {
		return err
	}
	args, err := programArgs(sl.layout, b, P, sl.programZeros(b))
	if err != nil {
		return err
	}
	ss := make([]shapes.Shape, len(args))
	for i, a := range args {
		ss[i] = a.(*tensors.Tensor).Shape()
	}
	sl.freeProgramArgs(b, args)
	o := &sl.one
	key := fmt.Sprint(ss)
	o.mu.Lock()
	c, ok := o.compiles[key]
	if !ok {
		if background && o.busy {
			o.mu.Unlock()
			return nil
		}
		if o.compiles == nil {
			o.compiles = map[string]*unrollCompile{}
		}
		c = &unrollCompile{done: make(chan struct{})}
		o.compiles[key] = c
		o.busy = o.busy || background
		o.wg.Add(1)
		go func() {
			defer o.wg.Done()
			if sl.varsLock != nil {
				sl.varsLock.RLock()
				defer sl.varsLock.RUnlock()
			}
			_, err := exec.Compile(ss...)
			o.mu.Lock()
			c.err = err
			if background {
				o.busy = false
			}
			o.mu.Unlock()
			close(c.done)
		}()
	}
	o.mu.Unlock()
	if background {
		return nil
	}
	<-c.done
	if c.err != nil {
		return fmt.Errorf("engine: compiling the one-program training step (%d steps): %w", P, c.err)
	}
	return nil
}

// ProgramCompilations is the number of one-program training steps
// compiled or compiling.
func (sl *Loop) ProgramCompilations() int {
	sl.one.mu.Lock()
	defer sl.one.mu.Unlock()
	return len(sl.one.compiles)
}

// freeProgramArgs frees what programArgs made for a call (not the batch's
// own tensors, not the kept zeros).
func (sl *Loop) freeProgramArgs(b Batch, args []any) {
	zeros := sl.programZeros(b)
	outs, head := b.Outputs(), b.HeadDraws()
	for _, a := range args[len(b.Static()):] {
		if t := a.(*tensors.Tensor); !slices.Contains(zeros, t) && !slices.Contains(outs, t) && !slices.Contains(head, t) {
			Free(t)
		}
	}
}

// createVariables builds, once per batch shape, the step loop's forward
// step and head on the pure-Go backend (as prepare does), which creates
// every variable a step and the head use: the one program's loop bodies
// read them as their parameters and cannot create them.
func (sl *Loop) createVariables(b Batch) error {
	key := b.ShapeKey() + "/variables"
	if sl.progs.prepared[key] {
		return nil
	}
	dry, err := dryBackend()
	if err != nil {
		return err
	}
	for _, i := range []int{progStepFwd, progHead} {
		e, err := model.NewExec(dry, sl.store, sl.progs.fns[i])
		if err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		_, err = e.Compile(sl.programShapes(i, b)...)
		e.Finalize()
		if err != nil {
			return fmt.Errorf("engine: building the step loop: %w", err)
		}
	}
	sl.progs.prepared[key] = true
	return nil
}
