package nn

import (
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
)

// Dense is a linear layer over the last axis of x, x·W (+ b), with the
// variables of layers.Dense (scope "dense", "weights" [in,out], "biases"
// [out]) but no regularizers or activation: x is flattened to a matrix,
// multiplied and reshaped back.
//
// Under gomlx v0.26 this layer also carried its own gradient (two matrix
// products) because gomlx differentiated a matrix product through an
// [rows, in, out] outer product; v0.28 differentiates DotGeneral with
// DotGeneral, and the custom gradient became 7–13% slower on the pure-Go
// backend (CPU time of the go overfit tests, docs/DEVELOPERS.md), so it
// was removed.
func Dense(scope *model.Scope, x *Node, useBias bool, out int) *Node {
	g := x.Graph()
	scope = scope.At("dense")
	dims := x.Shape().Dimensions
	in := dims[len(dims)-1]
	rows := x.Shape().Size() / in
	w := scope.VariableWithShape("weights", shapes.Make(x.DType(), in, out)).NodeValue(g)
	y := Dot(Reshape(x, rows, in), w).Product()
	if useBias {
		b := scope.VariableWithShape("biases", shapes.Make(x.DType(), out)).NodeValue(g)
		y = Add(y, InsertAxes(b, 0))
	}
	outDims := append(append([]int(nil), dims[:len(dims)-1]...), out)
	return Reshape(y, outDims...)
}
