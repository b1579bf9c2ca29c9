package nn

import (
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
)

// EdgeLatents are the edge latents e [B,N,N,D] of one processor step, kept
// factored (a processor reads them through Dense and Full): every edge encoder is a linear map of a few raw fields (an edge
// scalar or mask is one field, a node pointer's one-hot row one, an edge
// pointer two, a categorical C), so the encoded sum is affine in those
// fields,
//
//	e = [raw·W + bias, extra]     raw [B,N,N,F], W [F,H], bias [H]
//
// with extra the Triplet-GMPNN edge latents (nil for other processors),
// concatenated after the affine part as the reference concatenates them.
//
// A linear layer applied to e (the processor's edge messages, the
// decoders' edge terms) then costs a product with W first, raw·(W·Wₗ),
// instead of one over H features per edge: the same function of the same
// variables, with F ≪ H. At hidden 128 this removes most of a step's
// [B·N·N, H]×[H, H] products (see docs/baselines.md, "Speed").
type EdgeLatents struct {
	b, n, h int
	raw     *Node // [B,N,N,F]; nil when there are no raw fields (e = bias)
	w       *Node // [F,H]
	bias    *Node // [H]; nil when zero
	extra   *Node // [B,N,N,H'] or nil
}

// noEdges are zero edge latents of width h.
func noEdges(b, n, h int) EdgeLatents { return EdgeLatents{b: b, n: n, h: h} }

// withField returns e plus the encoding field·w + bias of one edge encoder
// (field [B,N,N,k], w [k,H], bias [H]).
func (e EdgeLatents) withField(field, w, bias *Node) EdgeLatents {
	if e.raw == nil {
		e.raw, e.w = field, w
	} else {
		e.raw = Concatenate([]*Node{e.raw, field}, -1)
		e.w = Concatenate([]*Node{e.w, w}, 0)
	}
	if bias != nil {
		if e.bias == nil {
			e.bias = bias
		} else {
			e.bias = Add(e.bias, bias)
		}
	}
	return e
}

// withExtra returns e with dense latents [B,N,N,H'] concatenated after it.
func (e EdgeLatents) withExtra(x *Node) EdgeLatents {
	e.extra = x
	return e
}

// width is D, the size of the last axis of the materialized latents.
func (e EdgeLatents) width() int {
	if e.extra == nil {
		return e.h
	}
	return e.h + e.extra.Shape().Dimensions[3]
}

// affine materializes the affine part raw·W + bias as [B,N,N,H].
func (e EdgeLatents) affine(g *Graph) *Node {
	var y *Node
	if e.raw != nil {
		y = edgeProduct(e.raw, e.w)
	}
	if e.bias != nil {
		bias := Reshape(e.bias, 1, 1, 1, e.h)
		if y == nil {
			y = BroadcastToShape(bias, shapeF32(e.b, e.n, e.n, e.h))
		} else {
			y = Add(y, bias)
		}
	}
	if y == nil {
		y = Zeros(g, shapeF32(e.b, e.n, e.n, e.h))
	}
	return y
}

// full materializes e as [B,N,N,D] (for layers that are not linear in it).
func (e EdgeLatents) full(g *Graph) *Node {
	y := e.affine(g)
	if e.extra != nil {
		y = Concatenate([]*Node{y, e.extra}, -1)
	}
	return y
}

// Dense is [Dense] of the materialized latents (scope, e.Full(g), useBias,
// out): the same variables and the same function, computed on the factored
// form, at a fraction of the cost. Processors read edge latents this way.
func (e EdgeLatents) Dense(scope *model.Scope, g *Graph, useBias bool, out int) *Node {
	return e.dense(scope, g, useBias, out)
}

// Full materializes the latents as [B,N,N,D], for a layer that is not
// linear in them (a memory network's lookups).
func (e EdgeLatents) Full(g *Graph) *Node { return e.full(g) }

// dense is Dense(scope, e.full(), useBias, out) — the same variables, the
// same function — computed on the factored form.
func (e EdgeLatents) dense(scope *model.Scope, g *Graph, useBias bool, out int) *Node {
	w, b := denseVariables(scope, g, shapes.Make(dtypes.Float32, e.width(), out), useBias)
	wAffine := w
	if e.extra != nil {
		wAffine = Slice(w, AxisRange(0, e.h))
	}
	var y *Node
	if e.raw != nil {
		y = edgeProduct(e.raw, Dot(e.w, wAffine).Product()) // raw·(W·Wₗ)
	}
	if e.extra != nil {
		t := edgeProduct(e.extra, Slice(w, AxisRange(e.h, e.width())))
		if y == nil {
			y = t
		} else {
			y = Add(y, t)
		}
	}
	var shift *Node // bias·Wₗ (+ bₗ): the same for every edge
	if e.bias != nil {
		shift = Squeeze(Dot(InsertAxes(e.bias, 0), wAffine).Product(), 0)
	}
	if b != nil {
		if shift == nil {
			shift = b
		} else {
			shift = Add(shift, b)
		}
	}
	switch {
	case y == nil && shift == nil:
		return Zeros(g, shapeF32(e.b, e.n, e.n, out))
	case y == nil:
		return BroadcastToShape(Reshape(shift, 1, 1, 1, out), shapeF32(e.b, e.n, e.n, out))
	case shift != nil:
		y = Add(y, Reshape(shift, 1, 1, 1, out))
	}
	return y
}

// selectEdges returns Σₛ weights[s]·eₛ for edge latents of the same layout
// (weights [S,B], one-hot over s for each sample: the sample's last step),
// the latents each sample's outputs are decoded from. A product with a
// one-hot weight and a sum of zeros is exact.
func selectEdges(steps []EdgeLatents, weights *Node) EdgeLatents {
	sel := steps[0]
	sel.raw = selectStep(rawOf(steps), weights)
	sel.extra = selectStep(extraOf(steps), weights)
	// W and bias are the same variables at every step only when the raw
	// fields are the same encoders in the same order, which forward
	// guarantees (every step encodes the same probes).
	return sel
}

func rawOf(steps []EdgeLatents) []*Node {
	out := make([]*Node, len(steps))
	for i, s := range steps {
		out[i] = s.raw
	}
	return out
}

func extraOf(steps []EdgeLatents) []*Node {
	out := make([]*Node, len(steps))
	for i, s := range steps {
		out[i] = s.extra
	}
	return out
}

// selectStep returns Σₛ weights[s]·xₛ with weights [S,B] broadcast over
// each [B,…] xₛ; nil when the xₛ are nil.
func selectStep(xs []*Node, weights *Node) *Node {
	var acc *Node
	for s, x := range xs {
		if x == nil {
			return nil
		}
		term := Mul(broadcastSample(stepOf(weights, s), x), x)
		if acc == nil {
			acc = term
		} else {
			acc = Add(acc, term)
		}
	}
	return acc
}

// edgeProductMaxUnrolled is the largest k for which edgeProduct sums k
// broadcast products instead of calling a matrix product: XLA's CPU
// matrix product with a tiny inner dimension costs as much as the
// elementwise pass over [B,N,N,out] it writes (TestTmpOps measured a k=1
// product at 0.04 CPU-s on [32,64,64,128], against nothing when the
// product is fused into the sum that consumes it).
const edgeProductMaxUnrolled = 8

// edgeProduct is x·w over the last axis of x [B,N,N,k] with w [k,out].
func edgeProduct(x, w *Node) *Node {
	dims := x.Shape().Dimensions
	k, out := dims[3], w.Shape().Dimensions[1]
	if k <= edgeProductMaxUnrolled {
		var y *Node
		for f := 0; f < k; f++ {
			term := Mul(Slice(x, AxisRange(), AxisRange(), AxisRange(), AxisRange(f, f+1)),
				Reshape(Slice(w, AxisRange(f, f+1)), 1, 1, 1, out))
			if y == nil {
				y = term
			} else {
				y = Add(y, term)
			}
		}
		return y
	}
	y := Dot(Reshape(x, dims[0]*dims[1]*dims[2], k), w).Product()
	return Reshape(y, dims[0], dims[1], dims[2], out)
}
