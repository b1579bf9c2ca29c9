package clrs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestDynamicBadInput(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		algo string
		args Args
		want string
	}{
		{"chain empty", "matrix_chain_order", Args{[]float64{}}, "no dimensions"},
		{"chain negative", "matrix_chain_order", Args{[]float64{2, -1, 3}}, "dimension 1 is -1; want non-negative"},
		{"chain NaN", "matrix_chain_order", Args{[]float64{2, nan}}, "element 1 is NaN"},
		{"lcs empty x", "lcs_length", Args{[]int{}, []int{1}}, "x: the first string is empty"},
		{"lcs empty y", "lcs_length", Args{[]int{0, 1}, []int{}}, "y: the second string is empty"},
		{"lcs char too large", "lcs_length", Args{[]int{0, 4}, []int{1}}, "x: character 1 is 4; want a character in [0, 4)"},
		{"lcs negative char", "lcs_length", Args{[]int{0}, []int{1, 2, -1}}, "y: character 2 is -1"},
		{"bst q too short", "optimal_bst", Args{[]float64{0.2, 0.2}, []float64{0.2, 0.2}}, "got 2 gap probabilities for 2 keys; want len(q) = len(p)+1 = 3"},
		{"bst q too long", "optimal_bst", Args{[]float64{0.5}, []float64{0.2, 0.2, 0.1}}, "want len(q) = len(p)+1 = 2"},
		{"bst negative p", "optimal_bst", Args{[]float64{0.5, -0.1}, []float64{0.2, 0.2, 0.2}}, "p: probability 1 is -0.1; want non-negative"},
		{"bst negative q", "optimal_bst", Args{[]float64{0.5}, []float64{-0.2, 0.7}}, "q: probability 0 is -0.2"},
		{"bst NaN", "optimal_bst", Args{[]float64{nan}, []float64{0.2, 0.2}}, "p: element 0 is NaN"},
	}
	typed := map[string]func(Args) (*Trajectory, error){
		"matrix_chain_order": func(a Args) (*Trajectory, error) { return MatrixChainOrder(a[0].([]float64)) },
		"lcs_length":         func(a Args) (*Trajectory, error) { return LCSLength(a[0].([]int), a[1].([]int)) },
		"optimal_bst":        func(a Args) (*Trajectory, error) { return OptimalBST(a[0].([]float64), a[1].([]float64)) },
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := typed[c.algo](c.args); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("typed: got error %v; want one mentioning %q", err, c.want)
			}
			_, err := Run(c.algo, c.args)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.algo) {
				t.Errorf("Run: got error %v; want one naming %s and mentioning %q", err, c.algo, c.want)
			}
		})
	}
	t.Run("lcs non-integer character", func(t *testing.T) {
		_, err := Run("lcs_length", Args{[]float64{0, 0.5}, []float64{1}})
		if err == nil || !strings.Contains(err.Error(), "want an integer") {
			t.Errorf("got %v; want an error about a non-integer character", err)
		}
	})
	t.Run("lcs sampler alphabet too large", func(t *testing.T) {
		// The reference one-hot encodes over 4 classes whatever `chars`
		// says, and fails on larger characters; so must narlab.
		s, err := NewSampler("lcs_length", Length(40), Seed(0), NumSamples(10), Kwarg("chars", 9))
		if err == nil {
			_, err = s.Dataset()
		}
		if err == nil || !strings.Contains(err.Error(), "want a character in [0, 4)") {
			t.Errorf("got %v; want an error about characters out of [0, 4)", err)
		}
	})
}

// arrEdge reads entry (i, j) of an N×N edge probe row.
func arrEdge(v []float64, n, i, j int) float64 { return v[i*n+j] }

// arrChainCost is the textbook bottom-up matrix-chain DP (by chain
// length), written independently: cost[i][j] for 1 <= i <= j < n.
func arrChainCost(p []float64) [][]float64 {
	n := len(p)
	cost := make([][]float64, n)
	for i := range cost {
		cost[i] = make([]float64, n)
	}
	for length := 2; length < n; length++ {
		for i := 1; i+length-1 < n; i++ {
			j := i + length - 1
			cost[i][j] = math.Inf(1)
			for k := i; k < j; k++ {
				cost[i][j] = min(cost[i][j], cost[i][k]+cost[k+1][j]+p[i-1]*p[k]*p[j])
			}
		}
	}
	return cost
}

// arrSplitCost is the number of scalar multiplications of the
// parenthesization given by the split table s for matrices i..j.
func arrSplitCost(s []float64, p []float64, i, j int) float64 {
	n := len(p)
	if i == j {
		return 0
	}
	k := int(s[i*n+j])
	return arrSplitCost(s, p, i, k) + arrSplitCost(s, p, k+1, j) + p[i-1]*p[k]*p[j]
}

// TestMatrixChainProperties checks matrix_chain_order against the textbook
// DP. Integer dimensions make every cost exact, so the final `m` table and
// the cost of the parenthesization the output `s` describes must equal the
// optimum exactly; with real dimensions, within rounding. Every split lies
// inside its chain and, with positive dimensions, every entry ends up
// known.
func TestMatrixChainProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(81, 82))
	for trial := range 400 {
		n := 1 + rng.IntN(14)
		p := make([]float64, n)
		exact := trial%2 == 0
		for i := range p {
			if exact {
				p[i] = float64(1 + rng.IntN(9))
			} else {
				p[i] = 0.01 + rng.Float64()*10
			}
		}
		before := slices.Clone(p)
		tr, err := MatrixChainOrder(p)
		label := fmt.Sprintf("trial %d matrix_chain_order(%v)", trial, p)
		arrCheckRun(t, label, tr, err, Args{p}, Args{before})
		want := arrChainCost(p)
		s := tr.Output("s").Data
		m := tr.Hint("m").Step(tr.Length - 1)
		msk := tr.Hint("msk").Step(tr.Length - 1)
		close := func(a, b float64) bool { return a == b || !exact && math.Abs(a-b) <= 1e-9*(1+math.Abs(b)) }
		for i := range n {
			for j := range n {
				known := i >= 1 && j >= i
				if got := arrEdge(msk, n, i, j); got != float64(b2f(known)) {
					t.Fatalf("%s: msk[%d][%d] = %v", label, i, j, got)
				}
				if !known || i == j {
					if arrEdge(s, n, i, j) != 0 || arrEdge(m, n, i, j) != 0 {
						t.Fatalf("%s: entry (%d, %d) outside the table is set", label, i, j)
					}
					continue
				}
				if k := int(arrEdge(s, n, i, j)); k < i || k >= j {
					t.Fatalf("%s: split s[%d][%d] = %d outside [%d, %d)", label, i, j, k, i, j)
				}
				if got := arrEdge(m, n, i, j); !close(got, want[i][j]) {
					t.Fatalf("%s: m[%d][%d] = %v; the optimum is %v", label, i, j, got, want[i][j])
				}
				if got := arrSplitCost(s, p, i, j); !close(got, want[i][j]) {
					t.Fatalf("%s: the splits for %d..%d cost %v; the optimum is %v", label, i, j, got, want[i][j])
				}
			}
		}
		if tr.Length > n+1 {
			t.Fatalf("%s: %d rounds for %d dimensions", label, tr.Length, n)
		}
	}
}

func b2f(b bool) int {
	if b {
		return 1
	}
	return 0
}

// arrLCSTable is the textbook LCS-length DP, written independently:
// L[i][j] is the LCS length of x[:i] and y[:j].
func arrLCSTable(x, y []int) [][]int {
	L := make([][]int, len(x)+1)
	for i := range L {
		L[i] = make([]int, len(y)+1)
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			if x[i-1] == y[j-1] {
				L[i][j] = L[i-1][j-1] + 1
			} else {
				L[i][j] = max(L[i-1][j], L[i][j-1])
			}
		}
	}
	return L
}

// arrIsSubsequence tells whether s is a subsequence of t.
func arrIsSubsequence(s, t []int) bool {
	k := 0
	for _, c := range t {
		if k < len(s) && s[k] == c {
			k++
		}
	}
	return k == len(s)
}

// TestLCSProperties checks lcs_length against the textbook DP: the final
// `c` hint holds the LCS length of every pair of prefixes at edge (i, n+j)
// and 0 elsewhere; following the output's arrows from the last cell
// spells a common subsequence of that length; and every edge outside the
// tables carries the blank marker.
func TestLCSProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(91, 92))
	for trial := range 800 {
		n, m := 1+rng.IntN(12), 1+rng.IntN(12)
		chars := 1 + rng.IntN(4)
		x, y := make([]int, n), make([]int, m)
		for i := range x {
			x[i] = rng.IntN(chars)
		}
		for j := range y {
			y[j] = rng.IntN(chars)
		}
		xb, yb := slices.Clone(x), slices.Clone(y)
		tr, err := LCSLength(x, y)
		label := fmt.Sprintf("trial %d lcs_length(%v, %v)", trial, x, y)
		arrCheckRun(t, label, tr, err, Args{x, y}, Args{xb, yb})
		N := n + m
		L := arrLCSTable(x, y)
		c := tr.Hint("c").Step(tr.Length - 1)
		for i := range N {
			for j := range N {
				want := 0
				if i < n && j >= n {
					want = L[i+1][j-n+1]
				}
				if got := arrEdge(c, N, i, j); got != float64(want) {
					t.Fatalf("%s: c at edge (%d, %d) is %v; want %d", label, i, j, got, want)
				}
			}
		}
		b := tr.Output("b")
		if !slices.Equal(b.Shape, []int{N, N, 4}) {
			t.Fatalf("%s: b has shape %v", label, b.Shape)
		}
		arrow := func(i, j int) int { // cell (i, j) of the table
			cell := b.Data[(i*N+n+j)*4 : (i*N+n+j+1)*4]
			return arrOneHot(cell)
		}
		for i := range N {
			for j := range N {
				if i < n && j >= n {
					continue
				}
				if cell := b.Data[(i*N+j)*4 : (i*N+j+1)*4]; !slices.Equal(cell, []float64{0, 0, 0, -1}) {
					t.Fatalf("%s: edge (%d, %d) outside the table is %v; want the blank marker", label, i, j, cell)
				}
			}
		}
		var rev []int
		for i, j := n-1, m-1; i >= 0 && j >= 0; {
			switch arrow(i, j) {
			case lcsDiag:
				if x[i] != y[j] {
					t.Fatalf("%s: diagonal arrow at (%d, %d) between different characters", label, i, j)
				}
				rev = append(rev, x[i])
				i, j = i-1, j-1
			case lcsUp:
				i--
			case lcsLeft:
				j--
			default:
				t.Fatalf("%s: cell (%d, %d) has no arrow", label, i, j)
			}
		}
		slices.Reverse(rev)
		if len(rev) != L[n][m] || !arrIsSubsequence(rev, x) || !arrIsSubsequence(rev, y) {
			t.Fatalf("%s: the arrows spell %v; want a common subsequence of length %d", label, rev, L[n][m])
		}
	}
}

// arrBSTCost is the expected search cost of the tree given by the root
// table over gaps i..j (keys i..j-1) at the given depth: each key and gap
// costs its probability times (depth+1).
func arrBSTCost(root []float64, p, q []float64, i, j, depth int) float64 {
	N := len(q)
	if i == j {
		return float64(depth+1) * q[i]
	}
	r := int(root[i*N+j])
	return float64(depth+1)*p[r] + arrBSTCost(root, p, q, i, r, depth+1) + arrBSTCost(root, p, q, r+1, j, depth+1)
}

// arrBSTOptimum is an independent memoized recursion for the optimal
// expected cost over gaps i..j: cost(i, i) = q[i]; cost(i, j) = weight +
// min over roots r of cost(i, r) + cost(r+1, j).
func arrBSTOptimum(p, q []float64) float64 {
	N := len(q)
	memo := make(map[[2]int]float64)
	var cost func(i, j int) float64
	cost = func(i, j int) float64 {
		if i == j {
			return q[i]
		}
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		weight := q[i]
		for k := i; k < j; k++ {
			weight += p[k] + q[k+1]
		}
		best := math.Inf(1)
		for r := i; r < j; r++ {
			best = min(best, cost(i, r)+cost(r+1, j))
		}
		memo[[2]int{i, j}] = weight + best
		return weight + best
	}
	return cost(0, N-1)
}

// TestOptimalBSTProperties checks optimal_bst against an independent
// recursion: the tree the output's roots describe has the optimal expected
// cost, which the final `e` hint also holds at (0, n); every root lies in
// its range; `w` holds the range weights; the table fills one diagonal
// per step.
func TestOptimalBSTProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(101, 102))
	for trial := range 400 {
		n := rng.IntN(11)
		p, q := make([]float64, n), make([]float64, n+1)
		ties := trial%2 == 0
		total := 0.0
		for _, v := range [][]float64{p, q} {
			for i := range v {
				if ties {
					v[i] = float64(rng.IntN(3))
				} else {
					v[i] = rng.Float64()
				}
				total += v[i]
			}
		}
		if !ties && total > 0 {
			for _, v := range [][]float64{p, q} {
				for i := range v {
					v[i] /= total
				}
			}
		}
		pb, qb := slices.Clone(p), slices.Clone(q)
		tr, err := OptimalBST(p, q)
		label := fmt.Sprintf("trial %d optimal_bst(%v, %v)", trial, p, q)
		arrCheckRun(t, label, tr, err, Args{p, q}, Args{pb, qb})
		N := n + 1
		if tr.Length != N {
			t.Fatalf("%s: %d steps; want n+1 = %d", label, tr.Length, N)
		}
		root := tr.Output("root").Data
		if N == 1 {
			continue // a single gap: nothing to choose
		}
		for i := range N {
			for j := i + 1; j < N; j++ {
				if r := int(root[i*N+j]); r < i || r >= j {
					t.Fatalf("%s: root of %d..%d is key %d", label, i, j, r)
				}
			}
		}
		want := arrBSTOptimum(p, q)
		close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*(1+math.Abs(b)) }
		if got := arrBSTCost(root, p, q, 0, n, 0); !close(got, want) {
			t.Fatalf("%s: the output tree costs %v; the optimum is %v", label, got, want)
		}
		e, w := tr.Hint("e").Step(tr.Length-1), tr.Hint("w").Step(tr.Length-1)
		if got := arrEdge(e, N, 0, n); !close(got, want) {
			t.Fatalf("%s: e[0][n] = %v; the optimum is %v", label, got, want)
		}
		for i := range N {
			weight := q[i]
			for j := i; j < N; j++ {
				if j > i {
					weight += p[j-1] + q[j]
				}
				if got := arrEdge(w, N, i, j); !close(got, weight) {
					t.Fatalf("%s: w[%d][%d] = %v; want %v", label, i, j, got, weight)
				}
			}
		}
		// Step s has computed exactly the ranges of size < s+1.
		msk := tr.Hint("msk")
		for step := range tr.Length {
			for i := range N {
				for j := range N {
					want := j >= i && j-i <= step
					if got := arrEdge(msk.Step(step), N, i, j); got != float64(b2f(want)) {
						t.Fatalf("%s: msk[%d][%d] at step %d = %v", label, i, j, step, got)
					}
				}
			}
		}
	}
}

// TestDynamicReferenceVectors checks cases printed by the reference
// (`dump.py ALGO 0 0 --args`): zero matrix dimensions, with which the
// rounds stop as soon as no cost changes, before every entry is known;
// and equal key probabilities, whose tied roots go to the smallest key.
func TestDynamicReferenceVectors(t *testing.T) {
	ints := func(v []float64) []int {
		out := make([]int, len(v))
		for i, f := range v {
			out[i] = int(f)
		}
		return out
	}
	cases := []struct {
		name    string
		tr      func() (*Trajectory, error)
		steps   int
		hint    string
		hintVal []int // the last step of hint
		out     string
		outVal  []int
	}{
		{"chain of zeros", func() (*Trajectory, error) { return MatrixChainOrder([]float64{0, 0, 0, 0}) }, 1,
			"msk", []int{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1},
			"s", []int{0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0}},
		{"chain with a zero", func() (*Trajectory, error) { return MatrixChainOrder([]float64{1, 0, 2, 3, 1}) }, 4,
			"msk", []int{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1},
			"s", []int{0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 2, 3, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0}},
		{"uniform bst", func() (*Trajectory, error) {
			return OptimalBST([]float64{0.1, 0.1, 0.1, 0.1}, []float64{0.1, 0.1, 0.1, 0.1, 0.1})
		}, 5, "", nil,
			"root", []int{0, 0, 0, 1, 1, 0, 0, 1, 1, 2, 0, 0, 0, 2, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, err := c.tr()
			if err != nil {
				t.Fatal(err)
			}
			if tr.Length != c.steps {
				t.Errorf("%d steps; want %d", tr.Length, c.steps)
			}
			if c.hint != "" {
				if got := ints(tr.Hint(c.hint).Step(tr.Length - 1)); !slices.Equal(got, c.hintVal) {
					t.Errorf("last %s: got %v\nwant %v", c.hint, got, c.hintVal)
				}
			}
			if got := ints(tr.Output(c.out).Data); !slices.Equal(got, c.outVal) {
				t.Errorf("%s: got %v\nwant %v", c.out, got, c.outVal)
			}
		})
	}
	// e[0][j] of the uniform tree, as the reference prints it.
	tr, _ := OptimalBST([]float64{0.1, 0.1, 0.1, 0.1}, []float64{0.1, 0.1, 0.1, 0.1, 0.1})
	if got, want := tr.Hint("e").Step(4)[:5], []float64{0.1, 0.5, 1.1, 1.7, 2.5}; !slices.Equal(got, want) {
		t.Errorf("uniform bst e[0]: got %v, want %v", got, want)
	}
}
