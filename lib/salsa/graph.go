package salsa

import (
	"fmt"
	"math"
	"slices"
)

// Graph is an undirected graph without self-loops, held as the data
// stores it: the directed edge list of its adjacency matrix plus the
// identity (CLRS's `adj` input, A + I), in row-major order. Edge e goes
// from Src[e] to Dst[e]; every undirected edge {u, v} appears twice, as
// u→v and v→u, every node has its self-loop u→u, and the edges are sorted
// by Src, then Dst. This is SALSA-CLRS's edge_index (from the non-zeros of
// A + I), and [Src; Dst] is PyTorch Geometric's [2, E] edge_index.
//
// Edge-located probes hold one value per edge of this list; a node
// pointer p (node i points to p[i]) always follows an edge i→p[i] of the
// list (the self-loop when p[i] = i).
type Graph struct {
	N        int
	Src, Dst []int32
	// A holds the weight matrix's entry of each edge, A[Src[e]][Dst[e]]:
	// 0 on the self-loops, 1 on the other edges of an unweighted graph,
	// the weight otherwise. It is CLRS's `A` input, edge by edge.
	A        []float64
	Weighted bool
	start    []int32 // the edges of node u are start[u] : start[u+1]
}

// NumEdges returns E, the length of the edge list: twice the number of
// undirected edges plus N self-loops.
func (g *Graph) NumEdges() int { return len(g.Src) }

// Row returns the range of the edges leaving u: e in [lo, hi).
func (g *Graph) Row(u int) (lo, hi int) { return int(g.start[u]), int(g.start[u+1]) }

// Edge returns the index of the edge u→v, or -1 when there is none.
func (g *Graph) Edge(u, v int) int {
	if u < 0 || u >= g.N || v < 0 || v >= g.N {
		return -1
	}
	lo, hi := g.Row(u)
	i, ok := slices.BinarySearch(g.Dst[lo:hi], int32(v))
	if !ok {
		return -1
	}
	return lo + i
}

// Degree returns the number of neighbours of u (its self-loop not counted).
func (g *Graph) Degree(u int) int {
	lo, hi := g.Row(u)
	return hi - lo - 1
}

// UndirectedEdges returns the edges {u, v} with u < v, in row-major order.
func (g *Graph) UndirectedEdges() [][2]int {
	var out [][2]int
	for e := range g.Src {
		if g.Src[e] < g.Dst[e] {
			out = append(out, [2]int{int(g.Src[e]), int(g.Dst[e])})
		}
	}
	return out
}

// NewGraph returns the unweighted graph on n nodes with the given
// undirected edges (in any order, each once, as {u, v} or {v, u}). It
// rejects self-loops, repeated edges and nodes outside [0, n).
func NewGraph(n int, edges [][2]int) (*Graph, error) {
	return newGraphChecked(n, edges, nil)
}

// NewWeightedGraph is NewGraph with a weight per edge (weights[i] is the
// weight of edges[i], in both directions). Weights must be finite and
// non-zero: a zero entry of A means "no edge" in CLRS's convention.
func NewWeightedGraph(n int, edges [][2]int, weights []float64) (*Graph, error) {
	if len(weights) != len(edges) {
		return nil, fmt.Errorf("salsa: %d weights for %d edges; want one weight per edge", len(weights), len(edges))
	}
	return newGraphChecked(n, edges, weights)
}

func newGraphChecked(n int, edges [][2]int, weights []float64) (*Graph, error) {
	if n < 1 {
		return nil, fmt.Errorf("salsa: a graph needs at least one node, got n = %d", n)
	}
	if n > math.MaxInt32/2 {
		return nil, fmt.Errorf("salsa: n = %d nodes is too many (at most %d)", n, math.MaxInt32/2)
	}
	adj := make([][]int32, n)
	for i, e := range edges {
		u, v := e[0], e[1]
		if u < 0 || u >= n || v < 0 || v >= n {
			return nil, fmt.Errorf("salsa: edge %d {%d, %d} has a node outside [0, %d)", i, u, v, n)
		}
		if u == v {
			return nil, fmt.Errorf("salsa: edge %d {%d, %d} is a self-loop; the graphs have none (the data adds one per node)", i, u, v)
		}
		if weights != nil {
			if w := weights[i]; w == 0 || math.IsNaN(w) || math.IsInf(w, 0) {
				return nil, fmt.Errorf("salsa: edge %d {%d, %d} has weight %v; want a finite, non-zero weight", i, u, v, w)
			}
		}
		adj[u] = append(adj[u], int32(v))
		adj[v] = append(adj[v], int32(u))
	}
	g := fromAdjacency(n, adj)
	for u := range n {
		lo, hi := g.Row(u)
		for e := lo + 1; e < hi; e++ {
			if g.Dst[e] == g.Dst[e-1] {
				return nil, fmt.Errorf("salsa: edge {%d, %d} is given twice", u, g.Dst[e])
			}
		}
	}
	if weights != nil {
		for i, e := range edges {
			g.A[g.Edge(e[0], e[1])] = weights[i]
			g.A[g.Edge(e[1], e[0])] = weights[i]
		}
		g.Weighted = true
	}
	return g, nil
}

// fromAdjacency builds an unweighted graph from neighbour lists (each
// undirected edge listed at both ends, no self-loops); the lists are
// sorted in place.
func fromAdjacency(n int, adj [][]int32) *Graph {
	E := n
	for _, a := range adj {
		E += len(a)
	}
	g := &Graph{N: n, Src: make([]int32, 0, E), Dst: make([]int32, 0, E), A: make([]float64, 0, E), start: make([]int32, n+1)}
	for u := range n {
		a := adj[u]
		slices.Sort(a)
		g.start[u] = int32(len(g.Src))
		self := false
		for _, v := range a {
			if !self && v > int32(u) {
				g.Src, g.Dst, g.A = append(g.Src, int32(u)), append(g.Dst, int32(u)), append(g.A, 0)
				self = true
			}
			g.Src, g.Dst, g.A = append(g.Src, int32(u)), append(g.Dst, v), append(g.A, 1)
		}
		if !self {
			g.Src, g.Dst, g.A = append(g.Src, int32(u)), append(g.Dst, int32(u)), append(g.A, 0)
		}
	}
	g.start[n] = int32(len(g.Src))
	return g
}

// reverse returns, for every edge u→v, the index of v→u.
func (g *Graph) reverse() []int32 {
	rev := make([]int32, len(g.Src))
	for e := range g.Src {
		rev[e] = int32(g.Edge(int(g.Dst[e]), int(g.Src[e])))
	}
	return rev
}

// Connected reports whether every node can be reached from node 0.
func (g *Graph) Connected() bool {
	seen := make([]bool, g.N)
	stack := []int32{0}
	seen[0] = true
	count := 1
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		lo, hi := g.Row(int(u))
		for _, v := range g.Dst[lo:hi] {
			if !seen[v] {
				seen[v] = true
				count++
				stack = append(stack, v)
			}
		}
	}
	return count == g.N
}

// Dense returns the graph's weight matrix A (n×n, row-major): the input
// CLRS's dense algorithms take.
func (g *Graph) Dense() []float64 {
	out := make([]float64, g.N*g.N)
	for e := range g.Src {
		out[int(g.Src[e])*g.N+int(g.Dst[e])] = g.A[e]
	}
	return out
}
