package salsa

import (
	"fmt"
	"slices"
	"testing"

	"github.com/narlab/narlab/lib/clrs"
)

// TestDenseAgreement runs bfs, dfs, dijkstra and mst_prim on the edge
// lists and with lib/clrs's dense implementations (checked there against
// dm-clrs, the code SALSA-CLRS runs for them) on the same graphs, and
// checks every input, hint step and output: node-located probes equal,
// edge-located ones equal to the dense [N, N] arrays at the listed edges,
// and the dense arrays zero (adj: zero) off the list.
func TestDenseAgreement(t *testing.T) {
	families := []Family{
		{Kind: ER, N: trainSizes, P: ERP(16)},
		{Kind: ER, N: []int{80}, P: ERP(80)},
		{Kind: WS, N: []int{16, 40}, P: wsP, K: wsK},
		{Kind: Delaunay, N: []int{5, 16, 60}},
	}
	for _, algo := range []string{"bfs", "dfs", "dijkstra", "mst_prim"} {
		for fi, fam := range families {
			set := Set{Name: fmt.Sprintf("dense-%d", fi), Family: fam}
			for i := range 12 {
				tr, _, err := Sample(algo, set, 5, i, true)
				if err != nil {
					t.Fatal(err)
				}
				g := tr.Graph
				A := clrs.Matrix{N: g.N, Data: g.Dense(), Int: !g.Weighted}
				args := clrs.Args{A}
				if tr.Source >= 0 {
					args = append(args, tr.Source)
				}
				want, err := clrs.Run(algo, args)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s/%v/%d", algo, fam.Kind, i)
				if tr.Length != want.Length {
					t.Fatalf("%s: %d steps, dense %d", name, tr.Length, want.Length)
				}
				for _, pair := range [][2][]clrs.DataPoint{{tr.Inputs, want.Inputs}, {tr.Hints, want.Hints}, {tr.Outputs, want.Outputs}} {
					if len(pair[0]) != len(pair[1]) {
						t.Fatalf("%s: %d probes, dense %d", name, len(pair[0]), len(pair[1]))
					}
					for k, d := range pair[0] {
						compareDense(t, name, g, d, pair[1][k])
					}
				}
			}
		}
	}
}

// compareDense checks a sparse probe against the dense one.
func compareDense(t *testing.T, name string, g *Graph, sparse, dense clrs.DataPoint) {
	t.Helper()
	if sparse.Probe != dense.Probe {
		t.Fatalf("%s: probe %v, dense %v", name, sparse.Probe, dense.Probe)
	}
	if sparse.Location != clrs.Edge {
		if !slices.Equal(sparse.Shape, dense.Shape) || !slices.Equal(sparse.Data, dense.Data) {
			t.Fatalf("%s: %s differs from the dense version\nsparse %v %v\ndense  %v %v", name, sparse.Name, sparse.Shape, sparse.Data, dense.Shape, dense.Data)
		}
		if sparse.Stage != clrs.Hint && sparse.DType != dense.DType {
			t.Fatalf("%s: %s has dtype %v, dense %v", name, sparse.Name, sparse.DType, dense.DType)
		}
		return
	}
	n, E := g.N, g.NumEdges()
	steps := 1
	if sparse.Stage == clrs.Hint {
		steps = sparse.Shape[0]
	}
	for s := range steps {
		sp := sparse.Data[s*E : (s+1)*E]
		dn := slices.Clone(dense.Data[s*n*n : (s+1)*n*n])
		for e := range E {
			k := int(g.Src[e])*n + int(g.Dst[e])
			if sp[e] != dn[k] {
				t.Fatalf("%s: %s step %d edge %d→%d: %v, dense %v", name, sparse.Name, s, g.Src[e], g.Dst[e], sp[e], dn[k])
			}
			dn[k] = 0
		}
		for k, v := range dn {
			if v != 0 {
				t.Fatalf("%s: %s step %d: dense value %v at %d→%d, not an edge of the list", name, sparse.Name, s, v, k/n, k%n)
			}
		}
	}
}
