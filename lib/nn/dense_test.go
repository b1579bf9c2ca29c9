package nn

import (
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"
)

// TestMatMulGradient compares matMul's value and gradients with gomlx's own
// differentiation of a plain Dot, under a non-linear loss so that the
// upstream gradient is not constant.
func TestMatMulGradient(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	fill := func(n int) []float32 { return normals(rng, n, 1) }
	for _, d := range []struct{ m, k, n int }{{1, 1, 1}, {5, 3, 4}, {12, 7, 2}, {2, 9, 11}} {
		loss := func(y *Node) *Node { return ReduceAllSum(Mul(Tanh(y), y)) }
		exec := MustNewExec(be, func(a, b *Node) []*Node {
			ours := matMul(a, b)
			theirs := Dot(a, b).Product()
			gOurs := Gradient(loss(ours), a, b)
			gTheirs := Gradient(loss(theirs), a, b)
			return []*Node{ours, theirs, gOurs[0], gTheirs[0], gOurs[1], gTheirs[1]}
		})
		a := tensors.FromFlatDataAndDimensions(fill(d.m*d.k), d.m, d.k)
		b := tensors.FromFlatDataAndDimensions(fill(d.k*d.n), d.k, d.n)
		out := exec.MustCall(a, b)
		for i, what := range []string{"value", "gradient of a", "gradient of b"} {
			got := tensors.MustCopyFlatData[float32](out[2*i])
			want := tensors.MustCopyFlatData[float32](out[2*i+1])
			if diff := maxAbsDiff(got, want); diff > 1e-5 {
				t.Errorf("%v: %s differs from gomlx's by %g", d, what, diff)
			}
		}
	}
}

// normals returns n draws of N(0, scale²).
func normals(rng *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(scale * rng.NormFloat64())
	}
	return v
}
