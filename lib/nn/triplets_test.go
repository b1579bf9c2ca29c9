package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/nn/engine"
)

// tripletInputs are random t1, t2, t3 [B,N,T], te1, te2, te3 [B,N,N,T] and
// tg [B,T] (flat, row-major).
func tripletInputs(rng *rand.Rand, B, N, T int) [7][]float32 {
	var in [7][]float32
	for i, size := range []int{B * N * T, B * N * T, B * N * T, B * N * N * T, B * N * N * T, B * N * N * T, B * T} {
		in[i] = normals(rng, size, 1)
	}
	return in
}

func tripletTensors(in [7][]float32, B, N, T int) []any {
	dims := [][]int{{B, N, T}, {B, N, T}, {B, N, T}, {B, N, N, T}, {B, N, N, T}, {B, N, N, T}, {B, T}}
	out := make([]any, 7)
	for i := range in {
		out[i] = tensors.FromFlatDataAndDimensions(in[i], dims[i]...)
	}
	return out
}

// TestTripletMax checks tripletMax against the reference's definition
// computed on the host: max over i of the sum of the seven terms
// t1_i + t2_j + t3_k + te1_ij + te2_ik + te3_jk + tg, on both backends.
func TestTripletMax(t *testing.T) {
	const B, N, T = 2, 5, 3
	in := tripletInputs(rand.New(rand.NewPCG(3, 4)), B, N, T)
	node := func(x []float32, b, i, t int) float32 { return x[(b*N+i)*T+t] }
	edge := func(x []float32, b, i, j, t int) float32 { return x[((b*N+i)*N+j)*T+t] }
	want := make([]float32, B*N*N*T)
	for b := range B {
		for j := range N {
			for k := range N {
				for f := range T {
					best := float32(math.Inf(-1))
					for i := range N {
						v := node(in[0], b, i, f) + node(in[1], b, j, f) + node(in[2], b, k, f) +
							edge(in[3], b, i, j, f) + edge(in[4], b, i, k, f) + edge(in[5], b, j, k, f) + in[6][b*T+f]
						best = max(best, v)
					}
					want[((b*N+j)*N+k)*T+f] = best
				}
			}
		}
	}
	for name, be := range testBackends(t) {
		exec, err := model.NewExec(be, model.NewStore(), func(_ *model.Scope, x []*Node) *Node {
			return tripletMax(x[0], x[1], x[2], x[3], x[4], x[5], x[6])
		})
		if err != nil {
			t.Fatal(err)
		}
		res, err := exec.Call(tripletTensors(in, B, N, T)...)
		if err != nil {
			t.Fatal(err)
		}
		if diff := maxAbsDiff(tensors.MustCopyFlatData[float32](res[0]), want); diff > 1e-5 {
			t.Errorf("%s: tripletMax differs from the seven-term maximum by %g", name, diff)
		}
	}
}

// BenchmarkTripletMax times Triplet-GMPNN's triplet maximum at the
// paper's size (batch 32, n=64, 8 triplet features) on narlab's backend
// pick, forward and with its gradient: "max-plus" is tripletMax, "seven-term"
// the reference's formulation (the seven terms summed over [B,i,j,k,T],
// reduced over i), kept here to measure the difference.
func BenchmarkTripletMax(b *testing.B) {
	const B, N, T = 32, 64, 8
	be, _, err := BackendChoice("")
	if err != nil {
		b.Fatal(err)
	}
	args := tripletTensors(tripletInputs(rand.New(rand.NewPCG(5, 6)), B, N, T), B, N, T)
	sevenTerm := func(x []*Node) *Node {
		tri := Add(InsertAxes(x[0], 2, 2), InsertAxes(x[1], 1, 2))
		tri = Add(tri, InsertAxes(x[2], 1, 1))
		tri = Add(tri, InsertAxes(x[3], 3))
		tri = Add(tri, InsertAxes(x[4], 2))
		tri = Add(tri, InsertAxes(x[5], 1))
		tri = Add(tri, InsertAxes(x[6], 1, 1, 1))
		return ReduceMax(tri, 1)
	}
	maxPlus := func(x []*Node) *Node { return tripletMax(x[0], x[1], x[2], x[3], x[4], x[5], x[6]) }
	for _, form := range []struct {
		name string
		fn   func([]*Node) *Node
	}{{"max-plus", maxPlus}, {"seven-term", sevenTerm}} {
		for _, grad := range []bool{false, true} {
			name := form.name + "/forward"
			if grad {
				name = form.name + "/with-gradient"
			}
			b.Run(name, func(b *testing.B) {
				exec, err := model.NewExec(be, model.NewStore(), func(_ *model.Scope, x []*Node) []*Node {
					out := form.fn(x)
					if !grad {
						return []*Node{out}
					}
					return Gradient(ReduceAllSum(Mul(out, Sin(out))), x...)
				})
				if err != nil {
					b.Fatal(err)
				}
				run := func() {
					res, err := exec.Call(args...)
					if err != nil {
						b.Fatal(err)
					}
					engine.Free(res...)
				}
				run() // compile
				b.ResetTimer()
				for range b.N {
					run()
				}
			})
		}
	}
}
