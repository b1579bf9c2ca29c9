package nn

import (
	"math"
	"strings"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn/engine"
)

// The model is written once, as one algorithm step (step) between the
// encoders of the inputs (encodeInputs) and the output decoders
// (decodeOutputs). Two drivers run it: forward unrolls the steps of a batch
// into one program, the engine's step loop (lib/nn/engine) compiles the
// step alone (denseBody) and runs it once per step. Both compute the same
// function.

// features are what the encoders make of a batch's inputs, plus at a step
// the hints fed to it: node features [B,N,H], factored edge latents and
// graph features [B,H].
type features struct {
	node  *Node
	edge  EdgeLatents
	graph *Node
}

// The step's carry, readout and hint targets are the engine's
// (engine.Carry, engine.Readout, engine.HintTargets): the carry holds the
// node latents [B,N,H] and, when hints are encoded, the hint values fed to
// the next step (in their probes' layouts); the readout the node latents
// hT [B,N,3H] (features, previous and new latents), the hints fed to the
// step (their encodings rebuild the step's edge and graph features and its
// adjacency) and, as Extra, the triplet edge latents [B,N,N,H] (nil for
// processors without triplets, and when no output decoder reads edge
// latents: outputsReadEdges).

// graphInputs are the nodes the unrolled programs are built from, in exec
// order.
type graphInputs struct {
	inputs, hints, outputs []*Node
	adj                    *Node // [B,N,N] processor adjacency (1 = edge i→j, identity included)
	outStep                *Node // [S,B] one-hot of the step whose outputs count
	hintValid              *Node // [T,B] 1 where step t < length
	// The training program's random draws (draws.go): per-step ones
	// stacked [S,…] (teacher forcing [S,B], dropout [S,B,N,H]; nil when
	// off) and the permutation outputs' noise [B,N,N].
	teacher, dropout *Node
	noise            []*Node
}

// splitInputs splits the unrolled programs' inputs; the training program
// (withDraws) also takes the model's draws (drawLayout).
func splitInputs(spec modelSpec, in []*Node, dl drawLayout, withDraws bool) graphInputs {
	ni, nh, no := len(spec.inputs), len(spec.hints), len(spec.outputs)
	gi := graphInputs{
		inputs: in[:ni], hints: in[ni : ni+nh], outputs: in[ni+nh : ni+nh+no],
		adj: in[ni+nh+no], outStep: in[ni+nh+no+1], hintValid: in[ni+nh+no+2],
	}
	if !withDraws {
		return gi
	}
	c := ni + nh + no + 3
	if dl.teacher {
		gi.teacher = in[c]
		c++
	}
	if dl.dropout {
		gi.dropout = in[c]
		c++
	}
	gi.noise = in[c : c+len(dl.perms)]
	return gi
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

// encdec is the scope of the model's encoders and decoders: scope itself,
// or for a part of a model of several algorithms its algo_<i> under scope
// (the processor, shared, stays at scope/processor).
func (m *Model) encdec(scope *model.Scope) *model.Scope {
	if m.prefix == "" {
		return scope
	}
	return scope.At("%s", m.prefix)
}

// encode adds the encoding of one probe's value x (its layout, no time
// axis) to f, with the encoder's variables in scope name (under encdec).
func (m *Model) encode(scope *model.Scope, f features, l probeLayout, x *Node, name string) features {
	H := m.cfg.Hidden
	g := x.Graph()
	scope = m.encdec(scope)
	sc := scope.At("%s", name)
	if l.Stage == clrs.Hint && kind(l.Type) == clrs.Scalar && m.cfg.EncoderInit == "xavier_on_scalars" {
		// The reference's encoder_init xavier_on_scalars (its "default":
		// haiku's 1/√fan_in, as every other encoder).
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
// encodings stay factored (EdgeLatents): each is a linear map of a few raw
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
	if len(fed) == 0 { // nil, or none carried (an engine may hand an empty slice)
		return in, adj0
	}
	f := in
	for i, l := range m.spec.hints {
		f = m.encode(scope, f, l, fed[i], "enc_hint_"+l.Name)
	}
	return f, hintAdjacency(adj0, m.spec.hints, fed)
}

// stepDraws are a training step's draws (nil when off): the
// teacher-forcing choices [B] of the next step and the dropout multipliers
// [B,N,H].
type stepDraws struct{ teacher, dropout *Node }

// stepDrawsOf names a step's draws (in drawLayout's order).
func (m *Model) stepDrawsOf(draws []*Node) stepDraws {
	var d stepDraws
	dl := m.drawLayout()
	if len(draws) == 0 {
		return d
	}
	i := 0
	if dl.teacher {
		d.teacher = draws[i]
		i++
	}
	if dl.dropout {
		d.dropout = draws[i]
	}
	return d
}

// step is one algorithm step: the processor's update of the node latents
// (the processor run MsgPassingSteps times, then dropout in training, then
// the LSTM), the hint predictions of the next step (their losses as sums
// and counts when targets are given, nil otherwise) and what the next step
// is fed. With the LSTM, the carry's node state is [latents, LSTM cell]
// ([B,N,2H]); the latents are the LSTM's output.
func (m *Model) step(scope *model.Scope, in features, adj0 *Node, c engine.Carry, tg *engine.HintTargets, d stepDraws, training bool) (next engine.Carry, r engine.Readout, sums, counts []*Node) {
	H := m.cfg.Hidden
	f, adj := m.stepFeatures(scope, in, adj0, c.Fed)
	hidden := c.Hidden
	var cell *Node
	if m.cfg.LSTM {
		hidden = Slice(c.Hidden, AxisRange(), AxisRange(), AxisRange(0, H))
		cell = Slice(c.Hidden, AxisRange(), AxisRange(), AxisRange(H, 2*H))
	}
	h := hidden
	var tri *Node
	for range m.cfg.MsgPassingSteps {
		// The same parameters and features each time; the last call's
		// triplet latents are read (the reference's _one_step_pred).
		h, tri = m.process(scope.At("processor"), f.node, f.edge, f.graph, h, adj)
	}
	if training && d.dropout != nil {
		h = Mul(h, d.dropout)
	}
	state := h
	if m.cfg.LSTM {
		h, cell = m.lstm(scope.At("lstm"), h, hidden, cell)
		state = Concatenate([]*Node{h, cell}, -1)
	}
	hT := Concatenate([]*Node{f.node, hidden, h}, -1) // [B,N,3H]
	eT := f.edge
	if tri != nil {
		eT = f.edge.withExtra(tri)
	}
	next = engine.Carry{Hidden: state, Fed: c.Fed}
	r = engine.Readout{H: hT, Fed: c.Fed}
	if m.outputsReadEdges() {
		r.Extra = tri
	}
	scored := tg != nil && m.decodeHints()
	if !scored && !m.encodeHints() {
		return next, r, nil, nil
	}
	if m.encodeHints() {
		next.Fed = make([]*Node, len(m.spec.hints))
	}
	if scored {
		sums, counts = make([]*Node, len(m.spec.hints)), make([]*Node, len(m.spec.hints))
	}
	hard := m.cfg.HintRepred == "hard" || (m.cfg.HintRepred == "hard_on_eval" && !training)
	for i, l := range m.spec.hints {
		logits := m.decode(m.encdec(scope).At("dec_hint_%s", l.Name), l, hT, eT, f.graph, adj, nil)
		if scored {
			// The reference normalises each hint's loss once over all
			// steps (losses.hint_loss): the drivers add up sums and counts.
			sums[i], counts[i] = probeLoss(l, logits, tg.Truth[i], tg.Valid, true)
		}
		if m.encodeHints() {
			fedNext := repredict(l, logits, hard)
			if tg != nil && d.teacher != nil {
				tf := broadcastSample(d.teacher, tg.Truth[i])
				fedNext = Add(Mul(tf, tg.Truth[i]), Mul(OneMinus(tf), fedNext))
			}
			next.Fed[i] = fedNext
		}
	}
	return next, r, sums, counts
}

// lstm is haiku's LSTM on each node: gates i, g, f, o = Linear(4H)([x,
// h]) (haiku's order), c' = σ(f + 1)·c + σ(i)·tanh(g), h' = σ(o)·tanh(c').
// Its parameters (one linear layer, the reference's
// net/processor_lstm/linear) are not trainable unless TrainLSTM: the
// reference drops their gradients (filter_null_grads keeps only the
// processor's and the encoders' and decoders').
func (m *Model) lstm(scope *model.Scope, x, h, c *Node) (hNext, cNext *Node) {
	H := m.cfg.Hidden
	gates := Dense(scope, Concatenate([]*Node{x, h}, -1), true, 4*H)
	if !m.cfg.TrainLSTM {
		for _, name := range []string{"weights", "biases"} {
			if v := scope.At("dense").GetVariable(name); v != nil && v.Trainable {
				v.SetTrainable(false)
			}
		}
	}
	part := func(k int) *Node { return Slice(gates, AxisRange(), AxisRange(), AxisRange(k*H, (k+1)*H)) }
	i, g, f, o := part(0), part(1), part(2), part(3)
	cNext = Add(Mul(Sigmoid(OnePlus(f)), c), Mul(Sigmoid(i), Tanh(g)))
	hNext = Mul(Sigmoid(o), Tanh(cNext))
	return hNext, cNext
}

// carryWidth is the width of the carry's node state: the latents, and the
// LSTM's cell beside them.
func (m *Model) carryWidth() int {
	if m.cfg.LSTM {
		return 2 * m.cfg.Hidden
	}
	return m.cfg.Hidden
}

// decodeOutputs decodes the outputs from the readout of each sample's last
// step (in evaluation, permutation pointers as logits: Predict runs their
// Sinkhorn post-processing, logSinkhornHost). The reference decodes the outputs after every step and keeps the
// last; decoding them once from the last step's readout is the same
// function at 1/S of the cost.
//
// noise is the permutation outputs' Gumbel noise in training (nil in
// evaluation).
func (m *Model) decodeOutputs(scope *model.Scope, in features, adj0 *Node, r engine.Readout, noise []*Node) []*Node {
	f, adj := m.stepFeatures(scope, in, adj0, r.Fed)
	eT := f.edge
	if r.Extra != nil {
		eT = f.edge.withExtra(r.Extra)
	}
	var outs []*Node
	p := 0
	for _, l := range m.spec.outputs {
		var nz *Node
		if l.Type == clrs.PermutationPointer && noise != nil {
			nz = noise[p]
			p++
		}
		acc := m.decode(m.encdec(scope).At("dec_output_%s", l.Name), l, r.H, eT, f.graph, adj, nz)
		outs = append(outs, acc)
	}
	return outs
}

// forward unrolls the model over the hint steps of a batch and returns the
// output logits (in their probes' layouts, read at each sample's last step)
// and the hint loss (nil when hints are not scored).
func (m *Model) forward(scope *model.Scope, gi graphInputs, training bool) (outs []*Node, hintLoss *Node) {
	B, N := gi.adj.Shape().Dimensions[0], gi.adj.Shape().Dimensions[1]
	g := gi.adj.Graph()
	S := gi.outStep.Shape().Dimensions[0]
	T := gi.hintValid.Shape().Dimensions[0]
	in := m.encodeInputs(scope, gi.inputs, B, N)
	c := engine.Carry{Hidden: Zeros(g, shapeF32(B, N, m.carryWidth()))}
	if m.encodeHints() {
		c.Fed = make([]*Node, len(m.spec.hints))
		for i := range m.spec.hints {
			c.Fed[i] = stepOf(gi.hints[i], 0) // ground truth at step 0
		}
	}
	var sums, counts []*Node
	var last engine.Readout
	for s := 0; s < S; s++ {
		var tg *engine.HintTargets
		var d stepDraws
		if training && gi.teacher != nil {
			d.teacher = stepOf(gi.teacher, s)
		}
		if training && gi.dropout != nil {
			d.dropout = stepOf(gi.dropout, s)
		}
		if s+1 < T {
			tg = &engine.HintTargets{Truth: make([]*Node, len(m.spec.hints)), Valid: stepOf(gi.hintValid, s+1)}
			for i := range m.spec.hints {
				tg.Truth[i] = stepOf(gi.hints[i], s+1)
			}
		}
		next, r, su, co := m.step(scope, in, gi.adj, c, tg, d, training)
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
		hintLoss = engine.HintLoss(sums, counts)
	}
	var noise []*Node
	if training {
		noise = gi.noise
	}
	return m.decodeOutputs(scope, in, gi.adj, last, noise), hintLoss
}

// accumulateReadout returns acc + w·r with per-sample weights w [B]: with
// w one-hot over the steps for each sample (its last step), the sum over
// the steps is exactly that step's readout (products with 0 and 1 and sums
// with zeros are exact). A zero acc starts the sum.
func accumulateReadout(acc, r engine.Readout, w *Node) engine.Readout {
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
	out := engine.Readout{H: add(acc.H, r.H), Extra: add(acc.Extra, r.Extra)}
	if r.Fed != nil {
		out.Fed = make([]*Node, len(r.Fed))
		for i := range r.Fed {
			var a *Node
			if acc.Fed != nil {
				a = acc.Fed[i]
			}
			out.Fed[i] = add(a, r.Fed[i])
		}
	}
	return out
}

// denseBody is the dense model as the engine's step loop runs it
// (engine.Body).
type denseBody struct{ *Model }

// denseEncoded is the dense model's encoding of a batch's static tensors:
// the encoded inputs and the adjacency.
type denseEncoded struct {
	in  features
	adj *Node
}

func (m denseBody) Layout() engine.Layout { return m.loopLayout() }

func (m denseBody) EncodeStatic(scope *model.Scope, static []*Node) engine.Encoded {
	l := m.loopLayout()
	adj := static[l.Inputs]
	return denseEncoded{in: m.encodeInputs(scope, static[:l.Inputs], adj.Shape().Dimensions[0], adj.Shape().Dimensions[1]), adj: adj}
}

func (m denseBody) Step(scope *model.Scope, e engine.Encoded, c engine.Carry, tg *engine.HintTargets, _, draws []*Node, training bool) (engine.Carry, engine.Readout, []*Node, []*Node) {
	d := e.(denseEncoded)
	return m.step(scope, d.in, d.adj, c, tg, m.stepDrawsOf(draws), training)
}

func (m denseBody) Outputs(scope *model.Scope, e engine.Encoded, r engine.Readout, draws []*Node, _ bool) []*Node {
	d := e.(denseEncoded)
	return m.decodeOutputs(scope, d.in, d.adj, r, draws)
}

func (m denseBody) OutputLoss(_ engine.Encoded, outs, truth []*Node) *Node {
	return m.outputLoss(outs, truth)
}

func (m denseBody) ReadoutWeights(_ engine.Encoded, w *Node, r engine.Readout) engine.Readout {
	out := engine.Readout{H: broadcastSample(w, r.H)}
	for _, f := range r.Fed {
		out.Fed = append(out.Fed, broadcastSample(w, f))
	}
	if r.Extra != nil {
		out.Extra = broadcastSample(w, r.Extra)
	}
	return out
}

func (m denseBody) NumGraphs(e engine.Encoded) int { return e.(denseEncoded).adj.Shape().Dimensions[0] }

// DrawTeacher draws nothing: the dense model's teacher forcing comes with
// its draws (Layout.Draws, draws.go).
func (m denseBody) DrawTeacher(*model.Scope, *Graph, int) *Node { return nil }

func (m denseBody) GradClip() (float64, bool) { return m.cfg.GradClip, !m.cfg.NoGradClip }

// Trains keeps, for a part of a model of several algorithms, the variables
// it trains: all but the other algorithms' encoders and decoders
// (engine.VariableFilter).
func (m denseBody) Trains(v *model.Variable) bool { return m.trains(v.Path()) }

// trains reports whether the model's training updates the variable at
// path: for a part, every variable but those under another part's prefix
// (algo_<j>/).
func (m *Model) trains(path string) bool {
	if m.prefix == "" {
		return true
	}
	rest, ok := strings.CutPrefix(path, "/algo_")
	return !ok || strings.HasPrefix(path, "/"+m.prefix+"/") || !isDigits(rest[:strings.IndexByte(rest+"/", '/')])
}

// isDigits reports whether s is a non-empty run of decimal digits.
func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// loopLayout is the engine's layout of the dense model's step-loop
// tensors.
func (m *Model) loopLayout() engine.Layout {
	l := engine.Layout{Inputs: len(m.spec.inputs), Outputs: len(m.spec.outputs), Static: len(m.spec.inputs) + 1}
	if m.encodeHints() {
		l.Fed = len(m.spec.hints)
	}
	if m.decodeHints() {
		l.Scored = len(m.spec.hints)
	}
	l.Extra = m.proc.Triplets && m.outputsReadEdges()
	dl := m.drawLayout()
	l.Draws, l.HeadDraws = dl.steps(), len(dl.perms)
	return l
}
