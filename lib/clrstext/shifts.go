package clrstext

import (
	"fmt"
	"math"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nprand"
)

// Shift is a distribution shift of the paper's Figure 8. It is a narlab
// addition: the reference generator has no such option, so shifted data
// have no reference to match and are only defined by this package.
//
// The zero value is no shift.
type Shift struct {
	// Trees replaces the Erdős–Rényi graphs of the graph algorithms with
	// uniformly random labelled trees (Prüfer sequences): undirected for
	// the undirected samplers, oriented away from a random root for the
	// directed and acyclic ones. Weighted graphs keep the reference's
	// weights (U[low, high), symmetrised as sqrt(w·wᵀ + 1e-3) when
	// undirected), sources are drawn uniformly.
	Trees bool
	// Scalars draws every scalar a sampler draws from U[Low, High) instead
	// of its default range: keys, search targets, activity times, task
	// weights, segment coordinates, matrix-chain dimensions, edge weights
	// and Kadane's U[-1, 1) input (the paper's U(1, 2) shift). Samplers
	// without a scalar range (optimal_bst's normalised probabilities, the
	// convex-hull disk, strings, unweighted graphs) are unchanged.
	Scalars   bool
	Low, High float64
}

// TreeShift is the paper's random-tree shift.
var TreeShift = Shift{Trees: true}

// ScalarShift is the paper's U(1, 2) scalar shift.
var ScalarShift = Shift{Scalars: true, Low: 1, High: 2}

// ParseShift parses the CLI spelling of a shift: "none", "trees",
// "scalars" (U(1, 2)), "scalars:LOW:HIGH", or several joined by "+".
func ParseShift(s string) (Shift, error) {
	var out Shift
	if s == "" || s == "none" {
		return out, nil
	}
	for _, part := range splitPlus(s) {
		switch {
		case part == "trees":
			out.Trees = true
		case part == "scalars":
			out.Scalars, out.Low, out.High = true, 1, 2
		case len(part) > 8 && part[:8] == "scalars:":
			var lo, hi float64
			if _, err := fmt.Sscanf(part[8:], "%g:%g", &lo, &hi); err != nil {
				return Shift{}, fmt.Errorf("clrstext: shift %q: want scalars:LOW:HIGH with two numbers", part)
			}
			out.Scalars, out.Low, out.High = true, lo, hi
		default:
			return Shift{}, fmt.Errorf("clrstext: unknown shift %q (want none, trees, scalars, scalars:LOW:HIGH, or a +-joined combination)", part)
		}
	}
	return out, out.validate()
}

func splitPlus(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '+' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// String returns the CLI spelling of the shift.
func (s Shift) String() string {
	var parts []string
	if s.Trees {
		parts = append(parts, "trees")
	}
	if s.Scalars {
		if s.Low == 1 && s.High == 2 {
			parts = append(parts, "scalars")
		} else {
			parts = append(parts, fmt.Sprintf("scalars:%g:%g", s.Low, s.High))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	out := parts[0]
	for _, p := range parts[1:] {
		out += "+" + p
	}
	return out
}

func (s Shift) validate() error {
	if s.Scalars {
		if math.IsNaN(s.Low) || math.IsNaN(s.High) || math.IsInf(s.Low, 0) || math.IsInf(s.High, 0) || !(s.Low < s.High) {
			return fmt.Errorf("clrstext: scalar shift range [%v, %v) is empty or not finite; want finite low < high", s.Low, s.High)
		}
	}
	return nil
}

// samplerOptions returns the clrs sampler options for the scalar shift.
func (s Shift) samplerOptions(algo string) ([]clrs.Option, error) {
	if !s.Scalars {
		return nil, nil
	}
	_, params, err := clrs.SamplerParams(algo)
	if err != nil {
		return nil, fmt.Errorf("clrstext: %w", err)
	}
	if _, ok := params["low"]; !ok {
		return nil, nil
	}
	return []clrs.Option{clrs.Kwarg("low", s.Low), clrs.Kwarg("high", s.High)}, nil
}

// graphKind says how the reference sampler of a graph algorithm draws its
// graph.
type graphKind struct {
	directed, acyclic, weighted, source, floatAdj bool
}

var graphKinds = map[string]graphKind{
	"dfs":                           {directed: true},
	"topological_sort":              {directed: true, acyclic: true},
	"articulation_points":           {},
	"bridges":                       {},
	"strongly_connected_components": {directed: true, floatAdj: true},
	"mst_kruskal":                   {weighted: true},
	"mst_prim":                      {weighted: true, source: true},
	"bellman_ford":                  {weighted: true, source: true},
	"dijkstra":                      {weighted: true, source: true},
	"bfs":                           {source: true},
	"dag_shortest_paths":            {directed: true, acyclic: true, weighted: true, source: true},
	"floyd_warshall":                {weighted: true},
}

func isGraphAlgorithm(algo string) bool { _, ok := graphKinds[algo]; return ok }

// treeSampler draws random trees for a graph algorithm (narlab addition).
type treeSampler struct {
	algo      string
	n         int
	kind      graphKind
	rng       *nprand.State
	low, high float64
	decimals  int
}

func newTreeSampler(algo string, n int, seed int64, o Options) (*treeSampler, error) {
	if n < 1 {
		return nil, fmt.Errorf("clrstext: %s: length must be at least 1, got %d", algo, n)
	}
	rng, err := newRNG(seed)
	if err != nil {
		return nil, err
	}
	t := &treeSampler{algo: algo, n: n, kind: graphKinds[algo], rng: rng, low: 0, high: 1, decimals: o.Decimals}
	if o.Shift.Scalars {
		t.low, t.high = o.Shift.Low, o.Shift.High
	}
	return t, nil
}

// RandomTree returns the edges of a uniformly random labelled tree on n
// nodes, decoded from a Prüfer sequence drawn from rng (n-2 draws of
// randint(0, n)); each edge is (smaller label, larger label) in decoding
// order. It is a narlab addition used by the tree shift.
func RandomTree(rng *nprand.State, n int) [][2]int {
	if n < 2 {
		return nil
	}
	seq := make([]int, n-2)
	for i := range seq {
		seq[i] = rng.Intn(n)
	}
	degree := make([]int, n)
	for i := range degree {
		degree[i] = 1
	}
	for _, v := range seq {
		degree[v]++
	}
	edges := make([][2]int, 0, n-1)
	for _, v := range seq {
		for leaf := 0; leaf < n; leaf++ {
			if degree[leaf] == 1 {
				edges = append(edges, [2]int{min(leaf, v), max(leaf, v)})
				degree[leaf]--
				degree[v]--
				break
			}
		}
	}
	u, w := -1, -1
	for i := 0; i < n; i++ {
		if degree[i] == 1 {
			if u < 0 {
				u = i
			} else {
				w = i
			}
		}
	}
	edges = append(edges, [2]int{u, w})
	return edges
}

func (t *treeSampler) sample() (*clrs.Trajectory, error) {
	n := t.n
	edges := RandomTree(t.rng, n)
	adj := make([]float64, n*n)
	if t.kind.directed {
		// Orient every edge away from a random root.
		root := t.rng.Intn(n)
		nb := make([][]int, n)
		for _, e := range edges {
			nb[e[0]] = append(nb[e[0]], e[1])
			nb[e[1]] = append(nb[e[1]], e[0])
		}
		seen := make([]bool, n)
		queue := []int{root}
		seen[root] = true
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			for _, v := range nb[u] {
				if !seen[v] {
					seen[v] = true
					adj[u*n+v] = 1
					queue = append(queue, v)
				}
			}
		}
	} else {
		for _, e := range edges {
			adj[e[0]*n+e[1]] = 1
			adj[e[1]*n+e[0]] = 1
		}
	}
	m := clrs.Matrix{N: n, Data: adj, Int: !t.kind.weighted && !t.kind.floatAdj}
	if t.kind.weighted {
		w := t.rng.UniformN(t.low, t.high, n*n)
		if !t.kind.directed {
			sym := make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					sym[i*n+j] = math.Sqrt(w[i*n+j]*w[j*n+i] + 1e-3)
				}
			}
			w = sym
		}
		for i := range adj {
			adj[i] *= w[i]
			if t.decimals > 0 {
				scale := math.Pow10(t.decimals)
				adj[i] = math.Trunc(adj[i]*scale) / scale
			}
		}
	}
	args := clrs.Args{m}
	if t.kind.source {
		args = append(args, t.rng.Intn(n))
	}
	tr, err := clrs.Run(t.algo, args)
	if err != nil {
		return nil, fmt.Errorf("clrstext: tree shift: %w", err)
	}
	return tr, nil
}
