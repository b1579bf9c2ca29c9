package nn

import (
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
)

// Dense is a linear layer over the last axis of x, x·W (+ b), a drop-in
// replacement for layers.Dense with one output axis: it has the variables
// of layers.Dense (scope "dense", "weights" [in,out], "biases"
// [out]) and so the same checkpoints, but a cheaper gradient.
//
// gomlx v0.26.0 differentiates a matrix product by materialising the outer
// product of the upstream gradient with the other operand ([rows, in, out])
// and summing it. XLA fuses that away; the pure-Go backend executes it, and
// at hidden size 128 a training step cost twenty forward passes, almost all
// of it in those products. Here the backward pass is the two matrix products
// v·Wᵀ and xᵀ·v. Other narlab models (experiments/spectral) use it too.
func Dense(scope *model.Scope, x *Node, useBias bool, out int) *Node {
	g := x.Graph()
	scope = scope.At("dense")
	dims := x.Shape().Dimensions
	in := dims[len(dims)-1]
	rows := x.Shape().Size() / in
	w := scope.VariableWithShape("weights", shapes.Make(x.DType(), in, out)).NodeValue(g)
	y := matMul(Reshape(x, rows, in), w)
	if useBias {
		b := scope.VariableWithShape("biases", shapes.Make(x.DType(), out)).NodeValue(g)
		y = Add(y, InsertAxes(b, 0))
	}
	outDims := append(append([]int(nil), dims[:len(dims)-1]...), out)
	return Reshape(y, outDims...)
}

// matMul is a·b for a [M,K] and b [K,N] whose gradient is v·bᵀ for a and
// aᵀ·v for b (v = the gradient of the product).
//
// gomlx attaches custom gradients only to identity nodes, so the product is
// computed from gradient-stopped operands, and the operands reach it through
// identities a′, b′ joined to the result by a term worth exactly zero
// (their sums times a stopped zero). Reverse-mode differentiation visits the
// result's identity first: it records v; then the zero term carries (zero)
// gradients to a′ and b′, whose custom gradients return the products with
// the recorded v.
func matMul(a, b *Node) *Node {
	var v *Node // the product's gradient, recorded during differentiation
	recorded := func() *Node {
		if v == nil {
			panic("nn: matMul: operand gradient requested before the product's; gomlx's reverse order changed")
		}
		return v
	}
	aID := IdentityWithCustomGradient(a, func(_, _ *Node) *Node {
		return DotGeneral(recorded(), []int{1}, nil, b, []int{1}, nil) // [M,N]·[K,N]ᵀ → [M,K]
	})
	bID := IdentityWithCustomGradient(b, func(_, _ *Node) *Node {
		return DotGeneral(a, []int{0}, nil, recorded(), []int{0}, nil) // [M,K]ᵀ·[M,N] → [K,N]
	})
	zero := StopGradient(Scalar(a.Graph(), a.DType(), 0))
	link := Mul(Add(ReduceAllSum(aID), ReduceAllSum(bID)), zero)
	product := Add(Dot(StopGradient(a), StopGradient(b)).Product(), link)
	return IdentityWithCustomGradient(product, func(_, grad *Node) *Node {
		v = grad
		return grad
	})
}
