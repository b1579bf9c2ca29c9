package clrs

import "fmt"

// Dynamic programming: matrix_chain_order (CLRS §15.2), lcs_length (§15.4)
// and optimal_bst (§15.5). Their tables are edge probes: entry (i, j) of an
// N×N matrix. matrix_chain_order and lcs_length fill their tables in
// rounds, as a parallel (Bellman-style) computation: every round
// recomputes every entry from the previous round's table, one hint step
// per round, until a round changes nothing. optimal_bst fills its table by
// increasing subproblem size, one step per size.

// lcsAlphabet is the number of `key` classes of lcs_length: the reference
// one-hot encodes characters over a constant 4 classes, whatever the
// sampler's `chars` parameter says.
const lcsAlphabet = 4

// LCS arrow classes of the `b` table (CLRS's ↖, ↑, ←), plus the "blank"
// class of cells outside the table.
const (
	lcsDiag  = 0 // x[i] == y[j]: extend the LCS of x[:i], y[:j]
	lcsUp    = 1 // the LCS of x[:i], y[:j+1]
	lcsLeft  = 2 // the LCS of x[:i+1], y[:j]
	lcsBlank = 3
)

func init() {
	register(&algorithmDef{name: "matrix_chain_order", sampler: sortingSampler,
		args: []argSpec{{"p", argFloats, "the matrix dimensions: matrix i is p[i-1] × p[i]"}},
		run:  func(a Args) (*Trajectory, error) { return MatrixChainOrder(a[0].([]float64)) }})
	register(&algorithmDef{name: "lcs_length", sampler: lcsSampler,
		args: []argSpec{
			{"x", argInts, "the first string: characters in [0, 4)"},
			{"y", argInts, "the second string: characters in [0, 4)"},
		},
		run: func(a Args) (*Trajectory, error) { return LCSLength(a[0].([]int), a[1].([]int)) }})
	register(&algorithmDef{name: "optimal_bst", sampler: optimalBSTSampler,
		args: []argSpec{
			{"p", argFloats, "the keys' search probabilities (n values)"},
			{"q", argFloats, "the gaps' (missed searches') probabilities (n+1 values)"},
		},
		run: func(a Args) (*Trajectory, error) { return OptimalBST(a[0].([]float64), a[1].([]float64)) }})
}

// MatrixChainOrder finds the cheapest parenthesization of the product of
// the n-1 matrices A_1 … A_{n-1}, A_i of dimensions p[i-1] × p[i] (CLRS
// §15.2), the reference's way: in rounds, each round computing every cost
// m[i][j] (1 <= i < j < n) from the previous round's table over the splits
// k whose two sides were already known, until a round changes no cost.
// With ties the smallest split wins. (As in the reference, the rounds stop
// as soon as no cost changes, which with zero dimensions can happen before
// every entry is known.)
//
// Output: s, the optimal split of each chain i..j (entries outside the
// table are 0). Hints (one step per round, before it): pred_h, the
// identity order; m, the costs; s_h, the splits; msk, the entries known.
// Node 0 only provides p[0]: row and column 0 stay 0.
func MatrixChainOrder(p []float64) (*Trajectory, error) {
	n := len(p)
	if n == 0 {
		return nil, fmt.Errorf("p: no dimensions; want at least one (n dimensions describe n-1 matrices)")
	}
	if err := checkFinite(p); err != nil {
		return nil, fmt.Errorf("p: %w", err)
	}
	for i, v := range p {
		if v < 0 {
			return nil, fmt.Errorf("p: dimension %d is %v; want non-negative matrix dimensions", i, v)
		}
	}
	r := newRecorder("matrix_chain_order", n)
	r.input("pos", positions(n))
	r.input("p", p)
	order := arange(n)
	hPred, hM, hS, hMsk := r.hint("pred_h"), r.hint("m"), r.hint("s_h"), r.hint("msk")
	nn := n * n
	m := make([]float64, nn)
	s := make([]float64, nn)
	msk := make([]float64, nn)
	prevM := make([]float64, nn)
	prevMsk := make([]float64, nn)
	for i := 1; i < n; i++ {
		msk[i*n+i] = 1
	}
	for {
		copy(prevM, m)
		copy(prevMsk, msk)
		r.step()
		r.pushListPointers(hPred, order)
		r.pushVals(hM, m)
		r.pushVals(hS, s)
		r.pushVals(hMsk, msk)
		changed := false
		for i := 1; i < n; i++ {
			for j := i + 1; j < n; j++ {
				ij := i*n + j
				known := prevMsk[ij] == 1
				for k := i; k < j; k++ {
					if prevMsk[i*n+k] != 1 || prevMsk[(k+1)*n+j] != 1 {
						continue
					}
					msk[ij] = 1
					cost := prevM[i*n+k] + prevM[(k+1)*n+j] + float64(float64(p[i-1]*p[k])*p[j])
					if !known || cost < m[ij] {
						m[ij] = cost
						s[ij] = float64(k)
						known = true
					}
				}
				if m[ij] != prevM[ij] {
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	r.output("s", s)
	return r.finish(Args{append([]float64(nil), p...)}), nil
}

// LCSLength computes the longest-common-subsequence tables of x and y
// (CLRS §15.4), the reference's way: row 0 and column 0 first, then rounds
// that recompute every other cell from the previous round's lengths, until
// a round changes no length. Ties between "up" and "left" go to "up".
//
// The n+m nodes are x's characters, then y's; cell (i, j) of the n×m
// tables is edge (i, n+j). Output: b, categorical over 4 classes: the
// arrow of each cell (0 diagonal: x[i] == y[j]; 1 up: from (i-1, j); 2
// left: from (i, j-1)), and for every edge outside the tables the "blank"
// marker (class 3 = -1, the other classes 0). Hints (one step per round,
// before it): pred_h, each string's predecessor chain; b_h, the arrows;
// c, the LCS lengths.
func LCSLength(x, y []int) (*Trajectory, error) {
	if len(x) == 0 {
		return nil, fmt.Errorf("x: the first string is empty; want at least one character")
	}
	if len(y) == 0 {
		return nil, fmt.Errorf("y: the second string is empty; want at least one character")
	}
	for _, str := range []struct {
		name string
		s    []int
	}{{"x", x}, {"y", y}} {
		for i, ch := range str.s {
			if ch < 0 || ch >= lcsAlphabet {
				return nil, fmt.Errorf("%s: character %d is %d; want a character in [0, %d)", str.name, i, ch, lcsAlphabet)
			}
		}
	}
	n, m := len(x), len(y)
	N := n + m
	r := newRecorder("lcs_length", N)
	r.input("string", stringsID(n, m))
	r.input("pos", stringsPos(n, m))
	r.input("key", stringsCat(x, y, lcsAlphabet))
	r.expectSteps(3*N/4 + 1) // rounds; measured 6-11 for N=16, 36-46 for N=64
	hPred, hB, hC := r.hint("pred_h"), r.hint("b_h"), r.hint("c")
	pred := stringsPred(n, m)

	c := make([]float64, n*m) // c[i*m+j]
	b := make([]int, n*m)
	prev := make([]float64, n*m)
	for i := 0; i < n; i++ {
		switch {
		case x[i] == y[0]:
			c[i*m], b[i*m] = 1, lcsDiag
		case i > 0 && c[(i-1)*m] == 1:
			c[i*m], b[i*m] = 1, lcsUp
		default:
			c[i*m], b[i*m] = 0, lcsUp
		}
	}
	for j := 0; j < m; j++ {
		switch {
		case x[0] == y[j]:
			c[j], b[j] = 1, lcsDiag
		case j > 0 && c[j-1] == 1:
			c[j], b[j] = 1, lcsLeft
		default:
			c[j], b[j] = 0, lcsUp
		}
	}
	for {
		copy(prev, c)
		r.step()
		r.pushInts(hPred, pred)
		fillLCSArrows(r.zeroSlot(hB, N*N*(lcsBlank+1)), b, n, m)
		cs := r.zeroSlot(hC, N*N)
		for i := 0; i < n; i++ {
			copy(cs[i*N+n:i*N+N], prev[i*m:(i+1)*m])
		}
		changed := false
		for i := 1; i < n; i++ {
			for j := 1; j < m; j++ {
				var v float64
				switch {
				case x[i] == y[j]:
					v, b[i*m+j] = prev[(i-1)*m+j-1]+1, lcsDiag
				case prev[(i-1)*m+j] >= prev[i*m+j-1]:
					v, b[i*m+j] = prev[(i-1)*m+j], lcsUp
				default:
					v, b[i*m+j] = prev[i*m+j-1], lcsLeft
				}
				c[i*m+j] = v
				if v != prev[i*m+j] {
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	out := make([]float64, N*N*(lcsBlank+1))
	fillLCSArrows(out, b, n, m)
	r.setIO(Output, "b", out, Float64)
	return r.finish(Args{append([]int(nil), x...), append([]int(nil), y...)}), nil
}

// fillLCSArrows writes the reference's strings_pair_cat encoding of the
// n×m arrow table b into dst (zeroed, [N, N, 4] with N = n+m): cell (i, j)
// one-hot at edge (i, n+j); edges from an x node to an x node and every
// edge from a y node get -1 in the blank class.
func fillLCSArrows(dst []float64, b []int, n, m int) {
	N := n + m
	const C = lcsBlank + 1
	for i := 0; i < n; i++ {
		row := dst[i*N*C : (i+1)*N*C]
		for j := 0; j < n; j++ {
			row[j*C+lcsBlank] = -1
		}
		for j := 0; j < m; j++ {
			row[(n+j)*C+b[i*m+j]] = 1
		}
	}
	for k := n * N; k < N*N; k++ {
		dst[k*C+lcsBlank] = -1
	}
}

// optimalBSTInf is the reference's "infinite" initial cost of a subtree.
const optimalBSTInf = 1e9

// OptimalBST builds an optimal binary search tree (CLRS §15.5) for n keys
// searched with probabilities p[0..n-1] and n+1 gaps (unsuccessful
// searches) with probabilities q[0..n]: cost e[i][j] and weight w[i][j] of
// the tree over gaps i..j, by increasing j-i, with ties going to the
// smallest root. Probabilities must be non-negative; they need not sum to
// 1. (As in the reference, a subtree cost is searched below the sentinel
// 1e9, so the weights should stay well below it.)
//
// The tables have N = n+1 nodes (the `p` input is padded with a final 0).
// Output: root, the root key of each subtree i..j (j > i), 0 elsewhere.
// Hints (the initial state, then one step per subtree size): pred_h, the
// identity order; root_h; e; w; msk, the entries computed.
func OptimalBST(p, q []float64) (*Trajectory, error) {
	n := len(p)
	if len(q) != n+1 {
		return nil, fmt.Errorf("q: got %d gap probabilities for %d keys; want len(q) = len(p)+1 = %d", len(q), n, n+1)
	}
	for _, arg := range []struct {
		name string
		v    []float64
	}{{"p", p}, {"q", q}} {
		if err := checkFinite(arg.v); err != nil {
			return nil, fmt.Errorf("%s: %w", arg.name, err)
		}
		for i, v := range arg.v {
			if v < 0 {
				return nil, fmt.Errorf("%s: probability %d is %v; want non-negative probabilities", arg.name, i, v)
			}
		}
	}
	N := n + 1
	r := newRecorder("optimal_bst", N)
	r.input("pos", positions(N))
	pPadded := make([]float64, N)
	copy(pPadded, p)
	r.input("p", pPadded)
	r.input("q", q)
	r.expectSteps(N)
	order := arange(N)
	hPred, hRoot, hE, hW, hMsk := r.hint("pred_h"), r.hint("root_h"), r.hint("e"), r.hint("w"), r.hint("msk")
	NN := N * N
	e := make([]float64, NN)
	w := make([]float64, NN)
	root := make([]float64, NN)
	msk := make([]float64, NN)
	for i := 0; i < N; i++ {
		e[i*N+i], w[i*N+i], msk[i*N+i] = q[i], q[i], 1
	}
	push := func() {
		r.step()
		r.pushListPointers(hPred, order)
		r.pushVals(hRoot, root)
		r.pushVals(hE, e)
		r.pushVals(hW, w)
		r.pushVals(hMsk, msk)
	}
	push()
	for l := 1; l <= n; l++ {
		for i := 0; i+l <= n; i++ {
			j := i + l
			ij := i*N + j
			e[ij] = optimalBSTInf
			w[ij] = w[ij-1] + p[j-1] + q[j]
			for k := i; k < j; k++ {
				if t := e[i*N+k] + e[(k+1)*N+j] + w[ij]; t < e[ij] {
					e[ij], root[ij] = t, float64(k)
				}
			}
			msk[ij] = 1
		}
		push()
	}
	r.output("root", root)
	return r.finish(Args{append([]float64(nil), p...), append([]float64(nil), q...)}), nil
}
