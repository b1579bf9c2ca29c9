package graphtext

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateSpectral = flag.Bool("update-spectral", false, "rewrite testdata/spectral/graphs.jsonl (then run gen_spectral.py)")

// Worked examples of the serialization notes §1.1 and §1.6.
var (
	fiveNode = []Edge{{U: 1, V: 2}, {U: 1, V: 3}, {U: 1, V: 4}, {U: 1, V: 5}, {U: 2, V: 3}, {U: 2, V: 4}, {U: 3, V: 4}, {U: 4, V: 5}}
	running  = [][2]int{{1, 7}, {1, 12}, {1, 6}, {1, 3}, {1, 2}, {7, 3}, {7, 6}, {7, 12}, {12, 3}, {6, 17}, {6, 9}, {3, 2},
		{4, 5}, {4, 8}, {4, 10}, {4, 11}, {5, 15}, {5, 16}, {5, 8}, {5, 10}, {5, 13}, {5, 11}, {5, 14}, {8, 10}, {10, 11},
		{10, 14}, {11, 16}, {11, 13}, {16, 18}, {13, 18}, {17, 9}, {17, 19}, {9, 19}}
)

func runningExample(t testing.TB) *Graph {
	var es []Edge
	for _, e := range running {
		es = append(es, Edge{U: e[0], V: e[1]})
	}
	g, err := New(19, false, false, es)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSpectralWorkedExamples(t *testing.T) {
	five, err := New(5, false, false, fiveNode)
	if err != nil {
		t.Fatal(err)
	}
	// Serialization notes §2.2, "Test vectors" (6 decimals).
	cases := []struct {
		name string
		g    *Graph
		opts SpectralOptions
		want map[string]float64
	}{
		{"5-node", five, SpectralOptions{}, map[string]float64{
			GraphEnergy: 7.362661, NComponents: 1, SumLambdaSquared: 16, AlgebraicConnectivity: 2,
			EstradaIndex: 30.106920, LaplacianEnergy: 8.8, NaturalConnectivity: 1.795317, SpectralGap: 2.965478,
			SpectralRadius: 3.323404, EigenvectorCentralityTop: 0.510036, HeatTraceT1: 1.167127, VonNeumannEntropy: 1.333473,
		}},
		{"5-node normalized", five, SpectralOptions{AlgebraicMatrix: NormalizedLaplacian}, map[string]float64{AlgebraicConnectivity: 0.852333}},
		{"19-node", runningExample(t), SpectralOptions{}, map[string]float64{
			GraphEnergy: 27.229894, NComponents: 2, SumLambdaSquared: 66, AlgebraicConnectivity: 0,
			EstradaIndex: 147.461239, LaplacianEnergy: 38.223443, NaturalConnectivity: 2.049126, SpectralGap: 0.707273,
			SpectralRadius: 4.390068, EigenvectorCentralityTop: 0.517694, HeatTraceT1: 3.816521, VonNeumannEntropy: 2.659401,
		}},
		{"19-node normalized", runningExample(t), SpectralOptions{AlgebraicMatrix: NormalizedLaplacian}, map[string]float64{AlgebraicConnectivity: 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Spectral(tc.g, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range tc.want {
				if math.Abs(got[k]-w) > 6e-7 {
					t.Errorf("%s = %.9f; want %.6f", k, got[k], w)
				}
			}
		})
	}
	s, err := NewSpectrum(five, SpectralOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []float64{0, 2, 4, 5, 5} {
		if math.Abs(s.Lap[i]-w) > 1e-12 {
			t.Errorf("eig(L)[%d] = %v; want %v", i, s.Lap[i], w)
		}
	}
	for i, w := range []float64{-1.6813, -1, -1, 0.3579, 3.3234} {
		if math.Abs(s.Adj[i]-w) > 1e-4 {
			t.Errorf("eig(A)[%d] = %v; want %v", i, s.Adj[i], w)
		}
	}
}

// spectralFixtureGraphs are the graphs of the numpy fixture: corner cases,
// then generated graphs of every connectivity.
func spectralFixtureGraphs(t testing.TB) []*Graph {
	five, _ := New(5, false, false, fiveNode)
	gs := []*Graph{five, runningExample(t)}
	mk := func(n int, weighted bool, es ...Edge) {
		g, err := New(n, false, weighted, es)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	mk(1, false)                                                       // one node
	mk(4, false)                                                       // no edges
	mk(2, false, Edge{U: 1, V: 2})                                     // one edge
	mk(4, false, Edge{U: 1, V: 2}, Edge{U: 3, V: 4})                   // two equal components: repeated λ₁
	mk(6, false, Edge{U: 2, V: 3}, Edge{U: 3, V: 4}, Edge{U: 4, V: 2}) // triangle plus isolated nodes
	var k6 []Edge
	for u := 1; u <= 6; u++ {
		for v := u + 1; v <= 6; v++ {
			k6 = append(k6, Edge{U: u, V: v})
		}
	}
	mk(6, false, k6...)                                                                                    // complete graph
	mk(5, true, Edge{U: 1, V: 2, W: 0.5}, Edge{U: 2, V: 3, W: 2}, Edge{U: 3, V: 5, W: 1.25})               // weighted
	mk(7, false, Edge{U: 1, V: 2}, Edge{U: 1, V: 3}, Edge{U: 1, V: 4}, Edge{U: 1, V: 5}, Edge{U: 6, V: 7}) // star + edge
	for _, o := range []GenOptions{{}, {Connectivity: Connected}, {Connectivity: Disconnected}, {MinDensity: 0.6, MaxDensity: 0.9}} {
		set, err := GenerateSet(2024+uint64(o.Connectivity), 15, o)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, set...)
	}
	return gs
}

// TestSpectralFixtureGraphs rewrites graphs.jsonl with -update-spectral and
// otherwise checks that the committed file still holds the same graphs.
func TestSpectralFixtureGraphs(t *testing.T) {
	var buf bytes.Buffer
	for _, g := range spectralFixtureGraphs(t) {
		if err := g.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join("testdata", "spectral", "graphs.jsonl")
	if *updateSpectral {
		if err := os.WriteFile(path+".tmp", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, buf.Bytes()) {
		t.Fatal("testdata/spectral/graphs.jsonl differs from the graphs the generator makes now; rerun with -update-spectral and gen_spectral.py")
	}
}

func relClose(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Max(math.Abs(want), 1e-3)
}

// TestSpectralNumpy compares every value with numpy (values.json, made by
// gen_spectral.py from graphs.jsonl) to 1e-9 relative.
func TestSpectralNumpy(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "spectral", "graphs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var gs []*Graph
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		g, err := ReadJSON(strings.NewReader(sc.Text()))
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "spectral", "values.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Graphs []struct {
			Values   map[string]float64 `json:"values"`
			Variants map[string]float64 `json:"variants"`
		} `json:"graphs"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Graphs) != len(gs) || len(gs) < 60 {
		t.Fatalf("values.json has %d graphs, graphs.jsonl %d; want the same, at least 60", len(ref.Graphs), len(gs))
	}
	variants := map[string]SpectralOptions{
		"algebraic_connectivity/normalized_laplacian": {AlgebraicMatrix: NormalizedLaplacian},
		"spectral_gap/laplacian":                      {GapMatrix: LaplacianMatrix},
		"spectral_gap/normalized_laplacian":           {GapMatrix: NormalizedLaplacian},
		"heat_trace_t1/normalized_laplacian":          {HeatMatrix: NormalizedLaplacian},
		"heat_trace_t1/t=0.5":                         {HeatTime: 0.5},
		"von_neumann_entropy/log2":                    {EntropyLogBase: 2},
	}
	for i, g := range gs {
		s, err := NewSpectrum(g, SpectralOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.Values(SpectralOptions{})
		for _, task := range SpectralTasks {
			want, ok := ref.Graphs[i].Values[task]
			if !ok || !relClose(got[task], want) {
				t.Errorf("graph %d (n=%d, m=%d) %s = %.17g; numpy %.17g", i, g.N, g.M(), task, got[task], want)
			}
		}
		if len(ref.Graphs[i].Variants) != len(variants) {
			t.Fatalf("graph %d: %d variants in values.json; want %d", i, len(ref.Graphs[i].Variants), len(variants))
		}
		for name, o := range variants {
			v, _ := s.Values(o)
			task := strings.Split(name, "/")[0]
			if want := ref.Graphs[i].Variants[name]; !relClose(v[task], want) {
				t.Errorf("graph %d %s = %.17g; numpy %.17g", i, name, v[task], want)
			}
		}
	}
}

// spectralPermute relabels g by node v → perm[v-1] (a permutation of 1..N)
// and reverses the edge order.
func spectralPermute(g *Graph, perm []int) *Graph {
	h := &Graph{N: g.N, Weighted: g.Weighted}
	for i := len(g.Edges) - 1; i >= 0; i-- {
		e := g.Edges[i]
		h.Edges = append(h.Edges, Edge{U: perm[e.V-1], V: perm[e.U-1], W: e.W})
	}
	return h
}

func TestSpectralRelabelInvariant(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	gs := spectralFixtureGraphs(t)
	for i, g := range gs {
		want, err := Spectral(g, SpectralOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 5; k++ {
			perm := r.Perm(g.N)
			for j := range perm {
				perm[j]++
			}
			got, err := Spectral(spectralPermute(g, perm), SpectralOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range SpectralTasks {
				if math.Abs(got[task]-want[task]) > 1e-9*math.Max(1, math.Abs(want[task])) {
					t.Errorf("graph %d relabeling %d: %s changed from %.15g to %.15g", i, k, task, want[task], got[task])
				}
			}
		}
	}
}

func TestSpectralErrors(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name, json, want string
	}{
		{"self-loop", `{"n": 3, "edges": [[1, 1]]}`, "self-loop"},
		{"out of range", `{"n": 3, "edges": [[1, 4]]}`, "outside 1..3"},
		{"zero id", `{"n": 3, "edges": [[0, 1]]}`, "outside 1..3"},
		{"duplicate", `{"n": 3, "edges": [[1, 2], [2, 1]]}`, "duplicates"},
		{"no n", `{"edges": [[1, 2]]}`, "no \"n\""},
		{"zero nodes", `{"n": 0, "edges": []}`, "at least 1"},
		{"directed", `{"n": 3, "edges": [[1, 2]], "directed": true}`, "undirected"},
		{"negative weight", `{"n": 3, "edges": [[1, 2, -1]]}`, "positive weights"},
		{"bad json", `{"n": 3, "edges": [[1, 2]`, "reading graph JSON"},
		{"fractional id", `{"n": 3, "edges": [[1.5, 2]]}`, "non-integer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g, err := ReadJSON(strings.NewReader(tc.json))
			if err == nil {
				_, err = Spectral(g, SpectralOptions{})
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want one mentioning %q", err, tc.want)
			}
		})
	}
	// NaN weights cannot be written in JSON; build the graph directly.
	g := &Graph{N: 2, Weighted: true, Edges: []Edge{{U: 1, V: 2, W: nan}}}
	if _, err := Spectral(g, SpectralOptions{}); err == nil || !strings.Contains(err.Error(), "non-finite") {
		t.Errorf("NaN weight: error %v; want one mentioning non-finite", err)
	}
	if _, err := Spectral(nil, SpectralOptions{}); err == nil {
		t.Error("nil graph accepted")
	}
	five, _ := New(5, false, false, fiveNode)
	for _, o := range []SpectralOptions{
		{AlgebraicMatrix: AdjacencyMatrix}, {GapMatrix: "eigen"}, {HeatMatrix: AdjacencyMatrix},
		{HeatTime: -1}, {EntropyLogBase: 1}, {ZeroTol: -1}, {HeatTime: math.Inf(1)},
	} {
		if _, err := Spectral(five, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	if _, err := SpectralValue(five, "graph_energy2", SpectralOptions{}); err == nil || !strings.Contains(err.Error(), "unknown spectral task") {
		t.Errorf("unknown task: error %v", err)
	}
}

func TestSpectralMeta(t *testing.T) {
	if len(SpectralTasks) != 12 {
		t.Fatalf("%d spectral tasks; want 12", len(SpectralTasks))
	}
	count := map[string]int{}
	for _, task := range SpectralTasks {
		count[SpectralDifficulty(task)]++
	}
	if count["Easy"] != 3 || count["Medium"] != 6 || count["Hard"] != 3 {
		t.Fatalf("difficulty counts %v; want Easy 3, Medium 6, Hard 3 (Table 7)", count)
	}
	p := SpectralOptions{}.Params()
	if p["spectral.algebraic_matrix"] != "laplacian" || p["spectral.heat_time"] != "1" || p["spectral.gap_matrix"] != "adjacency" {
		t.Fatalf("default params %v", p)
	}
}

func BenchmarkSpectral(b *testing.B) {
	gs, _ := GenerateSet(1, 64, GenOptions{})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Spectral(gs[i%len(gs)], SpectralOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
