package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
)

// TestMemnetReadsItsOwnRow checks what each node of a memory network reads:
// node i's latents depend on the edge latents of its own row (i, ·) only,
// and, in the masked variant, only where adj[i, ·] is 1.
func TestMemnetReadsItsOwnRow(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	const B, N, H = 1, 4, 32 // wide enough that no node's ReLU layer is all dead
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(n int) []float32 { return normals(rng, n, 0.1) } // small latents keep the attention off saturation
	nodeF, graphF := fill(B*N*H), fill(B*H)
	adj := make([]float32, B*N*N)
	for i := range N {
		adj[i*N+i] = 1
		adj[i*N+(i+1)%N] = 1 // a directed ring plus self-loops
	}
	store := model.NewStore()
	if err := store.SetRNGStateFromSeed(5); err != nil {
		t.Fatal(err)
	}
	for _, masked := range []bool{true, false} {
		exec, err := model.NewExec(be, store, func(scope *model.Scope, in []*Node) *Node {
			a := Reshape(in[3], B, N, N)
			if !masked {
				a = OnesLike(a)
			}
			return memnet(scope, Reshape(in[0], B, N, H), Reshape(in[1], B, N, N, H), Reshape(in[2], B, H), a, H)
		})
		if err != nil {
			t.Fatal(err)
		}
		base := fill(B * N * N * H)
		latents := func(edgeF []float32) [][]float32 {
			out, err := exec.Call(nodeF, edgeF, graphF, adj)
			if err != nil {
				t.Fatal(err)
			}
			return out[0].Value().([][][]float32)[0]
		}
		want := latents(base)
		for _, c := range []struct {
			i, j int
		}{{0, 1}, {0, 2}, {2, 3}, {3, 0}, {1, 1}} {
			edge := adj[c.i*N+c.j] == 1 || !masked
			perturbed := append([]float32(nil), base...)
			for h := range H {
				perturbed[(c.i*N+c.j)*H+h] += 0.5
			}
			got := latents(perturbed)
			for node := range N {
				changed := maxAbsDiff(got[node], want[node]) > 0 // rows not read are bit-identical
				if should := node == c.i && edge; changed != should {
					t.Errorf("masked=%v: changing edge latents (%d,%d) changed node %d: %v, want %v",
						masked, c.i, c.j, node, changed, should)
				}
			}
		}
	}
}

func maxAbsDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}
