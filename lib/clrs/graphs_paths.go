package clrs

import "fmt"

// Reachability and shortest paths: bfs, bellman_ford, dijkstra,
// dag_shortest_paths (CLRS §22.2, §24.1–24.3) and floyd_warshall (§25.2).
// Edge u→v has weight A[u][v]; A[u][v] == 0 means no edge. None of these
// needs a symmetric A: directed graphs are fine.

func init() {
	srcArgs := []argSpec{graphArg, sourceArg}
	register(&algorithmDef{name: "bfs", args: srcArgs, sampler: bfsSampler,
		run: func(a Args) (*Trajectory, error) { return BFS(a[0].(Matrix), a[1].(int)) }})
	register(&algorithmDef{name: "bellman_ford", args: srcArgs, sampler: bellmanFordSampler,
		run: func(a Args) (*Trajectory, error) { return BellmanFord(a[0].(Matrix), a[1].(int)) }})
	register(&algorithmDef{name: "dijkstra", args: srcArgs, sampler: bellmanFordSampler,
		run: func(a Args) (*Trajectory, error) { return Dijkstra(a[0].(Matrix), a[1].(int)) }})
	register(&algorithmDef{name: "dag_shortest_paths", args: srcArgs, sampler: dagPathSampler,
		run: func(a Args) (*Trajectory, error) { return DAGShortestPaths(a[0].(Matrix), a[1].(int)) }})
	register(&algorithmDef{name: "floyd_warshall", args: []argSpec{graphArg}, sampler: floydSampler,
		run: func(a Args) (*Trajectory, error) { return FloydWarshall(a[0].(Matrix)) }})
}

func checkGraphSource(A Matrix, s int) error {
	if err := checkGraph(A); err != nil {
		return err
	}
	return checkSource(s, A.N)
}

// BFS runs breadth-first search (CLRS §22.2) from s, one frontier per
// step, on the graph whose edges are the positive entries of A (directed
// graphs are fine; negative entries are rejected, as the reference would
// silently ignore them while `adj` shows them as edges).
//
// Output: pi, the BFS-tree parents: each reached node points to the
// lowest-indexed node of the previous frontier adjacent to it; s and the
// unreached nodes point to themselves. Hints: reach_h, the nodes reached
// so far, and pi_h.
func BFS(A Matrix, s int) (*Trajectory, error) {
	if err := checkGraphSource(A, s); err != nil {
		return nil, err
	}
	if err := checkNoNegative(A, false, "bfs takes the positive entries of A as edges; want non-negative entries"); err != nil {
		return nil, err
	}
	n := A.N
	r := graphRecorder("bfs", A, s)
	hReach, hPi := r.hint("reach_h"), r.hint("pi_h")

	reach := make([]float64, n)
	prev := make([]float64, n)
	pi := arange(n)
	reach[s] = 1
	for {
		copy(prev, reach)
		r.step()
		r.pushVals(hReach, prev)
		r.pushInts(hPi, pi)
		for i := 0; i < n; i++ {
			if prev[i] != 1 {
				continue
			}
			for j, a := range A.Data[i*n : (i+1)*n] {
				if a > 0 {
					if pi[j] == j && j != s {
						pi[j] = i
					}
					reach[j] = 1
				}
			}
		}
		if equalFloats(reach, prev) {
			break
		}
	}
	r.outputInts("pi", pi)
	return r.finish(graphArgs(A, s)), nil
}

func equalFloats(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// BellmanFord computes single-source shortest paths from s by rounds of
// simultaneous relaxation of every edge out of the nodes reached so far
// (CLRS §24.1), until the distances stop changing. A may be directed
// (A[u][v] != 0 is an edge u→v of that weight). Negative weights are
// allowed; a negative-weight cycle reachable from s is rejected (the
// reference would never stop): the run is stopped with an error when the
// distances still change after 2n+2 rounds (n-1 suffice without one).
//
// Output: pi, the shortest-path-tree parents (s and unreached nodes point
// to themselves). Hints: pi_h, d (distances, 0 for unreached nodes) and
// msk (reached nodes), one step per round before it is applied.
func BellmanFord(A Matrix, s int) (*Trajectory, error) {
	if err := checkGraphSource(A, s); err != nil {
		return nil, err
	}
	n := A.N
	r := graphRecorder("bellman_ford", A, s)
	hPi, hD, hMsk := r.hint("pi_h"), r.hint("d"), r.hint("msk")

	d, prevD := make([]float64, n), make([]float64, n)
	msk, prevMsk := make([]float64, n), make([]float64, n)
	pi := arange(n)
	msk[s] = 1
	for round := 0; ; round++ {
		if round > 2*n+2 {
			return nil, fmt.Errorf("A: distances from source %d still decrease after %d rounds: a negative-weight cycle is reachable from the source; bellman_ford needs none", s, round)
		}
		copy(prevD, d)
		copy(prevMsk, msk)
		r.step()
		r.pushInts(hPi, pi)
		r.pushVals(hD, prevD)
		r.pushVals(hMsk, prevMsk)
		for u := 0; u < n; u++ {
			if prevMsk[u] != 1 {
				continue
			}
			for v, a := range A.Data[u*n : (u+1)*n] {
				if a == 0 {
					continue
				}
				if msk[v] == 0 || prevD[u]+a < d[v] {
					d[v] = prevD[u] + a
					pi[v] = u
				}
				msk[v] = 1
			}
		}
		if equalFloats(d, prevD) {
			break
		}
	}
	r.outputInts("pi", pi)
	return r.finish(graphArgs(A, s)), nil
}

// extractMin is the reference's extract-min over a priority array: the
// node np.argsort(key + (1 - inQueue)·1e9) puts first. It reports an error
// when that node is outside the queue although the queue is not empty,
// which only happens when keys reach the 1e9 penalty (the reference would
// then stop early with a wrong result).
func extractMin(key, inQueue, scratch []float64, algo string) (int, error) {
	queued := false
	for i := range key {
		scratch[i] = key[i] + float64((1.0-inQueue[i])*extractMinPenalty)
		queued = queued || inQueue[i] != 0
	}
	u := firstOfNumpyArgsort(scratch)
	if inQueue[u] == 0 && queued {
		return 0, fmt.Errorf("A: weights too large: %s's extract-min (as in the reference) adds 1e9 to the keys of nodes outside the queue, so keys must stay well below 1e9", algo)
	}
	return u, nil
}

// Dijkstra computes single-source shortest paths from s with Dijkstra's
// algorithm (CLRS §24.3). A may be directed (A[u][v] != 0 is an edge u→v
// of that weight); negative weights are rejected. Ties between
// queued nodes of equal distance are broken as numpy's default argsort
// orders them (the lowest index first among at most 16 nodes).
//
// Output: pi, the shortest-path-tree parents (s and unreached nodes point
// to themselves). Hints: pi_h, d (tentative distances, 0 for unreached
// nodes), mark (settled nodes), in_queue, u (the node just settled; s in
// the first step), one step per settled node.
func Dijkstra(A Matrix, s int) (*Trajectory, error) {
	if err := checkGraphSource(A, s); err != nil {
		return nil, err
	}
	if err := checkNoNegative(A, false, "dijkstra needs non-negative edge weights"); err != nil {
		return nil, err
	}
	n := A.N
	r := graphRecorder("dijkstra", A, s)
	hPi, hD, hMark, hQ, hU := r.hint("pi_h"), r.hint("d"), r.hint("mark"), r.hint("in_queue"), r.hint("u")

	d, mark, inQ, scratch := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	pi := arange(n)
	inQ[s] = 1
	push := func(u int) {
		r.step()
		r.pushInts(hPi, pi)
		r.pushVals(hD, d)
		r.pushVals(hMark, mark)
		r.pushVals(hQ, inQ)
		r.pushOneHot(hU, u, n)
	}
	push(s)
	for range n {
		u, err := extractMin(d, inQ, scratch, "dijkstra")
		if err != nil {
			return nil, err
		}
		if inQ[u] == 0 {
			break
		}
		mark[u], inQ[u] = 1, 0
		for v, a := range A.Data[u*n : (u+1)*n] {
			if a != 0 && mark[v] == 0 && (inQ[v] == 0 || d[u]+a < d[v]) {
				pi[v] = u
				d[v] = d[u] + a
				inQ[v] = 1
			}
		}
		push(u)
	}
	r.outputInts("pi", pi)
	return r.finish(graphArgs(A, s)), nil
}

// DAGShortestPaths computes single-source shortest paths from s in a
// directed acyclic graph (CLRS §24.2): a topological sort of the nodes
// reachable from s by DFS (phase 0), then the relaxation of the edges out
// of each node in that order (phase 1). Negative weights are allowed; a
// graph with a cycle (a self-loop included) is rejected.
//
// Output: pi, the shortest-path-tree parents (s and unreached nodes point
// to themselves). Hints: pi_h, d, mark (nodes with a distance), topo_h and
// topo_head_h (the topological order being built, then walked), the DFS
// hints color, s_prev, u, v, s_last, and phase.
func DAGShortestPaths(A Matrix, s int) (*Trajectory, error) {
	if err := checkGraphSource(A, s); err != nil {
		return nil, err
	}
	if err := checkAcyclic(A, "dag_shortest_paths"); err != nil {
		return nil, err
	}
	n := A.N
	r := graphRecorder("dag_shortest_paths", A, s)
	r.expectSteps(4*n + 2)
	hPi, hD, hMark, hTopo, hHead := r.hint("pi_h"), r.hint("d"), r.hint("mark"), r.hint("topo_h"), r.hint("topo_head_h")
	hColor, hSPrev, hU, hV, hSLast, hPhase := r.hint("color"), r.hint("s_prev"), r.hint("u"), r.hint("v"), r.hint("s_last"), r.hint("phase")

	pi := arange(n)
	d, mark := make([]float64, n), make([]float64, n)
	topo := arange(n)
	head := 0
	phase := 0.0
	w := newDFSWalk(n)
	w.discover = func(u int) bool {
		if w.color[u] != 0 {
			return false
		}
		w.color[u] = 1
		return true
	}
	w.finish = func(u int) {
		if w.color[head] == 2 {
			topo[u] = head
		}
		head = u
	}
	w.push = func() {
		r.step()
		r.pushInts(hPi, pi)
		r.pushVals(hD, d)
		r.pushVals(hMark, mark)
		r.pushInts(hTopo, topo)
		r.pushOneHot(hHead, head, n)
		w.pushWalk(r, hColor, hSPrev, -1, hU, hV, hSLast)
		r.pushScalar(hPhase, phase)
	}
	w.visit(s, A.Data)

	// head is s now: the list runs through the nodes reachable from s in
	// topological order.
	phase = 1
	d[head], mark[head] = 0, 1
	for topo[head] != head {
		i := head
		mark[i] = 1
		w.push()
		for j, a := range A.Data[i*n : (i+1)*n] {
			if a != 0 && (mark[j] == 0 || d[i]+a < d[j]) {
				d[j] = d[i] + a
				pi[j] = i
				mark[j] = 1
			}
		}
		head = topo[head]
	}
	w.push()
	r.outputInts("pi", pi)
	return r.finish(graphArgs(A, s)), nil
}

// FloydWarshall computes all-pairs shortest paths (CLRS §25.2), one step
// per intermediate node k. A may be directed (A[i][j] != 0 is an edge i→j
// of that weight). Negative weights are allowed; a negative-weight
// cycle (found as a negative distance from a node to itself) is rejected.
//
// Output: Pi, an edge pointer: Pi[i][j] is the predecessor of j on a
// shortest path from i (i itself when j == i or j is unreachable; float64,
// as in the reference). Hints: Pi_h, D (distances; A's entries for pairs
// without a path yet), msk (pairs with a path), k.
func FloydWarshall(A Matrix) (*Trajectory, error) {
	if err := checkGraph(A); err != nil {
		return nil, err
	}
	n := A.N
	r := graphRecorder("floyd_warshall", A, -1)
	hPi, hD, hMsk, hK := r.hint("Pi_h"), r.hint("D"), r.hint("msk"), r.hint("k")

	D := append([]float64(nil), A.Data...)
	msk := graphAdj(A)
	Pi := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			Pi[i*n+j] = float64(i)
		}
	}
	prevD, prevMsk := make([]float64, n*n), make([]float64, n*n)
	for k := 0; k < n; k++ {
		copy(prevD, D)
		copy(prevMsk, msk)
		r.step()
		r.pushVals(hPi, Pi)
		r.pushVals(hD, prevD)
		r.pushVals(hMsk, prevMsk)
		r.pushOneHot(hK, k, n)
		for i := 0; i < n; i++ {
			if prevMsk[i*n+k] <= 0 {
				continue
			}
			dik := prevD[i*n+k]
			for j := 0; j < n; j++ {
				if prevMsk[k*n+j] <= 0 {
					continue
				}
				ij := i*n + j
				if via := dik + prevD[k*n+j]; msk[ij] == 0 || via < D[ij] {
					D[ij] = via
					Pi[ij] = Pi[k*n+j]
				}
				msk[ij] = 1
			}
		}
	}
	for i := 0; i < n; i++ {
		if D[i*n+i] < 0 {
			return nil, fmt.Errorf("A: node %d lies on a negative-weight cycle (its distance to itself is %v); floyd_warshall needs a graph without one", i, D[i*n+i])
		}
	}
	r.output("Pi", Pi)
	return r.finish(graphArgs(A, -1)), nil
}
