package nn

// JAX's rules where values tie. The reference (dm-clrs on JAX 0.4.38)
// differentiates a few operations differently from GoMLX at exact ties,
// and picks differently among tied maxima; where values tie (often: a
// ReLU'd message vector that is all zeros is the same bias-only message
// for every sender), the gradients, and so the training, part. The
// operations below compute GoMLX's values and JAX's gradients and choices;
// the model uses them wherever the reference uses the JAX operation:
//
//   - jnp.max / jnp.min over axes (lax.reduce_max's JVP rule): each of the
//     k tied extreme elements gets the cotangent divided by k; GoMLX's
//     ReduceMax gives each of them the whole cotangent.
//   - jnp.maximum / jnp.minimum (lax.max's JVP, _balanced_eq): at a == b
//     each side gets half the cotangent; GoMLX's Max gives all of it to
//     the first operand.
//   - jax.nn.relu (a custom JVP): gradient 0 at x = 0; GoMLX's Relu,
//     Max(x, 0), has 1 there.
//   - argmax (jnp.argmax, np.argmax): the first of tied maxima. GoMLX's
//     ArgMax picks the first too on both backends (pinned by the tests).
//   - the sparse model's segment max (a scatter-max; the reference has no
//     sparse model): as the dense model's jnp.max, ties share the cotangent.
//
// Values are unchanged: each op is GoMLX's own in the forward pass; only
// the gradient passes through a custom rule (an identity with a custom
// gradient in front of the GoMLX op rescales what GoMLX's rule sends to
// the tied elements). TestJAXTieRules compares each with JAX's values and
// gradients at exact ties (testdata/ties, made by scripts/tie_fixtures.py).

import (
	"math"

	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
)

// jaxRelu is max(x, 0), GoMLX's Relu (a NaN stays NaN), with
// jax.nn.relu's gradient: the cotangent where x > 0, and 0 elsewhere, at 0
// included (GoMLX's Max sends a tie's cotangent to its first operand, x,
// which the identity in front of it then zeroes at x = 0).
func jaxRelu(x *Node) *Node {
	xi := IdentityWithCustomGradient(x, func(x, v *Node) *Node {
		return Where(Equal(x, ZerosLike(x)), ZerosLike(v), v)
	})
	return Max(xi, ZerosLike(x))
}

// jaxReduceMax is ReduceMax(x, axes...) with jax.numpy.max's gradient: the
// cotangent of each output divided among the input elements equal to it.
func jaxReduceMax(x *Node, axes ...int) *Node {
	return ReduceMax(splitTies(x, ReduceMax, axes), axes...)
}

// jaxReduceMin is ReduceMin(x, axes...) with jax.numpy.min's gradient.
func jaxReduceMin(x *Node, axes ...int) *Node {
	return ReduceMin(splitTies(x, ReduceMin, axes), axes...)
}

// splitTies is x, through which the gradient GoMLX's reduce (ReduceMax
// or ReduceMin: the whole cotangent to every extreme element, 0 to the
// others) sends back is divided, at each element, by the number of
// elements tied with it for the extreme of its reduction: JAX's
// ct / count (_reduce_chooser_jvp_rule, transposed). Only the reduction
// over axes may read the returned node.
func splitTies(x *Node, reduce func(*Node, ...int) *Node, axes []int) *Node {
	return IdentityWithCustomGradient(x, func(x, v *Node) *Node {
		ext := ReduceAndKeep(StopGradient(x), reduce, axes...)
		tied := ConvertDType(Equal(x, ext), x.DType())
		count := ReduceAndKeep(tied, ReduceSum, axes...)
		return Div(v, BroadcastToShape(count, x.Shape()))
	})
}

// jaxMaximum is the elementwise Max(a, b) with jnp.maximum's gradient:
// where a == b, half the cotangent to each side.
func jaxMaximum(a, b *Node) *Node { return balancedExtreme(a, b, Max, GreaterThan) }

// jaxMinimum is the elementwise Min(a, b) with jnp.minimum's gradient.
func jaxMinimum(a, b *Node) *Node { return balancedExtreme(a, b, Min, LessThan) }

// balancedExtreme is extreme(a, b) (GoMLX's Max or Min: the value, NaN
// included) with lax.max's and lax.min's gradient (_balanced_eq): the
// cotangent to the side that wins (beats), half to each where they tie.
// The value is the op's own, its gradient stopped; the gradient comes
// through s − StopGradient(s), exactly 0 where s is finite, with s the
// winner, or the mean of the two at a tie. Its backward pass is one
// select and one broadcast reduction per operand, where the mean of
// extreme(a, b) and extreme(b, a) took two each (floyd_warshall's edge
// pointers take the maximum over [B,N,N,N,H]). Where s is not finite (an
// infinite or NaN input, or a tie of two values whose sum overflows) the
// zero term is dropped, and with it the gradient there.
func balancedExtreme(a, b *Node, extreme, beats func(x, y *Node) *Node) *Node {
	ext := extreme(a, b)
	a, b = BroadcastToShape(a, ext.Shape()), BroadcastToShape(b, ext.Shape())
	s := Where(beats(a, b), a, Where(beats(b, a), b, MulScalar(Add(a, b), 0.5)))
	zero := Sub(s, StopGradient(s))
	zero = Where(IsFinite(zero), zero, ZerosLike(zero))
	return Add(StopGradient(ext), zero)
}

// oneHotArgMax is one_hot(argmax(x, -1)) over the last axis: the first of
// tied maxima, as jnp.argmax and the reference's hard re-prediction.
func oneHotArgMax(x *Node) *Node {
	n := x.Shape().Dimensions[x.Rank()-1]
	return OneHot(ArgMax(x, -1), n, x.DType())
}

// jaxSegmentMax is the sparse model's segmentMax with the dense model's
// gradient (jaxReduceMax's): the cotangent of a segment's maximum divided
// among the rows tied for it. (JAX's own scatter-max multiplies by 1/k
// instead of dividing by k; the sparse model follows the dense model's
// jnp.max, whose function it computes.)
func jaxSegmentMax(x, idx *Node, n int) *Node {
	xi := IdentityWithCustomGradient(x, func(x, v *Node) *Node {
		mx := Gather(segmentMax(StopGradient(x), idx, n), idx)
		tied := ConvertDType(Equal(x, mx), x.DType())
		count := Gather(segmentSum(tied, idx, n), idx)
		return Div(v, count)
	})
	return segmentMax(xi, idx, n)
}

// segmentOneHotArgMax is 1 at the first row of each segment (the row of
// lowest pos, pos [rows] float32) among those holding the segment's
// maximum of x [rows], 0 elsewhere: one_hot(argmax) on the sparse layout.
func segmentOneHotArgMax(x, idx *Node, n int, pos *Node) *Node {
	tied := Equal(x, Gather(segmentMax(x, idx, n), idx))
	key := Where(tied, pos, ConstAs(pos, math.Inf(1)))
	first := Gather(segmentMin(key, idx, n), idx)
	return ConvertDType(LogicalAnd(tied, Equal(pos, first)), x.DType())
}

// segmentMin is the minimum of x's rows per segment (idx [rows, 1] into n
// segments); segments without rows hold +Inf.
func segmentMin(x, idx *Node, n int) *Node {
	dims := append([]int{n}, x.Shape().Dimensions[1:]...)
	init := BroadcastToShape(ConstAs(x, math.Inf(1)), shapes.Make(x.DType(), dims...))
	return ScatterMin(init, idx, x, false, false)
}
