package graphtext

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// MakeInstance draws one synthetic instance of a task from seed: an
// Erdős-like graph from [Generate], shaped the way the task needs (directed,
// weighted, bipartite, a DAG, a tournament, a complete graph for the TSP,
// about half positive and half negative instances for the yes/no tasks),
// with the task's parameters drawn at random. The graph is marked
// [Synthetic]. opts bounds the sizes (see [GenOptions]; zero means 5–35
// nodes).
func MakeInstance(t *Task, seed uint64, opts GenOptions) (*Graph, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x696e7374616e6365))
	for attempt := 0; attempt < 50; attempt++ {
		g, err := makeInstance(t, r, o)
		if err != nil {
			return nil, err
		}
		if g == nil {
			continue
		}
		if g.Params == nil {
			g.Params = map[string]int{}
		}
		g.Params[SyntheticParam] = 1
		if err := t.Check(g); err != nil {
			continue
		}
		if _, err := t.Truth(g); err != nil {
			continue
		}
		if g1NeedsConnected[t.Name] && newView(g).components() != 1 {
			// G1's checker is not defined on these graphs: redraw.
			continue
		}
		return g, nil
	}
	return nil, fmt.Errorf("graphtext: could not draw a valid %s instance from seed %d in 50 attempts", t.Name, seed)
}

// g1NeedsConnected lists the tasks whose G1 checker needs a connected
// graph: a spanning tree must span the whole graph (on a disconnected one
// no answer passes, the right spanning forest included), and the bipartite
// matching checker raises AmbiguousSolution. MakeInstance redraws a
// disconnected graph of these tasks (a rejection step that leaves every
// connected draw, and every other task, as it was).
var g1NeedsConnected = map[string]bool{
	"minimum_spanning_tree":          true,
	"weighted_minimum_spanning_tree": true,
	"bipartite_maximum_matching":     true,
}

// MakeInstances draws count instances of a task; instance i uses
// SetSeed(seed, i).
func MakeInstances(t *Task, seed uint64, count int, opts GenOptions) ([]*Graph, error) {
	if count < 0 {
		return nil, fmt.Errorf("graphtext: instance count %d is negative", count)
	}
	out := make([]*Graph, count)
	for i := range out {
		g, err := MakeInstance(t, SetSeed(seed, i), opts)
		if err != nil {
			return nil, err
		}
		out[i] = g
	}
	return out, nil
}

func makeInstance(t *Task, r *rand.Rand, o GenOptions) (*Graph, error) {
	base := o
	if t.Connected || t.Name == "shortest_path" || t.Name == "weighted_shortest_path" {
		base.Connectivity = Connected
	}
	g, err := Generate(r.Uint64(), base)
	if err != nil {
		return nil, err
	}
	n := g.N
	pairs := func(es []Edge) [][2]int {
		out := make([][2]int, len(es))
		for i, e := range es {
			out[i] = [2]int{e.U, e.V}
		}
		return out
	}
	yes := r.IntN(2) == 0
	switch t.Name {
	case "is_regular":
		if yes {
			n = 4 + r.IntN(min(o.MaxNodes, 16)-3)
			g = circulant(n, r)
		}
	case "is_eularian":
		if yes {
			g = eulerian(n, r)
		}
	case "is_bipartite":
		if yes {
			g = bipartite(n, r, true, false)
		}
	case "bipartite_maximum_matching":
		g = bipartite(n, r, false, true)
	case "has_cycle":
		if yes {
			v := newView(g)
			es, _ := v.mstEdges()
			g = fromPairs(n, es, false)
		}
	case "is_tournament":
		n = 4 + r.IntN(7)
		g = tournament(n, r)
		if !yes {
			es := slices.Clone(g.Edges)
			i := r.IntN(len(es))
			if r.IntN(2) == 0 {
				es = slices.Delete(es, i, i+1)
			} else {
				es = append(es, Edge{U: es[i].V, V: es[i].U})
			}
			g = &Graph{N: n, Directed: true, Edges: es}
		}
	case "hamiltonian_path":
		n = 5 + r.IntN(8)
		g = tournament(n, r)
	case "topological_sort":
		order := r.Perm(n)
		es := pairs(g.Edges)
		for i, e := range es {
			if order[e[0]-1] > order[e[1]-1] {
				es[i] = [2]int{e[1], e[0]}
			}
		}
		g = fromPairs(n, es, true)
	case "strongly_connected_number", "maximum_flow":
		var es [][2]int
		for _, e := range pairs(g.Edges) {
			if r.IntN(2) == 0 {
				e = [2]int{e[1], e[0]}
			}
			es = append(es, e)
			if r.Float64() < 0.25 {
				es = append(es, [2]int{e[1], e[0]})
			}
		}
		g = fromPairs(n, es, true)
	case "traveling_salesman_problem":
		n = 4 + r.IntN(5)
		var es [][2]int
		for a := 1; a <= n; a++ {
			for b := a + 1; b <= n; b++ {
				es = append(es, [2]int{a, b})
			}
		}
		g = fromPairs(n, es, false)
	}
	if t.Weighted {
		g.Weighted = true
		for i := range g.Edges {
			g.Edges[i].W = float64(1 + r.IntN(10))
		}
		if t.Name == "traveling_salesman_problem" {
			for i := range g.Edges {
				g.Edges[i].W = float64(1 + r.IntN(20))
			}
		}
	}
	g.Params = map[string]int{}
	switch len(t.Params) {
	case 1:
		g.Params[t.Params[0]] = 1 + r.IntN(g.N)
	case 2:
		if g.N < 2 {
			return nil, nil
		}
		a, b := 1+r.IntN(g.N), 1+r.IntN(g.N-1)
		if b >= a {
			b++
		}
		if t.Name == "edge_existence" && yes && len(g.Edges) > 0 {
			e := g.Edges[r.IntN(len(g.Edges))]
			a, b = e.U, e.V
		}
		if t.Name == "maximum_flow" { // prefer a reachable sink
			d := newView(g).bfsDist(a, false)
			var reach []int
			for x := 1; x <= g.N; x++ {
				if d[x] > 0 {
					reach = append(reach, x)
				}
			}
			if len(reach) > 0 && r.Float64() < 0.9 {
				b = reach[r.IntN(len(reach))]
			}
		}
		g.Params[t.Params[0]], g.Params[t.Params[1]] = a, b
	}
	return g, nil
}

// fromPairs builds a graph from edge pairs in Erdős-like order.
func fromPairs(n int, es [][2]int, directed bool) *Graph {
	g := &Graph{N: n, Directed: directed}
	for _, e := range erdosLikeOrder(n, es) {
		g.Edges = append(g.Edges, Edge{U: e[0], V: e[1]})
	}
	return g
}

// erdosLikeOrder lists edges in the order of §1.8 of the notes: nodes in
// BFS discovery order from node 1 (then the smallest unvisited id), each
// node listing its not-yet-listed edges. Arc directions are kept.
func erdosLikeOrder(n int, es [][2]int) [][2]int {
	inc := make([][]int, n+1) // edge indices per node, in input order
	for i, e := range es {
		inc[e[0]] = append(inc[e[0]], i)
		if e[1] != e[0] {
			inc[e[1]] = append(inc[e[1]], i)
		}
	}
	seen := make([]bool, n+1)
	used := make([]bool, len(es))
	var out [][2]int
	for s := 1; s <= n; s++ {
		if seen[s] {
			continue
		}
		seen[s] = true
		q := []int{s}
		for len(q) > 0 {
			x := q[0]
			q = q[1:]
			for _, i := range inc[x] {
				e := es[i]
				y := e[0] + e[1] - x
				if !seen[y] {
					seen[y] = true
					q = append(q, y)
				}
				if !used[i] {
					used[i] = true
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// circulant makes a random regular graph: a circulant graph C_n(offsets)
// under a random labeling.
func circulant(n int, r *rand.Rand) *Graph {
	label := r.Perm(n)
	k := 1 + r.IntN(max(1, (n-1)/2))
	offs := r.Perm((n - 1) / 2)[:min(k, (n-1)/2)]
	has := map[[2]int]bool{}
	var es [][2]int
	for _, o := range offs {
		for i := 0; i < n; i++ {
			a, b := label[i]+1, label[(i+o+1)%n]+1
			if a > b {
				a, b = b, a
			}
			if !has[[2]int{a, b}] {
				has[[2]int{a, b}] = true
				es = append(es, [2]int{a, b})
			}
		}
	}
	return fromPairs(n, es, false)
}

// eulerian makes a connected graph with all degrees even: a Hamiltonian
// cycle plus edge-disjoint triangles.
func eulerian(n int, r *rand.Rand) *Graph {
	if n < 3 {
		n = 3
	}
	p := r.Perm(n)
	has := map[[2]int]bool{}
	var es [][2]int
	add := func(a, b int) {
		if a > b {
			a, b = b, a
		}
		has[[2]int{a, b}] = true
		es = append(es, [2]int{a, b})
	}
	free := func(a, b int) bool { return a != b && !has[[2]int{min(a, b), max(a, b)}] }
	for i := range p {
		add(p[i]+1, p[(i+1)%n]+1)
	}
	for k := r.IntN(n/2 + 1); k > 0; k-- {
		a, b, c := 1+r.IntN(n), 1+r.IntN(n), 1+r.IntN(n)
		if free(a, b) && free(b, c) && free(a, c) {
			add(a, b)
			add(b, c)
			add(a, c)
		}
	}
	return fromPairs(n, es, false)
}

// bipartite makes a random bipartite graph; with shuffled false the parts
// are the contiguous blocks 1..k and k+1..n (as in the Erdős matching
// task), otherwise the labels are random. With connected, components are
// then joined by one random edge each between the parts (see
// connectBipartite); a connected draw is unchanged.
func bipartite(n int, r *rand.Rand, shuffled, connected bool) *Graph {
	if n < 2 {
		n = 2
	}
	k := 1 + r.IntN(n-1)
	label := make([]int, n)
	for i := range label {
		label[i] = i
	}
	if shuffled {
		label = r.Perm(n)
	}
	p := 0.15 + 0.35*r.Float64()
	var es [][2]int
	for a := 0; a < k; a++ {
		for b := k; b < n; b++ {
			if r.Float64() < p {
				es = append(es, [2]int{label[a] + 1, label[b] + 1})
			}
		}
	}
	r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	if connected {
		left := make([]bool, n+1)
		for a := 0; a < k; a++ {
			left[label[a]+1] = true
		}
		es = connectBipartite(n, es, left, r)
	}
	return fromPairs(n, es, false)
}

// connectBipartite joins the components of a bipartite graph (parts given
// by left) with one edge each between the parts: the component of node 1
// first, then the components with a node on the right, then the rest (lone
// left nodes), each linked from a random node of it to a random node of
// the other part already joined. It appends the new edges.
func connectBipartite(n int, es [][2]int, left []bool, r *rand.Rand) [][2]int {
	uf := newUnionFind(n)
	for _, e := range es {
		uf.union(e[0], e[1])
	}
	comps := map[int][]int{}
	var roots []int
	for v := 1; v <= n; v++ {
		root := uf.find(v)
		if _, ok := comps[root]; !ok {
			roots = append(roots, root)
		}
		comps[root] = append(comps[root], v)
	}
	if len(roots) < 2 {
		return es
	}
	hasRight := func(c []int) bool {
		return slices.ContainsFunc(c, func(v int) bool { return !left[v] })
	}
	order := []int{roots[0]}
	for _, want := range []bool{true, false} {
		for _, root := range roots[1:] {
			if hasRight(comps[root]) == want {
				order = append(order, root)
			}
		}
	}
	joined := slices.Clone(comps[order[0]])
	for _, root := range order[1:] {
		c := comps[root]
		var pairs [][2]int // (node of c, node of joined) on opposite sides
		for _, x := range c {
			for _, y := range joined {
				if left[x] != left[y] {
					pairs = append(pairs, [2]int{x, y})
				}
			}
		}
		if len(pairs) == 0 {
			continue // cannot happen: the order guarantees a partner
		}
		p := pairs[r.IntN(len(pairs))]
		es = append(es, p)
		joined = append(joined, c...)
	}
	return es
}

// tournament makes a random tournament on n nodes.
func tournament(n int, r *rand.Rand) *Graph {
	var es [][2]int
	for a := 1; a <= n; a++ {
		for b := a + 1; b <= n; b++ {
			if r.IntN(2) == 0 {
				es = append(es, [2]int{a, b})
			} else {
				es = append(es, [2]int{b, a})
			}
		}
	}
	r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	return fromPairs(n, es, true)
}
