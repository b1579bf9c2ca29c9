package clrs

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// graphAlgos runs the 12 graph algorithms through their typed functions
// with a common signature (s is ignored by the algorithms without source).
type gAlgo struct {
	name   string
	source bool
	run    func(A Matrix, s int) (*Trajectory, error)
}

var graphAlgos = []gAlgo{
	{"dfs", false, func(A Matrix, _ int) (*Trajectory, error) { return DFS(A) }},
	{"bfs", true, BFS},
	{"topological_sort", false, func(A Matrix, _ int) (*Trajectory, error) { return TopologicalSort(A) }},
	{"articulation_points", false, func(A Matrix, _ int) (*Trajectory, error) { return ArticulationPoints(A) }},
	{"bridges", false, func(A Matrix, _ int) (*Trajectory, error) { return Bridges(A) }},
	{"strongly_connected_components", false, func(A Matrix, _ int) (*Trajectory, error) { return StronglyConnectedComponents(A) }},
	{"mst_kruskal", false, func(A Matrix, _ int) (*Trajectory, error) { return MSTKruskal(A) }},
	{"mst_prim", true, MSTPrim},
	{"bellman_ford", true, BellmanFord},
	{"dijkstra", true, Dijkstra},
	{"dag_shortest_paths", true, DAGShortestPaths},
	{"floyd_warshall", false, func(A Matrix, _ int) (*Trajectory, error) { return FloydWarshall(A) }},
}

func gMatrix(rows ...[]float64) Matrix {
	m, err := MatrixFromRows(rows)
	if err != nil {
		panic(err)
	}
	return m
}

func gRunArgs(A any, s int, source bool) Args {
	if source {
		return Args{A, s}
	}
	return Args{A}
}

func TestGraphBadInput(t *testing.T) {
	// Inputs every algorithm must reject, through the typed function and
	// through Run.
	common := []struct {
		name string
		A    Matrix
		want string
	}{
		{"no nodes", Matrix{}, "no nodes"},
		{"NaN weight", Matrix{N: 2, Data: []float64{0, math.NaN(), 1, 0}}, "entry [0][1] is NaN"},
		{"infinite weight", Matrix{N: 2, Data: []float64{0, 1, math.Inf(1), 0}}, "entry [1][0] is +Inf"},
		{"too few entries", Matrix{N: 2, Data: []float64{0, 1, 1}}, "3 entries for n=2"},
	}
	for _, g := range graphAlgos {
		for _, c := range common {
			t.Run(g.name+"/"+c.name, func(t *testing.T) {
				if _, err := g.run(c.A, 0); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("typed: got error %v; want one mentioning %q", err, c.want)
				}
				if _, err := Run(g.name, gRunArgs(c.A, 0, g.source)); err == nil || !strings.Contains(err.Error(), g.name) {
					t.Errorf("Run: got error %v; want one naming %s", err, g.name)
				}
			})
		}
		t.Run(g.name+"/not square", func(t *testing.T) {
			_, err := Run(g.name, gRunArgs([][]float64{{0, 1}, {1}}, 0, g.source))
			if err == nil || !strings.Contains(err.Error(), "must be square") {
				t.Errorf("got %v; want an error about a non-square matrix", err)
			}
		})
		if g.source {
			A := gMatrix([]float64{0, 1, 0}, []float64{1, 0, 1}, []float64{0, 1, 0})
			for _, s := range []int{-1, 3} {
				if _, err := g.run(A, s); err == nil || !strings.Contains(err.Error(), "out of range") {
					t.Errorf("%s: source %d: got %v; want an out-of-range error", g.name, s, err)
				}
			}
			if _, err := Run(g.name, Args{A, 1.5}); err == nil || !strings.Contains(err.Error(), "integer node index") {
				t.Errorf("%s: source 1.5: got %v; want an error about a non-integer node", g.name, err)
			}
		}
	}

	cycle := gMatrix([]float64{0, 1, 0}, []float64{0, 0, 1}, []float64{1, 0, 0})
	selfLoop := gMatrix([]float64{0, 1, 0}, []float64{0, 1, 0}, []float64{0, 0, 0})
	directed := gMatrix([]float64{0, 1, 0}, []float64{0, 0, 1}, []float64{0, 0, 0})
	skewed := gMatrix([]float64{0, 1, 0}, []float64{2, 0, 1}, []float64{0, 1, 0})
	negEdge := gMatrix([]float64{0, -1, 0}, []float64{-1, 0, 2}, []float64{0, 2, 0})
	negCycle := gMatrix([]float64{0, 1, 0}, []float64{0, 0, 1}, []float64{-3, 0, 0})
	huge := gMatrix([]float64{0, 2e9, 0}, []float64{2e9, 0, 1}, []float64{0, 1, 0})
	specific := []struct {
		algo string
		A    Matrix
		want string
	}{
		{"bfs", negEdge, "A[0][1] = -1 is negative"},
		{"topological_sort", cycle, "cycle 0 → 1 → 2 → 0"},
		{"topological_sort", selfLoop, "cycle 1 → 1"},
		{"dag_shortest_paths", cycle, "cycle 0 → 1 → 2 → 0"},
		{"dag_shortest_paths", selfLoop, "cycle 1 → 1"},
		{"articulation_points", directed, "want an undirected graph"},
		{"bridges", directed, "want an undirected graph"},
		{"mst_kruskal", directed, "want a symmetric matrix"},
		{"mst_kruskal", skewed, "A[0][1] = 1 but A[1][0] = 2"},
		{"mst_kruskal", negEdge, "A[0][1] = -1 is negative"},
		{"mst_prim", skewed, "want a symmetric matrix"},
		{"mst_prim", huge, "weights too large"},
		{"dijkstra", negEdge, "A[0][1] = -1 is negative"},
		{"dijkstra", huge, "weights too large"},
		{"bellman_ford", negEdge, "negative-weight cycle is reachable"},
		{"bellman_ford", negCycle, "negative-weight cycle is reachable"},
		{"floyd_warshall", negCycle, "negative-weight cycle"},
		{"floyd_warshall", negEdge, "negative-weight cycle"},
	}
	for _, c := range specific {
		t.Run(c.algo+"/"+c.want, func(t *testing.T) {
			g := graphAlgos[slices.IndexFunc(graphAlgos, func(g gAlgo) bool { return g.name == c.algo })]
			if _, err := g.run(c.A, 0); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("typed: got error %v; want one mentioning %q", err, c.want)
			}
			_, err := Run(c.algo, gRunArgs(c.A.Rows(), 0, g.source))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "clrs: "+c.algo+": ") {
				t.Errorf("Run: got error %v; want one prefixed with the algorithm and mentioning %q", err, c.want)
			}
		})
	}
}

// TestGraphAcceptsHarmlessInputs checks inputs that must not be rejected:
// a single node (with and without self-loop where allowed), self-loops in
// undirected graphs (the samplers draw them), negative weights where the
// algorithm handles them, and a negative cycle unreachable from the source.
func TestGraphAcceptsHarmlessInputs(t *testing.T) {
	one := gMatrix([]float64{0})
	loop := gMatrix([]float64{1})
	for _, g := range graphAlgos {
		for _, A := range []Matrix{one, loop} {
			if (g.name == "topological_sort" || g.name == "dag_shortest_paths") && A.Data[0] != 0 {
				continue
			}
			tr, err := g.run(A, 0)
			if err != nil {
				t.Errorf("%s on %v: %v", g.name, A.Data, err)
				continue
			}
			if err := tr.Validate(); err != nil {
				t.Errorf("%s on %v: %v", g.name, A.Data, err)
			}
		}
	}
	selfLoops := gMatrix([]float64{1, 1, 0}, []float64{1, 0, 1}, []float64{0, 1, 1})
	for _, name := range []string{"bfs", "articulation_points", "bridges", "mst_kruskal", "mst_prim", "dijkstra", "floyd_warshall"} {
		if _, err := Run(name, gRunArgs(selfLoops, 0, name == "bfs" || name == "mst_prim" || name == "dijkstra")); err != nil {
			t.Errorf("%s with self-loops: %v", name, err)
		}
	}
	negDAG := gMatrix([]float64{0, -1, 4}, []float64{0, 0, -2}, []float64{0, 0, 0})
	for _, name := range []string{"bellman_ford", "dag_shortest_paths", "floyd_warshall"} {
		if _, err := Run(name, gRunArgs(negDAG, 0, name != "floyd_warshall")); err != nil {
			t.Errorf("%s with negative weights on a DAG: %v", name, err)
		}
	}
	negPrim := gMatrix([]float64{0, -1, 4}, []float64{-1, 0, -2}, []float64{4, -2, 0})
	if _, err := MSTPrim(negPrim, 0); err != nil {
		t.Errorf("mst_prim with negative weights: %v", err)
	}
	// Node 3's negative cycle is not reachable from 0.
	unreachable := gMatrix([]float64{0, 1, 0, 0}, []float64{0, 0, 0, 0}, []float64{0, 0, 0, -1}, []float64{0, 0, -1, 0})
	if _, err := BellmanFord(unreachable, 0); err != nil {
		t.Errorf("bellman_ford with an unreachable negative cycle: %v", err)
	}
}

// TestGraphDoesNotMutate checks that the typed functions leave A alone and
// record a copy of it.
func TestGraphDoesNotMutate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, g := range graphAlgos {
		A := gRandom(rng, 9, 0.4, gKindFor(g.name), gIntWeights)
		orig := A.Clone()
		tr, err := g.run(A, 2)
		if err != nil {
			t.Fatalf("%s: %v", g.name, err)
		}
		if !slices.Equal(A.Data, orig.Data) {
			t.Errorf("%s modified its input", g.name)
		}
		rec := tr.Args[0].(Matrix)
		if &rec.Data[0] == &A.Data[0] {
			t.Errorf("%s: trajectory args alias the input", g.name)
		}
	}
}

// Random graphs for the property tests, drawn with math/rand (not the
// samplers' numpy stream) and from other distributions than the samplers:
// integer weights with many ties, weights spanning orders of magnitude,
// negative weights on DAGs.

type gKind int

const (
	gDirected gKind = iota
	gUndirected
	gDAG
)

func gKindFor(algo string) gKind {
	switch algo {
	case "topological_sort", "dag_shortest_paths":
		return gDAG
	case "bfs", "articulation_points", "bridges", "mst_kruskal", "mst_prim":
		return gUndirected
	}
	return gDirected
}

type gWeights func(rng *rand.Rand) float64

var (
	gUnit       gWeights = func(*rand.Rand) float64 { return 1 }
	gIntWeights gWeights = func(rng *rand.Rand) float64 { return float64(1 + rng.IntN(4)) }
	gWideFloats gWeights = func(rng *rand.Rand) float64 { return math.Exp(rng.Float64()*8 - 4) }
	gSigned     gWeights = func(rng *rand.Rand) float64 {
		w := float64(1 + rng.IntN(5))
		if rng.IntN(3) == 0 {
			return -w
		}
		return w
	}
)

// gRandom draws a graph: each possible edge with probability p, weights
// from w; undirected graphs get symmetric weights and may have
// self-loops, DAGs are ordered by a random permutation.
func gRandom(rng *rand.Rand, n int, p float64, kind gKind, w gWeights) Matrix {
	A := NewMatrix(n)
	rank := rng.Perm(n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			switch {
			case kind == gUndirected && j < i:
				continue
			case kind == gDAG && rank[i] >= rank[j]:
				continue
			case kind == gDirected && i == j && rng.IntN(4) != 0:
				continue
			}
			if rng.Float64() < p {
				x := w(rng)
				A.Data[i*n+j] = x
				if kind == gUndirected {
					A.Data[j*n+i] = x
				}
			}
		}
	}
	return A
}

// gTrials yields random (n, p) settings, n from 1 to 30.
func gTrials(rng *rand.Rand, count int, yield func(n int, p float64)) {
	for range count {
		n := 1 + rng.IntN(30)
		p := []float64{0.05, 0.15, 0.3, 0.6, 0.9}[rng.IntN(5)]
		yield(n, p)
	}
}

func gMustRun(t *testing.T, name string, A Matrix, s int, run func(A Matrix, s int) (*Trajectory, error)) *Trajectory {
	t.Helper()
	tr, err := run(A, s)
	if err != nil {
		t.Fatalf("%s on n=%d: %v", name, A.N, err)
	}
	if err := tr.Validate(); err != nil {
		t.Fatalf("%s on n=%d: %v", name, A.N, err)
	}
	return tr
}

func gInts(d DataPoint) []int {
	out := make([]int, len(d.Data))
	for i, v := range d.Data {
		out[i] = int(v)
	}
	return out
}

// gFinal returns the last step of a hint.
func gFinal(tr *Trajectory, name string) []float64 { return tr.Hint(name).Step(tr.Length - 1) }

// gBFSDist is an independent breadth-first search: hop distances along
// positive entries, -1 when unreachable.
func gBFSDist(A Matrix, s int) []int {
	n := A.N
	dist := make([]int, n)
	for i := range dist {
		dist[i] = -1
	}
	dist[s] = 0
	queue := []int{s}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for v := 0; v < n; v++ {
			if A.At(u, v) > 0 && dist[v] < 0 {
				dist[v] = dist[u] + 1
				queue = append(queue, v)
			}
		}
	}
	return dist
}

func TestBFSProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	gTrials(rng, 300, func(n int, p float64) {
		kind := []gKind{gUndirected, gDirected}[rng.IntN(2)]
		A := gRandom(rng, n, p, kind, gIntWeights)
		s := rng.IntN(n)
		tr := gMustRun(t, "bfs", A, s, BFS)
		pi := gInts(tr.Output("pi"))
		dist := gBFSDist(A, s)
		reach := gFinal(tr, "reach_h")
		for v := 0; v < n; v++ {
			if (dist[v] >= 0) != (reach[v] == 1) {
				t.Fatalf("n=%d s=%d: node %d reached=%v, independent BFS distance %d", n, s, v, reach[v], dist[v])
			}
			if dist[v] <= 0 {
				if pi[v] != v {
					t.Fatalf("n=%d s=%d: source/unreached node %d points to %d", n, s, v, pi[v])
				}
				continue
			}
			// The tree depth of v (following pi to s) is its distance.
			depth, x := 0, v
			for x != s && depth <= n {
				if A.At(pi[x], x) <= 0 {
					t.Fatalf("n=%d: tree edge %d→%d is not an edge", n, pi[x], x)
				}
				x = pi[x]
				depth++
			}
			if depth != dist[v] {
				t.Fatalf("n=%d s=%d: node %d has tree depth %d, BFS distance %d", n, s, v, depth, dist[v])
			}
		}
		// One step per BFS layer (the first is {s}).
		maxDist := slices.Max(dist)
		if tr.Length != maxDist+1 {
			t.Fatalf("n=%d: %d steps for %d layers", n, tr.Length, maxDist)
		}
	})
}

func TestDFSProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	gTrials(rng, 300, func(n int, p float64) {
		A := gRandom(rng, n, p, gDirected, gUnit)
		if rng.IntN(2) == 0 {
			A.Int = true
		}
		tr := gMustRun(t, "dfs", A, 0, func(A Matrix, _ int) (*Trajectory, error) { return DFS(A) })
		pi := gInts(tr.Output("pi"))
		d, f := gFinal(tr, "d"), gFinal(tr, "f")
		color := gFinal(tr, "color")
		for u := 0; u < n; u++ {
			if color[3*u+2] != 1 {
				t.Fatalf("n=%d: node %d is not black at the end", n, u)
			}
			if !(0 < d[u] && d[u] < f[u]) {
				t.Fatalf("n=%d: node %d has d=%v f=%v", n, u, d[u], f[u])
			}
			if pi[u] != u {
				// Tree edge: an edge, and parenthesis nesting.
				if A.At(pi[u], u) == 0 || !(d[pi[u]] < d[u] && f[u] < f[pi[u]]) {
					t.Fatalf("n=%d: bad tree edge %d→%d (d %v,%v f %v,%v)", n, pi[u], u, d[pi[u]], d[u], f[pi[u]], f[u])
				}
			}
			for v := 0; v < n; v++ {
				// No edge can lead to a node discovered after u finished.
				if A.At(u, v) != 0 && d[v] > f[u] {
					t.Fatalf("n=%d: edge %d→%d to a node discovered after %d finished", n, u, v, u)
				}
			}
		}
		// Trees are started from the white nodes in index order, so the
		// roots' discovery times increase with their index.
		last := 0.0
		for u := 0; u < n; u++ {
			if pi[u] == u {
				if d[u] < last {
					t.Fatalf("n=%d: root %d discovered before an earlier root", n, u)
				}
				last = d[u]
			}
		}
	})
}

func TestTopologicalSortProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	gTrials(rng, 300, func(n int, p float64) {
		A := gRandom(rng, n, p, gDAG, gIntWeights)
		tr := gMustRun(t, "topological_sort", A, 0, func(A Matrix, _ int) (*Trajectory, error) { return TopologicalSort(A) })
		topo := gInts(tr.Output("topo"))
		head := slices.Index(tr.Output("topo_head").Data, 1)
		if n == 1 {
			head = 0 // squeezed to a scalar
		}
		pos := make([]int, n)
		for i := range pos {
			pos[i] = -1
		}
		x := head
		for k := 0; ; k++ {
			if pos[x] >= 0 {
				t.Fatalf("n=%d: node %d appears twice in the order", n, x)
			}
			pos[x] = k
			if topo[x] == x {
				break
			}
			x = topo[x]
		}
		for u := 0; u < n; u++ {
			if pos[u] < 0 {
				t.Fatalf("n=%d: node %d missing from the order", n, u)
			}
			for v := 0; v < n; v++ {
				if A.At(u, v) != 0 && pos[u] >= pos[v] {
					t.Fatalf("n=%d: edge %d→%d goes backwards in the order", n, u, v)
				}
			}
		}
	})
}

// gTarjan computes strongly connected components with Tarjan's algorithm
// (a different algorithm from the Kosaraju the package runs).
func gTarjan(A Matrix) []int {
	n := A.N
	index, low, comp := make([]int, n), make([]int, n), make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	var stack []int
	next, ncomp := 0, 0
	var strong func(v int)
	strong = func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for w := 0; w < n; w++ {
			if A.At(v, w) == 0 {
				continue
			}
			if index[w] < 0 {
				strong(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	for v := 0; v < n; v++ {
		if index[v] < 0 {
			strong(v)
		}
	}
	return comp
}

func TestSCCProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	gTrials(rng, 300, func(n int, p float64) {
		A := gRandom(rng, n, p*0.5, gDirected, gWideFloats)
		tr := gMustRun(t, "strongly_connected_components", A, 0, func(A Matrix, _ int) (*Trajectory, error) { return StronglyConnectedComponents(A) })
		id := gInts(tr.Output("scc_id"))
		if n == 1 {
			id = []int{0}
		}
		comp := gTarjan(A)
		for u := 0; u < n; u++ {
			if comp[id[u]] != comp[u] {
				t.Fatalf("n=%d: node %d labelled %d, which is in another component", n, u, id[u])
			}
			for v := 0; v < n; v++ {
				if (id[u] == id[v]) != (comp[u] == comp[v]) {
					t.Fatalf("n=%d: nodes %d,%d: same id %v, same Tarjan component %v", n, u, v, id[u] == id[v], comp[u] == comp[v])
				}
			}
		}
	})
}

// gComponentsWithout labels the connected components of an undirected
// graph after removing node cut (if >= 0) and edge (eu, ev) (if eu >= 0).
func gComponentsWithout(A Matrix, cut, eu, ev int) []int {
	n := A.N
	label := make([]int, n)
	for i := range label {
		label[i] = -1
	}
	c := 0
	for r := 0; r < n; r++ {
		if r == cut || label[r] >= 0 {
			continue
		}
		label[r] = c
		stack := []int{r}
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for v := 0; v < n; v++ {
				if v == cut || label[v] >= 0 || A.At(u, v) == 0 {
					continue
				}
				if (u == eu && v == ev) || (u == ev && v == eu) {
					continue
				}
				label[v] = c
				stack = append(stack, v)
			}
		}
		c++
	}
	return label
}

func TestArticulationPointsAndBridgesProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	gTrials(rng, 300, func(n int, p float64) {
		A := gRandom(rng, n, p*0.5, gUndirected, gUnit)
		A.Int = true
		cuts := tOutput(t, "articulation_points", A, func(A Matrix, _ int) (*Trajectory, error) { return ArticulationPoints(A) }, "is_cut")
		bridges := tOutput(t, "bridges", A, func(A Matrix, _ int) (*Trajectory, error) { return Bridges(A) }, "is_bridge")
		for v := 0; v < n; v++ {
			// v is a cut vertex iff two of its neighbours end up in
			// different components once v is removed.
			label := gComponentsWithout(A, v, -1, -1)
			want := false
			first := -1
			for u := 0; u < n; u++ {
				if u == v || A.At(v, u) == 0 {
					continue
				}
				if first < 0 {
					first = label[u]
				} else if label[u] != first {
					want = true
				}
			}
			if (cuts[v] == 1) != want {
				t.Fatalf("n=%d: node %d is_cut=%v, brute force says %v", n, v, cuts[v], want)
			}
		}
		for u := 0; u < n; u++ {
			for v := 0; v < n; v++ {
				got := bridges[u*n+v]
				switch {
				case u == v:
					if got != 0 {
						t.Fatalf("n=%d: is_bridge[%d][%d] = %v on the diagonal; want 0", n, u, v, got)
					}
				case A.At(u, v) == 0:
					if got != -1 {
						t.Fatalf("n=%d: is_bridge[%d][%d] = %v for a non-edge; want -1", n, u, v, got)
					}
				default:
					label := gComponentsWithout(A, -1, u, v)
					if want := label[u] != label[v]; (got == 1) != want {
						t.Fatalf("n=%d: edge %d-%d is_bridge=%v, brute force says %v", n, u, v, got, want)
					}
				}
			}
		}
	})
}

// tOutput runs an algorithm and returns one output, unsqueezed for n = 1.
func tOutput(t *testing.T, name string, A Matrix, run func(A Matrix, s int) (*Trajectory, error), out string) []float64 {
	t.Helper()
	tr := gMustRun(t, name, A, 0, run)
	return tr.Output(out).Data
}

// gMSTWeight is an independent minimum spanning forest weight (dense
// Prim from every unvisited node), restricted to the component of only
// when only >= 0.
func gMSTWeight(A Matrix, only int) float64 {
	n := A.N
	in := make([]bool, n)
	best := make([]float64, n)
	total := 0.0
	for r := 0; r < n; r++ {
		if in[r] || (only >= 0 && r != only) {
			continue
		}
		for i := range best {
			best[i] = math.Inf(1)
		}
		best[r] = 0
		for {
			u := -1
			for v := 0; v < n; v++ {
				if !in[v] && !math.IsInf(best[v], 1) && (u < 0 || best[v] < best[u]) {
					u = v
				}
			}
			if u < 0 {
				break
			}
			in[u] = true
			total += best[u]
			for v := 0; v < n; v++ {
				if w := A.At(u, v); w != 0 && v != u && !in[v] && w < best[v] {
					best[v] = w
				}
			}
		}
	}
	return total
}

func gClose(a, b float64) bool { return math.Abs(a-b) <= 1e-9*(1+math.Abs(a)+math.Abs(b)) }

func TestMSTProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	gTrials(rng, 300, func(n int, p float64) {
		w := []gWeights{gUnit, gIntWeights, gWideFloats}[rng.IntN(3)]
		A := gRandom(rng, n, p, gUndirected, w)

		// Kruskal: a spanning forest (as many edges as a spanning forest,
		// all edges of A) of minimum weight.
		in := tOutput(t, "mst_kruskal", A, func(A Matrix, _ int) (*Trajectory, error) { return MSTKruskal(A) }, "in_mst")
		comps := slices.Max(append(gComponentsWithout(A, -1, -1, -1), -1)) + 1
		edges, weight := 0, 0.0
		for u := 0; u < n; u++ {
			for v := u + 1; v < n; v++ {
				if in[u*n+v] != in[v*n+u] {
					t.Fatalf("n=%d: in_mst not symmetric at %d,%d", n, u, v)
				}
				if in[u*n+v] == 1 {
					if A.At(u, v) == 0 {
						t.Fatalf("n=%d: in_mst has non-edge %d-%d", n, u, v)
					}
					edges++
					weight += A.At(u, v)
				}
			}
		}
		if n > 1 && edges != n-comps {
			t.Fatalf("n=%d: %d tree edges for %d components", n, edges, comps)
		}
		if want := gMSTWeight(A, -1); !gClose(weight, want) {
			t.Fatalf("n=%d: Kruskal forest weight %v, independent MST weight %v", n, weight, want)
		}

		// Prim: a spanning tree of the source's component, of minimum
		// weight.
		s := rng.IntN(n)
		tr := gMustRun(t, "mst_prim", A, s, MSTPrim)
		pi := gInts(tr.Output("pi"))
		if n == 1 {
			pi = []int{0}
		}
		label := gComponentsWithout(A, -1, -1, -1)
		weight = 0
		for v := 0; v < n; v++ {
			inComp := label[v] == label[s]
			if v == s || !inComp {
				if pi[v] != v {
					t.Fatalf("n=%d: node %d (source or outside its component) points to %d", n, v, pi[v])
				}
				continue
			}
			if A.At(pi[v], v) == 0 || pi[v] == v {
				t.Fatalf("n=%d: node %d has parent %d, not a neighbour", n, v, pi[v])
			}
			weight += A.At(pi[v], v)
			// Following the parents leads to s.
			x, k := v, 0
			for ; x != s && k <= n; k++ {
				x = pi[x]
			}
			if x != s {
				t.Fatalf("n=%d: the parents of %d do not lead to the source %d", n, v, s)
			}
		}
		if want := gMSTWeight(A, s); !gClose(weight, want) {
			t.Fatalf("n=%d: Prim tree weight %v, independent MST weight %v", n, weight, want)
		}
	})
}

// gShortest is an independent single-source shortest-path computation:
// plain Bellman–Ford with sequential relaxation (reachability by any
// non-zero entry). ok[v] reports reachability.
func gShortest(A Matrix, s int) (dist []float64, ok []bool) {
	n := A.N
	dist, ok = make([]float64, n), make([]bool, n)
	ok[s] = true
	for range n {
		changed := false
		for u := 0; u < n; u++ {
			if !ok[u] {
				continue
			}
			for v := 0; v < n; v++ {
				w := A.At(u, v)
				if w == 0 {
					continue
				}
				if !ok[v] || dist[u]+w < dist[v] {
					dist[v], ok[v] = dist[u]+w, true
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	return dist, ok
}

// gCheckPaths checks a shortest-path tree pi from s: unreachable nodes
// and s point to themselves, every other reachable node's parent chain is
// a path of edges reaching s whose length is the independent distance,
// and the path lengths satisfy the triangle inequality on every edge.
func gCheckPaths(t *testing.T, algo string, A Matrix, s int, pi []int) {
	t.Helper()
	n := A.N
	dist, ok := gShortest(A, s)
	length := make([]float64, n)
	for v := 0; v < n; v++ {
		if v == s || !ok[v] {
			if pi[v] != v {
				t.Fatalf("%s n=%d s=%d: node %d (source or unreachable) points to %d", algo, n, s, v, pi[v])
			}
			continue
		}
		x, k := v, 0
		for ; x != s && k <= n; k++ {
			if pi[x] == x || A.At(pi[x], x) == 0 {
				t.Fatalf("%s n=%d s=%d: the path of %d breaks at %d→%d", algo, n, s, v, pi[x], x)
			}
			length[v] += A.At(pi[x], x)
			x = pi[x]
		}
		if x != s {
			t.Fatalf("%s n=%d s=%d: the parents of %d loop", algo, n, s, v)
		}
		if !gClose(length[v], dist[v]) {
			t.Fatalf("%s n=%d s=%d: path to %d has length %v, shortest distance %v", algo, n, s, v, length[v], dist[v])
		}
	}
	for u := 0; u < n; u++ {
		for v := 0; v < n; v++ {
			if w := A.At(u, v); w != 0 && ok[u] && v != s && u != v {
				if length[v] > length[u]+w+1e-9*(1+math.Abs(length[v])) {
					t.Fatalf("%s n=%d s=%d: edge %d→%d (w=%v) shortens the path to %d: %v > %v + w", algo, n, s, u, v, w, v, length[v], length[u])
				}
			}
		}
	}
}

func TestShortestPathProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 14))
	gTrials(rng, 300, func(n int, p float64) {
		s := rng.IntN(n)
		pos := []gWeights{gUnit, gIntWeights, gWideFloats}[rng.IntN(3)]
		kind := []gKind{gDirected, gUndirected}[rng.IntN(2)]
		A := gRandom(rng, n, p, kind, pos)
		for _, algo := range []struct {
			name string
			run  func(A Matrix, s int) (*Trajectory, error)
		}{{"dijkstra", Dijkstra}, {"bellman_ford", BellmanFord}} {
			tr := gMustRun(t, algo.name, A, s, algo.run)
			gCheckPaths(t, algo.name, A, s, gUnsqueeze(gInts(tr.Output("pi")), n))
		}
		// Negative weights: on a DAG, for the two algorithms that take them.
		dag := gRandom(rng, n, p, gDAG, []gWeights{gSigned, gWideFloats, gIntWeights}[rng.IntN(3)])
		for _, algo := range []struct {
			name string
			run  func(A Matrix, s int) (*Trajectory, error)
		}{{"dag_shortest_paths", DAGShortestPaths}, {"bellman_ford", BellmanFord}} {
			tr := gMustRun(t, algo.name, dag, s, algo.run)
			gCheckPaths(t, algo.name, dag, s, gUnsqueeze(gInts(tr.Output("pi")), n))
		}
	})
}

func gUnsqueeze(v []int, n int) []int {
	if n == 1 {
		return []int{0}
	}
	return v
}

func TestFloydWarshallProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 16))
	gTrials(rng, 200, func(n int, p float64) {
		var A Matrix
		if rng.IntN(2) == 0 {
			A = gRandom(rng, n, p, gDAG, gSigned)
		} else {
			A = gRandom(rng, n, p, gDirected, []gWeights{gUnit, gIntWeights, gWideFloats}[rng.IntN(3)])
		}
		tr := gMustRun(t, "floyd_warshall", A, 0, func(A Matrix, _ int) (*Trajectory, error) { return FloydWarshall(A) })
		if n == 1 {
			return
		}
		Pi := gInts(tr.Output("Pi"))
		for i := 0; i < n; i++ {
			dist, ok := gShortest(A, i)
			for j := 0; j < n; j++ {
				if i == j {
					continue
				}
				if !ok[j] {
					if Pi[i*n+j] != i {
						t.Fatalf("n=%d: Pi[%d][%d] = %d for an unreachable pair; want %d", n, i, j, Pi[i*n+j], i)
					}
					continue
				}
				// Walk the predecessors back from j to i.
				length, x, k := 0.0, j, 0
				for ; x != i && k <= n; k++ {
					pred := Pi[i*n+x]
					if A.At(pred, x) == 0 {
						t.Fatalf("n=%d: path %d⇝%d uses non-edge %d→%d", n, i, j, pred, x)
					}
					length += A.At(pred, x)
					x = pred
				}
				if x != i {
					t.Fatalf("n=%d: the predecessors from %d do not lead back to %d", n, j, i)
				}
				if !gClose(length, dist[j]) {
					t.Fatalf("n=%d: path %d⇝%d has length %v, shortest distance %v", n, i, j, length, dist[j])
				}
			}
		}
	})
}

// TestGraphSampledTrajectoriesValidate runs every graph algorithm's
// sampler with several edge probabilities and checks every trajectory.
func TestGraphSampledTrajectoriesValidate(t *testing.T) {
	for _, g := range graphAlgos {
		for _, n := range []int{1, 3, 10} {
			if g.name == "strongly_connected_components" && n < 4 {
				n += 3 // at least k = 4 communities
			}
			s, err := NewSampler(g.name, Length(n), Seed(int64(n)), NumSamples(20), P(0.1, 0.5, 0.9), Workers(1))
			if err != nil {
				t.Fatalf("%s: %v", g.name, err)
			}
			for _, tr := range s.Trajectories() {
				if err := tr.Validate(); err != nil {
					t.Fatalf("%s n=%d: %v", g.name, n, err)
				}
			}
		}
	}
}
