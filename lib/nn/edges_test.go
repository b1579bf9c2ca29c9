package nn

import (
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// TestEdgeLatentsDense checks the factored linear layer against the
// layer applied to the materialized latents, computed on the host:
// e = [raw·W + bias, extra], y = e·Wₗ + bₗ, with Wₗ and bₗ read back from
// the store under Dense's names.
func TestEdgeLatentsDense(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	const B, N, H, out = 2, 3, 4, 5
	cases := []struct {
		name                    string
		fields, extra           int // raw fields F (0: none), extra width (0: none)
		withBias, layerUsesBias bool
	}{
		{"raw", 2, 0, false, true},
		{"raw+bias", 3, 0, true, true},
		{"bias only", 0, 0, true, true},
		{"nothing", 0, 0, false, true},
		{"raw+bias+extra", 2, 6, true, true},
		{"extra only", 0, 3, false, true},
		{"no layer bias", 1, 2, true, false},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := normals(rng, B*N*N*max(c.fields, 1), 1)
			w := normals(rng, max(c.fields, 1)*H, 1)
			bias := normals(rng, H, 1)
			extra := normals(rng, B*N*N*max(c.extra, 1), 1)
			store := model.NewStore()
			width := H + c.extra
			if c.layerUsesBias {
				store.RootScope().At("l").At("dense").VariableWithValue("biases", normals(rng, out, 1))
			}
			exec, err := model.NewExec(be, store, func(scope *model.Scope, in []*Node) *Node {
				g := in[0].Graph()
				e := noEdges(B, N, H)
				if c.fields > 0 {
					e = e.withField(in[0], in[1], nil)
				}
				if c.withBias {
					if c.fields > 0 {
						e.bias = in[2]
					} else {
						e = e.withField(Zeros(g, shapeF32(B, N, N, 1)), Zeros(g, shapeF32(1, H)), in[2])
					}
				}
				if c.extra > 0 {
					e = e.withExtra(in[3])
				}
				return e.dense(scope.At("l"), g, c.layerUsesBias, out)
			})
			if err != nil {
				t.Fatal(err)
			}
			res, err := exec.Call(tensors.FromFlatDataAndDimensions(raw, B, N, N, max(c.fields, 1)),
				tensors.FromFlatDataAndDimensions(w, max(c.fields, 1), H), tensors.FromFlatDataAndDimensions(bias, H),
				tensors.FromFlatDataAndDimensions(extra, B, N, N, max(c.extra, 1)))
			if err != nil {
				t.Fatal(err)
			}
			got := tensors.MustCopyFlatData[float32](res[0])
			wl := tensors.MustCopyFlatData[float32](store.GetVariable("/l/dense/weights").MustValue())
			if len(wl) != width*out {
				t.Fatalf("layer weights hold %d values; want [%d,%d]", len(wl), width, out)
			}
			var bl []float32
			if c.layerUsesBias {
				bl = tensors.MustCopyFlatData[float32](store.GetVariable("/l/dense/biases").MustValue())
			}
			want := make([]float32, 0, B*N*N*out)
			for r := range B * N * N {
				e := make([]float32, width)
				for h := range H {
					if c.withBias {
						e[h] = bias[h]
					}
					for f := range c.fields {
						e[h] += raw[r*c.fields+f] * w[f*H+h]
					}
				}
				for x := range c.extra {
					e[H+x] = extra[r*c.extra+x]
				}
				for o := range out {
					var s float32
					if bl != nil {
						s = bl[o]
					}
					for i, v := range e {
						s += v * wl[i*out+o]
					}
					want = append(want, s)
				}
			}
			if diff := maxAbsDiff(got, want); diff > 1e-4 {
				t.Errorf("factored layer differs from the layer on the materialized latents by %g", diff)
			}
		})
	}
}

// TestSelectStep checks that one-hot step weights pick each sample's step
// exactly (bit for bit).
func TestSelectStep(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	const S, B, F = 3, 4, 5
	rng := rand.New(rand.NewPCG(5, 6))
	xs := make([][]float32, S)
	for s := range xs {
		xs[s] = normals(rng, B*F, 3)
	}
	last := []int{2, 0, 1, 2} // each sample's step
	weights := make([]float32, S*B)
	for b, s := range last {
		weights[s*B+b] = 1
	}
	exec, err := model.NewExec(be, model.NewStore(), func(scope *model.Scope, in []*Node) *Node {
		return selectStep(in[1:], in[0])
	})
	if err != nil {
		t.Fatal(err)
	}
	args := []any{tensors.FromFlatDataAndDimensions(weights, S, B)}
	for _, x := range xs {
		args = append(args, tensors.FromFlatDataAndDimensions(x, B, F))
	}
	res, err := exec.Call(args...)
	if err != nil {
		t.Fatal(err)
	}
	got := tensors.MustCopyFlatData[float32](res[0])
	for b, s := range last {
		for f := range F {
			if got[b*F+f] != xs[s][b*F+f] {
				t.Fatalf("sample %d feature %d: %v, want step %d's %v exactly", b, f, got[b*F+f], s, xs[s][b*F+f])
			}
		}
	}
}
