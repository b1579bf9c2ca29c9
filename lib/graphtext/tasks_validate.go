package graphtext

import (
	"fmt"
	"math"
	"slices"
)

// Validators for the tasks with many valid answers. Each returns nil for a
// valid answer and an error saying what is wrong otherwise.

func nodeSet(v *view, a Answer) (map[int]bool, error) {
	if a.Kind != KindNodeSet && a.Kind != KindNodeSeq {
		return nil, fmt.Errorf("answer is a %s, want a node list", a.Kind)
	}
	s := make(map[int]bool, len(a.Nodes))
	for _, x := range a.Nodes {
		if x < 1 || x > v.n {
			return nil, fmt.Errorf("node %d is not in 1..%d", x, v.n)
		}
		if s[x] {
			return nil, fmt.Errorf("node %d is listed twice", x)
		}
		s[x] = true
	}
	return s, nil
}

// edgeList checks that every listed edge exists (either orientation for
// undirected graphs) and returns them oriented as listed.
func edgeList(v *view, a Answer) ([][2]int, error) {
	if a.Kind != KindEdgeSet {
		return nil, fmt.Errorf("answer is a %s, want an edge list", a.Kind)
	}
	seen := map[[2]int]bool{}
	for _, e := range a.Edges {
		if e[0] < 1 || e[0] > v.n || e[1] < 1 || e[1] > v.n || !v.adj[e[0]][e[1]] {
			return nil, fmt.Errorf("(%d, %d) is not an edge of the graph", e[0], e[1])
		}
		k := e
		if !v.directed && k[0] > k[1] {
			k = [2]int{k[1], k[0]}
		}
		if seen[k] {
			return nil, fmt.Errorf("edge (%d, %d) is listed twice", e[0], e[1])
		}
		seen[k] = true
	}
	return a.Edges, nil
}

func validateDominating(v *view, _ *Graph, a Answer) error {
	s, err := nodeSet(v, a)
	if err != nil {
		return err
	}
	for x := 1; x <= v.n; x++ {
		if s[x] {
			continue
		}
		ok := false
		for _, y := range v.und(x) {
			ok = ok || s[y]
		}
		if !ok {
			return fmt.Errorf("node %d is neither in the set nor adjacent to it", x)
		}
	}
	return nil
}

func independent(v *view, s map[int]bool) error {
	for x := range s {
		for _, y := range v.und(x) {
			if s[y] {
				return fmt.Errorf("nodes %d and %d are adjacent", min(x, y), max(x, y))
			}
		}
	}
	return nil
}

func validateMIS(v *view, _ *Graph, a Answer) error {
	s, err := nodeSet(v, a)
	if err != nil {
		return err
	}
	if err := independent(v, s); err != nil {
		return fmt.Errorf("not independent: %w", err)
	}
	for x := 1; x <= v.n; x++ {
		if s[x] {
			continue
		}
		free := true
		for _, y := range v.und(x) {
			free = free && !s[y]
		}
		if free {
			return fmt.Errorf("not maximal: node %d could be added", x)
		}
	}
	return nil
}

func validateMVC(v *view, _ *Graph, a Answer) error {
	s, err := nodeSet(v, a)
	if err != nil {
		return err
	}
	for x := 1; x <= v.n; x++ {
		for _, y := range v.out[x] {
			if !s[x] && !s[y] {
				return fmt.Errorf("edge (%d, %d) is not covered", x, y)
			}
		}
	}
	best, err := v.minVertexCover()
	if err != nil {
		return err
	}
	if len(s) != len(best) {
		return fmt.Errorf("cover has %d nodes; the minimum is %d", len(s), len(best))
	}
	return nil
}

func checkPath(v *view, a Answer, s, t int) error {
	if a.Kind != KindNodeSeq && a.Kind != KindNodeSet {
		return fmt.Errorf("answer is a %s, want a node list", a.Kind)
	}
	p := a.Nodes
	if len(p) == 0 || p[0] != s || p[len(p)-1] != t {
		return fmt.Errorf("path %v does not run from node %d to node %d", p, s, t)
	}
	for i := 1; i < len(p); i++ {
		if p[i] < 1 || p[i] > v.n || p[i-1] < 1 || p[i-1] > v.n || !v.adj[p[i-1]][p[i]] {
			return fmt.Errorf("(%d, %d) is not an edge", p[i-1], p[i])
		}
	}
	return nil
}

func validateShortestPath(v *view, g *Graph, a Answer) error {
	s, t := param(g, "source"), param(g, "target")
	if err := checkPath(v, a, s, t); err != nil {
		return err
	}
	d := v.bfsDist(s, false)
	if len(a.Nodes)-1 != d[t] {
		return fmt.Errorf("path has %d edges; the shortest has %d", len(a.Nodes)-1, d[t])
	}
	return nil
}

func validateWeightedPath(v *view, g *Graph, a Answer) error {
	s, t := param(g, "source"), param(g, "target")
	if err := checkPath(v, a, s, t); err != nil {
		return err
	}
	w := 0.0
	for i := 1; i < len(a.Nodes); i++ {
		w += v.w[a.Nodes[i-1]][a.Nodes[i]]
	}
	d := v.dijkstra(s)
	if math.Abs(w-d[t]) > 1e-9*max(1, d[t]) {
		return fmt.Errorf("path weight %g; the shortest is %g", w, d[t])
	}
	return nil
}

func validateTopo(v *view, _ *Graph, a Answer) error {
	s, err := nodeSet(v, a)
	if err != nil {
		return err
	}
	if len(s) != v.n {
		return fmt.Errorf("order lists %d of %d nodes", len(s), v.n)
	}
	pos := make([]int, v.n+1)
	for i, x := range a.Nodes {
		pos[x] = i
	}
	for x := 1; x <= v.n; x++ {
		for _, y := range v.out[x] {
			if pos[x] > pos[y] {
				return fmt.Errorf("edge (%d, %d) points backwards", x, y)
			}
		}
	}
	return nil
}

func validateHamiltonian(v *view, _ *Graph, a Answer) error {
	s, err := nodeSet(v, a)
	if err != nil {
		return err
	}
	if len(s) != v.n {
		return fmt.Errorf("path visits %d of %d nodes", len(s), v.n)
	}
	for i := 1; i < len(a.Nodes); i++ {
		if !v.adj[a.Nodes[i-1]][a.Nodes[i]] {
			return fmt.Errorf("(%d, %d) is not an edge", a.Nodes[i-1], a.Nodes[i])
		}
	}
	return nil
}

// validateBFS accepts any BFS edge sequence from the source: nodes are
// expanded in discovery order, and each expansion lists exactly the
// undiscovered neighbours of the expanded node, in any order.
func validateBFS(v *view, g *Graph, a Answer) error {
	es, err := edgeList(v, a)
	if err != nil {
		return err
	}
	s := param(g, "source")
	seen := make([]bool, v.n+1)
	seen[s] = true
	q := []int{s}
	i := 0
	for len(q) > 0 {
		x := q[0]
		q = q[1:]
		want := map[int]bool{}
		for _, y := range v.out[x] {
			if !seen[y] {
				want[y] = true
			}
		}
		for k := 0; k < len(want); k++ {
			if i >= len(es) {
				return fmt.Errorf("sequence ends before node %d's neighbours are discovered", x)
			}
			e := es[i]
			p, c := e[0], e[1]
			if !v.directed && p != x && c == x {
				p, c = c, p
			}
			if p != x || !want[c] || seen[c] {
				return fmt.Errorf("edge %d (%d, %d): BFS expands node %d next and discovers %v", i+1, e[0], e[1], x, sortedKeys(want))
			}
			seen[c] = true
			q = append(q, c)
			i++
		}
	}
	if i != len(es) {
		return fmt.Errorf("edge %d (%d, %d) is extra: every reachable node is already discovered", i+1, es[i][0], es[i][1])
	}
	return nil
}

func sortedKeys(m map[int]bool) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// validateDFS accepts any DFS tree-edge sequence from the source: each edge
// goes from the deepest node on the DFS stack that still has undiscovered
// neighbours (after backtracking from finished nodes) to one of them.
func validateDFS(v *view, g *Graph, a Answer) error {
	es, err := edgeList(v, a)
	if err != nil {
		return err
	}
	s := param(g, "source")
	seen := make([]bool, v.n+1)
	seen[s] = true
	stack := []int{s}
	open := func(x int) bool {
		for _, y := range v.out[x] {
			if !seen[y] {
				return true
			}
		}
		return false
	}
	for i, e := range es {
		p, c := e[0], e[1]
		for len(stack) > 0 && stack[len(stack)-1] != p && !(!v.directed && stack[len(stack)-1] == c) {
			top := stack[len(stack)-1]
			if open(top) {
				return fmt.Errorf("edge %d (%d, %d): DFS must continue from node %d, which has undiscovered neighbours", i+1, e[0], e[1], top)
			}
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 {
			return fmt.Errorf("edge %d (%d, %d) does not leave a node on the DFS stack", i+1, e[0], e[1])
		}
		if !v.directed && stack[len(stack)-1] == c {
			p, c = c, p
		}
		if seen[c] {
			return fmt.Errorf("edge %d (%d, %d) reaches an already discovered node", i+1, e[0], e[1])
		}
		seen[c] = true
		stack = append(stack, c)
	}
	for _, x := range stack {
		if open(x) {
			return fmt.Errorf("sequence stops while node %d has undiscovered neighbours", x)
		}
	}
	return nil
}

func validateSpanning(v *view, g *Graph, a Answer, weighted bool) error {
	es, err := edgeList(v, a)
	if err != nil {
		return err
	}
	uf := newUnionFind(v.n)
	w := 0.0
	for _, e := range es {
		if !uf.union(e[0], e[1]) {
			return fmt.Errorf("edge (%d, %d) closes a cycle", e[0], e[1])
		}
		w += v.w[e[0]][e[1]]
	}
	best, bw := v.mstEdges()
	if len(es) != len(best) {
		return fmt.Errorf("%d edges do not span the graph; a spanning tree (forest) has %d", len(es), len(best))
	}
	if weighted && math.Abs(w-bw) > 1e-9*max(1, bw) {
		return fmt.Errorf("total weight %g; the minimum is %g", w, bw)
	}
	return nil
}

func validateMatching(v *view, _ *Graph, a Answer) error {
	es, err := edgeList(v, a)
	if err != nil {
		return err
	}
	used := map[int]bool{}
	for _, e := range es {
		if used[e[0]] || used[e[1]] {
			return fmt.Errorf("edge (%d, %d) shares a node with another matched edge", e[0], e[1])
		}
		used[e[0]], used[e[1]] = true, true
	}
	if best := v.matchingSize(); len(es) != best {
		return fmt.Errorf("matching has %d edges; the maximum is %d", len(es), best)
	}
	return nil
}

func validateEdgeCover(v *view, _ *Graph, a Answer) error {
	es, err := edgeList(v, a)
	if err != nil {
		return err
	}
	cov := map[int]bool{}
	for _, e := range es {
		cov[e[0]], cov[e[1]] = true, true
	}
	for x := 1; x <= v.n; x++ {
		if !cov[x] {
			return fmt.Errorf("node %d is not covered", x)
		}
	}
	if best := v.n - v.matchingSize(); len(es) != best {
		return fmt.Errorf("cover has %d edges; the minimum is %d", len(es), best)
	}
	return nil
}
