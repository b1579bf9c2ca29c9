package nn

import (
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/layers/norm"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/clrs"
)

// pgnAdjacency is the adjacency a PGN-family processor's max aggregation
// runs over: every pair of nodes (MPNN), the step's adjacency (PGN) or
// each node itself (Deep Sets).
type pgnAdjacency int

const (
	adjFull pgnAdjacency = iota
	adjData
	adjSelf
)

// layerNormEpsilon is haiku's LayerNorm epsilon (GoMLX defaults to 1e-3).
const layerNormEpsilon = 1e-5

// HintModes are the hint modes New accepts.
var HintModes = []string{"encoded_decoded", "decoded_only", "none"}

const bigNeg = -1e9

// hintAdjacency adds to the inputs' adjacency [B,N,N] the edges of the
// hints fed at this step, as the reference does for encoded hints: node
// pointers where (P + Pᵀ) > 0.5 (P the fed one-hot or soft pointer rows)
// and edge masks where (M + Mᵀ) > 0.
func hintAdjacency(adj *Node, hints []probeLayout, fed []*Node) *Node {
	for i, l := range hints {
		var threshold float64
		switch {
		case l.Location == clrs.Node && kind(l.Type) == clrs.Pointer:
			threshold = 0.5
		case l.Location == clrs.Edge && l.Type == clrs.Mask:
			threshold = 0
		default:
			continue
		}
		p := StopGradient(fed[i])
		sym := Add(p, TransposeAllDims(p, 0, 2, 1))
		adj = Max(adj, ConvertDType(GreaterThan(sym, ConstAs(sym, threshold)), adj.DType()))
	}
	return adj
}

// stepOf returns x[t] of a [T,…] tensor.
func stepOf(x *Node, t int) *Node {
	return Squeeze(Slice(x, AxisRange(t, t+1)), 0)
}

// broadcastSample reshapes a per-sample [B] weight to broadcast against x
// ([B,…]).
func broadcastSample(w, x *Node) *Node {
	dims := make([]int, x.Rank())
	for i := range dims {
		dims[i] = 1
	}
	dims[0] = w.Shape().Dimensions[0]
	return Reshape(w, dims...)
}

// process is one processor step (the registered definition's): the next
// node latents and, for a processor with triplets, the triplet edge
// latents.
func (m *Model) process(scope *model.Scope, nodeF *Node, edgeF EdgeLatents, graphF, hidden, adj *Node) (*Node, *Node) {
	return m.proc.Step(scope, ProcessorInput{Node: nodeF, Edge: edgeF, Graph: graphF, Hidden: hidden, Adj: adj},
		m.processorOptions())
}

// processorOptions are the settings the model's processor is built with.
func (m *Model) processorOptions() ProcessorOptions { return m.cfg.processorOptions() }

// pgnStep is the step of the reference's PGN family (dm-clrs's PGN class,
// also its MPNN and Deep Sets): messages from sender i to receiver j of
// the node features and latents z, the edge and graph features, through a
// two-layer MLP, max-aggregated over the adjacency adj, then a linear
// update with layer norm; optionally gated, and with triplet edge latents.
func pgnStep(adjacency pgnAdjacency, gated, triplets bool) ProcessorStep {
	return func(scope *model.Scope, in ProcessorInput, o ProcessorOptions) (*Node, *Node) {
		H := o.Hidden
		adj := in.Adj
		z := Concatenate([]*Node{in.Node, in.Hidden}, -1) // [B,N,2H]
		B, N := adj.Shape().Dimensions[0], adj.Shape().Dimensions[1]
		mask := adj
		switch adjacency {
		case adjFull:
			mask = Ones(adj.Graph(), shapeF32(B, N, N))
		case adjSelf:
			mask = eye(adj.Graph(), B, N)
		}
		m1 := Dense(scope.At("m1"), z, true, H)                   // sender i
		m2 := Dense(scope.At("m2"), z, true, H)                   // receiver j
		me := in.Edge.dense(scope.At("me"), adj.Graph(), true, H) // [B,N,N,H]
		mg := Dense(scope.At("mg"), in.Graph, true, H)            // [B,H]
		// msgs[b,i,j] = m1[b,i] + m2[b,j] + me[b,i,j] + mg[b]; node j aggregates over senders i with adj[i,j].
		// Summed left to right, as the reference: its rounding decides near-ties of the max below.
		msgs := Add(Add(Add(InsertAxes(m1, 2), InsertAxes(m2, 1)), me), InsertAxes(mg, 1, 1))
		msgs = Dense(scope.At("msg_mlp_1"), jaxRelu(msgs), true, H)
		msgs = Dense(scope.At("msg_mlp_2"), jaxRelu(msgs), true, H)
		penalty := Mul(OneMinus(InsertAxes(mask, -1)), ConstAs(mask, -bigNeg))
		agg := jaxReduceMax(Sub(msgs, penalty), 1) // [B,N,H]
		ret := jaxRelu(Add(Dense(scope.At("o1"), z, true, H), Dense(scope.At("o2"), agg, true, H)))
		if o.LayerNorm {
			ret = layerNorm(scope, ret)
		}
		var tri *Node
		if triplets {
			tri = tripletLatents(scope.At("triplet"), z, in.Edge, in.Graph, H, o.TripletFeatures)
		}
		if gated {
			// The reference's gate: h = h·g + hidden·(1−g), g = σ(g3(relu(g1(z) + g2(agg)))) with g3's bias
			// starting at −3, so that at first a node mostly keeps its previous latents.
			g1 := Dense(scope.At("gate1"), z, true, H)
			g2 := Dense(scope.At("gate2"), agg, true, H)
			gate := Sigmoid(Add(Dense(scope.At("gate3"), jaxRelu(Add(g1, g2)), true, H), ConstAs(g1, -3)))
			ret = gateMix(ret, in.Hidden, gate)
		}
		return ret, tri
	}
}

// layerNorm is the reference's hk.LayerNorm over the last axis (scale and
// offset, epsilon 1e-5), its variables in scope "ln".
func layerNorm(scope *model.Scope, x *Node) *Node {
	return norm.LayerNorm(scope.At("ln"), x, -1).Epsilon(layerNormEpsilon).Done()
}

// gateMix is the reference's gated update ret·gate + hidden·(1 − gate).
func gateMix(ret, hidden, gate *Node) *Node {
	return Add(Mul(ret, gate), Mul(hidden, OneMinus(gate)))
}

// tripletLatents computes Triplet-GMPNN's edge latents max_i ψ(z_i, z_j,
// z_k, e_ij, e_ik, e_kj, g) → [B,N,N,H], the messages T wide (the
// reference's nb_triplet_fts, 8 by default).
func tripletLatents(scope *model.Scope, z *Node, edgeF EdgeLatents, graphF *Node, hidden, T int) *Node {
	t1 := Dense(scope.At("t1"), z, true, T) // [B,N,T]  i
	t2 := Dense(scope.At("t2"), z, true, T) // j
	t3 := Dense(scope.At("t3"), z, true, T) // k
	g := z.Graph()
	te1 := edgeF.dense(scope.At("te1"), g, true, T) // [B,N,N,T] (i,j)
	te2 := edgeF.dense(scope.At("te2"), g, true, T) // (i,k)
	te3 := edgeF.dense(scope.At("te3"), g, true, T) // (k,j) read as (j,k) below
	tg := Dense(scope.At("tg"), graphF, true, T)    // [B,T]
	tri := tripletMax(t1, t2, t3, te1, te2, te3, tg)
	out := Dense(scope.At("o3"), tri, true, hidden) // [B,N(j),N(k),H]
	return jaxRelu(out)
}

// tripletMax is max over i of the triplet messages t1_i + t2_j + t3_k +
// te1_ij + te2_ik + te3_jk + tg, [B,N(j),N(k),T] from t1, t2, t3 [B,N,T],
// te1, te2, te3 [B,N,N,T] and tg [B,T] (the reference's get_triplet_msgs
// and its max over axis 1).
func tripletMax(t1, t2, t3, te1, te2, te3, tg *Node) *Node {
	// tri[b,i,j,k] = t1_i + t2_j + t3_k + te1_ij + te2_ik + te3_jk + tg, and
	// its max over i is max_i(t1_i + te1_ij + te2_ik) + (t2_j + t3_k + te3_jk
	// + tg): the terms without i leave the max, so the N³ part is one sum
	// and a max per element (a max-plus product over i), laid out
	// [B,T,i,j,k] so that k is contiguous and i the reduced, major axis. It
	// is the reference's sum of seven up to float rounding, and XLA CPU runs
	// it several times faster than the seven-term sum reduced over axis 1
	// of [B,i,j,k,T] (docs/log/performance-protocol.md, "Triplet messages").
	a := TransposeAllDims(Add(InsertAxes(t1, 2), te1), 0, 3, 1, 2)     // t1_i + te1_ij → [B,T,i,j]
	c := TransposeAllDims(te2, 0, 3, 1, 2)                             // te2_ik → [B,T,i,k]
	inner := jaxReduceMax(Add(InsertAxes(a, -1), InsertAxes(c, 3)), 2) // max over i → [B,T,j,k]
	inner = TransposeAllDims(inner, 0, 2, 3, 1)                        // [B,j,k,T]
	rest := Add(Add(InsertAxes(t2, 2), InsertAxes(t3, 1)), Add(te3, InsertAxes(tg, 1, 1)))
	return Add(inner, rest)
}

// leakyReluSlope is the negative slope of GAT's and GATv2's leaky ReLU:
// the reference calls jax.nn.leaky_relu with its default, 0.01 (not the
// GAT paper's 0.2); TestReferenceTrainingSteps' gat and gatv2 fixtures
// check it.
const leakyReluSlope = 0.01

// gatStep is one graph-attention step with o.Heads heads: per head h,
// coefficients softmax_j over the adjacency (every pair of nodes when
// full: gat_full, gatv2_full) of leaky_relu(a1·z_i + a2·z_j + ae·e_ij +
// ag·g)_h (GAT) or a_h·leaky_relu(W1 z_i + W2 z_j + We e_ij + Wg g)[h] (GATv2,
// the pre-activations cut into heads of H/heads features), weighting the
// values' h-th block of H/heads features; the heads' blocks concatenated.
func gatStep(v2, full bool) ProcessorStep {
	return func(scope *model.Scope, in ProcessorInput, o ProcessorOptions) (*Node, *Node) {
		H, adj := o.Hidden, in.Adj
		heads := max(o.Heads, 1)
		F := H / heads
		B, N := adj.Shape().Dimensions[0], adj.Shape().Dimensions[1]
		if full {
			adj = Ones(adj.Graph(), shapeF32(B, N, N))
		}
		z := Concatenate([]*Node{in.Node, in.Hidden}, -1) // [B,N,2H]
		values := Dense(scope.At("values"), z, true, H)   // [B,N,H]
		var logits *Node                                  // [B,N(i),N(j),heads]
		if !v2 {
			a1 := Dense(scope.At("a1"), z, true, heads)
			a2 := Dense(scope.At("a2"), z, true, heads)
			ae := in.Edge.dense(scope.At("ae"), z.Graph(), true, heads)
			ag := Dense(scope.At("ag"), in.Graph, true, heads)
			l := Add(Add(InsertAxes(a1, 2), InsertAxes(a2, 1)), Add(ae, InsertAxes(ag, 1, 1)))
			logits = activation.LeakyReluWith(l, leakyReluSlope)
		} else {
			w1 := Dense(scope.At("w1"), z, true, H)
			w2 := Dense(scope.At("w2"), z, true, H)
			we := in.Edge.dense(scope.At("we"), z.Graph(), true, H)
			wg := Dense(scope.At("wg"), in.Graph, true, H)
			pre := activation.LeakyReluWith(Add(Add(InsertAxes(w1, 2), InsertAxes(w2, 1)), Add(we, InsertAxes(wg, 1, 1))), leakyReluSlope)
			if heads == 1 {
				logits = Dense(scope.At("%s", gatv2HeadName(0)), pre, true, 1)
			} else {
				per := make([]*Node, heads)
				for h := range per {
					per[h] = Dense(scope.At("%s", gatv2HeadName(h)), Slice(pre, AxisRange(), AxisRange(), AxisRange(), AxisRange(h*F, (h+1)*F)), true, 1)
				}
				logits = Concatenate(per, -1)
			}
		}
		// logits[b,i,j,h]: i attends to j over the adjacency.
		bias := InsertAxes(Mul(OneMinus(adj), ConstAs(adj, bigNeg)), -1)
		coefs := Softmax(Add(logits, bias), 2) // over j
		var att *Node
		if heads == 1 {
			att = Einsum("bij,bjh->bih", Squeeze(coefs, -1), values)
		} else {
			att = Reshape(Einsum("bijk,bjkf->bikf", coefs, Reshape(values, B, N, heads, F)), B, N, H)
		}
		ret := jaxRelu(Add(att, Dense(scope.At("skip"), z, true, H)))
		if o.LayerNorm {
			ret = layerNorm(scope, ret)
		}
		return ret, nil
	}
}

// decode returns a probe's logits in its layout from node latents hT
// [B,N,3H], edge latents eT [B,N,N,·], graph features [B,H] and the
// step's adjacency [B,N,N] (used by the *_mask processors' inf_bias).
// Permutation pointers come out as log-Sinkhorn matrices (10 steps,
// temperature 0.1, with noise: training's Gumbel noise, nil in
// evaluation), as the reference's.
func (m *Model) decode(scope *model.Scope, l probeLayout, hT *Node, eT EdgeLatents, graphF, adj, noise *Node) *Node {
	H := m.cfg.Hidden
	infBias := m.proc.InfBias
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
		if k := kind(l.Type); k == clrs.Pointer || k == clrs.PermutationPointer {
			p1 := Dense(scope.At("p1"), hT, true, H)                                          // x
			p2 := Dense(scope.At("p2"), hT, true, H)                                          // y
			p3 := TransposeAllDims(eT.dense(scope.At("p3"), hT.Graph(), true, H), 0, 2, 1, 3) // p3[y,x] at [x,y]
			mx := jaxMaximum(InsertAxes(p1, 2), Add(InsertAxes(p2, 1), p3))
			preds := Squeeze(Dense(scope.At("p4"), mx, true, 1), -1) // [B,N,N]
			if infBias {
				preds = nonEdgesBelow(preds, adj)
			}
			if k == clrs.PermutationPointer {
				preds = logSinkhorn(preds, 10, 0.1, noise)
			}
			return preds
		}
		return squeeze(Dense(scope.At("l"), hT, true, out))
	case clrs.Edge:
		if kind(l.Type) == clrs.Pointer {
			// pred_ij = L(h)_i + L(h)_j + L(e)_ij; logit[i,j,k] = L1(max(pred_ij, L(h)_k)).
			a := Dense(scope.At("p1"), hT, true, H)
			b := Dense(scope.At("p2"), hT, true, H)
			e := eT.dense(scope.At("p3"), hT.Graph(), true, H)
			pred := Add(Add(InsertAxes(a, 2), InsertAxes(b, 1)), e)    // [B,N,N,H]
			k := Dense(scope.At("p4"), hT, true, H)                    // [B,N,H]
			mx := jaxMaximum(InsertAxes(pred, 3), InsertAxes(k, 1, 1)) // [B,N,N,N,H]
			return Squeeze(Dense(scope.At("p5"), mx, true, 1), -1)
		}
		a := Dense(scope.At("e1"), hT, true, out)
		b := Dense(scope.At("e2"), hT, true, out)
		e := eT.dense(scope.At("e3"), hT.Graph(), true, out)
		preds := squeeze(Add(Add(InsertAxes(a, 2), InsertAxes(b, 1)), e))
		if infBias && (l.Type == clrs.Mask || l.Type == clrs.MaskOne) {
			preds = nonEdgesBelow(preds, adj)
		}
		return preds
	default:
		gr := Add(Dense(scope.At("g1"), jaxReduceMax(hT, 1), true, out), Dense(scope.At("g2"), graphF, true, out))
		if kind(l.Type) == clrs.Pointer {
			per := Squeeze(Dense(scope.At("g3"), hT, true, 1), -1) // [B,N]
			return Add(per, gr)                                    // gr is [B,1]
		}
		return squeeze(gr)
	}
}

// nonEdgesBelow is the reference's inf_bias: logits [B,N,N] where adj ≤ 0.5
// become min(−1, (the sample's smallest logit) − 1). As in the reference
// the gradient flows through that minimum (to the smallest logit), which
// TestReferenceTrainingSteps' pgn_mask fixture checks.
func nonEdgesBelow(preds, adj *Node) *Node {
	low := jaxReduceMin(preds, 1, 2)                              // [B]
	low = jaxMinimum(Sub(low, ConstAs(low, 1)), ConstAs(low, -1)) // min(−1, min − 1)
	low = BroadcastToShape(InsertAxes(low, 1, 1), preds.Shape())  // [B,N,N]
	return Where(GreaterThan(adj, ConstAs(adj, 0.5)), preds, low)
}

// logSinkhorn is the reference's log-space Sinkhorn operator on [B,N,N]
// logits: optional Gumbel noise (training's: sinkhornNoise) added,
// division by the temperature, the diagonal pushed down by 1e6, then
// steps rounds of log-softmax over rows (last axis) and columns. The
// result is the logarithm of a (nearly) doubly-stochastic matrix.
func logSinkhorn(x *Node, steps int, temperature float64, noise *Node) *Node {
	if noise != nil {
		x = Add(x, noise)
	}
	x = DivScalar(x, temperature)
	dims := x.Shape().Dimensions
	n := dims[len(dims)-1]
	x = Sub(x, MulScalar(BroadcastToShape(eyeMatrix(x.Graph(), n), x.Shape()), 1e6))
	for i := 0; i < steps; i++ {
		x = LogSoftmax(x, -1)
		x = LogSoftmax(x, -2)
	}
	return x
}

// eyeMatrix is the [1,N,N] identity.
func eyeMatrix(g *Graph, n int) *Node {
	return eye(g, 1, n)
}

// repredict turns a hint's logits into the value fed back as the next
// step's hint, as the reference's decoders.postprocess: soft (scalars
// as they are, masks through a sigmoid, distributions through a softmax
// over the last axis) or hard (scalars with their gradient stopped, masks
// thresholded at logit 0, distributions one-hot at their argmax).
func repredict(l probeLayout, logits *Node, hard bool) *Node {
	switch kind(l.Type) {
	case clrs.Scalar:
		if hard {
			return StopGradient(logits)
		}
		return logits
	case clrs.Mask:
		if hard {
			return ConvertDType(GreaterThan(logits, ConstAs(logits, 0)), logits.DType())
		}
		return Sigmoid(logits)
	}
	if hard {
		return oneHotArgMax(logits)
	}
	return Softmax(logits, -1)
}

// probeLoss is the reference's loss of a probe as a sum and the count it
// is averaged over, weighted per sample by w [B] (1 = counts):
//
//	scalar: squared error, averaged over entries
//	mask: binary cross-entropy with logits, over entries whose truth ≠ −1
//	mask_one, categorical: −Σ truth·log_softmax over the last axis; as an
//	  output, masked truth (−1 → 0) and divided by the number of positive
//	  entries; as a hint, divided by the number of rows (mask_one) or of
//	  rows holding a positive (categorical)
//	pointer: cross-entropy of each row, averaged over rows
//	permutation pointer: −Σ truth·logits (log-Sinkhorn), averaged over rows
func probeLoss(l probeLayout, logits, truth, w *Node, hint bool) (sum, count *Node) {
	wb := broadcastSample(w, truth)
	switch kind(l.Type) {
	case clrs.Scalar:
		return ReduceAllSum(Mul(wb, Square(Sub(logits, truth)))), ReduceAllSum(Mul(wb, OnesLike(truth)))
	case clrs.Mask:
		valid := Mul(wb, ConvertDType(NotEqual(truth, ConstAs(truth, -1)), truth.DType()))
		// The reference's stable BCE with logits, max(x, 0) − x·t + log(1 +
		// e^−|x|), with its gradient at x = 0 (jnp.maximum's half, abs's 1):
		// −t there, where GoMLX's BinaryCrossentropyLogits has ½ − t.
		bce := Add(Sub(jaxMaximum(logits, ZerosLike(logits)), Mul(logits, truth)), Log1P(Exp(Neg(Abs(logits)))))
		return ReduceAllSum(Mul(valid, bce)), ReduceAllSum(valid)
	}
	// Distributions over the last axis: per-row losses and row weights.
	rowsOf := func(x *Node) *Node { return BroadcastToShape(broadcastSample(w, x), x.Shape()) }
	if kind(l.Type) == clrs.PermutationPointer {
		per := ReduceSum(Neg(Mul(truth, logits)), -1) // [B,N]
		wr := rowsOf(per)
		return ReduceAllSum(Mul(wr, per)), ReduceAllSum(wr)
	}
	positive := ConvertDType(Equal(truth, ConstAs(truth, 1)), truth.DType())
	masked := Mul(truth, ConvertDType(NotEqual(truth, ConstAs(truth, -1)), truth.DType()))
	ce := ReduceSum(Neg(Mul(masked, LogSoftmax(logits, -1))), -1) // per row
	wr := rowsOf(ce)
	switch {
	case kind(l.Type) == clrs.Pointer:
		return ReduceAllSum(Mul(wr, ce)), ReduceAllSum(wr)
	case !hint: // mask_one, categorical outputs
		return ReduceAllSum(Mul(wr, ce)), ReduceAllSum(Mul(wb, positive))
	case l.Type == clrs.MaskOne:
		return ReduceAllSum(Mul(wr, ce)), ReduceAllSum(wr)
	default: // categorical hints: rows holding a positive
		has := ReduceMax(positive, -1)
		return ReduceAllSum(Mul(Mul(wr, has), ce)), ReduceAllSum(Mul(wr, has))
	}
}

// eye is b stacked N×N identities, [B,N,N] float32.
func eye(g *Graph, b, n int) *Node {
	return BroadcastToDims(InsertAxes(ConvertDType(Diagonal(g, n), dtypes.Float32), 0), b, n, n)
}
