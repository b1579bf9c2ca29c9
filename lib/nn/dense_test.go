package nn

import (
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// TestDense checks Dense against x·W + b computed by hand on the host, for
// inputs of rank 2 to 4 (the layer flattens the leading axes), with the
// weights read back from the store under layers.Dense's names.
func TestDense(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, dims := range [][]int{{3, 4}, {2, 3, 5}, {2, 2, 3, 4}} {
		const out = 3
		in := dims[len(dims)-1]
		size := 1
		for _, d := range dims {
			size *= d
		}
		x := normals(rng, size, 1)
		store := model.NewStore()
		// Non-zero biases (Dense would initialise them to zero).
		store.RootScope().At("layer").At("dense").VariableWithValue("biases", normals(rng, out, 1))
		exec, err := model.NewExec(be, store, func(scope *model.Scope, xs *Node) *Node {
			return Dense(scope.At("layer"), xs, true, out)
		})
		if err != nil {
			t.Fatal(err)
		}
		res, err := exec.Call(tensors.FromFlatDataAndDimensions(x, dims...))
		if err != nil {
			t.Fatal(err)
		}
		got := tensors.MustCopyFlatData[float32](res[0])
		w := tensors.MustCopyFlatData[float32](store.GetVariable("/layer/dense/weights").MustValue())
		b := tensors.MustCopyFlatData[float32](store.GetVariable("/layer/dense/biases").MustValue())
		if len(w) != in*out || len(b) != out {
			t.Fatalf("weights %d, biases %d values; want %d and %d", len(w), len(b), in*out, out)
		}
		want := make([]float32, size/in*out)
		for r := range size / in {
			for o := range out {
				s := b[o]
				for i := range in {
					s += x[r*in+i] * w[i*out+o]
				}
				want[r*out+o] = s
			}
		}
		if diff := maxAbsDiff(got, want); diff > 1e-5 {
			t.Errorf("dims %v: Dense differs from x·W+b by %g", dims, diff)
		}
		if s := res[0].Shape(); !s.Equal(shapes.Make(dtypes.Float32, append(dims[:len(dims)-1:len(dims)-1], out)...)) {
			t.Errorf("dims %v: output shape %v", dims, s)
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
