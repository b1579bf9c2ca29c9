package dsr

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Network structures: graph traversals, disjoint set union and the
// geometric graph.

// adjacency builds sorted, duplicate-free neighbor lists of an undirected
// graph over comparable node labels.
func adjacency[T comparable](nodes []T, edges [][2]T, less func(a, b T) int) (map[T][]T, error) {
	adj := make(map[T][]T, len(nodes))
	for _, n := range nodes {
		adj[n] = nil
	}
	for i, e := range edges {
		for _, end := range e {
			if _, ok := adj[end]; !ok {
				return nil, fmt.Errorf("edge %d (%v, %v): node %v is not in the node list", i, e[0], e[1], end)
			}
		}
		adj[e[0]] = append(adj[e[0]], e[1])
		if e[0] != e[1] {
			adj[e[1]] = append(adj[e[1]], e[0])
		}
	}
	for n, ns := range adj {
		slices.SortFunc(ns, less)
		adj[n] = slices.Compact(ns)
	}
	return adj, nil
}

// bfsOrder visits the component of src breadth-first, neighbors in
// ascending order.
func bfsOrder[T comparable](adj map[T][]T, src T) []T {
	seen := map[T]bool{src: true}
	out := []T{src}
	for i := 0; i < len(out); i++ {
		for _, m := range adj[out[i]] {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// dfsOrder visits the component of src depth-first (recursively),
// neighbors in ascending order.
func dfsOrder[T comparable](adj map[T][]T, src T) []T {
	seen := map[T]bool{}
	var out []T
	var visit func(n T)
	visit = func(n T) {
		seen[n] = true
		out = append(out, n)
		for _, m := range adj[n] {
			if !seen[m] {
				visit(m)
			}
		}
	}
	visit(src)
	return out
}

func cmpInt(a, b int) int { return a - b }

func graphTraversal(kind string) func(in *Input, _ Options) (any, error) {
	return func(in *Input, _ Options) (any, error) {
		if in.Source == nil {
			return nil, errors.New("input has no source node")
		}
		adj, err := adjacency(in.Nodes, in.Edges, cmpInt)
		if err != nil {
			return nil, err
		}
		if _, ok := adj[*in.Source]; !ok {
			return nil, fmt.Errorf("source %d is not in the node list", *in.Source)
		}
		if kind == "bfs" {
			return intsValue(bfsOrder(adj, *in.Source)), nil
		}
		return intsValue(dfsOrder(adj, *in.Source)), nil
	}
}

// dsuRun applies the unions to singletons of in.Array with union by rank
// (the lower-rank root goes under the higher-rank one; on equal ranks the
// root of the first argument's set becomes the parent and its rank grows)
// and path compression; the answer is find(x) for each element in order.
func dsuRun(in *Input, _ Options, rec recorder) (any, error) {
	parent := map[int]int{}
	rank := map[int]int{}
	for _, x := range in.Array {
		parent[x] = x
	}
	var find func(x int) int
	find = func(x int) int {
		if parent[x] != x {
			parent[x] = find(parent[x])
		}
		return parent[x]
	}
	state := func() any {
		out := make([]int, len(in.Array))
		for i, x := range in.Array {
			out[i] = find(x)
		}
		return intsValue(out)
	}
	for i, op := range in.Ops {
		if op.Name != "union" {
			return nil, opsError(i, op, "union")
		}
		x, y := op.arg(0), op.arg(1)
		for _, e := range []int{x, y} {
			if _, ok := parent[e]; !ok {
				return nil, fmt.Errorf("operation %d: union(%d, %d): %d is not an element", i, x, y, e)
			}
		}
		rx, ry := find(x), find(y)
		if rx != ry {
			switch {
			case rank[rx] < rank[ry]:
				parent[rx] = ry
			case rank[rx] > rank[ry]:
				parent[ry] = rx
			default:
				parent[ry] = rx
				rank[rx]++
			}
		}
		rec.put(opText(op), state)
	}
	return state(), nil
}

func euclid(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}

// geomGraph links two points when their Euclidean distance is below the
// threshold, weighting the edge by the distance, and answers the
// breadth-first order from the source point, each node's unvisited
// neighbors taken by increasing edge weight (ties in input order).
func geomGraph(in *Input, _ Options) (any, error) {
	n := len(in.Coords)
	if n == 0 {
		return nil, errors.New("input has no nodes")
	}
	k := len(in.Coords[0])
	for i, p := range in.Coords {
		if len(p) != k {
			return nil, fmt.Errorf("node %d has %d coordinates, expected %d like the first", i, len(p), k)
		}
	}
	if in.Threshold <= 0 {
		return nil, fmt.Errorf("threshold %v: expected a positive distance", in.Threshold)
	}
	src := -1
	for i, p := range in.Coords {
		if slices.Equal(p, in.From) {
			src = i
			break
		}
	}
	if src < 0 {
		return nil, fmt.Errorf("source point %v is not one of the nodes", in.From)
	}
	type nb struct {
		j int
		w float64
	}
	adj := make([][]nb, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			if w := euclid(in.Coords[i], in.Coords[j]); w < in.Threshold {
				adj[i] = append(adj[i], nb{j, w})
			}
		}
		sort.SliceStable(adj[i], func(a, b int) bool { return adj[i][a].w < adj[i][b].w })
	}
	seen := make([]bool, n)
	seen[src] = true
	order := []int{src}
	for q := 0; q < len(order); q++ {
		for _, e := range adj[order[q]] {
			if !seen[e.j] {
				seen[e.j] = true
				order = append(order, e.j)
			}
		}
	}
	out := make([][]float64, len(order))
	for i, j := range order {
		out[i] = in.Coords[j]
	}
	return floatRowsValue(out), nil
}
