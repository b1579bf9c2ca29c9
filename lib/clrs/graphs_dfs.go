package clrs

import "github.com/narlab/narlab/lib/npsort"

// The depth-first family: dfs, topological_sort, articulation_points,
// bridges and strongly_connected_components (CLRS §22.3–22.5 and problem
// 22-2). See graphs.go for the shared DFS hints.

func init() {
	register(&algorithmDef{name: "dfs", args: []argSpec{graphArg}, sampler: dfsSampler,
		run: func(a Args) (*Trajectory, error) { return DFS(a[0].(Matrix)) }})
	register(&algorithmDef{name: "topological_sort", args: []argSpec{graphArg}, sampler: topoSampler,
		run: func(a Args) (*Trajectory, error) { return TopologicalSort(a[0].(Matrix)) }})
	register(&algorithmDef{name: "articulation_points", args: []argSpec{graphArg}, sampler: articulationSampler,
		run: func(a Args) (*Trajectory, error) { return ArticulationPoints(a[0].(Matrix)) }})
	register(&algorithmDef{name: "bridges", args: []argSpec{graphArg}, sampler: articulationSampler,
		run: func(a Args) (*Trajectory, error) { return Bridges(a[0].(Matrix)) }})
	register(&algorithmDef{name: "strongly_connected_components", args: []argSpec{graphArg}, sampler: sccSampler,
		run: func(a Args) (*Trajectory, error) { return StronglyConnectedComponents(a[0].(Matrix)) }})
}

// dfsTimes holds the discovery/finishing clock of the timed DFS variants.
type dfsTimes struct {
	d, f []float64
	time float64
}

func newDFSTimes(n int) *dfsTimes {
	return &dfsTimes{d: make([]float64, n), f: make([]float64, n)}
}

// discover is the timed variants' discovery test: u is discovered when it
// is white or has no discovery time yet (a grey node just pushed).
func (t *dfsTimes) discover(w *dfsWalk, u int) bool {
	if w.color[u] != 0 && t.d[u] != 0 {
		return false
	}
	t.time += 0.01
	t.d[u] = t.time
	w.color[u] = 1
	return true
}

func (t *dfsTimes) finish(u int) {
	t.time += 0.01
	t.f[u] = t.time
}

// DFS runs depth-first search (CLRS §22.3) over every node in index order,
// on the directed graph whose edges are the non-zero entries of A;
// neighbours are tried in index order.
//
// Output: pi, the DFS-forest parents (roots point to themselves).
// Hints: pi_h, color, d, f, s_prev, s, u, v, s_last, time (see graphs.go).
// One step when a tree starts, then one per discovery, tree edge and
// finish.
func DFS(A Matrix) (*Trajectory, error) {
	if err := checkGraph(A); err != nil {
		return nil, err
	}
	n := A.N
	r := graphRecorder("dfs", A, -1)
	r.expectSteps(3*n + 1)
	hPi, hColor, hD, hF := r.hint("pi_h"), r.hint("color"), r.hint("d"), r.hint("f")
	hSPrev, hS, hU, hV, hSLast, hTime := r.hint("s_prev"), r.hint("s"), r.hint("u"), r.hint("v"), r.hint("s_last"), r.hint("time")

	pi := arange(n)
	w := newDFSWalk(n)
	t := newDFSTimes(n)
	w.discover = func(u int) bool { return t.discover(w, u) }
	w.tree = func(u, v int) { pi[v] = u }
	w.finish = t.finish
	w.push = func() {
		r.step()
		r.pushInts(hPi, pi)
		r.pushVals(hD, t.d)
		r.pushVals(hF, t.f)
		w.pushWalk(r, hColor, hSPrev, hS, hU, hV, hSLast)
		r.pushScalar(hTime, t.time)
	}
	for s := 0; s < n; s++ {
		if w.color[s] == 0 {
			w.visit(s, A.Data)
		}
	}
	r.outputInts("pi", pi)
	return r.finish(graphArgs(A, -1)), nil
}

// TopologicalSort orders the nodes of a directed acyclic graph (edges: the
// non-zero entries of A) by decreasing DFS finishing time (CLRS §22.4). A
// graph with a cycle (a self-loop included) is rejected.
//
// Outputs: topo, the order as a linked list (each node points to the node
// after it; the last node points to itself), and topo_head, its first
// node. Hints: topo_h, topo_head_h, and the DFS stack hints color, s_prev,
// s, u, v, s_last (no clock).
func TopologicalSort(A Matrix) (*Trajectory, error) {
	if err := checkGraph(A); err != nil {
		return nil, err
	}
	if err := checkAcyclic(A, "topological_sort"); err != nil {
		return nil, err
	}
	n := A.N
	r := graphRecorder("topological_sort", A, -1)
	r.expectSteps(3*n + 1)
	hTopo, hHead, hColor := r.hint("topo_h"), r.hint("topo_head_h"), r.hint("color")
	hSPrev, hS, hU, hV, hSLast := r.hint("s_prev"), r.hint("s"), r.hint("u"), r.hint("v"), r.hint("s_last")

	topo := arange(n)
	head := 0
	w := newDFSWalk(n)
	w.discover = func(u int) bool {
		if w.color[u] != 0 {
			return false
		}
		w.color[u] = 1
		return true
	}
	w.finish = func(u int) {
		// Prepend u to the list; the list is empty until its (initial)
		// head 0 is black.
		if w.color[head] == 2 {
			topo[u] = head
		}
		head = u
	}
	w.push = func() {
		r.step()
		r.pushInts(hTopo, topo)
		r.pushOneHot(hHead, head, n)
		w.pushWalk(r, hColor, hSPrev, hS, hU, hV, hSLast)
	}
	for s := 0; s < n; s++ {
		if w.color[s] == 0 {
			w.visit(s, A.Data)
		}
	}
	r.outputInts("topo", topo)
	r.outputOneHot("topo_head", head, n)
	return r.finish(graphArgs(A, -1)), nil
}

// ArticulationPoints finds the cut vertices of an undirected graph (CLRS
// problem 22-2) with a DFS computing low points. A must be undirected: its
// non-zero pattern symmetric (self-loops are allowed and harmless).
//
// Output: is_cut, a mask of the articulation points. Hints: is_cut_h,
// pi_h, color, d, f, low, child_cnt (0.01 per DFS child), s_prev, s, u, v,
// s_last, time; besides the DFS steps, one step per non-tree edge to a
// node other than the parent (a low-point update).
func ArticulationPoints(A Matrix) (*Trajectory, error) {
	if err := checkGraph(A); err != nil {
		return nil, err
	}
	if err := checkUndirected(A, false); err != nil {
		return nil, err
	}
	n := A.N
	r := graphRecorder("articulation_points", A, -1)
	r.expectSteps(4*n + 1)
	hCut, hPi, hColor, hD, hF := r.hint("is_cut_h"), r.hint("pi_h"), r.hint("color"), r.hint("d"), r.hint("f")
	hLow, hChild := r.hint("low"), r.hint("child_cnt")
	hSPrev, hS, hU, hV, hSLast, hTime := r.hint("s_prev"), r.hint("s"), r.hint("u"), r.hint("v"), r.hint("s_last"), r.hint("time")

	pi := arange(n)
	low := make([]float64, n)
	children := make([]float64, n)
	isCut := make([]float64, n)
	w := newDFSWalk(n)
	t := newDFSTimes(n)
	w.discover = func(u int) bool {
		if !t.discover(w, u) {
			return false
		}
		low[u] = t.d[u]
		return true
	}
	w.tree = func(u, v int) {
		pi[v] = u
		children[u] += 0.01
	}
	w.other = func(u, v int) bool {
		if v == pi[u] {
			return false
		}
		if t.d[v] < low[u] {
			low[u] = t.d[v]
		}
		return true
	}
	w.finish = func(u int) {
		t.finish(u)
		for v := 0; v < n; v++ {
			if pi[v] != u {
				continue
			}
			if low[v] < low[u] {
				low[u] = low[v]
			}
			if pi[u] != u && low[v] >= t.d[u] {
				isCut[u] = 1
			}
		}
		if pi[u] == u && children[u] > 0.01 {
			isCut[u] = 1
		}
	}
	w.push = func() {
		r.step()
		r.pushVals(hCut, isCut)
		r.pushInts(hPi, pi)
		r.pushVals(hD, t.d)
		r.pushVals(hF, t.f)
		r.pushVals(hLow, low)
		r.pushVals(hChild, children)
		w.pushWalk(r, hColor, hSPrev, hS, hU, hV, hSLast)
		r.pushScalar(hTime, t.time)
	}
	for s := 0; s < n; s++ {
		if w.color[s] == 0 {
			w.visit(s, A.Data)
		}
	}
	r.output("is_cut", isCut)
	return r.finish(graphArgs(A, -1)), nil
}

// Bridges finds the bridges of an undirected graph (CLRS problem 22-2)
// with a DFS computing low points. A must be undirected: its non-zero
// pattern symmetric (self-loops are allowed and harmless).
//
// Output: is_bridge, an edge mask: 1 on both directions of a bridge, 0 on
// the other edges and on the diagonal, -1 (ignored) where there is no
// edge. Hints: is_bridge_h, pi_h, color, d, f, low, s_prev, s, u, v,
// s_last, time; besides the DFS steps, one step per non-tree edge to a
// node other than the parent.
func Bridges(A Matrix) (*Trajectory, error) {
	if err := checkGraph(A); err != nil {
		return nil, err
	}
	if err := checkUndirected(A, false); err != nil {
		return nil, err
	}
	n := A.N
	r := graphRecorder("bridges", A, -1)
	r.expectSteps(4*n + 1)
	hBridge, hPi, hColor, hD, hF, hLow := r.hint("is_bridge_h"), r.hint("pi_h"), r.hint("color"), r.hint("d"), r.hint("f"), r.hint("low")
	hSPrev, hS, hU, hV, hSLast, hTime := r.hint("s_prev"), r.hint("s"), r.hint("u"), r.hint("v"), r.hint("s_last"), r.hint("time")

	pi := arange(n)
	low := make([]float64, n)
	isBridge := graphAdj(A)
	for k := range isBridge {
		isBridge[k]-- // 0 on edges and the diagonal, -1 elsewhere
	}
	w := newDFSWalk(n)
	t := newDFSTimes(n)
	w.discover = func(u int) bool {
		if !t.discover(w, u) {
			return false
		}
		low[u] = t.d[u]
		return true
	}
	w.tree = func(u, v int) { pi[v] = u }
	w.other = func(u, v int) bool {
		if v == pi[u] {
			return false
		}
		if t.d[v] < low[u] {
			low[u] = t.d[v]
		}
		return true
	}
	w.finish = func(u int) {
		t.finish(u)
		for v := 0; v < n; v++ {
			if pi[v] != u {
				continue
			}
			if low[v] < low[u] {
				low[u] = low[v]
			}
			if low[v] > t.d[u] {
				isBridge[u*n+v] = 1
				isBridge[v*n+u] = 1
			}
		}
	}
	w.push = func() {
		r.step()
		r.pushVals(hBridge, isBridge)
		r.pushInts(hPi, pi)
		r.pushVals(hD, t.d)
		r.pushVals(hF, t.f)
		r.pushVals(hLow, low)
		w.pushWalk(r, hColor, hSPrev, hS, hU, hV, hSLast)
		r.pushScalar(hTime, t.time)
	}
	for s := 0; s < n; s++ {
		if w.color[s] == 0 {
			w.visit(s, A.Data)
		}
	}
	r.output("is_bridge", isBridge)
	return r.finish(graphArgs(A, -1)), nil
}

// StronglyConnectedComponents runs Kosaraju's algorithm (CLRS §22.5) on the
// directed graph whose edges are the non-zero entries of A: a DFS of the
// graph (phase 0), then a DFS of the transposed graph taking roots by
// decreasing finishing time (phase 1).
//
// Output: scc_id, for each node the root of its component's tree in the
// second DFS. Hints: scc_id_h, A_t (the adjacency of the transposed graph,
// diagonal set; constant), color, d, f, s_prev, s, u, v, s_last, time,
// phase (0 or 1).
func StronglyConnectedComponents(A Matrix) (*Trajectory, error) {
	if err := checkGraph(A); err != nil {
		return nil, err
	}
	n := A.N
	r := graphRecorder("strongly_connected_components", A, -1)
	r.expectSteps(6*n + 2)
	hID, hAT, hColor, hD, hF := r.hint("scc_id_h"), r.hint("A_t"), r.hint("color"), r.hint("d"), r.hint("f")
	hSPrev, hS, hU, hV, hSLast := r.hint("s_prev"), r.hint("s"), r.hint("u"), r.hint("v"), r.hint("s_last")
	hTime, hPhase := r.hint("time"), r.hint("phase")

	at := NewMatrix(n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			at.Data[i*n+j] = A.Data[j*n+i]
		}
	}
	atAdj := graphAdj(at)
	sccID := arange(n)
	phase := 0.0
	w := newDFSWalk(n)
	t := newDFSTimes(n)
	w.discover = func(u int) bool { return t.discover(w, u) }
	w.finish = t.finish
	w.push = func() {
		r.step()
		r.pushInts(hID, sccID)
		r.pushVals(hAT, atAdj)
		r.pushVals(hD, t.d)
		r.pushVals(hF, t.f)
		w.pushWalk(r, hColor, hSPrev, hS, hU, hV, hSLast)
		r.pushScalar(hTime, t.time)
		r.pushScalar(hPhase, phase)
	}
	for s := 0; s < n; s++ {
		if w.color[s] == 0 {
			w.visit(s, A.Data)
		}
	}

	// Phase 1: finishing times are distinct, so the order of the roots
	// does not depend on how the sort breaks ties.
	negF := make([]float64, n)
	for i, f := range t.f {
		negF[i] = -f
	}
	order := npsort.Argsort(negF)
	clear(w.color)
	copy(w.sPrev, arange(n))
	phase = 1
	w.enter = func(u int) { sccID[u] = w.s }
	for _, s := range order {
		if w.color[s] == 0 {
			w.visit(s, at.Data)
		}
	}
	r.outputInts("scc_id", sccID)
	return r.finish(graphArgs(A, -1)), nil
}
