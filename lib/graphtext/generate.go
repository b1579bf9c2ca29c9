package graphtext

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// SyntheticParam is the [Graph.Params] key that marks a graph as made by
// [Generate] rather than taken from the Erdős data: Params[SyntheticParam]
// is 1 on every generated graph. It survives [Graph.WriteJSON] and
// [ReadJSON]; use [Synthetic] to test it. Runs on generated graphs should
// log that they are "not Erdős".
const SyntheticParam = "synthetic"

// Synthetic reports whether g was made by [Generate] (see [SyntheticParam]).
func Synthetic(g *Graph) bool { return g != nil && g.Params[SyntheticParam] == 1 }

// Connectivity says which graphs [Generate] makes.
type Connectivity int

const (
	// Mixed makes a disconnected graph with probability
	// GenOptions.DisconnectedFraction and a connected one otherwise.
	Mixed Connectivity = iota
	// Connected makes only connected graphs.
	Connected
	// Disconnected makes only graphs with at least two components.
	Disconnected
)

// String returns "mixed", "connected" or "disconnected".
func (c Connectivity) String() string {
	switch c {
	case Mixed:
		return "mixed"
	case Connected:
		return "connected"
	case Disconnected:
		return "disconnected"
	}
	return fmt.Sprintf("Connectivity(%d)", int(c))
}

// ParseConnectivity parses "mixed", "connected" or "disconnected".
func ParseConnectivity(s string) (Connectivity, error) {
	for _, c := range []Connectivity{Mixed, Connected, Disconnected} {
		if c.String() == s {
			return c, nil
		}
	}
	return 0, fmt.Errorf("graphtext: unknown connectivity %q; want mixed, connected or disconnected", s)
}

// GenOptions configures [Generate]. The zero value means the defaults:
// 5–35 nodes, edge probability drawn from 0.05–0.35, and 30 % of the
// graphs disconnected.
type GenOptions struct {
	// MinNodes and MaxNodes bound the node count n, drawn uniformly
	// (inclusive). Defaults 5 and 35. A disconnected graph needs n ≥ 2.
	MinNodes, MaxNodes int
	// MinDensity and MaxDensity bound the edge probability p, drawn
	// uniformly per graph; every pair inside a component becomes an edge
	// with probability p (on top of the spanning tree that keeps the
	// component connected). Defaults 0.05 and 0.35.
	MinDensity, MaxDensity float64
	// Connectivity picks connected, disconnected or mixed graphs.
	Connectivity Connectivity
	// DisconnectedFraction is, for Mixed, the probability that a graph is
	// disconnected. Default 0.3; a negative value means 0.
	DisconnectedFraction float64
	// MaxComponents bounds the number of components of a disconnected
	// graph (drawn from 2..MaxComponents). Default 3.
	MaxComponents int
}

// withDefaults fills zero fields and checks the result.
func (o GenOptions) withDefaults() (GenOptions, error) {
	if o.MinNodes == 0 {
		o.MinNodes = 5
	}
	if o.MaxNodes == 0 {
		o.MaxNodes = max(35, o.MinNodes)
	}
	if o.MinDensity == 0 && o.MaxDensity == 0 {
		o.MinDensity, o.MaxDensity = 0.05, 0.35
	}
	if o.DisconnectedFraction == 0 {
		o.DisconnectedFraction = 0.3
	}
	if o.DisconnectedFraction < 0 {
		o.DisconnectedFraction = 0
	}
	if o.MaxComponents == 0 {
		o.MaxComponents = 3
	}
	switch {
	case o.MinNodes < 1 || o.MaxNodes < o.MinNodes:
		return o, fmt.Errorf("graphtext: node range %d..%d is invalid; want 1 ≤ MinNodes ≤ MaxNodes", o.MinNodes, o.MaxNodes)
	case !(o.MinDensity >= 0 && o.MaxDensity <= 1 && o.MinDensity <= o.MaxDensity):
		return o, fmt.Errorf("graphtext: density range %v..%v is invalid; want 0 ≤ MinDensity ≤ MaxDensity ≤ 1", o.MinDensity, o.MaxDensity)
	case o.DisconnectedFraction > 1:
		return o, fmt.Errorf("graphtext: DisconnectedFraction %v is invalid; want a probability in [0, 1]", o.DisconnectedFraction)
	case o.MaxComponents < 2:
		return o, fmt.Errorf("graphtext: MaxComponents %d is invalid; want at least 2", o.MaxComponents)
	case o.Connectivity < Mixed || o.Connectivity > Disconnected:
		return o, fmt.Errorf("graphtext: unknown connectivity %d", int(o.Connectivity))
	case o.Connectivity == Disconnected && o.MaxNodes < 2:
		return o, fmt.Errorf("graphtext: disconnected graphs need MaxNodes ≥ 2, got %d", o.MaxNodes)
	}
	return o, nil
}

// Generate returns one small undirected, unweighted graph, an Erdős–Rényi
// graph made connected per component by a random spanning tree, drawn
// deterministically from seed. Its node ids are a random labeling 1..n,
// and its edges are in the Erdős-like order of the serialization notes
// (§1.8): nodes in BFS discovery order from node 1 (then from the smallest
// unvisited id of each remaining component), each node listing its
// not-yet-listed edges, itself first, in its random adjacency order.
// The graph is marked [Synthetic]. Invalid options give an error.
func Generate(seed uint64, opts GenOptions) (*Graph, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return generate(rand.New(rand.NewPCG(seed, 0x6e61726c61622e67)), o), nil
}

// GenerateSet returns count graphs; graph i is Generate(SetSeed(seed, i),
// opts), so any one of them can be regenerated alone.
func GenerateSet(seed uint64, count int, opts GenOptions) ([]*Graph, error) {
	if count < 0 {
		return nil, fmt.Errorf("graphtext: graph count %d is negative", count)
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	gs := make([]*Graph, count)
	for i := range gs {
		gs[i] = generate(rand.New(rand.NewPCG(SetSeed(seed, i), 0x6e61726c61622e67)), o)
	}
	return gs, nil
}

// SetSeed is the seed of graph i in GenerateSet(seed, ...): a SplitMix64
// mix of seed and i.
func SetSeed(seed uint64, i int) uint64 {
	z := seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func generate(r *rand.Rand, o GenOptions) *Graph {
	disconnected := false
	switch o.Connectivity {
	case Disconnected:
		disconnected = true
	case Mixed:
		disconnected = r.Float64() < o.DisconnectedFraction
	}
	lo := o.MinNodes
	if disconnected && lo < 2 {
		lo = 2
	}
	n := lo + r.IntN(o.MaxNodes-lo+1)
	p := o.MinDensity + (o.MaxDensity-o.MinDensity)*r.Float64()

	// Component sizes: k parts of a random composition of n.
	k := 1
	if disconnected && n >= 2 {
		k = 2 + r.IntN(min(o.MaxComponents, n)-1)
	}
	cuts := r.Perm(n - 1)[:k-1] // distinct cut points in 1..n-1
	bounds := []int{0, n}
	for _, c := range cuts {
		bounds = append(bounds, c+1)
	}
	slices.Sort(bounds)

	// Structure on internal nodes 0..n-1, adjacency in insertion order.
	adj := make([][]int, n)
	has := make(map[[2]int]bool)
	add := func(a, b int) {
		if a > b {
			a, b = b, a
		}
		if has[[2]int{a, b}] {
			return
		}
		has[[2]int{a, b}] = true
		adj[a] = append(adj[a], b)
		adj[b] = append(adj[b], a)
	}
	for c := 0; c+1 < len(bounds); c++ {
		s, e := bounds[c], bounds[c+1]
		for v := s + 1; v < e; v++ { // random recursive tree
			add(v, s+r.IntN(v-s))
		}
		for a := s; a < e; a++ {
			for b := a + 1; b < e; b++ {
				if r.Float64() < p {
					add(a, b)
				}
			}
		}
	}
	for v := range adj { // random adjacency order
		r.Shuffle(len(adj[v]), func(i, j int) { adj[v][i], adj[v][j] = adj[v][j], adj[v][i] })
	}
	label := r.Perm(n) // internal node v gets id label[v]+1
	byLabel := make([]int, n)
	for v, l := range label {
		byLabel[l] = v
	}

	// Erdős-like order: BFS discovery from id 1, then smallest unvisited id.
	order := make([]int, 0, n)
	seen := make([]bool, n)
	for id := 0; id < n; id++ {
		start := byLabel[id]
		if seen[start] {
			continue
		}
		seen[start] = true
		queue := []int{start}
		for len(queue) > 0 {
			v := queue[0]
			queue = queue[1:]
			order = append(order, v)
			for _, w := range adj[v] {
				if !seen[w] {
					seen[w] = true
					queue = append(queue, w)
				}
			}
		}
	}
	listed := make([]bool, n)
	edges := make([]Edge, 0, len(has))
	for _, v := range order {
		for _, w := range adj[v] {
			if !listed[w] {
				edges = append(edges, Edge{U: label[v] + 1, V: label[w] + 1})
			}
		}
		listed[v] = true
	}
	return &Graph{N: n, Edges: edges, Params: map[string]int{SyntheticParam: 1}}
}
