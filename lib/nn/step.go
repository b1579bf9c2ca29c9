package nn

import (
	"math"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/clrs"
)

// The model is written once, as one algorithm step (step) between the
// encoders of the inputs (encodeInputs) and the output decoders
// (decodeOutputs). Two drivers run it: forward unrolls the steps of a batch
// into one program, the step loop (loop.go) compiles the step alone and
// runs it once per step. Both compute the same function.

// features are what the encoders make of a batch's inputs, plus at a step
// the hints fed to it: node features [B,N,H], factored edge latents and
// graph features [B,H].
type features struct {
	node  *Node
	edge  edgeLatents
	graph *Node
}

// carry is what one step hands to the next: the node latents [B,N,H] and,
// when hints are encoded, the hint values fed to the next step (in their
// probes' layouts; nil otherwise).
type carry struct {
	hidden *Node
	fed    []*Node
}

// readout is what the output decoders read from a step: the node latents
// hT [B,N,3H] (features, previous and new latents), the hints fed to the
// step (their encodings rebuild the step's edge and graph features and its
// adjacency; nil when hints are not encoded) and the triplet edge latents
// [B,N,N,H] (nil for processors without triplets, and when no output
// decoder reads edge latents: outputsReadEdges).
type readout struct {
	h     *Node
	fed   []*Node
	extra *Node
}

// hintTargets are the ground truth a training step's hint predictions are
// scored against: the hints of the next step, the per-sample weights [B]
// (1 where that step is within the sample's trajectory) and, with teacher
// forcing, the per-sample draws [B] (1: feed the truth).
type hintTargets struct {
	truth   []*Node
	valid   *Node
	teacher *Node
}

// graphInputs are the nodes the unrolled programs are built from, in exec
// order.
type graphInputs struct {
	inputs, hints, outputs []*Node
	adj                    *Node // [B,N,N] processor adjacency (1 = edge i→j, identity included)
	outStep                *Node // [S,B] one-hot of the step whose outputs count
	hintValid              *Node // [T,B] 1 where step t < length
}

func splitInputs(spec modelSpec, in []*Node) graphInputs {
	ni, nh, no := len(spec.inputs), len(spec.hints), len(spec.outputs)
	return graphInputs{
		inputs: in[:ni], hints: in[ni : ni+nh], outputs: in[ni+nh : ni+nh+no],
		adj: in[ni+nh+no], outStep: in[ni+nh+no+1], hintValid: in[ni+nh+no+2],
	}
}

// encodeHints reports whether hints are fed back (encoded) at every step.
func (m *Model) encodeHints() bool { return m.cfg.HintMode == "encoded_decoded" }

// decodeHints reports whether hints are predicted and add their loss.
func (m *Model) decodeHints() bool { return m.cfg.HintMode != "none" }

// outputsReadEdges reports whether an output decoder reads the edge
// latents: node pointers and every edge output do (see decode); node masks,
// scalars and categoricals and graph outputs read only the node latents.
// Only then does a triplet processor's readout carry its edge latents to
// the head: otherwise the step loop would accumulate a [B,N,N,H] tensor per
// step that nothing reads.
func (m *Model) outputsReadEdges() bool {
	for _, l := range m.spec.outputs {
		if k := kind(l.Type); l.Location == clrs.Edge || (l.Location == clrs.Node && (k == clrs.Pointer || k == clrs.PermutationPointer)) {
			return true
		}
	}
	return false
}

// encoderInput reshapes a probe's layout tensor (no time axis) into its
// encoder's feature layout: node [B,N,F], edge [B,N,N,F], graph [B,F].
func encoderInput(l probeLayout, x *Node) *Node {
	if l.classes > 0 {
		return x // categorical: the class axis is the feature axis
	}
	return InsertAxes(x, -1)
}

// encode adds the encoding of one probe's value x (its layout, no time
// axis) to f, with the encoder's variables in scope name.
func (m *Model) encode(scope *model.Scope, f features, l probeLayout, x *Node, name string) features {
	H := m.cfg.Hidden
	g := x.Graph()
	sc := scope.At("%s", name)
	if l.Stage == clrs.Hint && kind(l.Type) == clrs.Scalar {
		// The reference's encoder_init xavier_on_scalars.
		sc = withInitStddev(sc, 1/math.Sqrt(float64(H)))
	}
	if l.enc == clrs.Edge {
		if kind(l.Type) == clrs.Pointer && l.Location == clrs.Edge {
			// One-hot [B,i,j,k]: mean over i of enc1 plus mean over j of
			// enc2, each a map of one feature, so the means of the one-hot
			// rows are the fields.
			w1, b1 := denseVariables(scope.At("%s", name).At("1"), g, shapeF32(1, H), true)
			w2, b2 := denseVariables(scope.At("%s", name).At("2"), g, shapeF32(1, H), true)
			f.edge = f.edge.withField(InsertAxes(ReduceMean(x, 1), -1), w1, b1).
				withField(InsertAxes(ReduceMean(x, 2), -1), w2, b2)
			return f
		}
		field := encoderInput(l, x)
		w, b := denseVariables(sc, g, shapeF32(field.Shape().Dimensions[3], H), true)
		f.edge = f.edge.withField(field, w, b)
		return f
	}
	e := Dense(sc, encoderInput(l, x), true, H)
	if l.enc == clrs.Node {
		f.node = Add(f.node, e)
	} else {
		f.graph = Add(f.graph, e)
	}
	return f
}

// encodeInputs encodes a batch's inputs (constant over the steps). Edge
// encodings stay factored (edgeLatents): each is a linear map of a few raw
// fields.
func (m *Model) encodeInputs(scope *model.Scope, inputs []*Node, b, n int) features {
	H := m.cfg.Hidden
	g := inputs[0].Graph()
	f := features{node: Zeros(g, shapeF32(b, n, H)), edge: noEdges(b, n, H), graph: Zeros(g, shapeF32(b, H))}
	for i, l := range m.spec.inputs {
		f = m.encode(scope, f, l, inputs[i], "enc_input_"+l.Name)
	}
	return f
}

// stepFeatures are the features and processor adjacency of a step fed the
// hints fed (nil when hints are not encoded).
func (m *Model) stepFeatures(scope *model.Scope, in features, adj0 *Node, fed []*Node) (features, *Node) {
	if fed == nil {
		return in, adj0
	}
	f := in
	for i, l := range m.spec.hints {
		f = m.encode(scope, f, l, fed[i], "enc_hint_"+l.Name)
	}
	return f, hintAdjacency(adj0, m.spec.hints, fed)
}

// step is one algorithm step: the processor's update of the node latents,
// the hint predictions of the next step (their losses as sums and counts
// when targets are given, nil otherwise) and what the next step is fed.
func (m *Model) step(scope *model.Scope, in features, adj0 *Node, c carry, tg *hintTargets, training bool) (next carry, r readout, sums, counts []*Node) {
	f, adj := m.stepFeatures(scope, in, adj0, c.fed)
	h, tri := m.process(scope.At("processor"), f.node, f.edge, f.graph, c.hidden, adj)
	hT := Concatenate([]*Node{f.node, c.hidden, h}, -1) // [B,N,3H]
	eT := f.edge
	if tri != nil {
		eT = f.edge.withExtra(tri)
	}
	next = carry{hidden: h, fed: c.fed}
	r = readout{h: hT, fed: c.fed}
	if m.outputsReadEdges() {
		r.extra = tri
	}
	scored := tg != nil && m.decodeHints()
	if !scored && !m.encodeHints() {
		return next, r, nil, nil
	}
	if m.encodeHints() {
		next.fed = make([]*Node, len(m.spec.hints))
	}
	if scored {
		sums, counts = make([]*Node, len(m.spec.hints)), make([]*Node, len(m.spec.hints))
	}
	hard := m.cfg.HintRepred == "hard" || (m.cfg.HintRepred == "hard_on_eval" && !training)
	for i, l := range m.spec.hints {
		logits := m.decode(scope.At("dec_hint_%s", l.Name), l, hT, eT, f.graph, adj, training)
		if scored {
			// The reference normalises each hint's loss once over all
			// steps (losses.hint_loss): the drivers add up sums and counts.
			sums[i], counts[i] = probeLoss(l, logits, tg.truth[i], tg.valid, true)
		}
		if m.encodeHints() {
			fedNext := repredict(l, logits, hard)
			if tg != nil && tg.teacher != nil {
				tf := broadcastSample(tg.teacher, tg.truth[i])
				fedNext = Add(Mul(tf, tg.truth[i]), Mul(OneMinus(tf), fedNext))
			}
			next.fed[i] = fedNext
		}
	}
	return next, r, sums, counts
}

// drawTeacher draws a training step's teacher-forcing choices [B] (1: feed
// the ground truth) from the model's random state, or returns nil when the
// step feeds only its own predictions.
func (m *Model) drawTeacher(scope *model.Scope, g *Graph, b int) *Node {
	if !m.encodeHints() || m.cfg.TeacherForcing <= 0 {
		return nil
	}
	u := scope.Store().RandomUniform(g, shapeF32(b))
	return ConvertDType(LessThan(u, ConstAs(u, m.cfg.TeacherForcing)), u.DType())
}

// decodeOutputs decodes the outputs from the readout of each sample's last
// step (in evaluation, permutation pointers as logits: Predict runs their
// Sinkhorn post-processing, logSinkhornHost). The reference decodes the outputs after every step and keeps the
// last; decoding them once from the last step's readout is the same
// function at 1/S of the cost.
func (m *Model) decodeOutputs(scope *model.Scope, in features, adj0 *Node, r readout, training bool) []*Node {
	f, adj := m.stepFeatures(scope, in, adj0, r.fed)
	eT := f.edge
	if r.extra != nil {
		eT = f.edge.withExtra(r.extra)
	}
	var outs []*Node
	for _, l := range m.spec.outputs {
		acc := m.decode(scope.At("dec_output_%s", l.Name), l, r.h, eT, f.graph, adj, training)
		outs = append(outs, acc)
	}
	return outs
}

// hintLossOf is the hint loss from each hint's summed loss and count over
// all steps: Σᵢ sumᵢ / max(countᵢ, 1).
func hintLossOf(sums, counts []*Node) *Node {
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

// forward unrolls the model over the hint steps of a batch and returns the
// output logits (in their probes' layouts, read at each sample's last step)
// and the hint loss (nil when hints are not scored).
func (m *Model) forward(scope *model.Scope, gi graphInputs, training bool) (outs []*Node, hintLoss *Node) {
	H := m.cfg.Hidden
	B, N := gi.adj.Shape().Dimensions[0], gi.adj.Shape().Dimensions[1]
	g := gi.adj.Graph()
	S := gi.outStep.Shape().Dimensions[0]
	T := gi.hintValid.Shape().Dimensions[0]
	in := m.encodeInputs(scope, gi.inputs, B, N)
	c := carry{hidden: Zeros(g, shapeF32(B, N, H))}
	if m.encodeHints() {
		c.fed = make([]*Node, len(m.spec.hints))
		for i := range m.spec.hints {
			c.fed[i] = stepOf(gi.hints[i], 0) // ground truth at step 0
		}
	}
	var sums, counts []*Node
	var last readout
	for s := 0; s < S; s++ {
		var tg *hintTargets
		var teacher *Node
		if training {
			// Drawn at every step whether used or not, as the step loop
			// does, so that both drivers draw the same numbers.
			teacher = m.drawTeacher(scope, g, B)
		}
		if s+1 < T {
			tg = &hintTargets{truth: make([]*Node, len(m.spec.hints)), valid: stepOf(gi.hintValid, s+1), teacher: teacher}
			for i := range m.spec.hints {
				tg.truth[i] = stepOf(gi.hints[i], s+1)
			}
		}
		next, r, su, co := m.step(scope, in, gi.adj, c, tg, training)
		for i := range su {
			if sums == nil {
				sums, counts = su, co
				break
			}
			sums[i], counts[i] = Add(sums[i], su[i]), Add(counts[i], co[i])
		}
		last = accumulateReadout(last, r, stepOf(gi.outStep, s))
		c = next
	}
	if sums != nil {
		hintLoss = hintLossOf(sums, counts)
	}
	return m.decodeOutputs(scope, in, gi.adj, last, training), hintLoss
}

// accumulateReadout returns acc + w·r with per-sample weights w [B]: with
// w one-hot over the steps for each sample (its last step), the sum over
// the steps is exactly that step's readout (products with 0 and 1 and sums
// with zeros are exact). A zero acc starts the sum.
func accumulateReadout(acc, r readout, w *Node) readout {
	add := func(a, x *Node) *Node {
		if x == nil {
			return nil
		}
		t := Mul(broadcastSample(w, x), x)
		if a == nil {
			return t
		}
		return Add(a, t)
	}
	out := readout{h: add(acc.h, r.h), extra: add(acc.extra, r.extra)}
	if r.fed != nil {
		out.fed = make([]*Node, len(r.fed))
		for i := range r.fed {
			var a *Node
			if acc.fed != nil {
				a = acc.fed[i]
			}
			out.fed[i] = add(a, r.fed[i])
		}
	}
	return out
}
