package nn

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"slices"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/jaxrand"
	"github.com/narlab/narlab/lib/nn/engine"
)

// Chunked training, the reference's BaselineModelChunked (run.py
// --chunked_training): the model trains on fixed-length chunks of time
// (clrs.Chunker: each batch slot's trajectories back to back, is_first and
// is_last marking where they start and end) instead of whole trajectories.
// Each step of a chunk processes the time slice before it: the chunk's
// first step the state's slice (ChunkState), step s the chunk's slice s−1.
// Where that slice starts a trajectory (is_first) the node latents are
// reset to zero and the ground-truth hints are fed (as under teacher
// forcing), elsewhere the previous step's latents and re-predicted hints
// carry on. Step s predicts the hints of the chunk's slice s, scored where
// it does not start a trajectory, and decodes the outputs, scored against
// slice s's outputs where it ends one (is_last); each probe's loss is its
// mean over the scored entries of the whole chunk, as the reference's
// hint_loss_chunked and output_loss_chunked.
//
// The reference starts every chunk from the state it made at
// initialisation, never from the previous chunk's (its feedback passes
// init_mp_states; the line that would carry the state is commented out):
// that state's slice is the first slice of the initialisation chunk with
// is_first set, so each chunk's first step processes that slice afresh and
// its predictions are scored against the chunk's first slice wherever that
// continues a trajectory. InitialChunkState makes that state; TrainChunk
// returns the state a chunk ends in, which a caller may carry to the next
// chunk of the same stream instead (narlab's extra: each slice then
// processed once, the latents of a trajectory cut by a chunk's end kept).
//
// A chunk's steps run unrolled in one program per chunk shape (the chunk
// length bounds its size, whatever the trajectories' lengths).
//
// A chunk's random draws (teacher forcing, dropout, Gumbel noise) come
// from its training call's key in NetChunked's order (drawChunk): the
// teacher-forcing choice of every step (is_first forces the ground truth
// whatever it says), dropout after the processor, and noise for the
// permutation outputs decoded at every step.

// ChunkState is where a chunk's first step starts: the time slice it
// processes (its inputs, hints and where it starts a trajectory) and, for
// the samples that continue a trajectory there, the node latents (with
// the LSTM's cell beside them) and the hints fed back.
type ChunkState struct {
	slice   *clrs.Feedback // one time step: inputs [B,…], hints [1,B,…]
	isFirst []bool         // [B]
	hidden  []float32      // [B,N,H] ([B,N,2H] with the LSTM: latents, then cell); nil: zeros
	fed     [][]float32    // per hint fed back, its layout [B,…]; nil: zeros
}

// InitialChunkState is the reference's initial state of a stream: the
// chunk's first time slice with every sample starting there (so the first
// step of every chunk resets the latents and feeds the ground-truth hints
// of that slice).
func InitialChunkState(ch *clrs.Chunk) (*ChunkState, error) {
	slice, err := ch.Step(0)
	if err != nil {
		return nil, err
	}
	first := make([]bool, ch.BatchSize())
	for i := range first {
		first[i] = true
	}
	return &ChunkState{slice: slice, isFirst: first}, nil
}

// TrainChunk takes one optimizer step on a chunk (of the model's
// algorithm, or of one of its algorithms), starting from st, and returns
// the loss and the state the chunk ends in (its last slice, the latents
// and the hints fed back after its last step). Its random draws come
// from the key of its step, as TrainStep's.
func (m *Model) TrainChunk(ch *clrs.Chunk, st *ChunkState) (float64, *ChunkState, error) {
	if m.store == nil {
		return 0, nil, errClosed
	}
	return m.TrainChunkKey(ch, st, m.stepKey(m.Step()))
}

// TrainChunkKey is TrainChunk with the JAX key of the chunk's random
// draws given: the reference's chunked feedback(rng_key) draws the same
// numbers from the same key (drawChunk).
func (m *Model) TrainChunkKey(ch *clrs.Chunk, st *ChunkState, key jaxrand.Key) (float64, *ChunkState, error) {
	if m.store == nil {
		return 0, nil, errClosed
	}
	if m.parts != nil {
		p, err := m.partOf(ch.Algorithm)
		if err != nil {
			return 0, nil, err
		}
		return p.TrainChunkKey(ch, st, key)
	}
	if ch.Algorithm != m.cfg.Algorithm {
		return 0, nil, fmt.Errorf("nn: a %s chunk given to a %s model", ch.Algorithm, m.cfg.Algorithm)
	}
	if st == nil || st.slice == nil || len(st.isFirst) != ch.BatchSize() {
		return 0, nil, fmt.Errorf("nn: TrainChunk needs the state of a stream of %d samples (InitialChunkState)", ch.BatchSize())
	}
	args, err := m.chunkArgs(ch, st, key)
	if err != nil {
		return 0, nil, err
	}
	m.build.Lock()
	if m.chunkFn == nil {
		m.chunkFn, err = model.NewExec(m.backend, m.store, m.chunkGraph)
	}
	m.build.Unlock()
	if err != nil {
		return 0, nil, fmt.Errorf("nn: %w", err)
	}
	engine.KeepBuffers(true)
	m.vars.Lock()
	res, err := m.chunkFn.Call(args...)
	m.vars.Unlock()
	if err != nil {
		return 0, nil, fmt.Errorf("nn: train chunk: %w", err)
	}
	defer engine.Free(res...)
	loss, err := engine.ToFloat(res[0])
	if err != nil {
		return 0, nil, err
	}
	next, err := ch.Step(ch.Length() - 1)
	if err != nil {
		return 0, nil, err
	}
	C, B := ch.Length(), ch.BatchSize()
	ns := &ChunkState{slice: next, isFirst: slices.Clone(ch.IsFirst[(C-1)*B : C*B])}
	if ns.hidden, err = tensors.CopyFlatData[float32](res[1]); err != nil {
		return 0, nil, err
	}
	for _, t := range res[2:] {
		f, err := tensors.CopyFlatData[float32](t)
		if err != nil {
			return 0, nil, err
		}
		ns.fed = append(ns.fed, f)
	}
	return loss, ns, nil
}

// chunkArgs lays a chunk and its start state out as the chunk program's
// inputs: the slices the steps process (X: the state's, then the chunk's
// first C−1), their adjacency, fed truth and is_first; the chunk's hints,
// outputs, is_first and is_last; the state's latents and fed hints; the
// chunk's draws from key (drawChunk).
func (m *Model) chunkArgs(ch *clrs.Chunk, st *ChunkState, key jaxrand.Key) ([]any, error) {
	C, B := ch.Length(), ch.BatchSize()
	pos, ok := -1, false
	for i, d := range ch.Inputs {
		if d.Name == "pos" && len(d.Shape) == 3 {
			pos, ok = i, true
		}
	}
	if !ok {
		return nil, fmt.Errorf("nn: %s chunk: no pos input of shape [C, B, N]", ch.Algorithm)
	}
	n := ch.Inputs[pos].Shape[2]
	check := func(ls []probeLayout, dps []clrs.DataPoint, what string) error {
		if len(ls) != len(dps) {
			return fmt.Errorf("nn: %s chunk: %d %s probes, the model %d", ch.Algorithm, len(dps), what, len(ls))
		}
		for i, l := range ls {
			if dps[i].Name != l.Name {
				return fmt.Errorf("nn: %s chunk: %s probe %d is %s, the model expects %s (a chunk of transformed batches: Config.Transform)",
					ch.Algorithm, what, i, dps[i].Name, l.Name)
			}
		}
		return nil
	}
	for _, sec := range []struct {
		ls   []probeLayout
		dps  []clrs.DataPoint
		what string
	}{{m.spec.inputs, ch.Inputs, "input"}, {m.spec.hints, ch.Hints, "hint"}, {m.spec.outputs, ch.Outputs, "output"},
		{m.spec.inputs, st.slice.Inputs, "state input"}, {m.spec.hints, st.slice.Hints, "state hint"}} {
		if err := check(sec.ls, sec.dps, sec.what); err != nil {
			return nil, err
		}
	}
	// X: step s processes the state's slice (s = 0) or the chunk's s−1.
	xs := make([]*clrs.Feedback, C)
	xs[0] = st.slice
	for s := 1; s < C; s++ {
		fb, err := ch.Step(s - 1)
		if err != nil {
			return nil, err
		}
		xs[s] = fb
	}
	var args []any
	stack := func(l probeLayout, pick func(*clrs.Feedback) clrs.DataPoint) *tensors.Tensor {
		var data []float32
		var shape []int
		for _, x := range xs {
			d, sh := l.dense(pick(x), n)
			data, shape = append(data, d...), sh
		}
		return tensors.FromFlatDataAndDimensions(data, append([]int{C}, shape...)...)
	}
	for i, l := range m.spec.inputs {
		args = append(args, stack(l, func(x *clrs.Feedback) clrs.DataPoint { return x.Inputs[i] }))
	}
	var adj []float32
	for _, x := range xs {
		adj = append(adj, inputAdjacency(x.Inputs, B, n)...)
	}
	args = append(args, tensors.FromFlatDataAndDimensions(adj, C, B, n, n))
	if m.encodeHints() {
		for i, l := range m.spec.hints {
			args = append(args, stack(l, func(x *clrs.Feedback) clrs.DataPoint {
				d := x.Hints[i] // [1,B,…]
				return clrs.DataPoint{Probe: d.Probe, Array: clrs.Array{Shape: d.Shape[1:], Data: d.Data, DType: d.DType}}
			}))
		}
	}
	marks := func(m []bool) *tensors.Tensor {
		out := make([]float32, len(m))
		for i, v := range m {
			if v {
				out[i] = 1
			}
		}
		return tensors.FromFlatDataAndDimensions(out, C, B)
	}
	xFirst := append(slices.Clone(st.isFirst), ch.IsFirst[:(C-1)*B]...)
	args = append(args, marks(xFirst))
	if m.decodeHints() {
		for i, l := range m.spec.hints {
			d, sh := l.dense(ch.Hints[i], n)
			args = append(args, tensors.FromFlatDataAndDimensions(d, sh...))
		}
	}
	for i, l := range m.spec.outputs {
		d, sh := l.dense(ch.Outputs[i], n)
		args = append(args, tensors.FromFlatDataAndDimensions(d, sh...))
	}
	args = append(args, marks(ch.IsFirst), marks(ch.IsLast))
	W := m.carryWidth()
	if st.hidden != nil && len(st.hidden) != B*n*W {
		return nil, fmt.Errorf("nn: a chunk state of %d latents for %d samples of %d nodes of %d features", len(st.hidden), B, n, W)
	}
	args = append(args, zeroPadded(st.hidden, B, n, W))
	if m.encodeHints() {
		for i, l := range m.spec.hints {
			d, sh := l.dense(ch.Hints[i], n)
			per := sh[2:]
			size := len(d) / (C * B)
			var fed []float32
			if st.fed != nil {
				fed = st.fed[i]
			}
			if fed != nil && len(fed) != B*size {
				return nil, fmt.Errorf("nn: a chunk state's hint %s does not fit the chunk", l.Name)
			}
			args = append(args, zeroPadded(fed, append([]int{B}, per...)...))
		}
	}
	d := m.drawChunk(key, C, B, n)
	if d.teacher != nil {
		args = append(args, tensors.FromFlatDataAndDimensions(d.teacher, C, B))
	}
	if d.dropout != nil {
		args = append(args, tensors.FromFlatDataAndDimensions(d.dropout, C, B, n, m.cfg.Hidden))
	}
	for _, nz := range d.noise {
		args = append(args, tensors.FromFlatDataAndDimensions(nz, C, B, n, n))
	}
	return args, nil
}

// chunkGraph is the chunk training program: the loss of a chunk, the
// optimizer's step on it, and the latents and fed hints after its last
// step.
func (m *Model) chunkGraph(scope *model.Scope, in []*Node) []*Node {
	// Built when TrainChunk first calls it, under m.vars (held for the call).
	m.build.Lock()
	defer m.build.Unlock()
	g := in[0].Graph()
	scope.Store().SetTraining(g, true)
	k := 0
	take := func(n int) []*Node { out := in[k : k+n]; k += n; return out }
	nh := 0
	if m.encodeHints() {
		nh = len(m.spec.hints)
	}
	xIn := take(len(m.spec.inputs))
	xAdj := take(1)[0]
	xHints := take(nh)
	xFirst := take(1)[0]
	var tHints []*Node
	if m.decodeHints() {
		tHints = take(len(m.spec.hints))
	}
	tOut := take(len(m.spec.outputs))
	isFirst, isLast := take(1)[0], take(1)[0]
	hidden := take(1)[0]
	fed := take(nh)
	dl := m.drawLayout()
	var teacher, dropout *Node
	if dl.teacher {
		teacher = take(1)[0]
	}
	if dl.dropout {
		dropout = take(1)[0]
	}
	noise := take(len(dl.perms))
	C, B, N := xAdj.Shape().Dimensions[0], xAdj.Shape().Dimensions[1], xAdj.Shape().Dimensions[2]
	c := engine.Carry{Hidden: hidden}
	if nh > 0 {
		c.Fed = fed
	}
	outSums := make([]*Node, len(m.spec.outputs))
	outCounts := make([]*Node, len(m.spec.outputs))
	var hintSums, hintCounts []*Node
	for s := 0; s < C; s++ {
		inputs := make([]*Node, len(xIn))
		for i := range xIn {
			inputs[i] = stepOf(xIn[i], s)
		}
		enc := m.encodeInputs(scope, inputs, B, N)
		adj := stepOf(xAdj, s)
		first := stepOf(xFirst, s) // [B]
		cur := engine.Carry{Hidden: Mul(broadcastSample(OneMinus(first), c.Hidden), c.Hidden)}
		if nh > 0 {
			force := first
			if teacher != nil {
				force = Max(first, stepOf(teacher, s))
			}
			cur.Fed = make([]*Node, nh)
			for i := range c.Fed {
				truth := stepOf(xHints[i], s)
				fb := BroadcastToShape(broadcastSample(force, truth), truth.Shape())
				cur.Fed[i] = Where(GreaterThan(fb, ConstAs(fb, 0.5)), truth, c.Fed[i])
			}
		}
		var tg *engine.HintTargets
		if m.decodeHints() {
			tg = &engine.HintTargets{Truth: make([]*Node, len(tHints)), Valid: OneMinus(stepOf(isFirst, s))}
			for i := range tHints {
				tg.Truth[i] = stepOf(tHints[i], s)
			}
		}
		var d stepDraws // the teacher's choice is made above, for the slice this step processes
		if dropout != nil {
			d.dropout = stepOf(dropout, s)
		}
		next, r, su, co := m.step(scope, enc, adj, cur, tg, d, true)
		for i := range su {
			if hintSums == nil {
				hintSums, hintCounts = make([]*Node, len(su)), make([]*Node, len(su))
			}
			hintSums[i], hintCounts[i] = addOr(hintSums[i], su[i]), addOr(hintCounts[i], co[i])
		}
		nz := make([]*Node, len(noise))
		for p := range noise {
			nz[p] = stepOf(noise[p], s)
		}
		outs := m.decodeOutputs(scope, enc, adj, r, nz)
		last := stepOf(isLast, s)
		for i, l := range m.spec.outputs {
			su, co := probeLoss(l, outs[i], stepOf(tOut[i], s), last, false)
			outSums[i], outCounts[i] = addOr(outSums[i], su), addOr(outCounts[i], co)
		}
		c = next
	}
	loss := engine.HintLoss(outSums, outCounts)
	if hintSums != nil {
		loss = Add(loss, engine.HintLoss(hintSums, hintCounts))
	}
	grads := scope.BuildTrainableVariablesGradientsGraph(loss)
	if !m.cfg.NoGradClip {
		grads = engine.ClipByGlobalNorm(grads, m.cfg.GradClip)
	}
	m.opt.UpdateGraphWithGradients(scope, grads, loss.DType())
	out := []*Node{loss, c.Hidden}
	if nh > 0 {
		out = append(out, c.Fed...)
	}
	return out
}

// addOr is a + b, or b when a is nil.
func addOr(a, b *Node) *Node {
	if a == nil {
		return b
	}
	return Add(a, b)
}

// chunkStateData is a ChunkState's content, for MarshalBinary.
type chunkStateData struct {
	Slice   *clrs.Feedback
	IsFirst []bool
	Hidden  []float32
	Fed     [][]float32
}

// MarshalBinary encodes the state (encoding/gob), for a training that
// carries states from chunk to chunk to checkpoint them.
func (s *ChunkState) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(chunkStateData{Slice: s.slice, IsFirst: s.isFirst, Hidden: s.hidden, Fed: s.fed})
	return b.Bytes(), err
}

// UnmarshalBinary decodes a state MarshalBinary encoded.
func (s *ChunkState) UnmarshalBinary(data []byte) error {
	var d chunkStateData
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&d); err != nil {
		return fmt.Errorf("nn: chunk state: %w", err)
	}
	if d.Slice == nil || len(d.IsFirst) != d.Slice.BatchSize() {
		return fmt.Errorf("nn: chunk state: no slice, or %d start marks for another number of samples", len(d.IsFirst))
	}
	s.slice, s.isFirst, s.hidden, s.fed = d.Slice, d.IsFirst, d.Hidden, d.Fed
	return nil
}
