package nn

import (
	"fmt"
	"math"
	"slices"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/metrics"
	"github.com/narlab/narlab/lib/nn/engine"
	"github.com/narlab/narlab/lib/salsa"
)

// SparseBatch is a batch of edge-list trajectories (lib/salsa) laid out for
// a Sparse model: the disjoint union of their graphs, V nodes and E edges
// in all, node-located data [V, …], edge-located [E, …], graph-located
// [G, …], hints with a leading time axis padded to the longest trajectory.
// Build one with Sparse.Batch; it holds tensors until Release.
//
// Batches are padded, so that batches of graphs of different sizes share
// compiled programs: an extra graph of weight 0 holds Vp − V extra nodes,
// each with self-loops making up the Ep − E extra edges, with Vp and Ep
// rounded up to the next of m·2^k (8 ≤ m < 16: at most 12.5 % more).
type SparseBatch struct {
	G, V, E, T, S int
	Gp, Vp, Ep    int // with the padding graph

	hidden, nf int
	trajs      []*salsa.Trajectory
	nodeOff    []int // graph b's nodes are nodeOff[b]:nodeOff[b+1]
	edgeOff    []int
	inputs     []*tensors.Tensor
	outputT    []*tensors.Tensor
	idx        []*tensors.Tensor // src, dst, rev, nodeG, edgeG, graphs
	hints      [][]float32       // [T, rows(, C)] per hint; nil without hints
	hintDims   [][]int           // without T
	stepIn     [][]float32       // [T, V] per input with a time axis
	valid      []float32         // [T, G]
	outStep    []float32         // [S, G]
	cache      map[[2]int]*tensors.Tensor
}

// PadTo makes Batch pad to at least nodes nodes and edges edges (the
// padding graph's included), so that batches of graphs of varying sizes
// share one compiled program: a training loop drawing B graphs of at most
// n nodes pads to B·n + 1 nodes and B·n² + 1 edges.
func PadTo(nodes, edges int) BatchOption {
	return func(o *batchOptions) { o.nodes, o.edges = nodes, edges }
}

// BatchOption tunes Sparse.Batch.
type BatchOption func(*batchOptions)

type batchOptions struct{ nodes, edges int }

// Batch lays trajectories of the model's algorithm out as a SparseBatch.
// Trajectories without hints (lib/salsa's test sets) can be evaluated by
// models that do not encode hints.
func (s *Sparse) Batch(trajs []*salsa.Trajectory, opts ...BatchOption) (*SparseBatch, error) {
	var o batchOptions
	for _, f := range opts {
		f(&o)
	}
	if len(trajs) == 0 {
		return nil, fmt.Errorf("nn: sparse: an empty batch")
	}
	l := s.loopLayout()
	b := &SparseBatch{G: len(trajs), hidden: s.cfg.Hidden, nf: l.Fed, trajs: trajs, cache: map[[2]int]*tensors.Tensor{}}
	b.nodeOff, b.edgeOff = []int{0}, []int{0}
	hasHints := true
	for i, tr := range trajs {
		if tr.Algorithm != s.cfg.Algorithm {
			return nil, fmt.Errorf("nn: sparse: trajectory %d is %s, the model %s", i, tr.Algorithm, s.cfg.Algorithm)
		}
		b.nodeOff = append(b.nodeOff, b.nodeOff[i]+tr.Graph.N)
		b.edgeOff = append(b.edgeOff, b.edgeOff[i]+tr.Graph.NumEdges())
		b.T = max(b.T, tr.Length)
		if tr.Hints == nil {
			hasHints = false
		}
	}
	b.V, b.E = b.nodeOff[b.G], b.edgeOff[b.G]
	b.Gp, b.Vp = b.G+1, bucket(b.V+1)
	b.Ep = bucket(b.E + b.Vp - b.V)
	if o.nodes > 0 || o.edges > 0 {
		b.Vp = max(b.V+1, o.nodes)
		b.Ep = max(b.E+b.Vp-b.V, o.edges)
	}
	b.T = max(b.T, 1)
	b.S = max(1, b.T-1)
	if !hasHints && l.Fed > 0 {
		return nil, fmt.Errorf("nn: sparse: the batch holds no hints, which a model with hint mode %s feeds back; "+
			"generate the set with hints, or use hint mode decoded_only or none", s.cfg.HintMode)
	}
	for _, p := range s.spec.inputs {
		data, dims, err := b.gather(p, func(tr *salsa.Trajectory) (clrs.DataPoint, bool) { return tr.Probe(p.Name) }, -1)
		if err != nil {
			return nil, err
		}
		b.inputs = append(b.inputs, tensors.FromFlatDataAndDimensions(data, dims...))
	}
	for _, p := range s.spec.outputs {
		data, dims, err := b.gather(p, func(tr *salsa.Trajectory) (clrs.DataPoint, bool) { return tr.Probe(p.Name) }, -1)
		if err != nil {
			return nil, err
		}
		b.outputT = append(b.outputT, tensors.FromFlatDataAndDimensions(data, dims...))
	}
	timed := func(p probeLayout) ([]float32, []int, error) {
		var all []float32
		var dims []int
		for t := 0; t < b.T; t++ {
			data, d, err := b.gather(p, func(tr *salsa.Trajectory) (clrs.DataPoint, bool) { return tr.Probe(p.Name) }, t)
			if err != nil {
				return nil, nil, err
			}
			all, dims = append(all, data...), d
		}
		return all, dims, nil
	}
	if hasHints {
		for _, p := range s.spec.hints {
			data, dims, err := timed(p)
			if err != nil {
				return nil, err
			}
			b.hints, b.hintDims = append(b.hints, data), append(b.hintDims, dims)
		}
	} else {
		for _, p := range s.spec.hints {
			b.hintDims = append(b.hintDims, b.dimsOf(p))
		}
	}
	for _, p := range s.stepIn {
		data, _, err := timed(p)
		if err != nil {
			return nil, err
		}
		b.stepIn = append(b.stepIn, data)
	}
	src, dst, rev := make([]int32, b.Ep), make([]int32, b.Ep), make([]int32, b.Ep)
	nodeG, edgeG := make([]int32, b.Vp), make([]int32, b.Ep)
	for gi, tr := range trajs {
		g, no, eo := tr.Graph, b.nodeOff[gi], b.edgeOff[gi]
		for e := range g.Src {
			u, v := int(g.Src[e]), int(g.Dst[e])
			r := g.Edge(v, u)
			if r < 0 {
				return nil, fmt.Errorf("nn: sparse: graph %d has the edge %d→%d but not %d→%d; the sparse decoders need both directions", gi, u, v, v, u)
			}
			src[eo+e], dst[eo+e], rev[eo+e], edgeG[eo+e] = int32(no+u), int32(no+v), int32(eo+r), int32(gi)
		}
		for v := 0; v < g.N; v++ {
			nodeG[no+v] = int32(gi)
		}
	}
	// The padding graph: its nodes, each with self-loops.
	for v := b.V; v < b.Vp; v++ {
		nodeG[v] = int32(b.G)
	}
	for e := b.E; e < b.Ep; e++ {
		v := int32(b.V + (e-b.E)%(b.Vp-b.V))
		src[e], dst[e], rev[e], edgeG[e] = v, v, int32(e), int32(b.G)
	}
	col := func(x []int32) *tensors.Tensor { return tensors.FromFlatDataAndDimensions(x, len(x), 1) }
	real := make([]float32, b.Gp)
	for gi := 0; gi < b.G; gi++ {
		real[gi] = 1
	}
	b.idx = []*tensors.Tensor{col(src), col(dst), col(rev), col(nodeG), col(edgeG), tensors.FromFlatDataAndDimensions(real, b.Gp)}
	b.valid = make([]float32, b.T*b.Gp)
	b.outStep = make([]float32, b.S*b.Gp)
	for gi, tr := range trajs {
		for t := 0; t < min(tr.Length, b.T); t++ {
			b.valid[t*b.Gp+gi] = 1
		}
		b.outStep[min(max(tr.Length-2, 0), b.S-1)*b.Gp+gi] = 1
	}
	return b, nil
}

// bucket rounds x up to the next m·2^k with 8 ≤ m < 16 (x itself below
// 16).
func bucket(x int) int {
	if x < 16 {
		return x
	}
	k := 0
	for (x+(1<<k)-1)>>k >= 16 {
		k++
	}
	return ((x + (1 << k) - 1) >> k) << k
}

// dimsOf is a probe's sparse shape in a batch (no time axis).
func (b *SparseBatch) dimsOf(p probeLayout) []int {
	rows := map[clrs.Location]int{clrs.Node: b.Vp, clrs.Edge: b.Ep, clrs.Graph: b.Gp}[sparseLocation(p)]
	if p.classes > 0 {
		return []int{rows, p.classes}
	}
	return []int{rows}
}

// gather lays one probe out over the batch, at time t of a probe with a
// time axis (t < 0: none; steps beyond a trajectory are zeros).
func (b *SparseBatch) gather(p probeLayout, get func(*salsa.Trajectory) (clrs.DataPoint, bool), t int) ([]float32, []int, error) {
	dims := b.dimsOf(p)
	per := 1
	if p.classes > 0 {
		per = p.classes
	}
	out := make([]float32, dims[0]*per)
	for gi, tr := range b.trajs {
		d, ok := get(tr)
		if !ok {
			return nil, nil, fmt.Errorf("nn: sparse: trajectory %d has no %s", gi, p.Name)
		}
		vals := d.Data
		if t >= 0 {
			steps := d.Shape[0]
			if t >= steps {
				continue
			}
			size := len(vals) / steps
			vals = vals[t*size : (t+1)*size]
		}
		g := tr.Graph
		switch {
		case kind(p.Type) == clrs.Pointer && p.Location == clrs.Node: // one-hot over edges
			for i, v := range vals {
				if e := g.Edge(i, int(v)); e >= 0 {
					out[b.edgeOff[gi]+e] = 1
				} else {
					return nil, nil, fmt.Errorf("nn: sparse: %s: node %d of graph %d points to %d, not along an edge", p.Name, i, gi, int(v))
				}
			}
		case kind(p.Type) == clrs.Pointer && p.Location == clrs.Graph: // one-hot over nodes
			out[b.nodeOff[gi]+int(vals[0])] = 1
		default:
			off := map[clrs.Location]int{clrs.Node: b.nodeOff[gi], clrs.Edge: b.edgeOff[gi], clrs.Graph: gi}[p.Location]
			for i, v := range vals {
				out[off*per+i] = float32(v)
			}
		}
	}
	return out, dims, nil
}

// The loopBatch methods.

func (b *SparseBatch) steps() int { return b.S }

func (b *SparseBatch) shapeKey() string { return fmt.Sprintf("sparse G%d V%d E%d", b.Gp, b.Vp, b.Ep) }

func (b *SparseBatch) static() []*tensors.Tensor {
	return append(append([]*tensors.Tensor(nil), b.inputs...), b.idx...)
}

func (b *SparseBatch) initialCarry() []*tensors.Tensor {
	out := []*tensors.Tensor{engine.ZeroTensor(b.Vp, b.hidden)}
	for i := 0; i < b.nf; i++ {
		out = append(out, b.newHint(i, 0))
	}
	return out
}

func (b *SparseBatch) readoutZeros() []*tensors.Tensor {
	out := []*tensors.Tensor{engine.ZeroTensor(b.Vp, 3*b.hidden)}
	for i := 0; i < b.nf; i++ {
		out = append(out, engine.ZeroTensor(b.hintDims[i]...))
	}
	return out
}

func (b *SparseBatch) newHint(i, t int) *tensors.Tensor {
	if b.hints == nil {
		return engine.ZeroTensor(b.hintDims[i]...)
	}
	return stepSlice(b.hints[i], t, b.hintDims[i]...)
}

func (b *SparseBatch) cached(i, t int, mk func() *tensors.Tensor) *tensors.Tensor {
	k := [2]int{i, t}
	if x, ok := b.cache[k]; ok {
		return x
	}
	x := mk()
	b.cache[k] = x
	return x
}

func (b *SparseBatch) hintAt(i, t int) *tensors.Tensor {
	return b.cached(i, t, func() *tensors.Tensor { return b.newHint(i, t) })
}

func (b *SparseBatch) validAt(t int) *tensors.Tensor {
	return b.cached(-1, t, func() *tensors.Tensor { return stepSlice(b.valid, t, b.Gp) })
}

func (b *SparseBatch) outStepAt(s int) *tensors.Tensor {
	return b.cached(-2, s, func() *tensors.Tensor { return stepSlice(b.outStep, s, b.Gp) })
}

func (b *SparseBatch) lastSteps() *tensors.Tensor {
	return b.cached(lastStepsKey, 0, func() *tensors.Tensor { return lastStepsOf(b.outStep, b.Gp) })
}

func (b *SparseBatch) stepInputsAt(s int) []*tensors.Tensor {
	out := make([]*tensors.Tensor, len(b.stepIn))
	for i := range b.stepIn {
		out[i] = b.cached(-3-i, s, func() *tensors.Tensor {
			if s >= b.T {
				return engine.ZeroTensor(b.Vp)
			}
			return tensors.FromFlatDataAndDimensions(slices.Clone(b.stepIn[i][s*b.Vp:(s+1)*b.Vp]), b.Vp)
		})
	}
	return out
}

func (b *SparseBatch) outputs() []*tensors.Tensor { return b.outputT }

// Release frees the batch's tensors.
func (b *SparseBatch) Release() { b.release() }

func (b *SparseBatch) release() {
	engine.Free(b.inputs...)
	engine.Free(b.outputT...)
	engine.Free(b.idx...)
	for _, x := range b.cache {
		engine.Free(x)
	}
	b.cache = map[[2]int]*tensors.Tensor{}
}

// TrainStep takes one optimizer step on a batch and returns its loss.
func (s *Sparse) TrainStep(b *SparseBatch) (float64, error) {
	if s.store == nil {
		return 0, errClosed
	}
	if b.hints == nil && s.decodeHints() {
		return 0, fmt.Errorf("nn: sparse: training with hint mode %s needs the hints, which the batch does not hold", s.cfg.HintMode)
	}
	engine.KeepBuffers(true)
	loss, _, err := s.loop.LossAndGradients(loopBatch{b}, true)
	return loss, err
}

// Step returns the number of training steps taken.
func (s *Sparse) Step() int64 {
	if s.store == nil {
		return 0
	}
	return optimizer.GetGlobalStep(s.store)
}

// Predict runs the model on a batch. Predictions are flat over the batch's
// rows: node pointers as the node each node points to (local to its
// graph), masks as probabilities, scalars as values.
func (s *Sparse) Predict(b *SparseBatch) (Predictions, error) {
	if s.store == nil {
		return nil, errClosed
	}
	engine.KeepBuffers(false)
	res, err := s.loop.Predict(loopBatch{b})
	if err != nil {
		return nil, err
	}
	defer engine.Free(res...)
	p := Predictions{}
	for i, l := range s.spec.outputs {
		var flat []float32
		if err := res[i].ConstFlatData(func(f any) { flat = slices.Clone(f.([]float32)) }); err != nil {
			return nil, err
		}
		// The real rows only (the padding graph's come last).
		rows := map[clrs.Location]int{clrs.Node: b.V, clrs.Edge: b.E, clrs.Graph: b.G}[sparseLocation(l)]
		per := len(flat) / map[clrs.Location]int{clrs.Node: b.Vp, clrs.Edge: b.Ep, clrs.Graph: b.Gp}[sparseLocation(l)]
		switch {
		case kind(l.Type) == clrs.Pointer && l.Location == clrs.Node:
			p[l.Name] = b.edgeArgmax(flat)
			continue
		}
		flat = flat[:rows*per]
		switch {
		case kind(l.Type) == clrs.Mask:
			v := make([]float64, len(flat))
			for k, x := range flat {
				v[k] = 1 / (1 + math.Exp(-float64(x)))
			}
			p[l.Name] = v
		default:
			v := make([]float64, len(flat))
			for k, x := range flat {
				v[k] = float64(x)
			}
			p[l.Name] = v
		}
	}
	return p, nil
}

// edgeArgmax picks, for every node, the receiver of its highest-scoring
// outgoing edge, as a node index local to its graph.
func (b *SparseBatch) edgeArgmax(logits []float32) []float64 {
	out := make([]float64, 0, b.V)
	for gi, tr := range b.trajs {
		g := tr.Graph
		for u := 0; u < g.N; u++ {
			lo, hi := g.Row(u)
			best := lo
			for e := lo; e < hi; e++ {
				if logits[b.edgeOff[gi]+e] > logits[b.edgeOff[gi]+best] {
					best = e
				}
			}
			out = append(out, float64(g.Dst[best]))
		}
	}
	return out
}

// Evaluate scores the model on batches, per output: pooled together as
// CLRS does (pointers' accuracy per node, masks' F1, scalars' mean squared
// error, metrics.CLRSOutputScore), with their mean under "score"; and per
// graph, averaged over the graphs, as SALSA-CLRS does
// (metrics.SALSAGraphScore: node accuracy, node F1, rounded-scalar graph
// accuracy) under "salsa/OUTPUT", with their mean under "salsa_score".
func (s *Sparse) Evaluate(batches []*SparseBatch) (map[string]float64, error) {
	return s.EvaluateProgress(batches, nil)
}

// EvaluateProgress is Evaluate calling done(i) after batch i (from 0) is
// predicted: progress for evaluations that take minutes.
func (s *Sparse) EvaluateProgress(batches []*SparseBatch, done func(i int)) (map[string]float64, error) {
	truth := map[string][]float64{}
	pred := map[string][]float64{}
	perGraph := map[string]float64{} // the sum of the graphs' SALSA-CLRS scores
	graphs := 0
	for i, b := range batches {
		p, err := s.Predict(b)
		if err != nil {
			return nil, err
		}
		if done != nil {
			done(i)
		}
		for _, l := range s.spec.outputs {
			at := len(pred[l.Name])
			pred[l.Name] = append(pred[l.Name], p[l.Name]...)
			for _, tr := range b.trajs {
				d, ok := tr.Probe(l.Name)
				if !ok {
					return nil, fmt.Errorf("nn: sparse: a trajectory has no output %s", l.Name)
				}
				truth[l.Name] = append(truth[l.Name], d.Data...)
				if len(truth[l.Name]) > len(pred[l.Name]) {
					return nil, fmt.Errorf("nn: sparse: %d predictions of %s for more truth values", len(pred[l.Name]), l.Name)
				}
				g, err := metrics.SALSAGraphScore(kind(l.Type).String(), d.Data, pred[l.Name][at:at+len(d.Data)])
				if err != nil {
					return nil, fmt.Errorf("nn: sparse: scoring %s per graph: %w", l.Name, err)
				}
				perGraph[l.Name] += g
				at += len(d.Data)
			}
		}
		graphs += len(b.trajs)
	}
	scores := map[string]float64{}
	salsaScores := map[string]float64{}
	for _, l := range s.spec.outputs {
		sc, err := metrics.CLRSOutputScore(kind(l.Type).String(), truth[l.Name], pred[l.Name], l.classes)
		if err != nil {
			return nil, fmt.Errorf("nn: sparse: scoring %s: %w", l.Name, err)
		}
		scores[l.Name] = sc
		salsaScores[l.Name] = perGraph[l.Name] / float64(graphs)
	}
	scores["score"] = metrics.CLRSScore(scores)
	for name, v := range salsaScores {
		scores["salsa/"+name] = v
	}
	scores["salsa_score"] = metrics.CLRSScore(salsaScores)
	return scores, nil
}

// Snapshot copies the model's trainable variables; restore puts them back
// (the best validation's parameters, kept while training goes on).
func (s *Sparse) Snapshot() (restore func() error, err error) {
	type saved struct {
		v *model.Variable
		t *tensors.Tensor
	}
	var all []saved
	for _, v := range engine.TrainableVariables(s.store.RootScope()) {
		t, err := v.Value()
		if err != nil {
			return nil, fmt.Errorf("nn: sparse: snapshot of %s: %w", v.Path(), err)
		}
		c, err := t.Clone()
		if err != nil {
			return nil, fmt.Errorf("nn: sparse: snapshot of %s: %w", v.Path(), err)
		}
		all = append(all, saved{v, c})
	}
	return func() error {
		for _, x := range all {
			if err := x.v.SetValue(x.t); err != nil {
				return fmt.Errorf("nn: sparse: restoring %s: %w", x.v.Path(), err)
			}
		}
		return nil
	}, nil
}

// loopBatch is a sparse batch as the engine's step loop takes it
// (engine.Batch).
type loopBatch struct{ b *SparseBatch }

func (l loopBatch) Steps() int                           { return l.b.steps() }
func (l loopBatch) ShapeKey() string                     { return l.b.shapeKey() }
func (l loopBatch) Static() []*tensors.Tensor            { return l.b.static() }
func (l loopBatch) InitialCarry() []*tensors.Tensor      { return l.b.initialCarry() }
func (l loopBatch) ReadoutZeros() []*tensors.Tensor      { return l.b.readoutZeros() }
func (l loopBatch) HintAt(i, t int) *tensors.Tensor      { return l.b.hintAt(i, t) }
func (l loopBatch) ValidAt(t int) *tensors.Tensor        { return l.b.validAt(t) }
func (l loopBatch) OutStepAt(s int) *tensors.Tensor      { return l.b.outStepAt(s) }
func (l loopBatch) LastSteps() *tensors.Tensor           { return l.b.lastSteps() }
func (l loopBatch) StepInputsAt(s int) []*tensors.Tensor { return l.b.stepInputsAt(s) }

// DrawsAt and HeadDraws: the sparse model draws its teacher forcing in
// its programs (engine.Layout.Teacher) and nothing else.
func (l loopBatch) DrawsAt(int) []*tensors.Tensor { return nil }

func (l loopBatch) HeadDraws() []*tensors.Tensor { return nil }
func (l loopBatch) Outputs() []*tensors.Tensor   { return l.b.outputs() }
func (l loopBatch) Release()                     { l.b.release() }
