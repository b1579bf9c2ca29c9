package nn

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/layers/norm"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn/engine"
	"github.com/narlab/narlab/lib/salsa"
)

// sparseProcessor is a processor's form on edge lists (Processor.sparse):
// message passing over the edge list (mpnn and pgn aggregate over the same
// edges, the graph's A + I; gmpnn and gpgn are their gated versions) and
// graph attention over it (gat, gatv2). Triplet-GMPNN has no sparse form
// here: its edge latents for (j, k) take a maximum over every i, which on
// an edge list means enumerating every wedge i–j, i–k, and the dense
// model's triplets range over all pairs (j, k), edges or not, so a sparse
// version would be another function, not the same one in less memory.
// Memory networks read whole rows of edge latents as memories and have no
// sparse form either.
type sparseProcessor struct {
	// step is one step: the next node latents [V,H] from the encoded batch
	// and the previous latents.
	step func(s *Sparse, scope *model.Scope, e sparseEncoded, hidden *Node) *Node
	// hoists: the step's edge and graph terms are sparseEdgeMessage's
	// (which an evaluation without fed hints computes once per batch).
	hoists bool
}

// Sparse is the encode-process-decode model on graphs held as edge lists
// (lib/salsa's data: SALSA-CLRS's algorithms on graphs of up to thousands
// of nodes): the same encoders, processors, decoders and losses as the
// dense Model, with the same variables, computed with gathers and segment
// reductions over the edges instead of over every pair of nodes, so that
// memory and time grow with the number of edges. A batch is the disjoint
// union of its graphs. On a complete graph it computes the dense model's
// function (TestSparseMatchesDense).
//
// Node pointers are scored over each node's outgoing edges (a pointer
// follows an edge), mask_one and graph pointers over each graph's nodes.
// It runs on the step loop (one compiled step per step); hints may be
// encoded only when the batch holds them (lib/salsa keeps the hints of the
// training set only, so test sets are evaluated with decoded_only or none).
type Sparse struct {
	cfg     Config
	proc    Processor // the processor's definition
	spec    modelSpec
	stepIn  []probeLayout // inputs with a time axis (fast_mis's randomness)
	backend compute.Backend
	store   *model.Store
	loop    *engine.Loop
	build   sync.Mutex // see Model.build
}

// NewSparse builds a sparse model for cfg.Algorithm, one of lib/salsa's
// algorithms, on a backend. cfg.Processor is one of SparseProcessors();
// Permutations, PredAsInput and StepLoop do not apply.
func NewSparse(backend compute.Backend, cfg Config) (*Sparse, error) {
	specs, ok := salsa.Specs[cfg.Algorithm]
	if !ok {
		return nil, fmt.Errorf("nn: sparse: unknown algorithm %q (want one of %s)", cfg.Algorithm, strings.Join(salsa.Algorithms(), ", "))
	}
	proc, ok := LookupProcessor(cfg.Processor)
	if !ok || proc.sparse == nil {
		return nil, fmt.Errorf("nn: sparse: processor %q has no sparse form (want one of %v)", cfg.Processor, SparseProcessors())
	}
	cfg = cfg.withDefaults()
	check := cfg
	check.Algorithm = "bfs" // the dense checks of the other fields
	if err := check.validate(); err != nil {
		return nil, err
	}
	if err := cfg.sparseOptions(); err != nil {
		return nil, err
	}
	// The probe layouts, with the classes of categoricals read off a small
	// sample.
	set, err := salsa.LookupSet("er_16")
	if err != nil {
		return nil, err
	}
	tr, _, err := salsa.Sample(cfg.Algorithm, set, 1, 0, true)
	if err != nil {
		return nil, err
	}
	s := &Sparse{cfg: cfg, proc: proc, backend: backend, store: model.NewStore()}
	for _, p := range specs {
		if p.Type == clrs.PermutationPointer || p.Type == clrs.ShouldBePermutation ||
			(kind(p.Type) == clrs.Pointer && p.Location == clrs.Edge) {
			return nil, fmt.Errorf("nn: sparse: %s: probe %s (%s %s) has no sparse layout", cfg.Algorithm, p.Name, p.Location, p.Type)
		}
		d, ok := tr.Probe(p.Name)
		if !ok {
			return nil, fmt.Errorf("nn: sparse: %s: the sample has no %s", cfg.Algorithm, p.Name)
		}
		l, err := layoutOf(p, d, 0)
		if err != nil {
			return nil, err
		}
		switch {
		case p.Stage == clrs.Input && len(d.Shape) == 2 && p.Location == clrs.Node && l.classes == 0:
			s.stepIn = append(s.stepIn, l) // [T, N]: given anew at each step
		case p.Stage == clrs.Input:
			s.spec.inputs = append(s.spec.inputs, l)
		case p.Stage == clrs.Hint:
			s.spec.hints = append(s.spec.hints, l)
		default:
			s.spec.outputs = append(s.spec.outputs, l)
		}
	}
	if err := s.store.SetRNGStateFromSeed(cfg.Seed); err != nil {
		return nil, err
	}
	s.store.RootScope().SetParam(paramInitSeed, cfg.Seed)
	opt := optimizer.Adam().LearningRate(cfg.LearningRate).Betas(0.9, 0.999).Epsilon(1e-8).Done()
	sc := engine.Plan(engine.Request{Options: cfg.Exec, Device: deviceOf(backend), Shape: engine.Shape{StepInputs: len(s.stepIn) > 0}})
	s.loop, err = engine.NewLoop(backend, s.store, sparseBody{s}, opt.(engine.Optimizer), &s.build, cfg.Exec.StepsPerCall, sc.EvalOnDevice)
	if err != nil {
		return nil, fmt.Errorf("nn: %w", err)
	}
	return s, nil
}

// Config returns the model's configuration.
func (s *Sparse) Config() Config { return s.cfg }

// Close releases the model's programs and variables.
func (s *Sparse) Close() {
	if s.store == nil {
		return
	}
	s.loop.Close()
	s.store.Finalize()
	s.store, s.loop = nil, nil
}

func (s *Sparse) encodeHints() bool { return s.cfg.HintMode == "encoded_decoded" }
func (s *Sparse) decodeHints() bool { return s.cfg.HintMode != "none" }

// sparseIndices are the static tensors of a sparse batch after its
// inputs: each edge's sender, receiver and reverse edge, each node's and
// each edge's graph (all [·, 1] int32, gather and scatter indices), and
// each graph's weight [G] (1, and 0 for the batch's padding graph).
const sparseIndices = 6

func (s *Sparse) loopLayout() engine.Layout {
	l := engine.Layout{Inputs: len(s.spec.inputs), Outputs: len(s.spec.outputs), StepInputs: len(s.stepIn)}
	l.Static = l.Inputs + sparseIndices
	if s.encodeHints() {
		l.Fed = len(s.spec.hints)
	}
	if s.decodeHints() {
		l.Scored = len(s.spec.hints)
	}
	l.Teacher = s.encodeHints() && s.cfg.TeacherForcing > 0
	if s.hoists() {
		l.Hoisted = 4
	}
	return l
}

// hoistSparseEval lets evaluation hoist the step-invariant work (see
// hoists); tests turn it off to compare.
var hoistSparseEval = true

// hoists says whether evaluation steps share work: when no hint is fed
// back and no input comes anew at each step, every step encodes the same
// node, edge and graph features, and the message-passing processors add
// the same edge and graph terms to every edge's message. An evaluation
// then computes them once per batch (the hoist program: the encoded
// features and each edge's me(e_ij) + mg(g)), instead of at every step
// — the work on the edges that dominates the long trajectories of dfs,
// dijkstra and mst_prim on large graphs.
func (s *Sparse) hoists() bool {
	return hoistSparseEval && !s.encodeHints() && len(s.stepIn) == 0 && s.proc.sparse.hoists
}

// hoist is the hoisted tensors: the encoded node, edge and graph features
// and each edge's constant message term.
func (s *Sparse) hoist(scope *model.Scope, static []*Node) []*Node {
	e := s.encodeStatic(scope, static).(sparseEncoded)
	return []*Node{e.node, e.edge, e.graph, s.edgeMessage(scope.At("processor"), e)}
}

func (s *Sparse) hoistedShapes(static []shapes.Shape) []shapes.Shape {
	ni, H := len(s.spec.inputs), s.cfg.Hidden
	idx := static[ni:]
	e, v, g := idx[0].Dimensions[0], idx[3].Dimensions[0], idx[5].Dimensions[0]
	return []shapes.Shape{shapeF32(v, H), shapeF32(e, H), shapeF32(g, H), shapeF32(e, H)}
}

func (s *Sparse) withHoisted(en engine.Encoded, h []*Node) engine.Encoded {
	e := en.(sparseEncoded)
	e.node, e.edge, e.graph, e.edgeMsg = h[0], h[1], h[2], h[3]
	return e
}

// edgeMessage is the part of each edge's message that does not depend on
// the step's latents: me(e_ij) + mg(g), [E,H].
func (s *Sparse) edgeMessage(scope *model.Scope, e sparseEncoded) *Node {
	H := s.cfg.Hidden
	me := Dense(scope.At("me"), e.edge, true, H)
	mg := Dense(scope.At("mg"), e.graph, true, H)
	return Add(me, Gather(mg, e.edgeG))
}

// sparseEncoded is what the sparse model makes of a batch's static
// tensors: the encoded inputs and the index tensors.
type sparseEncoded struct {
	node, edge, graph             *Node // [V,H], [E,H], [G,H]
	edgeMsg                       *Node // [E,H]: edgeMessage when hoisted, else nil
	src, dst, rev, nodeG, edgeG   *Node // [E,1], [E,1], [E,1], [V,1], [E,1] int32
	graphW                        *Node // [G]: 1, 0 for padding
	numNodes, numEdges, numGraphs int
}

func (s *Sparse) numGraphs(e engine.Encoded) int { return e.(sparseEncoded).numGraphs }

func (s *Sparse) gradClip() (float64, bool) { return s.cfg.GradClip, !s.cfg.NoGradClip }

func (s *Sparse) drawTeacher(scope *model.Scope, g *Graph, b int) *Node {
	if !s.encodeHints() || s.cfg.TeacherForcing <= 0 {
		return nil
	}
	u := scope.Store().RandomUniform(g, shapeF32(b))
	return ConvertDType(LessThan(u, ConstAs(u, s.cfg.TeacherForcing)), u.DType())
}

// where returns the index tensor that maps a probe location's rows to their
// graphs (nil for graph-located data), and the number of rows.
func (e sparseEncoded) where(loc clrs.Location) (*Node, int) {
	switch loc {
	case clrs.Node:
		return e.nodeG, e.numNodes
	case clrs.Edge:
		return e.edgeG, e.numEdges
	}
	return nil, e.numGraphs
}

// sparseLocation is where a probe's data lives in the sparse layout: node
// pointers one value per edge (1 on the edge i→p[i]), graph pointers one
// per node, other probes at their own location.
func sparseLocation(l probeLayout) clrs.Location {
	if kind(l.Type) == clrs.Pointer {
		switch l.Location {
		case clrs.Node:
			return clrs.Edge
		case clrs.Graph:
			return clrs.Node
		}
	}
	return l.Location
}

// perRow broadcasts per-graph values w [G] to the rows of a location
// ([rows, 1…] to multiply x of that location's layout).
func (e sparseEncoded) perRow(w *Node, loc clrs.Location, x *Node) *Node {
	idx, _ := e.where(loc)
	r := w
	if idx != nil {
		r = Gather(w, idx) // [rows]
	}
	dims := make([]int, x.Rank())
	for i := range dims {
		dims[i] = 1
	}
	dims[0] = r.Shape().Dimensions[0]
	return Reshape(r, dims...)
}

func (s *Sparse) readoutWeights(e engine.Encoded, w *Node, r engine.Readout) engine.Readout {
	se := e.(sparseEncoded)
	out := engine.Readout{H: se.perRow(w, clrs.Node, r.H)}
	for i, f := range r.Fed {
		out.Fed = append(out.Fed, se.perRow(w, sparseLocation(s.spec.hints[i]), f))
	}
	return out
}

// feature turns a probe's sparse data into its encoder's input rows
// ([rows, F]).
func feature(l probeLayout, x *Node) *Node {
	if l.classes > 0 {
		return x
	}
	return InsertAxes(x, -1)
}

// encode adds one probe's encoding to the node, edge or graph features.
func (s *Sparse) encode(scope *model.Scope, e *sparseEncoded, l probeLayout, x *Node, name string) {
	sc := scope.At("%s", name)
	if l.Stage == clrs.Hint && kind(l.Type) == clrs.Scalar {
		sc = withInitStddev(sc, 1/math.Sqrt(float64(s.cfg.Hidden)))
	}
	enc := Dense(sc, feature(l, x), true, s.cfg.Hidden)
	switch sparseLocation(l) {
	case clrs.Node:
		e.node = Add(e.node, enc)
	case clrs.Edge:
		e.edge = Add(e.edge, enc)
	default:
		e.graph = Add(e.graph, enc)
	}
}

func (s *Sparse) encodeStatic(scope *model.Scope, static []*Node) engine.Encoded {
	ni := len(s.spec.inputs)
	idx := static[ni:]
	e := sparseEncoded{src: idx[0], dst: idx[1], rev: idx[2], nodeG: idx[3], edgeG: idx[4]}
	e.numEdges = e.src.Shape().Dimensions[0]
	e.numNodes = e.nodeG.Shape().Dimensions[0]
	e.graphW = idx[5]
	e.numGraphs = idx[5].Shape().Dimensions[0]
	g := e.src.Graph()
	H := s.cfg.Hidden
	e.node = Zeros(g, shapeF32(e.numNodes, H))
	e.edge = Zeros(g, shapeF32(e.numEdges, H))
	e.graph = Zeros(g, shapeF32(e.numGraphs, H))
	for i, l := range s.spec.inputs {
		s.encode(scope, &e, l, static[i], "enc_input_"+l.Name)
	}
	return e
}

// segmentMax is the maximum of x's rows [rows, …] per segment (idx [rows,
// 1] into n segments); segments without rows hold the lowest float.
func segmentMax(x, idx *Node, n int) *Node {
	dims := append([]int{n}, x.Shape().Dimensions[1:]...)
	init := BroadcastToShape(ConstAs(x, math.Inf(-1)), shapes.Make(x.DType(), dims...))
	return ScatterMax(init, idx, x, false, false)
}

// segmentSum is the sum of x's rows per segment.
func segmentSum(x, idx *Node, n int) *Node {
	dims := append([]int{n}, x.Shape().Dimensions[1:]...)
	return ScatterSum(Zeros(x.Graph(), shapes.Make(x.DType(), dims...)), idx, x, false, false)
}

// segmentLogSoftmax is the log-softmax of logits [rows] within segments.
func segmentLogSoftmax(x, idx *Node, n int) *Node {
	mx := StopGradient(segmentMax(x, idx, n))
	shifted := Sub(x, Gather(mx, idx))
	lse := Log(segmentSum(Exp(shifted), idx, n))
	return Sub(shifted, Gather(lse, idx))
}

func (s *Sparse) bodyStep(scope *model.Scope, en engine.Encoded, c engine.Carry, tg *engine.HintTargets, stepIn []*Node, training bool) (next engine.Carry, r engine.Readout, sums, counts []*Node) {
	e := en.(sparseEncoded)
	// The step's features: the inputs', the inputs given at this step and
	// the fed hints'.
	for i, l := range s.stepIn {
		s.encode(scope, &e, l, stepIn[i], "enc_input_"+l.Name)
	}
	if c.Fed != nil {
		for i, l := range s.spec.hints {
			s.encode(scope, &e, l, c.Fed[i], "enc_hint_"+l.Name)
		}
	}
	h := s.proc.sparse.step(s, scope.At("processor"), e, c.Hidden)
	hT := Concatenate([]*Node{e.node, c.Hidden, h}, -1)
	next = engine.Carry{Hidden: h, Fed: c.Fed}
	r = engine.Readout{H: hT, Fed: c.Fed}
	scored := tg != nil && s.decodeHints()
	if !scored && !s.encodeHints() {
		return next, r, nil, nil
	}
	if s.encodeHints() {
		next.Fed = make([]*Node, len(s.spec.hints))
	}
	if scored {
		sums, counts = make([]*Node, len(s.spec.hints)), make([]*Node, len(s.spec.hints))
	}
	hard := s.cfg.HintRepred == "hard" || (s.cfg.HintRepred == "hard_on_eval" && !training)
	for i, l := range s.spec.hints {
		logits := s.decode(scope.At("dec_hint_%s", l.Name), l, e, hT)
		if scored {
			sums[i], counts[i] = s.probeLoss(e, l, logits, tg.Truth[i], tg.Valid, true)
		}
		if s.encodeHints() {
			fedNext := s.repredict(e, l, logits, hard)
			if tg != nil && tg.Teacher != nil {
				tf := e.perRow(tg.Teacher, sparseLocation(l), tg.Truth[i])
				fedNext = Add(Mul(tf, tg.Truth[i]), Mul(OneMinus(tf), fedNext))
			}
			next.Fed[i] = fedNext
		}
	}
	return next, r, sums, counts
}

// sparsePGNStep is the PGN family's step on edge lists (mpnn and pgn, and
// gated: gmpnn and gpgn): the dense pgnStep's function on a complete graph.
func sparsePGNStep(gated bool) func(s *Sparse, scope *model.Scope, e sparseEncoded, hidden *Node) *Node {
	return func(s *Sparse, scope *model.Scope, e sparseEncoded, hidden *Node) *Node {
		H := s.cfg.Hidden
		z := Concatenate([]*Node{e.node, hidden}, -1) // [V,2H]
		m1 := Dense(scope.At("m1"), z, true, H)       // sender
		m2 := Dense(scope.At("m2"), z, true, H)       // receiver
		edgeMsg := e.edgeMsg
		if edgeMsg == nil {
			edgeMsg = s.edgeMessage(scope, e)
		}
		msgs := Add(Add(Gather(m1, e.src), Gather(m2, e.dst)), edgeMsg)
		msgs = Dense(scope.At("msg_mlp_1"), jaxRelu(msgs), true, H)
		msgs = Dense(scope.At("msg_mlp_2"), jaxRelu(msgs), true, H)
		agg := jaxSegmentMax(msgs, e.dst, e.numNodes) // every node has its self-loop
		ret := jaxRelu(Add(Dense(scope.At("o1"), z, true, H), Dense(scope.At("o2"), agg, true, H)))
		ret = norm.LayerNorm(scope.At("ln"), ret, -1).Epsilon(layerNormEpsilon).Done()
		if gated {
			g1 := Dense(scope.At("gate1"), z, true, H)
			g2 := Dense(scope.At("gate2"), agg, true, H)
			gate := Sigmoid(Add(Dense(scope.At("gate3"), jaxRelu(Add(g1, g2)), true, H), ConstAs(g1, -3)))
			ret = gateMix(ret, hidden, gate)
		}
		return ret
	}
}

// sparseGATStep is one sparse graph-attention step (GAT, or GATv2 when
// v2): each node attends to the receivers of its outgoing edges (the dense
// gatStep's row i over adj[i, ·]).
func sparseGATStep(v2 bool) func(s *Sparse, scope *model.Scope, e sparseEncoded, hidden *Node) *Node {
	return func(s *Sparse, scope *model.Scope, e sparseEncoded, hidden *Node) *Node {
		return s.gat(scope, e, Concatenate([]*Node{e.node, hidden}, -1), v2)
	}
}

func (s *Sparse) gat(scope *model.Scope, e sparseEncoded, z *Node, v2 bool) *Node {
	H := s.cfg.Hidden
	values := Dense(scope.At("values"), z, true, H)
	var logits *Node // [E]
	if !v2 {
		a1 := Dense(scope.At("a1"), z, true, 1)
		a2 := Dense(scope.At("a2"), z, true, 1)
		ae := Dense(scope.At("ae"), e.edge, true, 1)
		ag := Dense(scope.At("ag"), e.graph, true, 1)
		l := Add(Add(Gather(a1, e.src), Gather(a2, e.dst)), Add(ae, Gather(ag, e.edgeG)))
		logits = activation.LeakyReluWith(Squeeze(l, -1), leakyReluSlope)
	} else {
		w1 := Dense(scope.At("w1"), z, true, H)
		w2 := Dense(scope.At("w2"), z, true, H)
		we := Dense(scope.At("we"), e.edge, true, H)
		wg := Dense(scope.At("wg"), e.graph, true, H)
		pre := Add(Add(Gather(w1, e.src), Gather(w2, e.dst)), Add(we, Gather(wg, e.edgeG)))
		logits = Squeeze(Dense(scope.At("a"), activation.LeakyReluWith(pre, leakyReluSlope), true, 1), -1)
	}
	coefs := Exp(segmentLogSoftmax(logits, e.src, e.numNodes)) // over each node's outgoing edges
	att := segmentSum(Mul(InsertAxes(coefs, -1), Gather(values, e.dst)), e.src, e.numNodes)
	ret := jaxRelu(Add(att, Dense(scope.At("skip"), z, true, H)))
	return norm.LayerNorm(scope.At("ln"), ret, -1).Epsilon(layerNormEpsilon).Done()
}

// decode returns a probe's logits in its sparse layout from node latents hT
// [V,3H] and the step's edge and graph features.
func (s *Sparse) decode(scope *model.Scope, l probeLayout, e sparseEncoded, hT *Node) *Node {
	H := s.cfg.Hidden
	out := 1
	if l.classes > 0 {
		out = l.classes
	}
	squeeze := func(x *Node) *Node {
		if l.classes > 0 {
			return x
		}
		return Squeeze(x, -1)
	}
	switch l.Location {
	case clrs.Node:
		if kind(l.Type) == clrs.Pointer {
			// Edge e = (x→y): max(p1(h_x), p2(h_y) + p3(e_yx)), the dense
			// decoder's entry [x, y].
			p1 := Dense(scope.At("p1"), hT, true, H)
			p2 := Dense(scope.At("p2"), hT, true, H)
			p3 := Dense(scope.At("p3"), e.edge, true, H)
			mx := jaxMaximum(Gather(p1, e.src), Add(Gather(p2, e.dst), Gather(p3, e.rev)))
			return Squeeze(Dense(scope.At("p4"), mx, true, 1), -1)
		}
		return squeeze(Dense(scope.At("l"), hT, true, out))
	case clrs.Edge:
		a := Dense(scope.At("e1"), hT, true, out)
		b := Dense(scope.At("e2"), hT, true, out)
		x := Dense(scope.At("e3"), e.edge, true, out)
		return squeeze(Add(Add(Gather(a, e.src), Gather(b, e.dst)), x))
	default:
		pooled := jaxSegmentMax(hT, e.nodeG, e.numGraphs)
		gr := Add(Dense(scope.At("g1"), pooled, true, out), Dense(scope.At("g2"), e.graph, true, out)) // [G,out]
		if kind(l.Type) == clrs.Pointer {
			per := Squeeze(Dense(scope.At("g3"), hT, true, 1), -1) // [V]
			return Add(per, Squeeze(Gather(gr, e.nodeG), -1))
		}
		return squeeze(gr)
	}
}

// segments says over which rows a distribution probe's softmax runs: a
// node pointer over each node's outgoing edges, mask_one and graph
// pointers over each graph's nodes; nil for the others (categoricals run
// over their class axis).
func (e sparseEncoded) segments(l probeLayout) (*Node, int) {
	switch {
	case kind(l.Type) == clrs.Pointer && l.Location == clrs.Node:
		return e.src, e.numNodes
	case kind(l.Type) == clrs.Pointer && l.Location == clrs.Graph:
		return e.nodeG, e.numGraphs
	case l.Type == clrs.MaskOne && l.Location == clrs.Node:
		return e.nodeG, e.numGraphs
	}
	return nil, 0
}

// repredict is the dense repredict on the sparse layout.
func (s *Sparse) repredict(e sparseEncoded, l probeLayout, logits *Node, hard bool) *Node {
	idx, n := e.segments(l)
	if idx == nil {
		return repredict(l, logits, hard)
	}
	if hard {
		// The first of tied maxima, as the dense model's one_hot(argmax):
		// by receiver for a node's outgoing edges, by node for a graph's.
		pos := Iota(logits.Graph(), shapeF32(logits.Shape().Dimensions[0]), 0)
		if idx == e.src {
			pos = ConvertDType(Reshape(e.dst, e.numEdges), logits.DType())
		}
		return segmentOneHotArgMax(logits, idx, n, pos)
	}
	return Exp(segmentLogSoftmax(logits, idx, n))
}

// probeLoss is the dense probeLoss on the sparse layout, weighted per
// graph by w [G].
func (s *Sparse) probeLoss(e sparseEncoded, l probeLayout, logits, truth, w *Node, hint bool) (sum, count *Node) {
	loc := sparseLocation(l)
	wr := e.perRow(w, loc, truth)
	idx, n := e.segments(l)
	switch {
	case idx != nil:
		logp := segmentLogSoftmax(logits, idx, n)
		ce := Neg(Mul(truth, logp)) // [rows]
		sum = ReduceAllSum(Mul(wr, ce))
		// Rows: the segments (a node's pointer, a graph's mask_one);
		// outputs of type mask_one count their positives, as dense.
		wseg := Gather(w, e.nodeG) // per node
		if l.Location == clrs.Graph || l.Type == clrs.MaskOne {
			wseg = w // per graph
		}
		if l.Type == clrs.MaskOne && !hint {
			return sum, ReduceAllSum(Mul(wr, ConvertDType(Equal(truth, ConstAs(truth, 1)), truth.DType())))
		}
		return sum, ReduceAllSum(wseg)
	}
	return probeLoss(l, logits, truth, Reshape(wr, wr.Shape().Dimensions[0]), hint)
}

func (s *Sparse) bodyOutputs(scope *model.Scope, en engine.Encoded, r engine.Readout, training bool) []*Node {
	e := en.(sparseEncoded)
	if r.Fed != nil {
		for i, l := range s.spec.hints {
			s.encode(scope, &e, l, r.Fed[i], "enc_hint_"+l.Name)
		}
	}
	var outs []*Node
	for _, l := range s.spec.outputs {
		outs = append(outs, s.decode(scope.At("dec_output_%s", l.Name), l, e, r.H))
	}
	return outs
}

func (s *Sparse) bodyOutputLoss(en engine.Encoded, outs, truth []*Node) *Node {
	e := en.(sparseEncoded)
	var loss *Node
	for i, l := range s.spec.outputs {
		sum, count := s.probeLoss(e, l, outs[i], truth[i], e.graphW, false)
		li := Div(sum, Max(count, OnesLike(count)))
		if loss == nil {
			loss = li
		} else {
			loss = Add(loss, li)
		}
	}
	return loss
}

// sparseBody is the sparse model as the engine's step loop runs it
// (engine.Body, and engine.Hoister when its layout hoists).
type sparseBody struct{ *Sparse }

func (s sparseBody) Layout() engine.Layout { return s.loopLayout() }

func (s sparseBody) EncodeStatic(scope *model.Scope, static []*Node) engine.Encoded {
	return s.encodeStatic(scope, static)
}

func (s sparseBody) Step(scope *model.Scope, e engine.Encoded, c engine.Carry, tg *engine.HintTargets, stepIn, _ []*Node, training bool) (engine.Carry, engine.Readout, []*Node, []*Node) {
	return s.bodyStep(scope, e, c, tg, stepIn, training)
}

func (s sparseBody) Outputs(scope *model.Scope, e engine.Encoded, r engine.Readout, _ []*Node, training bool) []*Node {
	return s.bodyOutputs(scope, e, r, training)
}

func (s sparseBody) OutputLoss(e engine.Encoded, outs, truth []*Node) *Node {
	return s.bodyOutputLoss(e, outs, truth)
}

func (s sparseBody) ReadoutWeights(e engine.Encoded, w *Node, r engine.Readout) engine.Readout {
	return s.readoutWeights(e, w, r)
}

func (s sparseBody) NumGraphs(e engine.Encoded) int { return s.numGraphs(e) }

func (s sparseBody) DrawTeacher(scope *model.Scope, g *Graph, b int) *Node {
	return s.drawTeacher(scope, g, b)
}

func (s sparseBody) GradClip() (float64, bool) { return s.gradClip() }

func (s sparseBody) Hoist(scope *model.Scope, static []*Node) []*Node { return s.hoist(scope, static) }

func (s sparseBody) HoistedShapes(static []shapes.Shape) []shapes.Shape {
	return s.hoistedShapes(static)
}

func (s sparseBody) WithHoisted(e engine.Encoded, hoisted []*Node) engine.Encoded {
	return s.withHoisted(e, hoisted)
}
