package salsa

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nprand"
)

// TestBadInput checks that every entry point refuses bad input with an
// error that says what is wrong.
func TestBadInput(t *testing.T) {
	g, _ := NewGraph(3, [][2]int{{0, 1}, {1, 2}})
	er16, _ := LookupSet("er_16")
	for _, c := range []struct {
		name string
		err  func() error
		want string
	}{
		{"no nodes", func() error { _, err := NewGraph(0, nil); return err }, "at least one node"},
		{"node out of range", func() error { _, err := NewGraph(3, [][2]int{{0, 3}}); return err }, "outside [0, 3)"},
		{"self-loop", func() error { _, err := NewGraph(3, [][2]int{{1, 1}}); return err }, "self-loop"},
		{"edge twice", func() error { _, err := NewGraph(3, [][2]int{{0, 1}, {1, 0}}); return err }, "given twice"},
		{"weights count", func() error { _, err := NewWeightedGraph(3, [][2]int{{0, 1}}, nil); return err }, "0 weights for 1 edges"},
		{"zero weight", func() error { _, err := NewWeightedGraph(3, [][2]int{{0, 1}}, []float64{0}); return err }, "non-zero weight"},
		{"NaN weight", func() error { _, err := NewWeightedGraph(3, [][2]int{{0, 1}}, []float64{math.NaN()}); return err }, "finite"},
		{"unknown algorithm", func() error { _, err := run("bfx", g, 0, nil, true); return err }, `unknown algorithm "bfx"`},
		{"source out of range", func() error { _, err := BFS(g, 3); return err }, "source node 3 is out of range"},
		{"negative source", func() error { _, err := Dijkstra(g, -1); return err }, "source node -1 is out of range"},
		{"nil graph", func() error { _, err := DFS(nil); return err }, "graph is empty"},
		{"hand-made graph", func() error { _, err := DFS(&Graph{N: 2}); return err }, "not built by this package"},
		{"fast_mis without numbers", func() error { _, err := FastMIS(g, nil); return err }, "random numbers"},
		{"negative weight", func() error {
			w, _ := NewWeightedGraph(2, [][2]int{{0, 1}}, []float64{-1})
			_, err := Dijkstra(w, 0)
			return err
		}, "non-negative weights"},
		{"n too small", func() error { return Family{Kind: ER, N: []int{3}, P: [2]float64{0.5, 0.6}}.Validate() }, "n = 3 is out of range; want 4 <= n"},
		{"n too large", func() error { return Family{Kind: Delaunay, N: []int{1 << 20}}.Validate() }, "out of range"},
		{"no n", func() error { return Family{Kind: ER, P: [2]float64{0.5, 0.6}}.Validate() }, "no node count"},
		{"p zero", func() error { return Family{Kind: ER, N: []int{8}, P: [2]float64{0, 0.1}}.Validate() }, "0 < low <= high <= 1"},
		{"p reversed", func() error { return Family{Kind: WS, N: []int{8}, P: [2]float64{0.3, 0.1}, K: []int{4}}.Validate() }, "p range [0.3, 0.1]"},
		{"er with k", func() error { return Family{Kind: ER, N: []int{8}, P: [2]float64{0.3, 0.4}, K: []int{4}}.Validate() }, "takes no k"},
		{"ws odd k", func() error { return Family{Kind: WS, N: []int{8}, P: [2]float64{0.1, 0.2}, K: []int{3}}.Validate() }, "even k"},
		{"ws k >= n", func() error { return Family{Kind: WS, N: []int{8}, P: [2]float64{0.1, 0.2}, K: []int{8}}.Validate() }, "more than k nodes"},
		{"ws without k", func() error { return Family{Kind: WS, N: []int{8}, P: [2]float64{0.1, 0.2}}.Validate() }, "at least one k"},
		{"delaunay with p", func() error { return Family{Kind: Delaunay, N: []int{8}, P: [2]float64{0.1, 0.2}}.Validate() }, "takes no p or k"},
		{"unknown kind", func() error { return Family{Kind: 7, N: []int{8}}.Validate() }, "unknown graph family"},
		{"parse kind", func() error { _, err := ParseKind("grid"); return err }, `unknown graph family "grid"`},
		{"parse hints", func() error { _, err := ParseHints("some"); return err }, `unknown hint policy "some"`},
		{"unknown set", func() error { _, err := LookupSet("er-16"); return err }, `unknown set "er-16" (known: train, val, er_16`},
		{"sample unknown algorithm", func() error { _, _, err := Sample("prim", er16, 0, 0, false); return err }, `unknown algorithm "prim"`},
		{"sample index", func() error { _, _, err := Sample("bfs", er16, 0, -1, false); return err }, "sample index -1"},
		{"sample bad family", func() error {
			_, _, err := Sample("bfs", Set{Name: "x", Family: Family{Kind: ER, N: []int{2}}}, 0, 0, false)
			return err
		}, "n = 2 is out of range"},
		{"no connected ER", func() error {
			_, _, err := Sample("bfs", Set{Name: "x", Family: Family{Kind: ER, N: []int{8}, P: [2]float64{1e-9, 2e-9}}}, 0, 0, false)
			return err
		}, "no connected Erdős–Rényi graph"},
		{"dataset count", func() error {
			_, err := NewDataset(context.Background(), "bfs", er16, 0, -2, false, DatasetOptions{})
			return err
		}, "-2 samples"},
		{"dataset without size", func() error {
			_, err := NewDataset(context.Background(), "bfs", Set{Name: "x", Family: er16.Family}, 0, 0, false, DatasetOptions{})
			return err
		}, "no size of its own"},
		{"cancelled", func() error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := NewDataset(ctx, "bfs", er16, 0, 5, false, DatasetOptions{})
			return err
		}, "context canceled"},
		{"generate without out", func() error { _, err := Generate(context.Background(), Config{Sets: []string{"val"}}); return err }, "no output directory"},
		{"generate algorithm twice", func() error {
			_, err := Generate(context.Background(), Config{Out: t.TempDir(), Algorithms: []string{"bfs", "bfs"}})
			return err
		}, "bfs is selected twice"},
		{"generate set twice", func() error {
			_, err := Generate(context.Background(), Config{Out: t.TempDir(), Sets: []string{"val", "val"}})
			return err
		}, "val is selected twice"},
		{"generate nothing", func() error {
			_, err := Generate(context.Background(), Config{Out: t.TempDir(), Sets: []string{}})
			return err
		}, "no algorithm or no set"},
		{"generate negative count", func() error {
			_, err := Generate(context.Background(), Config{Out: t.TempDir(), Count: -1})
			return err
		}, "count -1"},
		{"generate too large", func() error {
			_, err := Generate(context.Background(), Config{Out: t.TempDir(), Algorithms: []string{"dfs"}, Sets: []string{"delaunay_1600"}, Hints: HintsAll, MaxBytes: 4e9})
			return err
		}, "dfs on delaunay_1600 needs about"},
		{"delaunay odd", func() error { _, err := DelaunayEdges([]float64{0, 0, 1}); return err }, "even number"},
		{"delaunay two points", func() error { _, err := DelaunayEdges([]float64{0, 0, 1, 1}); return err }, "at least 3"},
		{"delaunay NaN", func() error { _, err := DelaunayEdges([]float64{0, 0, 1, math.NaN(), 2, 0}); return err }, "finite"},
		{"delaunay duplicate", func() error { _, err := DelaunayEdges([]float64{0, 0, 1, 0, 0, 1, 1, 0}); return err }, "same point"},
		{"delaunay collinear", func() error { _, err := DelaunayEdges([]float64{0, 0, 1, 1, 2, 2, 3, 0}); return err }, "collinear"},
		{"estimate", func() error { _, err := EstimateBytes("bfx", er16, 0, false); return err }, "unknown algorithm"},
	} {
		err := c.err()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestDeterminism checks that a dataset's bytes do not depend on the
// number of workers, that sample i does not depend on the number of
// samples drawn, and that another seed draws other graphs.
func TestDeterminism(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"train", "ws_80"} {
		set, _ := LookupSet(name)
		for _, algo := range []string{"dfs", "fast_mis", "mst_prim"} {
			var files [][]byte
			for _, workers := range []int{1, 3} {
				d, err := NewDataset(ctx, algo, set, 9, 12, true, DatasetOptions{Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				if err := d.WriteNPZ(&b, clrs.Compressed()); err != nil {
					t.Fatal(err)
				}
				files = append(files, b.Bytes())
				one, _, err := Sample(algo, set, 9, 7, true)
				if err != nil {
					t.Fatal(err)
				}
				if got := d.Trajectories[7]; !slices.Equal(got.Graph.Dst, one.Graph.Dst) || !slices.Equal(got.Outputs[0].Data, one.Outputs[0].Data) {
					t.Errorf("%s/%s: sample 7 of a dataset differs from Sample(…, 7)", algo, name)
				}
			}
			if !bytes.Equal(files[0], files[1]) {
				t.Errorf("%s/%s: 1 and 3 workers write different files", algo, name)
			}
		}
		a, _, _ := Sample("bfs", set, 1, 0, false)
		b, _, _ := Sample("bfs", set, 2, 0, false)
		if slices.Equal(a.Graph.Dst, b.Graph.Dst) {
			t.Errorf("%s: seeds 1 and 2 draw the same graph", name)
		}
	}
}

// TestSets checks the 17 sets against SALSA-CLRS's SALSA_CLRS_DATASETS,
// their p ranges against Python's math.log (printed by
// python3 -c 'import math; print([math.log(n)/n for n in …])').
func TestSets(t *testing.T) {
	want := []string{"train", "val", "er_16", "er_80", "er_160", "er_800", "er_1600", "ws_16", "ws_80", "ws_160", "ws_800", "ws_1600",
		"delaunay_16", "delaunay_80", "delaunay_160", "delaunay_800", "delaunay_1600"}
	if got := SetNames(); !slices.Equal(got, want) {
		t.Fatalf("sets %v, want %v", got, want)
	}
	py := map[int]float64{16: 0.17328679513998632, 80: 0.054775332933423515, 160: 0.031719836345211416, 800: 0.00835576465958491, 1600: 0.004611099317642421}
	for _, s := range Sets() {
		if err := s.Family.Validate(); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
		wantSamples := 1000
		if s.Name == "train" {
			wantSamples = 10000
		}
		if s.Samples != wantSamples {
			t.Errorf("%s: %d samples, want %d", s.Name, s.Samples, wantSamples)
		}
		n := s.Family.N[len(s.Family.N)-1]
		switch s.Family.Kind {
		case ER:
			if base := py[n]; s.Family.P != [2]float64{base, base * 3} {
				t.Errorf("%s: p range %v, want [%v, %v]", s.Name, s.Family.P, base, base*3)
			}
		case WS:
			if s.Family.P != [2]float64{0.05, 0.2} || !slices.Equal(s.Family.K, []int{4, 6, 8}) {
				t.Errorf("%s: %+v", s.Name, s.Family)
			}
		}
	}
}

// TestGenerators checks properties of the three families on many
// draws: connected, no self-loops, symmetric, Watts–Strogatz keeps its
// nk/2 edges, Delaunay has 3n-3-h edges (h hull points).
func TestGenerators(t *testing.T) {
	for _, f := range []Family{
		{Kind: ER, N: []int{4, 7, 30}, P: ERP(16)},
		{Kind: WS, N: []int{16, 50}, P: wsP, K: wsK},
		{Kind: Delaunay, N: []int{4, 16, 100}},
	} {
		rng := nprand.New(3)
		for range 40 {
			g, p, err := f.Sample(rng)
			if err != nil {
				t.Fatal(err)
			}
			if !g.Connected() || g.N != p.N {
				t.Fatalf("%v: n=%d, connected %v", f.Kind, g.N, g.Connected())
			}
			for e := range g.Src {
				u, v := int(g.Src[e]), int(g.Dst[e])
				if g.Edge(v, u) < 0 {
					t.Fatalf("%v: edge %d→%d without its reverse", f.Kind, u, v)
				}
				if (u == v) != (g.A[e] == 0) {
					t.Fatalf("%v: A[%d][%d] = %v", f.Kind, u, v, g.A[e])
				}
			}
			undirected := (g.NumEdges() - g.N) / 2
			if f.Kind == WS && undirected != p.N*p.K/2 {
				t.Fatalf("ws: %d edges, want nk/2 = %d", undirected, p.N*p.K/2)
			}
			if f.Kind == Delaunay && (undirected > 3*p.N-6 || undirected < 2*p.N-3) {
				t.Fatalf("delaunay: %d edges for %d points", undirected, p.N)
			}
		}
	}
}
