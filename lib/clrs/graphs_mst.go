package clrs

import "github.com/narlab/narlab/lib/npsort"

// Minimum spanning trees: mst_kruskal and mst_prim (CLRS §23.2). Both take
// a symmetric weight matrix A (an undirected graph; A[u][v] == 0 means no
// edge) and ignore the diagonal. On a disconnected graph they return a
// minimum spanning forest (Kruskal) or the minimum spanning tree of the
// source's component (Prim).

func init() {
	register(&algorithmDef{name: "mst_kruskal", args: []argSpec{graphArg}, sampler: mstSampler,
		run: func(a Args) (*Trajectory, error) { return MSTKruskal(a[0].(Matrix)) }})
	register(&algorithmDef{name: "mst_prim", args: []argSpec{graphArg, sourceArg}, sampler: bellmanFordSampler,
		run: func(a Args) (*Trajectory, error) { return MSTPrim(a[0].(Matrix), a[1].(int)) }})
}

// Kruskal phases (the categorical `phase` hint).
const (
	kruskalIdle  = 0 // before the first edge, and after each union
	kruskalFindU = 1 // looking for the root of u
	kruskalFindV = 2 // looking for the root of v
)

// MSTKruskal runs Kruskal's algorithm (CLRS §23.2): the edges u < v with
// A[u][v] > 0, in increasing weight order (ties ordered as numpy's default
// argsort orders them), are added when their ends lie in different trees
// of a disjoint-set forest. A must be symmetric and its off-diagonal
// entries non-negative (the reference would silently drop negative edges).
//
// Output: in_mst, the edge mask of the spanning forest (both directions).
// Hints: in_mst_h; pi, the disjoint-set parents (a root points to itself;
// the nodes on a find path are pointed at the root as it is climbed); u,
// v, the edge considered; root_u, root_v, the roots found so far; mask_u,
// mask_v, the nodes on the two find paths; phase (0 idle or union done, 1
// finding u's root, 2 finding v's root). One step before the first edge,
// then per edge one step to start, one per find-path hop, one for the
// union.
func MSTKruskal(A Matrix) (*Trajectory, error) {
	if err := checkGraph(A); err != nil {
		return nil, err
	}
	if err := checkUndirected(A, true); err != nil {
		return nil, err
	}
	if err := checkNoNegative(A, true, "mst_kruskal needs non-negative edge weights (the reference ignores negative edges)"); err != nil {
		return nil, err
	}
	n := A.N
	r := graphRecorder("mst_kruskal", A, -1)
	hIn, hPi, hU, hV := r.hint("in_mst_h"), r.hint("pi"), r.hint("u"), r.hint("v")
	hRootU, hRootV, hMaskU, hMaskV, hPhase := r.hint("root_u"), r.hint("root_v"), r.hint("mask_u"), r.hint("mask_v"), r.hint("phase")

	inMST := make([]float64, n*n)
	pi := arange(n)
	maskU, maskV := make([]float64, n), make([]float64, n)
	var u, v, rootU, rootV int
	push := func(phase int) {
		r.step()
		r.pushVals(hIn, inMST)
		r.pushInts(hPi, pi)
		r.pushOneHot(hU, u, n)
		r.pushOneHot(hV, v, n)
		r.pushOneHot(hRootU, rootU, n)
		r.pushOneHot(hRootV, rootV, n)
		r.pushVals(hMaskU, maskU)
		r.pushVals(hMaskV, maskV)
		r.pushOneHot(hPhase, phase, 3)
	}
	// climb follows the parents from *root to its tree's root, pointing
	// every node met so far (mask) at the current node, one step per hop.
	climb := func(root *int, mask []float64, phase int) {
		for pi[*root] != *root {
			*root = pi[*root]
			for i, m := range mask {
				if m == 1 {
					pi[i] = *root
				}
			}
			mask[*root] = 1
			push(phase)
		}
	}

	var eu, ev []int
	var wts []float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if a := A.Data[i*n+j]; a > 0 {
				eu, ev, wts = append(eu, i), append(ev, j), append(wts, a)
			}
		}
	}
	r.expectSteps(3*len(wts) + 1)
	push(kruskalIdle)
	for _, e := range npsort.Argsort(wts) {
		u, v = eu[e], ev[e]
		rootU, rootV = u, v
		clear(maskU)
		clear(maskV)
		maskU[u], maskV[v] = 1, 1
		push(kruskalFindU)
		climb(&rootU, maskU, kruskalFindU)
		climb(&rootV, maskV, kruskalFindV)
		if rootU != rootV {
			inMST[u*n+v], inMST[v*n+u] = 1, 1
			// The smaller root goes under the larger.
			if rootU < rootV {
				pi[rootU] = rootV
			} else {
				pi[rootV] = rootU
			}
		}
		push(kruskalIdle)
	}
	r.output("in_mst", inMST)
	return r.finish(graphArgs(A, -1)), nil
}

// MSTPrim runs Prim's algorithm (CLRS §23.2) from s. A must be symmetric;
// negative weights are fine. Ties between queued nodes of equal key are
// broken as numpy's default argsort orders them.
//
// Output: pi, the tree parents (s and nodes outside s's component point
// to themselves). Hints: pi_h; key, the lightest edge weight joining each
// queued node to the tree (0 before a node is queued); mark (nodes in the
// tree); in_queue; u, the node just added (s in the first step). One step
// per node added.
func MSTPrim(A Matrix, s int) (*Trajectory, error) {
	if err := checkGraphSource(A, s); err != nil {
		return nil, err
	}
	if err := checkUndirected(A, true); err != nil {
		return nil, err
	}
	n := A.N
	r := graphRecorder("mst_prim", A, s)
	hPi, hKey, hMark, hQ, hU := r.hint("pi_h"), r.hint("key"), r.hint("mark"), r.hint("in_queue"), r.hint("u")

	key, mark, inQ, scratch := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	pi := arange(n)
	inQ[s] = 1
	push := func(u int) {
		r.step()
		r.pushInts(hPi, pi)
		r.pushVals(hKey, key)
		r.pushVals(hMark, mark)
		r.pushVals(hQ, inQ)
		r.pushOneHot(hU, u, n)
	}
	push(s)
	for range n {
		u, err := extractMin(key, inQ, scratch, "mst_prim")
		if err != nil {
			return nil, err
		}
		if inQ[u] == 0 {
			break
		}
		mark[u], inQ[u] = 1, 0
		for v, a := range A.Data[u*n : (u+1)*n] {
			if a != 0 && mark[v] == 0 && (inQ[v] == 0 || a < key[v]) {
				pi[v] = u
				key[v] = a
				inQ[v] = 1
			}
		}
		push(u)
	}
	r.outputInts("pi", pi)
	return r.finish(graphArgs(A, s)), nil
}
