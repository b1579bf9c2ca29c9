package clrs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestSearchingBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		algo string
		args Args
		want string
	}{
		{"minimum empty", "minimum", Args{[]float64{}}, "want at least one element"},
		{"minimum NaN", "minimum", Args{[]float64{0, nan}}, "element 1 is NaN"},
		{"quickselect empty", "quickselect", Args{[]float64{}}, "want at least one element"},
		{"quickselect Inf", "quickselect", Args{[]float64{inf, 1}}, "element 0 is +Inf"},
		{"binary_search unsorted", "binary_search", Args{0.5, []float64{0.1, 0.3, 0.2, 0.4}}, "not sorted: element 2 (0.2) is smaller than element 1 (0.3)"},
		{"binary_search descending", "binary_search", Args{0.5, []float64{2, 1}}, "want a non-decreasing array"},
		{"binary_search empty", "binary_search", Args{0.5, []float64{}}, "the array is empty"},
		{"binary_search NaN key", "binary_search", Args{0.5, []float64{0, nan}}, "element 1 is NaN"},
		{"binary_search NaN target", "binary_search", Args{nan, []float64{0, 1}}, "want a finite number"},
		{"binary_search Inf target", "binary_search", Args{-inf, []float64{0, 1}}, "want a finite number"},
	}
	typed := map[string]func(Args) (*Trajectory, error){
		"minimum":       func(a Args) (*Trajectory, error) { return Minimum(a[0].([]float64)) },
		"quickselect":   func(a Args) (*Trajectory, error) { return Quickselect(a[0].([]float64)) },
		"binary_search": func(a Args) (*Trajectory, error) { return BinarySearch(a[0].(float64), a[1].([]float64)) },
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
	t.Run("binary_search accepts duplicates", func(t *testing.T) {
		if _, err := BinarySearch(1, []float64{0, 1, 1, 1, 2}); err != nil {
			t.Error(err)
		}
	})
}

// TestMinimumProperties checks minimum against a direct scan: the output
// and every min_h step mark the first occurrence of the smallest key seen
// so far, and i walks the array in order.
func TestMinimumProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 500 {
		A := arrKeys(rng, 1+rng.IntN(40))
		before := slices.Clone(A)
		tr, err := Minimum(A)
		label := fmt.Sprintf("trial %d minimum(%v)", trial, A)
		arrCheckRun(t, label, tr, err, Args{A}, Args{before})
		if tr.Length != len(A) {
			t.Fatalf("%s: %d steps; want %d", label, tr.Length, len(A))
		}
		for step := range tr.Length {
			first := 0
			for k := 1; k <= step; k++ {
				if A[k] < A[first] {
					first = k
				}
			}
			if got := arrOneHot(tr.Hint("min_h").Step(step)); got != first {
				t.Fatalf("%s: min_h at step %d is %d; want %d", label, step, got, first)
			}
			if got := arrOneHot(tr.Hint("i").Step(step)); got != step {
				t.Fatalf("%s: i at step %d is %d", label, step, got)
			}
		}
		want := slices.Index(A, slices.Min(A))
		if got := arrOneHot(tr.Output("min").Data); got != want {
			t.Fatalf("%s: min at %d; want %d", label, got, want)
		}
	}
}

// TestBinarySearchProperties checks binary_search against sort.Search on
// sorted arrays with duplicates, for targets in the array, between keys,
// below and above every key: the output is the first key >= x, or the
// last node when there is none; low <= mid <= high at every step, and the
// search takes at most ceil(log2 n) halvings.
func TestBinarySearchProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 32))
	for trial := range 1000 {
		n := 1 + rng.IntN(70)
		A := arrKeys(rng, n)
		slices.Sort(A)
		var x float64
		switch rng.IntN(4) {
		case 0:
			x = A[rng.IntN(n)]
		case 1:
			x = A[0] - 1
		case 2:
			x = A[n-1] + 1
		default:
			i := rng.IntN(n)
			x = A[i] + (rng.Float64()-0.5)*math.Abs(A[i])
		}
		before := slices.Clone(A)
		tr, err := BinarySearch(x, A)
		label := fmt.Sprintf("trial %d binary_search(%v, %v)", trial, x, A)
		arrCheckRun(t, label, tr, err, Args{x, A}, Args{x, before})
		want := min(sort.Search(n, func(i int) bool { return A[i] >= x }), n-1)
		if got := arrOneHot(tr.Output("return").Data); got != want {
			t.Fatalf("%s: returned node %d; want %d", label, got, want)
		}
		if tr.Length-1 > bitLen(n-1) {
			t.Fatalf("%s: %d halvings for n=%d", label, tr.Length-1, n)
		}
		for step := range tr.Length {
			lo := arrOneHot(tr.Hint("low").Step(step))
			hi := arrOneHot(tr.Hint("high").Step(step))
			mid := arrOneHot(tr.Hint("mid").Step(step))
			if !(lo <= mid && mid <= hi) || mid != (lo+hi)/2 {
				t.Fatalf("%s: step %d has low %d, mid %d, high %d", label, step, lo, mid, hi)
			}
			// The answer stays in [low, high].
			if want < lo || want > hi {
				t.Fatalf("%s: step %d range [%d, %d] excludes the answer %d", label, step, lo, hi, want)
			}
		}
		if got := tr.Input("target").Data; len(got) != 1 || got[0] != x {
			t.Fatalf("%s: target input %v", label, got)
		}
	}
}

// TestQuickselectProperties checks quickselect against a full sort: the
// output node's key is the n/2-th smallest (0-based). The `target` hint
// starts at (n/2)/n, the `p`/`r` range of every step holds the answer's
// final position, and the pivot of each placement step lands where its
// rank says.
func TestQuickselectProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 42))
	for trial := range 800 {
		n := 1 + rng.IntN(50)
		A := arrKeys(rng, n)
		before := slices.Clone(A)
		tr, err := Quickselect(A)
		label := fmt.Sprintf("trial %d quickselect(%v)", trial, A)
		arrCheckRun(t, label, tr, err, Args{A}, Args{before})
		sorted := slices.Clone(A)
		slices.Sort(sorted)
		node := arrOneHot(tr.Output("median").Data)
		if node < 0 || A[node] != sorted[n/2] {
			t.Fatalf("%s: median node %d; want a node with key %v", label, node, sorted[n/2])
		}
		if got := tr.Hint("target").Step(0)[0]; got != float64(n/2)/float64(n) {
			t.Fatalf("%s: first target %v; want %v", label, got, float64(n/2)/float64(n))
		}
		pred := tr.Hint("pred_h")
		for step := range tr.Length {
			order, err := arrListOrder(pred.Step(step))
			if err != nil {
				t.Fatalf("%s: pred_h at step %d: %v", label, step, err)
			}
			p := slices.Index(order, arrOneHot(tr.Hint("p").Step(step)))
			r := slices.Index(order, arrOneHot(tr.Hint("r").Step(step)))
			if p > n/2 || r < n/2 {
				t.Fatalf("%s: step %d works on positions [%d, %d], which miss rank %d", label, step, p, r, n/2)
			}
		}
		// The last step places the answer as the pivot.
		if got := arrOneHot(tr.Hint("pivot").Step(tr.Length - 1)); got != node {
			t.Fatalf("%s: last pivot %d; want the median node %d", label, got, node)
		}
	}
}
