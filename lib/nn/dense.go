package nn

import (
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// Dense is a linear layer over the last axis of x, x·W (+ b), with the
// variables of layers.Dense (scope "dense", "weights" [in,out], "biases"
// [out]) but no regularizers or activation: x is flattened to a matrix,
// multiplied and reshaped back. Weights start as haiku's Linear weights
// (weightInitializer), biases at zero.
//
// Under gomlx v0.26 this layer also carried its own gradient (two matrix
// products) because gomlx differentiated a matrix product through an
// [rows, in, out] outer product; v0.28 differentiates DotGeneral with
// DotGeneral, and the custom gradient became 7–13% slower on the pure-Go
// backend (CPU time of the go overfit tests, docs/baselines.md), so it
// was removed.
func Dense(scope *model.Scope, x *Node, useBias bool, out int) *Node {
	dims := x.Shape().Dimensions
	in := dims[len(dims)-1]
	rows := x.Shape().Size() / in
	w, b := denseVariables(scope, x.Graph(), shapes.Make(x.DType(), in, out), useBias)
	y := Dot(Reshape(x, rows, in), w).Product()
	if b != nil {
		y = Add(y, InsertAxes(b, 0))
	}
	outDims := append(append([]int(nil), dims[:len(dims)-1]...), out)
	return Reshape(y, outDims...)
}

// denseVariables returns Dense's variables in scope: weights of shape
// [in,out] and, when useBias, biases [out] (else nil), created in that
// order on first use.
func denseVariables(scope *model.Scope, g *Graph, weights shapes.Shape, useBias bool) (w, b *Node) {
	scope = scope.At("dense")
	if scope.GetVariable("weights") == nil {
		scope.VariableWithValue("weights", initialWeights(scope, scope.Scope()+"/weights", weights))
	}
	w = scope.VariableWithShape("weights", weights).NodeValue(g)
	if useBias {
		bias := shapes.Make(weights.DType, weights.Dimensions[1])
		if scope.GetVariable("biases") == nil {
			scope.VariableWithValue("biases", tensors.FromShape(bias))
		}
		b = scope.VariableWithShape("biases", bias).NodeValue(g)
	}
	return w, b
}
