package graphtext

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// view is a graph prepared for the task algorithms: 1-based sorted
// out-/in-neighbour lists, an adjacency matrix and weights.
type view struct {
	n        int
	directed bool
	out, in  [][]int     // sorted; for undirected graphs out == in == neighbours
	adj      [][]bool    // adj[u][v]: arc u→v (symmetric when undirected)
	w        [][]float64 // w[u][v]: weight (1 for unweighted graphs)
}

func newView(g *Graph) *view {
	v := &view{n: g.N, directed: g.Directed}
	v.out = make([][]int, g.N+1)
	v.in = make([][]int, g.N+1)
	v.adj = make([][]bool, g.N+1)
	v.w = make([][]float64, g.N+1)
	for i := range v.adj {
		v.adj[i] = make([]bool, g.N+1)
		v.w[i] = make([]float64, g.N+1)
	}
	for _, e := range g.Edges {
		w := 1.0
		if g.Weighted {
			w = e.W
		}
		v.adj[e.U][e.V] = true
		v.w[e.U][e.V] = w
		if !g.Directed {
			v.adj[e.V][e.U] = true
			v.w[e.V][e.U] = w
		}
	}
	for a := 1; a <= g.N; a++ {
		for b := 1; b <= g.N; b++ {
			if v.adj[a][b] {
				v.out[a] = append(v.out[a], b)
				v.in[b] = append(v.in[b], a)
			}
		}
	}
	return v
}

// und returns the undirected neighbour set of u (successors ∪ predecessors).
func (v *view) und(u int) []int {
	if !v.directed {
		return v.out[u]
	}
	var s []int
	for x := 1; x <= v.n; x++ {
		if v.adj[u][x] || v.adj[x][u] {
			s = append(s, x)
		}
	}
	return s
}

// degree is NetworkX's G.degree(u): in+out for directed graphs.
func (v *view) degree(u int) int {
	if v.directed {
		return len(v.out[u]) + len(v.in[u])
	}
	return len(v.out[u])
}

// bfsDist returns hop distances from s along out-arcs (-1: unreachable).
func (v *view) bfsDist(s int, rev bool) []int {
	d := make([]int, v.n+1)
	for i := range d {
		d[i] = -1
	}
	d[s] = 0
	q := []int{s}
	nb := v.out
	if rev {
		nb = v.in
	}
	for len(q) > 0 {
		x := q[0]
		q = q[1:]
		for _, y := range nb[x] {
			if d[y] < 0 {
				d[y] = d[x] + 1
				q = append(q, y)
			}
		}
	}
	return d
}

// allDist returns the hop distance matrix.
func (v *view) allDist() [][]int {
	d := make([][]int, v.n+1)
	for s := 1; s <= v.n; s++ {
		d[s] = v.bfsDist(s, false)
	}
	return d
}

// components returns the number of (weakly) connected components.
func (v *view) components() int {
	seen := make([]bool, v.n+1)
	c := 0
	for s := 1; s <= v.n; s++ {
		if seen[s] {
			continue
		}
		c++
		stack := []int{s}
		seen[s] = true
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, y := range v.und(x) {
				if !seen[y] {
					seen[y] = true
					stack = append(stack, y)
				}
			}
		}
	}
	return c
}

var errDisconnected = errors.New("graph is not connected; the task needs a connected graph")

// eccentricities returns ecc[u] for a connected undirected graph.
func (v *view) eccentricities() ([]int, [][]int, error) {
	d := v.allDist()
	ecc := make([]int, v.n+1)
	for u := 1; u <= v.n; u++ {
		for x := 1; x <= v.n; x++ {
			if d[u][x] < 0 {
				return nil, nil, errDisconnected
			}
			ecc[u] = max(ecc[u], d[u][x])
		}
	}
	return ecc, d, nil
}

// dijkstra returns weighted distances from s (+Inf: unreachable) and
// predecessors.
func (v *view) dijkstra(s int) []float64 {
	d := make([]float64, v.n+1)
	done := make([]bool, v.n+1)
	for i := range d {
		d[i] = math.Inf(1)
	}
	d[s] = 0
	for {
		x := -1
		for i := 1; i <= v.n; i++ {
			if !done[i] && !math.IsInf(d[i], 1) && (x < 0 || d[i] < d[x]) {
				x = i
			}
		}
		if x < 0 {
			return d
		}
		done[x] = true
		for _, y := range v.out[x] {
			if nd := d[x] + v.w[x][y]; nd < d[y] {
				d[y] = nd
			}
		}
	}
}

// hasCycle: undirected — any cycle; directed — a directed cycle.
func (v *view) hasCycle() bool {
	if !v.directed {
		m := 0
		for u := 1; u <= v.n; u++ {
			m += len(v.out[u])
		}
		return m/2 > v.n-v.components()
	}
	_, ok := v.topoOrder()
	return !ok
}

// topoOrder returns Kahn's order (smallest available first); ok is false
// when the graph has a directed cycle.
func (v *view) topoOrder() ([]int, bool) {
	indeg := make([]int, v.n+1)
	for u := 1; u <= v.n; u++ {
		indeg[u] = len(v.in[u])
	}
	var order []int
	for len(order) < v.n {
		x := -1
		for u := 1; u <= v.n; u++ {
			if indeg[u] == 0 {
				x = u
				break
			}
		}
		if x < 0 {
			return nil, false
		}
		indeg[x] = -1
		order = append(order, x)
		for _, y := range v.out[x] {
			indeg[y]--
		}
	}
	return order, true
}

// scc returns the number of strongly connected components (Tarjan).
func (v *view) scc() int {
	index := make([]int, v.n+1)
	low := make([]int, v.n+1)
	on := make([]bool, v.n+1)
	for i := range index {
		index[i] = -1
	}
	var stack []int
	next, count := 0, 0
	var visit func(u int)
	visit = func(u int) {
		index[u], low[u] = next, next
		next++
		stack = append(stack, u)
		on[u] = true
		for _, w := range v.out[u] {
			if index[w] < 0 {
				visit(w)
				low[u] = min(low[u], low[w])
			} else if on[w] {
				low[u] = min(low[u], index[w])
			}
		}
		if low[u] == index[u] {
			count++
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[w] = false
				if w == u {
					break
				}
			}
		}
	}
	for u := 1; u <= v.n; u++ {
		if index[u] < 0 {
			visit(u)
		}
	}
	return count
}

// maxFlow is Edmonds–Karp on capacity matrix c (1-based, n nodes).
func maxFlow(c [][]float64, n, s, t int) float64 {
	r := make([][]float64, n+1)
	for i := range r {
		r[i] = slices.Clone(c[i])
	}
	total := 0.0
	for {
		prev := make([]int, n+1)
		for i := range prev {
			prev[i] = -1
		}
		prev[s] = s
		q := []int{s}
		for len(q) > 0 && prev[t] < 0 {
			x := q[0]
			q = q[1:]
			for y := 1; y <= n; y++ {
				if prev[y] < 0 && r[x][y] > 1e-12 {
					prev[y] = x
					q = append(q, y)
				}
			}
		}
		if prev[t] < 0 {
			return total
		}
		f := math.Inf(1)
		for y := t; y != s; y = prev[y] {
			f = min(f, r[prev[y]][y])
		}
		for y := t; y != s; y = prev[y] {
			r[prev[y]][y] -= f
			r[y][prev[y]] += f
		}
		total += f
	}
}

// localNodeConnectivity is NetworkX's local_node_connectivity: a max flow
// in the auxiliary digraph where every node i is split into iA→iB
// (capacity 1) and every arc u→v becomes uB→vA (capacity 1), from sB to tA.
// A direct edge s–t counts as one path.
func (v *view) localNodeConnectivity(s, t int) int {
	n := 2 * v.n
	A := func(i int) int { return 2*i - 1 }
	B := func(i int) int { return 2 * i }
	c := make([][]float64, n+1)
	for i := range c {
		c[i] = make([]float64, n+1)
	}
	for i := 1; i <= v.n; i++ {
		c[A(i)][B(i)] = 1
		for _, j := range v.out[i] {
			c[B(i)][A(j)] = 1
		}
	}
	return int(math.Round(maxFlow(c, n, B(s), A(t))))
}

// maxMatching returns a maximum-cardinality matching of the undirected
// graph (Edmonds' blossom algorithm); mate[v] = 0 for unmatched v.
func (v *view) maxMatching() []int {
	n := v.n
	mate := make([]int, n+1)
	p := make([]int, n+1)
	base := make([]int, n+1)
	used := make([]bool, n+1)
	blossom := make([]bool, n+1)
	lca := func(a, b int) int {
		seen := make([]bool, n+1)
		for {
			a = base[a]
			seen[a] = true
			if mate[a] == 0 {
				break
			}
			a = p[mate[a]]
		}
		for {
			b = base[b]
			if seen[b] {
				return b
			}
			b = p[mate[b]]
		}
	}
	markPath := func(x, b, child int) {
		for base[x] != b {
			blossom[base[x]], blossom[base[mate[x]]] = true, true
			p[x] = child
			child = mate[x]
			x = p[mate[x]]
		}
	}
	findPath := func(root int) int {
		for i := 0; i <= n; i++ {
			used[i], p[i], base[i] = false, 0, i
		}
		used[root] = true
		q := []int{root}
		for len(q) > 0 {
			x := q[0]
			q = q[1:]
			for _, y := range v.out[x] {
				if base[x] == base[y] || mate[x] == y {
					continue
				}
				if y == root || (mate[y] != 0 && p[mate[y]] != 0) {
					cb := lca(x, y)
					for i := range blossom {
						blossom[i] = false
					}
					markPath(x, cb, y)
					markPath(y, cb, x)
					for i := 1; i <= n; i++ {
						if blossom[base[i]] {
							base[i] = cb
							if !used[i] {
								used[i] = true
								q = append(q, i)
							}
						}
					}
				} else if p[y] == 0 {
					p[y] = x
					if mate[y] == 0 {
						return y
					}
					used[mate[y]] = true
					q = append(q, mate[y])
				}
			}
		}
		return 0
	}
	for r := 1; r <= n; r++ {
		if mate[r] != 0 {
			continue
		}
		if y := findPath(r); y != 0 {
			for y != 0 {
				py := p[y]
				ppy := mate[py]
				mate[y], mate[py] = py, y
				y = ppy
			}
		}
	}
	return mate
}

// matchingSize is the size of a maximum matching.
func (v *view) matchingSize() int {
	c := 0
	for u, m := range v.maxMatching() {
		if m > u {
			c++
		}
	}
	return c
}

// minVertexCoverSize returns a minimum vertex cover (as the complement of a
// maximum independent set found by branch and bound; n ≤ 64).
func (v *view) minVertexCover() ([]int, error) {
	if v.n > 64 {
		return nil, fmt.Errorf("minimum vertex cover is limited to 64 nodes, graph has %d", v.n)
	}
	nb := make([]uint64, v.n)
	for u := 1; u <= v.n; u++ {
		for _, x := range v.und(u) {
			nb[u-1] |= 1 << (x - 1)
		}
	}
	var best uint64
	bestSize := -1
	var rec func(cand, chosen uint64, size int)
	rec = func(cand, chosen uint64, size int) {
		if size+bits.OnesCount64(cand) <= bestSize {
			return
		}
		if cand == 0 {
			best, bestSize = chosen, size
			return
		}
		// Take every node of degree ≤ 1 in cand greedily (safe), else branch
		// on the node of largest degree.
		pick, pickDeg := -1, -1
		for c := cand; c != 0; c &= c - 1 {
			i := bits.TrailingZeros64(c)
			d := bits.OnesCount64(nb[i] & cand)
			if d <= 1 {
				rec(cand&^(1<<i)&^nb[i], chosen|1<<i, size+1)
				return
			}
			if d > pickDeg {
				pick, pickDeg = i, d
			}
		}
		rec(cand&^(1<<pick)&^nb[pick], chosen|1<<pick, size+1)
		rec(cand&^(1<<pick), chosen, size)
	}
	all := uint64(1)<<v.n - 1
	if v.n == 64 {
		all = ^uint64(0)
	}
	rec(all, 0, 0)
	var cover []int
	for u := 1; u <= v.n; u++ {
		if best&(1<<(u-1)) == 0 {
			cover = append(cover, u)
		}
	}
	return cover, nil
}

// mstWeight returns the weight and edge count of a minimum spanning forest
// (Kruskal).
func (v *view) mstEdges() ([][2]int, float64) {
	type we struct {
		u, x int
		w    float64
	}
	var es []we
	for u := 1; u <= v.n; u++ {
		for _, x := range v.out[u] {
			if u < x {
				es = append(es, we{u, x, v.w[u][x]})
			}
		}
	}
	slices.SortStableFunc(es, func(a, b we) int {
		switch {
		case a.w < b.w:
			return -1
		case a.w > b.w:
			return 1
		}
		return 0
	})
	uf := newUnionFind(v.n)
	var out [][2]int
	total := 0.0
	for _, e := range es {
		if uf.union(e.u, e.x) {
			out = append(out, [2]int{e.u, e.x})
			total += e.w
		}
	}
	canonEdges(out, false)
	return out, total
}

type unionFind []int

func newUnionFind(n int) unionFind {
	u := make(unionFind, n+1)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u unionFind) find(x int) int {
	for u[x] != x {
		u[x] = u[u[x]]
		x = u[x]
	}
	return x
}

func (u unionFind) union(a, b int) bool {
	a, b = u.find(a), u.find(b)
	if a == b {
		return false
	}
	u[a] = b
	return true
}

// bridges returns the bridges, (min, max), sorted.
func (v *view) bridges() [][2]int {
	disc := make([]int, v.n+1)
	low := make([]int, v.n+1)
	t := 0
	var out [][2]int
	var dfs func(u, parent int)
	dfs = func(u, parent int) {
		t++
		disc[u], low[u] = t, t
		for _, x := range v.out[u] {
			if disc[x] == 0 {
				dfs(x, u)
				low[u] = min(low[u], low[x])
				if low[x] > disc[u] {
					out = append(out, [2]int{u, x})
				}
			} else if x != parent {
				low[u] = min(low[u], disc[x])
			}
		}
	}
	for u := 1; u <= v.n; u++ {
		if disc[u] == 0 {
			dfs(u, 0)
		}
	}
	canonEdges(out, false)
	return out
}

// tsp returns the cost of an optimal tour of a complete weighted graph
// (Held–Karp, n ≤ 16).
func (v *view) tsp() (float64, error) {
	n := v.n
	if n > 16 {
		return 0, fmt.Errorf("traveling salesman ground truth is limited to 16 nodes, graph has %d", n)
	}
	if n < 2 {
		return 0, nil
	}
	for a := 1; a <= n; a++ {
		for b := 1; b <= n; b++ {
			if a != b && !v.adj[a][b] {
				return 0, fmt.Errorf("traveling salesman needs a complete graph; (%d, %d) is missing", a, b)
			}
		}
	}
	// dp[mask][j]: cheapest path from node 1 through mask (over nodes 2..n) ending at j.
	m := n - 1
	dp := make([][]float64, 1<<m)
	for i := range dp {
		dp[i] = make([]float64, m)
		for j := range dp[i] {
			dp[i][j] = math.Inf(1)
		}
	}
	for j := 0; j < m; j++ {
		dp[1<<j][j] = v.w[1][j+2]
	}
	for mask := 1; mask < 1<<m; mask++ {
		for j := 0; j < m; j++ {
			if mask&(1<<j) == 0 || math.IsInf(dp[mask][j], 1) {
				continue
			}
			for k := 0; k < m; k++ {
				if mask&(1<<k) != 0 {
					continue
				}
				if c := dp[mask][j] + v.w[j+2][k+2]; c < dp[mask|1<<k][k] {
					dp[mask|1<<k][k] = c
				}
			}
		}
	}
	best := math.Inf(1)
	for j := 0; j < m; j++ {
		best = min(best, dp[1<<m-1][j]+v.w[j+2][1])
	}
	return best, nil
}

// hamiltonianPath returns a Hamiltonian path (directed arcs for directed
// graphs) by DP over subsets (n ≤ 20); ok is false when none exists.
func (v *view) hamiltonianPath() ([]int, bool, error) {
	n := v.n
	if n > 20 {
		return nil, false, fmt.Errorf("hamiltonian path ground truth is limited to 20 nodes, graph has %d", n)
	}
	reach := make([][]bool, 1<<n) // reach[mask][j]: a path covering mask ends at j
	from := make([][]int8, 1<<n)
	for i := range reach {
		reach[i] = make([]bool, n)
		from[i] = make([]int8, n)
	}
	for j := 0; j < n; j++ {
		reach[1<<j][j] = true
		from[1<<j][j] = -1
	}
	for mask := 1; mask < 1<<n; mask++ {
		for j := 0; j < n; j++ {
			if !reach[mask][j] {
				continue
			}
			for k := 0; k < n; k++ {
				if mask&(1<<k) == 0 && v.adj[j+1][k+1] && !reach[mask|1<<k][k] {
					reach[mask|1<<k][k] = true
					from[mask|1<<k][k] = int8(j)
				}
			}
		}
	}
	full := 1<<n - 1
	for j := 0; j < n; j++ {
		if reach[full][j] {
			var path []int
			mask, cur := full, j
			for cur >= 0 {
				path = append(path, cur+1)
				prev := int(from[mask][cur])
				mask &^= 1 << cur
				cur = prev
			}
			slices.Reverse(path)
			return path, true, nil
		}
	}
	return nil, false, nil
}
