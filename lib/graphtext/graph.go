// Package graphtext turns small graphs into text for language-model graph
// reasoning, as studied in "Lost in Serialization": node relabelings, edge
// encodings and syntaxes, the Erdős graph tasks and the spectral tasks, with
// their ground truth.
//
// Model outputs are scored by [Task.ScoreOutput] in one of two modes: Paper
// (the default) reproduces G1's own checker, verify_correctness, exactly —
// its \boxed{} and "the answer is" extraction, strip_string, comparison
// rules and validators — and marks the outputs on which it raises; Lenient
// is narlab's more forgiving reading, which accepts any valid answer.
//
// Graphs use 1-based node ids, as the Erdős data does, and keep their edges
// in the order they were given: the baseline serialization depends on it.
package graphtext

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// Edge is one edge of a [Graph]: endpoints U and V (1-based) and, for
// weighted graphs, a weight W. For an undirected graph (U, V) and (V, U) are
// the same edge.
type Edge struct {
	U, V int
	W    float64
}

// Graph is a small graph with nodes 1..N. Edges keep their input order.
type Graph struct {
	N        int
	Directed bool
	Weighted bool
	Edges    []Edge
	// Params are a task's parameters by the names the Erdős tasks use
	// ("u", "v", "source", "target", ...); nil when the task has none.
	Params map[string]int
}

// New returns a validated graph with nodes 1..n and the given edges.
// It rejects n < 1, ids outside 1..n, self-loops, duplicate edges, and
// non-finite weights.
func New(n int, directed, weighted bool, edges []Edge) (*Graph, error) {
	g := &Graph{N: n, Directed: directed, Weighted: weighted, Edges: edges}
	if err := g.Validate(false); err != nil {
		return nil, err
	}
	return g, nil
}

// Validate checks that the graph is well formed: at least one node, every
// endpoint in 1..N, no self-loop unless allowSelfLoops, no duplicate edge
// (for an undirected graph (u, v) duplicates (v, u)), finite weights, and
// weights only on weighted graphs.
func (g *Graph) Validate(allowSelfLoops bool) error {
	if g.N < 1 || g.N > MaxNodes {
		return fmt.Errorf("graphtext: graph has n = %d nodes; want at least 1 and at most %d nodes (tasks build dense n×n matrices)", g.N, MaxNodes)
	}
	seen := make(map[[2]int]int, len(g.Edges))
	for i, e := range g.Edges {
		if e.U < 1 || e.U > g.N || e.V < 1 || e.V > g.N {
			return fmt.Errorf("graphtext: edge %d (%d, %d) has a node id outside 1..%d", i, e.U, e.V, g.N)
		}
		if e.U == e.V && !allowSelfLoops {
			return fmt.Errorf("graphtext: edge %d (%d, %d) is a self-loop; self-loops are not allowed", i, e.U, e.V)
		}
		if math.IsNaN(e.W) || math.IsInf(e.W, 0) {
			return fmt.Errorf("graphtext: edge %d (%d, %d) has non-finite weight %v", i, e.U, e.V, e.W)
		}
		if !g.Weighted && e.W != 0 {
			return fmt.Errorf("graphtext: edge %d (%d, %d) has weight %v but the graph is unweighted", i, e.U, e.V, e.W)
		}
		k := [2]int{e.U, e.V}
		if !g.Directed && k[0] > k[1] {
			k[0], k[1] = k[1], k[0]
		}
		if j, ok := seen[k]; ok {
			return fmt.Errorf("graphtext: edge %d (%d, %d) duplicates edge %d", i, e.U, e.V, j)
		}
		seen[k] = i
	}
	return nil
}

// M returns the number of edges.
func (g *Graph) M() int { return len(g.Edges) }

// Adjacency returns the N×N adjacency matrix, row-major, 0-based: entry
// [u-1][v-1] is 1 (or the weight, for weighted graphs) when (u, v) is an
// edge; undirected graphs are symmetric.
func (g *Graph) Adjacency() [][]float64 {
	a := make([][]float64, g.N)
	for i := range a {
		a[i] = make([]float64, g.N)
	}
	for _, e := range g.Edges {
		w := 1.0
		if g.Weighted {
			w = e.W
		}
		a[e.U-1][e.V-1] = w
		if !g.Directed {
			a[e.V-1][e.U-1] = w
		}
	}
	return a
}

// Neighbors returns, for each node 1..N (index 0 unused), its neighbours in
// edge order (out-neighbours for directed graphs).
func (g *Graph) Neighbors() [][]int {
	nb := make([][]int, g.N+1)
	for _, e := range g.Edges {
		nb[e.U] = append(nb[e.U], e.V)
		if !g.Directed {
			nb[e.V] = append(nb[e.V], e.U)
		}
	}
	return nb
}

// MaxNodes is the largest n a graph may have: 1000. Tasks and spectral
// values build dense n×n matrices (8n² bytes each, several per task) and
// the spectral tasks decompose them in O(n³) time, so n = 1000 keeps one
// graph under about 100 MB and a few seconds; the Erdős graphs have at most
// 35 nodes.
const MaxNodes = 1000

// MaxJSONBytes is the largest graph JSON ReadJSON reads: 64 MiB, room for
// every edge of a MaxNodes graph with weights.
const MaxJSONBytes = 64 << 20

// graphJSON is the file format: {"n", "edges": [[u,v] or [u,v,w], ...],
// "directed", "params"}.
type graphJSON struct {
	N        *int           `json:"n"`
	Edges    [][]float64    `json:"edges"`
	Directed bool           `json:"directed"`
	Params   map[string]int `json:"params,omitempty"`
}

// ReadJSON reads one graph in narlab's JSON format:
//
//	{"n": 5, "edges": [[1, 2], [2, 3, 0.5]], "directed": false, "params": {"source": 1}}
//
// Edges are [u, v] or [u, v, w]; a graph is weighted when any edge has a
// weight. The graph is validated (see [Graph.Validate]).
func ReadJSON(r io.Reader) (*Graph, error) {
	var raw graphJSON
	lr := &io.LimitedReader{R: r, N: MaxJSONBytes + 1}
	dec := json.NewDecoder(lr)
	if err := dec.Decode(&raw); err != nil {
		if lr.N <= 0 {
			return nil, fmt.Errorf("graphtext: graph JSON is longer than the %d MiB limit (a graph has at most %d nodes)", MaxJSONBytes>>20, MaxNodes)
		}
		return nil, fmt.Errorf("graphtext: reading graph JSON: %w (want {\"n\": N, \"edges\": [[u, v], ...]})", err)
	}
	if raw.N == nil {
		return nil, fmt.Errorf("graphtext: graph JSON has no \"n\" (number of nodes)")
	}
	if *raw.N < 1 || *raw.N > MaxNodes {
		return nil, fmt.Errorf("graphtext: graph JSON has \"n\": %d; want at least 1 and at most %d nodes (tasks build dense n×n matrices)", *raw.N, MaxNodes)
	}
	if maxM := *raw.N * (*raw.N - 1); len(raw.Edges) > maxM {
		return nil, fmt.Errorf("graphtext: graph JSON has %d edges; a graph of %d nodes without self-loops or duplicates has at most %d", len(raw.Edges), *raw.N, maxM)
	}
	g := &Graph{N: *raw.N, Directed: raw.Directed, Params: raw.Params}
	for i, e := range raw.Edges {
		if len(e) == 3 {
			g.Weighted = true
		} else if len(e) != 2 {
			return nil, fmt.Errorf("graphtext: edge %d has %d entries; want [u, v] or [u, v, w]", i, len(e))
		}
	}
	for i, e := range raw.Edges {
		u, v := e[0], e[1]
		if u != math.Trunc(u) || v != math.Trunc(v) {
			return nil, fmt.Errorf("graphtext: edge %d has non-integer node ids (%v, %v); ids are integers 1..n", i, u, v)
		}
		if u < 1 || u > float64(g.N) || v < 1 || v > float64(g.N) {
			return nil, fmt.Errorf("graphtext: edge %d (%v, %v) has a node id outside 1..%d", i, u, v, g.N)
		}
		if g.Weighted && len(e) != 3 {
			return nil, fmt.Errorf("graphtext: edge %d has no weight but other edges do", i)
		}
		ed := Edge{U: int(u), V: int(v)}
		if len(e) == 3 {
			ed.W = e[2]
		}
		g.Edges = append(g.Edges, ed)
	}
	if err := g.Validate(false); err != nil {
		return nil, err
	}
	return g, nil
}

// WriteJSON writes g in the format [ReadJSON] reads.
func (g *Graph) WriteJSON(w io.Writer) error {
	edges := make([][]float64, len(g.Edges))
	for i, e := range g.Edges {
		if g.Weighted {
			edges[i] = []float64{float64(e.U), float64(e.V), e.W}
		} else {
			edges[i] = []float64{float64(e.U), float64(e.V)}
		}
	}
	n := g.N
	return json.NewEncoder(w).Encode(graphJSON{N: &n, Edges: edges, Directed: g.Directed, Params: g.Params})
}
