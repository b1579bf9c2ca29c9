package graphtext

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// NodeParams are the [Graph.Params] keys that hold node ids; [Graph.Relabel]
// maps them with the nodes. Other keys (such as [SyntheticParam]) are copied
// unchanged.
var NodeParams = []string{"u", "v", "node", "source", "target", "start", "s", "t"}

// IsNodeParam reports whether a parameter name holds a node id.
func IsNodeParam(name string) bool { return slices.Contains(NodeParams, name) }

// Permutation is a node relabeling: node v (1-based) becomes P[v-1].
type Permutation []int

// RandomPermutation returns a uniformly random relabeling of 1..n drawn
// from seed (the paper uses 10 relabelings per graph; narlab's default seeds
// are 0..9).
func RandomPermutation(n int, seed uint64) Permutation {
	r := rand.New(rand.NewPCG(seed, 0x72656c6162656c))
	p := make(Permutation, n)
	for i, j := range r.Perm(n) {
		p[i] = j + 1
	}
	return p
}

// Identity returns the identity relabeling of 1..n.
func Identity(n int) Permutation {
	p := make(Permutation, n)
	for i := range p {
		p[i] = i + 1
	}
	return p
}

// Check reports an error unless p is a permutation of 1..n.
func (p Permutation) Check(n int) error {
	if len(p) != n {
		return fmt.Errorf("graphtext: relabeling has %d entries; want one per node (%d)", len(p), n)
	}
	seen := make([]bool, n+1)
	for i, v := range p {
		if v < 1 || v > n || seen[v] {
			return fmt.Errorf("graphtext: relabeling maps node %d to %d; want a permutation of 1..%d", i+1, v, n)
		}
		seen[v] = true
	}
	return nil
}

// Map returns the new label of node v.
func (p Permutation) Map(v int) int { return p[v-1] }

// Inverse returns the relabeling that undoes p.
func (p Permutation) Inverse() Permutation {
	q := make(Permutation, len(p))
	for i, v := range p {
		q[v-1] = i + 1
	}
	return q
}

// Relabel returns a copy of g with node v renamed p[v-1], its task
// parameters that name nodes (see [NodeParams]) mapped too, and its edges
// written (min, max) for undirected graphs and sorted lexicographically, as
// the paper does "to factor out the impact of shuffled edge-list"
// (footnote 3). Directed edges keep their direction.
func (g *Graph) Relabel(p Permutation) (*Graph, error) {
	if err := p.Check(g.N); err != nil {
		return nil, err
	}
	h := &Graph{N: g.N, Directed: g.Directed, Weighted: g.Weighted, Edges: make([]Edge, len(g.Edges))}
	for i, e := range g.Edges {
		u, v := p.Map(e.U), p.Map(e.V)
		if !g.Directed && u > v {
			u, v = v, u
		}
		h.Edges[i] = Edge{U: u, V: v, W: e.W}
	}
	sortEdges(h.Edges)
	if g.Params != nil {
		h.Params = make(map[string]int, len(g.Params))
		for k, v := range g.Params {
			if IsNodeParam(k) {
				if v < 1 || v > g.N {
					return nil, fmt.Errorf("graphtext: parameter %s = %d is not a node id in 1..%d", k, v, g.N)
				}
				v = p.Map(v)
			}
			h.Params[k] = v
		}
	}
	return h, nil
}
