package clrs

import (
	"fmt"
	"math"
	"strings"

	"github.com/narlab/narlab/lib/npsort"
)

// Graph algorithms (CLRS chapters 22–25): dfs, bfs, topological_sort,
// articulation_points, bridges, strongly_connected_components,
// mst_kruskal, mst_prim, bellman_ford, dijkstra, dag_shortest_paths and
// floyd_warshall.
//
// Every one takes an n×n matrix A: A[u][v] is the weight of the edge
// u→v, and 0 means "no edge" (so a zero-weight edge cannot be expressed,
// as in the reference). The inputs are always `pos` (i/n), `A` itself (with
// its dtype: int64 for the unweighted graphs the samplers draw) and `adj`,
// the non-zero pattern of A with the diagonal set. The single-source
// algorithms also take a source node s, recorded as the mask_one input `s`.
//
// Pointer outputs and hints follow the reference's convention: a node
// without a predecessor (a root, the source, an unreached node) points to
// itself.
//
// The depth-first algorithms (dfs, topological_sort, articulation_points,
// bridges, strongly_connected_components and the first phase of
// dag_shortest_paths) all run the reference's iterative DFS, whose state
// is part of the hints: `color` (categorical over white, grey, black), the
// explicit stack as predecessor pointers `s_prev` (the bottom of the stack
// points to itself) with its top `s_last`, the root of the current tree
// `s`, the node being expanded `u` and the last neighbour looked at `v`;
// `d`, `f` and `time` hold discovery and finishing times that grow by 0.01
// per event.

var (
	graphArg  = argSpec{"A", argMatrix, "the n×n adjacency/weight matrix: A[u][v] != 0 is an edge u→v"}
	sourceArg = argSpec{"s", argNode, "the source node, in [0, n)"}
)

// extractMinPenalty is what the reference's extract-min (an argsort of the
// keys) adds to the keys of nodes outside the queue.
const extractMinPenalty = 1e9

// checkGraph checks what every graph algorithm needs of A: at least one
// node, n*n entries, all finite.
func checkGraph(A Matrix) error {
	if A.N < 1 {
		return fmt.Errorf("A: the graph has no nodes; want an n×n matrix with n >= 1")
	}
	if len(A.Data) != A.N*A.N {
		return fmt.Errorf("A: matrix has %d entries for n=%d; want n*n = %d", len(A.Data), A.N, A.N*A.N)
	}
	for k, w := range A.Data {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("A: entry [%d][%d] is %v; want a finite number", k/A.N, k%A.N, w)
		}
	}
	return nil
}

// checkSource checks that s is a node of an n-node graph.
func checkSource(s, n int) error {
	if s < 0 || s >= n {
		return fmt.Errorf("s: source node %d is out of range; want a node in [0, %d)", s, n)
	}
	return nil
}

// checkUndirected checks that A describes an undirected graph: with
// sameWeight, A must equal its transpose; otherwise only the edge pattern
// must be symmetric (A[i][j] and A[j][i] both zero or both non-zero).
func checkUndirected(A Matrix, sameWeight bool) error {
	n := A.N
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			a, b := A.Data[i*n+j], A.Data[j*n+i]
			if sameWeight && a != b {
				return fmt.Errorf("A: A[%d][%d] = %v but A[%d][%d] = %v; want a symmetric matrix (an undirected weighted graph)", i, j, a, j, i, b)
			}
			if (a != 0) != (b != 0) {
				return fmt.Errorf("A: A[%d][%d] = %v but A[%d][%d] = %v; want an undirected graph (A[i][j] and A[j][i] both zero or both non-zero)", i, j, a, j, i, b)
			}
		}
	}
	return nil
}

// checkNoNegative rejects negative entries of A (off the diagonal only,
// when offDiagonal is set); why says what the algorithm needs.
func checkNoNegative(A Matrix, offDiagonal bool, why string) error {
	n := A.N
	for k, w := range A.Data {
		if w < 0 && (!offDiagonal || k/n != k%n) {
			return fmt.Errorf("A: A[%d][%d] = %v is negative; %s", k/n, k%n, w, why)
		}
	}
	return nil
}

// findCycle returns the nodes of a directed cycle of the graph whose edges
// are the non-zero entries of A (the first node repeated at the end), or
// nil when the graph is acyclic. A self-loop is a cycle of one node.
func findCycle(A Matrix) []int {
	n := A.N
	color := make([]int8, n) // 0 white, 1 on the path, 2 done
	parent := make([]int, n)
	next := make([]int, n) // next neighbour to try
	var stack []int
	for root := 0; root < n; root++ {
		if color[root] != 0 {
			continue
		}
		color[root] = 1
		parent[root] = -1
		stack = append(stack[:0], root)
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			if next[u] == n {
				color[u] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			v := next[u]
			next[u]++
			if A.Data[u*n+v] == 0 {
				continue
			}
			switch color[v] {
			case 0:
				color[v] = 1
				parent[v] = u
				stack = append(stack, v)
			case 1: // back edge u→v closes the cycle v → … → u → v
				cycle := []int{u}
				for x := u; x != v; {
					x = parent[x]
					cycle = append(cycle, x)
				}
				for i, j := 0, len(cycle)-1; i < j; i, j = i+1, j-1 {
					cycle[i], cycle[j] = cycle[j], cycle[i]
				}
				return append(cycle, v)
			}
		}
	}
	return nil
}

// checkAcyclic rejects graphs with a directed cycle, naming one.
func checkAcyclic(A Matrix, algo string) error {
	c := findCycle(A)
	if c == nil {
		return nil
	}
	parts := make([]string, len(c))
	for i, x := range c {
		parts[i] = fmt.Sprint(x)
	}
	return fmt.Errorf("A: the graph has a cycle %s; %s needs a directed acyclic graph", strings.Join(parts, " → "), algo)
}

// graphRecorder starts the recording of a graph algorithm: the inputs pos,
// s (when src >= 0), A and adj.
func graphRecorder(algo string, A Matrix, src int) *recorder {
	n := A.N
	r := newRecorder(algo, n)
	r.setIO(Input, "pos", positions(n), Float64)
	if src >= 0 {
		r.inputOneHot("s", src, n)
	}
	r.inputMatrix("A", A)
	r.setIO(Input, "adj", graphAdj(A), Float64)
	return r
}

// graphArgs returns the arguments of a trajectory: a copy of A, and the
// source when src >= 0.
func graphArgs(A Matrix, src int) Args {
	if src < 0 {
		return Args{A.Clone()}
	}
	return Args{A.Clone(), src}
}

// pushDFSColor pushes a white/grey/black state as a categorical hint of 3
// classes per node.
func (r *recorder) pushDFSColor(idx int, color []int) {
	s := r.zeroSlot(idx, 3*len(color))
	for i, c := range color {
		s[3*i+c] = 1
	}
}

// firstOfNumpyArgsort returns np.argsort(v)[0]: the index of the smallest
// value and, when several share it, the one numpy's (unstable) default
// argsort puts first. The full sort is only run for ties.
func firstOfNumpyArgsort(v []float64) int {
	best, ties := 0, false
	for i := 1; i < len(v); i++ {
		switch {
		case v[i] < v[best]:
			best, ties = i, false
		case v[i] == v[best]:
			ties = true
		}
	}
	if !ties {
		return best
	}
	return npsort.Argsort(v)[0]
}

// dfsWalk is the reference's iterative depth-first search, shared by the
// DFS-family algorithms. The stack is kept as predecessor pointers sPrev
// with top sLast; a node is expanded by scanning its row of the adjacency
// from column 0 every time it comes back to the top of the stack, and
// pushing the first white neighbour found.
//
// The hooks add each algorithm's bookkeeping; push records one hint step
// from the walk's state (color, sPrev, s, u, v, sLast) and the
// algorithm's own arrays.
type dfsWalk struct {
	n              int
	color, sPrev   []int
	s, u, v, sLast int

	// enter, if set, runs whenever a node u comes to the top of the stack.
	enter func(u int)
	// discover runs when u comes to the top of the stack; it marks u grey
	// when it is discovered now and then reports true (a hint step).
	discover func(u int) bool
	// tree runs when the edge u→v to a white node v is followed (color,
	// sPrev and sLast are updated by the walk).
	tree func(u, v int)
	// other, if set, runs for an edge u→v to a non-white node and reports
	// whether it recorded something (a hint step).
	other func(u, v int) bool
	// finish runs after u turned black.
	finish func(u int)
	push   func()
}

func newDFSWalk(n int) *dfsWalk {
	return &dfsWalk{n: n, color: make([]int, n), sPrev: arange(n)}
}

// visit explores the tree of root s along the edges adj[u*n+v] != 0.
func (w *dfsWalk) visit(s int, adj []float64) {
	n := w.n
	w.s, w.sLast, w.u, w.v = s, s, s, s
	w.push()
	for {
		u := w.u
		if w.enter != nil {
			w.enter(u)
		}
		if w.discover(u) {
			w.push()
		}
		row := adj[u*n : (u+1)*n]
		for v, a := range row {
			w.v = v
			if a == 0 {
				continue
			}
			if w.color[v] == 0 {
				w.color[v] = 1
				w.sPrev[v] = w.sLast
				w.sLast = v
				if w.tree != nil {
					w.tree(u, v)
				}
				w.push()
				break
			}
			if w.other != nil && w.other(u, v) {
				w.push()
			}
		}
		if w.sLast == u {
			w.color[u] = 2
			w.finish(u)
			w.push()
			if w.sPrev[u] == u {
				return
			}
			top := w.sLast
			w.sLast = w.sPrev[top]
			w.sPrev[top] = top
		}
		w.u = w.sLast
	}
}

// pushWalk pushes the walk's stack hints; hS < 0 skips `s` (hints of
// dag_shortest_paths, where s is an input).
func (w *dfsWalk) pushWalk(r *recorder, hColor, hSPrev, hS, hU, hV, hSLast int) {
	r.pushDFSColor(hColor, w.color)
	r.pushInts(hSPrev, w.sPrev)
	if hS >= 0 {
		r.pushOneHot(hS, w.s, w.n)
	}
	r.pushOneHot(hU, w.u, w.n)
	r.pushOneHot(hV, w.v, w.n)
	r.pushOneHot(hSLast, w.sLast, w.n)
}
