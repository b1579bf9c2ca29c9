package salsa

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/narlab/narlab/lib/nprand"
)

// Kind is a random graph model.
type Kind uint8

// The graph models of SALSA-CLRS.
const (
	// ER is the Erdős–Rényi G(n, p) model, NetworkX's gnp_random_graph
	// (erdos_renyi_graph): each of the n(n-1)/2 pairs, in lexicographic
	// order, is an edge when a uniform draw is below p. A disconnected
	// graph is drawn again, with the same n and p, until one is connected.
	ER Kind = iota
	// WS is the Watts–Strogatz small-world model, NetworkX's
	// connected_watts_strogatz_graph(n, k, p, tries=100): a ring lattice
	// in which every node is joined to its k/2 nearest neighbours on each
	// side, each lattice edge rewired to a random node with probability
	// p; drawn again, up to 100 times, until connected.
	WS
	// Delaunay is the Delaunay triangulation of n points drawn uniformly in
	// the unit square (SciPy's scipy.spatial.Delaunay in SALSA-CLRS):
	// always connected, planar, average degree just under 6.
	Delaunay
)

var kindNames = [...]string{"er", "ws", "delaunay"}

// String returns SALSA-CLRS's name of the model: "er", "ws" or "delaunay".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ParseKind parses "er", "ws" or "delaunay".
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("salsa: unknown graph family %q (want one of %s)", s, strings.Join(kindNames[:], ", "))
}

// Family is a distribution of random graphs: a model and its parameters,
// as SALSA-CLRS's graph_generator and graph_generator_kwargs give them.
// For each graph, n is drawn from N (numpy's choice, when N has more than
// one size), then, for WS, k from K (likewise), then p uniformly from
// [P[0], P[1]) (ER and WS).
type Family struct {
	Kind Kind
	N    []int
	P    [2]float64
	K    []int
}

// minNodes is the smallest graph a family draws: the algorithms run on
// one node, but ER's connectivity rejection and WS's ring need more, and
// SALSA-CLRS's smallest graphs have 4 nodes.
const minNodes = 4

// maxNodes bounds n: edges and hint arrays are indexed by int32, and the
// generators are quadratic in n (ER draws every pair).
const maxNodes = 1 << 16

// Validate checks the family's parameters, saying what is wrong and what
// is expected.
func (f Family) Validate() error {
	if f.Kind > Delaunay {
		return fmt.Errorf("salsa: unknown graph family %v (want er, ws or delaunay)", f.Kind)
	}
	if len(f.N) == 0 {
		return fmt.Errorf("salsa: %v family has no node count; give at least one n", f.Kind)
	}
	for _, n := range f.N {
		if n < minNodes || n > maxNodes {
			return fmt.Errorf("salsa: %v family: n = %d is out of range; want %d <= n <= %d", f.Kind, n, minNodes, maxNodes)
		}
	}
	if f.Kind == Delaunay {
		if f.P != [2]float64{} || len(f.K) > 0 {
			return fmt.Errorf("salsa: the delaunay family takes no p or k")
		}
		return nil
	}
	lo, hi := f.P[0], f.P[1]
	if !(lo > 0 && lo <= hi && hi <= 1) {
		return fmt.Errorf("salsa: %v family: p range [%v, %v] is invalid; want 0 < low <= high <= 1", f.Kind, lo, hi)
	}
	switch f.Kind {
	case ER:
		if len(f.K) > 0 {
			return fmt.Errorf("salsa: the er family takes no k")
		}
	case WS:
		if len(f.K) == 0 {
			return fmt.Errorf("salsa: the ws family needs at least one k")
		}
		for _, k := range f.K {
			if k < 2 || k%2 != 0 {
				return fmt.Errorf("salsa: ws family: k = %d; want an even k >= 2 (each node joins k/2 neighbours on each side)", k)
			}
			for _, n := range f.N {
				if k >= n {
					return fmt.Errorf("salsa: ws family: k = %d needs more than k nodes, got n = %d", k, n)
				}
			}
		}
	}
	return nil
}

// Params are the parameters drawn for one graph: its node count, and p
// and k where the family has them (0 otherwise).
type Params struct {
	N int
	P float64
	K int
	// Tries is the number of graphs drawn until one was connected (ER and
	// WS; 1 for Delaunay).
	Tries int
}

// Sample draws one graph of the family from rng, consuming exactly the
// draws SALSA-CLRS's sampler and NetworkX make on one numpy RandomState
// (see the package documentation).
func (f Family) Sample(rng *nprand.State) (*Graph, Params, error) {
	if err := f.Validate(); err != nil {
		return nil, Params{}, err
	}
	var p Params
	p.N = f.N[0]
	if len(f.N) > 1 {
		p.N = f.N[rng.Intn(len(f.N))]
	}
	switch f.Kind {
	case ER:
		p.P = rng.Uniform(f.P[0], f.P[1])
		for p.Tries < erTries {
			p.Tries++
			g := gnp(p.N, p.P, rng)
			if g.Connected() {
				return g, p, nil
			}
		}
		return nil, p, fmt.Errorf("salsa: no connected Erdős–Rényi graph (n=%d, p=%v) in %d tries; use a larger p (connected graphs need p above about ln(n)/n)", p.N, p.P, erTries)
	case WS:
		p.K = f.K[0]
		if len(f.K) > 1 {
			p.K = f.K[rng.Intn(len(f.K))]
		}
		p.P = rng.Uniform(f.P[0], f.P[1])
		for p.Tries < wsTries {
			p.Tries++
			g, err := wattsStrogatz(p.N, p.K, p.P, rng)
			if err != nil {
				return nil, p, err
			}
			if g.Connected() {
				return g, p, nil
			}
		}
		return nil, p, fmt.Errorf("salsa: no connected Watts-Strogatz graph (n=%d, k=%d, p=%v) in %d tries", p.N, p.K, p.P, wsTries)
	default:
		p.Tries = 1
		xy := make([]float64, 2*p.N)
		for i := range xy {
			xy[i] = rng.RandomSample()
		}
		edges, err := DelaunayEdges(xy)
		if err != nil {
			return nil, p, err
		}
		g, err := NewGraph(p.N, edges)
		return g, p, err
	}
}

// wsTries is connected_watts_strogatz_graph's default number of tries.
const wsTries = 100

// erTries bounds the redraws of a disconnected Erdős–Rényi graph.
// SALSA-CLRS redraws without end; at its parameters the expected number
// of draws is below 20 (n = 4, p = ln(16)/16).
const erTries = 100000

// gnp draws NetworkX's gnp_random_graph(n, p): one uniform draw per pair
// (i, j), i < j, in lexicographic order; the pair is an edge when the
// draw is below p.
func gnp(n int, p float64, rng *nprand.State) *Graph {
	adj := make([][]int32, n)
	if p >= 1 { // NetworkX returns the complete graph, drawing nothing
		for i := range n {
			for j := range n {
				if i != j {
					adj[i] = append(adj[i], int32(j))
				}
			}
		}
		return fromAdjacency(n, adj)
	}
	row := make([]float64, n)
	for i := range n {
		draws := row[:n-i-1]
		rng.FillRandomSample(draws)
		for k, u := range draws {
			if u < p {
				j := i + 1 + k
				adj[i] = append(adj[i], int32(j))
				adj[j] = append(adj[j], int32(i))
			}
		}
	}
	return fromAdjacency(n, adj)
}

// wattsStrogatz draws NetworkX's watts_strogatz_graph(n, k, p) with the
// draws of its PythonRandomInterface over a RandomState: random() is
// random_sample(), choice(nodes) is nodes[randint(0, n)].
func wattsStrogatz(n, k int, p float64, rng *nprand.State) (*Graph, error) {
	adj := make([][]int32, n)
	has := func(u, v int) bool { return slices.Contains(adj[u], int32(v)) }
	add := func(u, v int) {
		adj[u] = append(adj[u], int32(v))
		adj[v] = append(adj[v], int32(u))
	}
	remove := func(u, v int) {
		i := slices.Index(adj[u], int32(v))
		j := slices.Index(adj[v], int32(u))
		adj[u] = slices.Delete(adj[u], i, i+1)
		adj[v] = slices.Delete(adj[v], j, j+1)
	}
	for j := 1; j <= k/2; j++ {
		for u := range n {
			add(u, (u+j)%n)
		}
	}
	for j := 1; j <= k/2; j++ {
		for u := range n {
			v := (u + j) % n
			if rng.RandomSample() >= p {
				continue
			}
			w := rng.Intn(n)
			skip := false
			for w == u || has(u, w) {
				w = rng.Intn(n)
				if len(adj[u]) >= n-1 {
					skip = true
					break
				}
			}
			if skip {
				continue
			}
			if !has(u, v) { // NetworkX would raise; impossible for k < n
				return nil, fmt.Errorf("salsa: watts-strogatz: lattice edge {%d, %d} missing when rewired", u, v)
			}
			remove(u, v)
			add(u, w)
		}
	}
	return fromAdjacency(n, adj), nil
}

// weigh gives an unweighted graph SALSA-CLRS's (and CLRS's) random
// symmetric weights: U = uniform(0, 1, size=(n, n)) drawn row-major, and
// the edge {i, j} weighs sqrt(U[i][j]·U[j][i] + 0.001), in both
// directions. The n² draws are made whatever the number of edges.
func weigh(g *Graph, rng *nprand.State) {
	n := g.N
	// Only the draws at edges are kept: the edges of row i are sorted by
	// column, so they are met in edge order as row i is drawn.
	u := make([]float64, g.NumEdges())
	for i := range n {
		lo, hi := g.Row(i)
		col := 0 // the next column to draw
		for e := lo; e < hi; e++ {
			j := int(g.Dst[e])
			rng.Skip(2 * (j - col)) // two 32-bit outputs a draw
			u[e] = rng.RandomSample()
			col = j + 1
		}
		rng.Skip(2 * (n - col))
	}
	rev := g.reverse()
	for e := range g.Src {
		if g.Src[e] == g.Dst[e] {
			continue
		}
		// float64(…) rounds the product: no fused multiply-add, as numpy.
		g.A[e] = math.Sqrt(float64(u[e]*u[rev[e]]) + 1e-3)
	}
	g.Weighted = true
}
