package salsa

import (
	"fmt"
	"math"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/npsort"
)

// The algorithms run on a Graph's edge list: each step touches the edges
// of the nodes it works on, never all n² pairs. bfs, dfs, dijkstra and
// mst_prim record exactly the hints of lib/clrs's dense versions (which
// reproduce dm-clrs's, the code SALSA-CLRS runs for them), edge-located
// ones per edge; fast_mis and eccentricity are SALSA-CLRS's own.

// run runs algo; src is the source (ignored by dfs and fast_mis), draw
// the random numbers of fast_mis; hints says whether to keep the hints.
func run(algo string, g *Graph, src int, draw func() float64, hints bool) (*Trajectory, error) {
	if err := checkAlgorithm(algo); err != nil {
		return nil, err
	}
	if g == nil || g.N < 1 || len(g.start) != g.N+1 {
		return nil, fmt.Errorf("salsa: %s: the graph is empty or not built by this package (use NewGraph)", algo)
	}
	if HasSource(algo) && (src < 0 || src >= g.N) {
		return nil, fmt.Errorf("salsa: %s: source node %d is out of range; want a node in [0, %d)", algo, src, g.N)
	}
	var t *Trajectory
	var err error
	switch algo {
	case "bfs":
		t = bfs(g, src, hints)
	case "dfs":
		t = dfs(g, hints)
	case "dijkstra", "mst_prim":
		t, err = greedyTree(algo, g, src, hints)
	case "fast_mis":
		if draw == nil {
			return nil, fmt.Errorf("salsa: fast_mis needs a source of random numbers")
		}
		t = fastMIS(g, draw, hints)
	case "eccentricity":
		t, err = eccentricity(g, src, hints)
	}
	if err != nil {
		return nil, fmt.Errorf("salsa: %s: %w", algo, err)
	}
	return t, nil
}

// BFS runs CLRS-30's breadth-first search from s, one frontier per step.
// Output pi: each reached node points to the lowest-indexed node of the
// previous frontier adjacent to it; s points to itself. Hints: reach_h
// (the nodes reached so far) and pi_h.
func BFS(g *Graph, s int) (*Trajectory, error) { return run("bfs", g, s, nil, true) }

// DFS runs CLRS-30's depth-first search from every white node in index
// order, neighbours in index order (one tree, rooted at node 0, on a
// connected graph). Output pi: the DFS-forest parents. Hints: pi_h, color
// (white/grey/black, categorical), d and f (discovery and finishing times,
// 0.01 a tick), s_prev (the stack as predecessor pointers), s, u, v,
// s_last (mask_one), time (graph). One step when a tree starts, then one
// per discovery, tree edge and finish: 3n on a connected graph.
func DFS(g *Graph) (*Trajectory, error) { return run("dfs", g, -1, nil, true) }

// Dijkstra runs CLRS-30's Dijkstra from s. Output pi: the shortest-path
// tree. Hints: pi_h, d (tentative distances), mark (settled), in_queue, u
// (the node just settled). Ties between queued nodes of equal distance
// are broken as numpy's argsort breaks them (as dm-clrs).
func Dijkstra(g *Graph, s int) (*Trajectory, error) { return run("dijkstra", g, s, nil, true) }

// MSTPrim runs CLRS-30's Prim from s. Output pi: the minimum spanning
// tree's parents. Hints: pi_h, key, mark, in_queue, u.
func MSTPrim(g *Graph, s int) (*Trajectory, error) { return run("mst_prim", g, s, nil, true) }

// FastMIS runs SALSA-CLRS's randomised maximal independent set (Luby's
// algorithm, SALSA-CLRS's fast_mis_2): in each round every live node takes
// a fresh random number from draw (in node order, n per round, dead nodes
// included); a live node whose number is below those of all its live
// neighbours (on a tie, the node with the larger index wins) joins the
// set; the new members and their neighbours die, and their edges are
// removed. Rounds go on while a node lives. Two hint steps per round:
// the state before it (phase_h 0) and after it (phase_h 1). Inputs: pos,
// adj, and randomness [T, N] (each round's numbers at both its steps).
// Output inmis. Hints: Ain_h (the edges between live nodes, per edge),
// alive_h, phase_h, inmis_h.
func FastMIS(g *Graph, draw func() float64) (*Trajectory, error) {
	return run("fast_mis", g, -1, draw, true)
}

// Eccentricity runs SALSA-CLRS's distributed flood-echo computation of
// the eccentricity of s: s floods messages carrying the hop count; a node
// that has no unvisited neighbour left echoes its hop count back along the
// flood edges, each node echoing the maximum it received once all its
// flood children have answered; the run ends when s has heard from all
// its children. Output eccentricity (graph scalar). Hints: visited_h,
// msgphase_h (echo phase), floodstate_h, echostate_h (node scalars),
// tree_h (the flood edges still waiting for an echo, per edge), leaf_h,
// eccentricity_h (s's echo state).
func Eccentricity(g *Graph, s int) (*Trajectory, error) { return run("eccentricity", g, s, nil, true) }

func bfs(g *Graph, s int, hints bool) *Trajectory {
	n := g.N
	r := newRecorder("bfs", g, hints)
	r.graphInputs(s, true)
	hReach, hPi := r.hint("reach_h"), r.hint("pi_h")
	reach, prev := make([]bool, n), make([]bool, n)
	pi := arange(n)
	reach[s] = true
	for {
		copy(prev, reach)
		r.step()
		r.bools(hReach, prev)
		r.ints(hPi, pi)
		changed := false
		for i := range n {
			if !prev[i] {
				continue
			}
			lo, hi := g.Row(i)
			for e := lo; e < hi; e++ {
				if g.A[e] <= 0 {
					continue
				}
				j := int(g.Dst[e])
				if pi[j] == j && j != s {
					pi[j] = i
				}
				if !reach[j] {
					reach[j], changed = true, true
				}
			}
		}
		if !changed {
			break
		}
	}
	r.nodes("pi", clrs.Int64, intsToFloats(pi))
	return r.finish()
}

func dfs(g *Graph, hints bool) *Trajectory {
	n := g.N
	r := newRecorder("dfs", g, hints)
	r.graphInputs(-1, true)
	hPi, hColor, hD, hF := r.hint("pi_h"), r.hint("color"), r.hint("d"), r.hint("f")
	hSPrev, hS, hU, hV, hSLast, hTime := r.hint("s_prev"), r.hint("s"), r.hint("u"), r.hint("v"), r.hint("s_last"), r.hint("time")
	pi, sPrev := arange(n), arange(n)
	color := make([]int, n)
	d, f := make([]float64, n), make([]float64, n)
	cursor := make([]int, n) // the next edge of u to look at
	for u := range n {
		cursor[u], _ = g.Row(u)
	}
	time := 0.0
	var s, u, v, sLast int
	push := func() {
		r.step()
		r.ints(hPi, pi)
		r.categorical(hColor, color, 3)
		r.vals(hD, d)
		r.vals(hF, f)
		r.ints(hSPrev, sPrev)
		r.oneHot(hS, s, n)
		r.oneHot(hU, u, n)
		r.oneHot(hV, v, n)
		r.oneHot(hSLast, sLast, n)
		r.scalar(hTime, time)
	}
	for root := range n {
		if color[root] != 0 {
			continue
		}
		s, sLast, u, v = root, root, root, root
		push()
		for {
			u = sLast
			// u reaches the top of the stack: discovered now if it is
			// white, or grey without a discovery time (just pushed).
			if color[u] == 0 || d[u] == 0 {
				time += 0.01
				d[u] = time
				color[u] = 1
				push()
			}
			// The dense version scans u's row from column 0 each time and
			// pushes the first white neighbour; the neighbours before the
			// cursor are no longer white, so the scan resumes there. A row
			// scanned to its end leaves v = n-1, as the dense loop does.
			v = n - 1
			_, hi := g.Row(u)
			for ; cursor[u] < hi; cursor[u]++ {
				e := cursor[u]
				w := int(g.Dst[e])
				if g.A[e] == 0 || color[w] != 0 {
					continue
				}
				v = w
				color[w] = 1
				sPrev[w] = sLast
				sLast = w
				pi[w] = u
				push()
				break
			}
			if sLast == u {
				color[u] = 2
				time += 0.01
				f[u] = time
				push()
				if sPrev[u] == u {
					break
				}
				top := sLast
				sLast = sPrev[top]
				sPrev[top] = top
			}
		}
	}
	r.nodes("pi", clrs.Int64, intsToFloats(pi))
	return r.finish()
}

// greedyTree runs dijkstra or mst_prim: the two differ only in the key
// of a node reached from u over an edge of weight a (d[u] + a, or a).
func greedyTree(algo string, g *Graph, s int, hints bool) (*Trajectory, error) {
	n := g.N
	for e, a := range g.A {
		if a < 0 && algo == "dijkstra" {
			return nil, fmt.Errorf("edge %d→%d has weight %v; dijkstra needs non-negative weights", g.Src[e], g.Dst[e], a)
		}
	}
	r := newRecorder(algo, g, hints)
	r.graphInputs(s, true)
	keyName := "d"
	if algo == "mst_prim" {
		keyName = "key"
	}
	hPi, hKey, hMark, hQ, hU := r.hint("pi_h"), r.hint(keyName), r.hint("mark"), r.hint("in_queue"), r.hint("u")
	key, scratch := make([]float64, n), make([]float64, n)
	mark, inQ := make([]bool, n), make([]bool, n)
	pi := arange(n)
	inQ[s] = true
	push := func(u int) {
		r.step()
		r.ints(hPi, pi)
		r.vals(hKey, key)
		r.bools(hMark, mark)
		r.bools(hQ, inQ)
		r.oneHot(hU, u, n)
	}
	push(s)
	for range n {
		u, err := extractMin(key, inQ, scratch)
		if err != nil {
			return nil, err
		}
		if u < 0 {
			break
		}
		mark[u], inQ[u] = true, false
		lo, hi := g.Row(u)
		for e := lo; e < hi; e++ {
			a := g.A[e]
			v := int(g.Dst[e])
			if a == 0 || mark[v] {
				continue
			}
			k := a
			if algo == "dijkstra" {
				k = key[u] + a
			}
			if !inQ[v] || k < key[v] {
				pi[v], key[v], inQ[v] = u, k, true
			}
		}
		push(u)
	}
	r.nodes("pi", clrs.Int64, intsToFloats(pi))
	return r.finish(), nil
}

// extractMin is dm-clrs's extract-min, np.argsort(key + (1 - in_queue) *
// 1e9)[0], or -1 when the queue is empty (the reference then stops). The
// smallest queued key wins; several equal ones are ordered by numpy's
// argsort of the whole array, as in the reference.
func extractMin(key []float64, inQ []bool, scratch []float64) (int, error) {
	best, ties := -1, false
	outside := math.Inf(1) // the smallest key of a node outside the queue
	for i, q := range inQ {
		if !q {
			outside = min(outside, key[i])
			continue
		}
		switch {
		case best < 0 || key[i] < key[best]:
			best, ties = i, false
		case key[i] == key[best]:
			ties = true
		}
	}
	if best < 0 {
		return -1, nil
	}
	if outside+penalty <= key[best] {
		return 0, fmt.Errorf("keys reach %v: the reference's extract-min adds 1e9 to the keys of nodes outside the queue, so keys must stay well below 1e9", key[best])
	}
	if !ties {
		return best, nil
	}
	for i, q := range inQ {
		scratch[i] = key[i]
		if !q {
			scratch[i] += penalty
		}
	}
	return npsort.Argsort(scratch)[0], nil
}

const penalty = 1e9

func fastMIS(g *Graph, draw func() float64, hints bool) *Trajectory {
	n := g.N
	r := newRecorder("fast_mis", g, hints)
	hA, hAlive, hPhase, hIn := r.hint("Ain_h"), r.hint("alive_h"), r.hint("phase_h"), r.hint("inmis_h")
	ain := make([]float64, g.NumEdges())
	copy(ain, g.A)
	for e := range ain { // A's 0/1 pattern; fast_mis ignores weights
		if ain[e] != 0 {
			ain[e] = 1
		}
	}
	alive, inMIS := make([]bool, n), make([]bool, n)
	for i := range alive {
		alive[i] = true
	}
	var randomness []float64 // [T, N]
	numbers := make([]float64, n)
	push := func(phase float64) {
		r.step()
		r.vals(hA, ain)
		r.bools(hAlive, alive)
		r.scalar(hPhase, phase)
		r.bools(hIn, inMIS)
		randomness = append(randomness, numbers...)
	}
	for live := n; live > 0; {
		for i := range numbers {
			numbers[i] = draw()
		}
		push(0)
		// Step 2: a live node joins when its number is below every live
		// neighbour's (on a tie, the larger index wins).
		for u := range n {
			if !alive[u] {
				continue
			}
			join := true
			lo, hi := g.Row(u)
			for e := lo; e < hi; e++ {
				if ain[e] != 1 {
					continue
				}
				w := int(g.Dst[e])
				if numbers[u] > numbers[w] || (numbers[u] == numbers[w] && u < w) {
					join = false
					break
				}
			}
			if join {
				inMIS[u] = true
			}
		}
		// Step 3: members and their neighbours die.
		for u := range n {
			if !alive[u] {
				continue
			}
			if inMIS[u] {
				alive[u] = false
				live--
				continue
			}
			lo, hi := g.Row(u)
			for e := lo; e < hi; e++ {
				if ain[e] == 1 && inMIS[g.Dst[e]] {
					alive[u] = false
					live--
					break
				}
			}
		}
		for e := range ain { // edges to dead nodes go
			if !alive[g.Src[e]] || !alive[g.Dst[e]] {
				ain[e] = 0
			}
		}
		push(1)
	}
	pos := make([]float64, n)
	for i := range pos {
		pos[i] = float64(i) / float64(n)
	}
	r.nodes("pos", clrs.Float64, pos)
	r.set("randomness", clrs.Float64, []int{r.steps, n}, randomness)
	r.edges("adj", clrs.Float64, ones(g.NumEdges()))
	r.nodes("inmis", clrs.Float64, boolsToFloats(inMIS))
	return r.finish()
}

func eccentricity(g *Graph, src int, hints bool) (*Trajectory, error) {
	n, E := g.N, g.NumEdges()
	r := newRecorder("eccentricity", g, hints)
	r.graphInputs(src, true)
	hVisited, hPhase, hFlood, hEcho := r.hint("visited_h"), r.hint("msgphase_h"), r.hint("floodstate_h"), r.hint("echostate_h")
	hTree, hLeaf, hEcc := r.hint("tree_h"), r.hint("leaf_h"), r.hint("eccentricity_h")
	rev := g.reverse()
	flood, echo := make([]float64, n), make([]float64, n)
	msgPhase, visited, leaf := make([]bool, n), make([]bool, n), make([]bool, n)
	tree := make([]bool, E) // tree[e]: the flood edge Src[e]→Dst[e]
	push := func() {
		r.step()
		r.bools(hVisited, visited)
		r.bools(hPhase, msgPhase)
		r.vals(hFlood, flood)
		r.vals(hEcho, echo)
		r.bools(hTree, tree)
		r.bools(hLeaf, leaf)
		r.scalar(hEcc, echo[src])
	}
	// sendFlood floods msg from u to its unvisited neighbours, marking the
	// flood edges; it reports whether there were none (u is a leaf).
	sendFlood := func(u int, msg float64, state []float64, tree []bool) bool {
		isLeaf := true
		lo, hi := g.Row(u)
		for e := lo; e < hi; e++ {
			w := g.Dst[e]
			if g.A[e] != 0 && !visited[w] {
				state[w] = max(msg, state[w])
				tree[e] = true
				isLeaf = false
			}
		}
		return isLeaf
	}
	// sendEcho answers every visited w that flooded u (tree w→u).
	sendEcho := func(u int, msg float64, state []float64, tree, phase []bool) {
		lo, hi := g.Row(u)
		for e := lo; e < hi; e++ {
			w, back := g.Dst[e], rev[e]
			if w != int32(u) && tree[back] && visited[w] {
				state[w] = max(msg, state[w])
				tree[back] = false
				phase[w] = true
			}
		}
	}
	// waiting reports whether u still waits for the echo of a flood edge
	// u→w (one that w did not flood back at the same time).
	waiting := func(u int, tree []bool) bool {
		lo, hi := g.Row(u)
		for e := lo; e < hi; e++ {
			if tree[e] && !tree[rev[e]] {
				return true
			}
		}
		return false
	}
	push()
	messages := make([]float64, n)
	// A connected graph needs about 2·ecc+2 rounds; the bound only stops a
	// run that would never end.
	for done, rounds := false, 0; !done; rounds++ {
		if rounds > 4*n+8 {
			return nil, fmt.Errorf("the flood-echo from %d did not end after %d rounds", src, rounds)
		}
		nextVisited, nextPhase, nextTree := clone(visited), clone(msgPhase), clone(tree)
		clear(messages)
		nextEcho := clone(echo)
		for u := range n {
			if !msgPhase[u] {
				isLeaf := false
				if u == src && !visited[u] {
					nextVisited[u] = true
					isLeaf = sendFlood(u, 1, messages, nextTree)
				}
				if flood[u] > 0 && !visited[u] {
					nextVisited[u] = true
					isLeaf = sendFlood(u, flood[u]+1, messages, nextTree)
				}
				if isLeaf {
					leaf[u] = true
					nextEcho[u] = flood[u]
					nextPhase[u] = true
					sendEcho(u, flood[u], nextEcho, nextTree, nextPhase)
				}
				continue
			}
			if leaf[u] || waiting(u, tree) {
				continue
			}
			if u == src {
				done = true
				break
			}
			leaf[u] = true
			sendEcho(u, echo[u], nextEcho, nextTree, nextPhase)
		}
		// The new state replaces the old; from here on, as in the
		// reference, updates go to the new arrays themselves.
		visited, msgPhase, tree = nextVisited, nextPhase, nextTree
		for u := range n {
			if messages[u] <= 0 {
				continue
			}
			if !visited[u] {
				flood[u] = messages[u]
				continue
			}
			if !waiting(u, tree) {
				leaf[u] = true
				nextEcho[u] = flood[u]
				msgPhase[u] = true
				sendEcho(u, flood[u], nextEcho, tree, msgPhase)
			}
		}
		echo = nextEcho
		push()
	}
	r.set("eccentricity", clrs.Float64, []int{}, []float64{echo[src]})
	return r.finish(), nil
}

func arange(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func clone[T any](v []T) []T { return append([]T(nil), v...) }

func boolsToFloats(v []bool) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = b2f(x)
	}
	return out
}
