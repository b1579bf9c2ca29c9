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

// Tests of the array algorithms (sorting.go, searching.go, divide.go,
// greedy.go, dynamic.go) share the helpers below; their names start with
// "arr" to keep clear of the other algorithm families' test helpers.

// arrSorts are the four sorting algorithms under their registered names.
var arrSorts = []struct {
	name   string
	run    func([]float64) (*Trajectory, error)
	stable bool
	minN   int
}{
	{"insertion_sort", InsertionSort, true, 1},
	{"bubble_sort", BubbleSort, true, 1},
	{"heapsort", Heapsort, false, 1},
	{"quicksort", Quicksort, false, 2},
}

// arrKeys draws n keys from one of several distributions unlike the
// samplers' uniform [0, 1): heavy ties, all equal, already sorted, reverse
// sorted, negative and large magnitudes, or plain uniform.
func arrKeys(rng *rand.Rand, n int) []float64 {
	a := make([]float64, n)
	switch rng.IntN(7) {
	case 0: // few distinct values: many ties
		for i := range a {
			a[i] = float64(rng.IntN(3))
		}
	case 1: // all equal
		v := rng.NormFloat64()
		for i := range a {
			a[i] = v
		}
	case 2: // sorted with ties
		for i := range a {
			a[i] = float64(i / 2)
		}
	case 3: // reverse sorted
		for i := range a {
			a[i] = float64(n - i)
		}
	case 4: // wide range of magnitudes and signs
		for i := range a {
			a[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
		}
	case 5: // signed integers
		for i := range a {
			a[i] = float64(rng.IntN(21) - 10)
		}
	default:
		for i := range a {
			a[i] = rng.Float64()
		}
	}
	return a
}

// arrListOrder decodes list predecessor pointers (the first node points to
// itself, every other node to the node before it) into the list's order,
// or reports why they are not a list over all n nodes.
func arrListOrder(pred []float64) ([]int, error) {
	n := len(pred)
	head := -1
	next := make([]int, n)
	for i := range next {
		next[i] = -1
	}
	for v, pf := range pred {
		p := int(pf)
		if float64(p) != pf || p < 0 || p >= n {
			return nil, fmt.Errorf("node %d points to %v", v, pf)
		}
		if p == v {
			if head >= 0 {
				return nil, fmt.Errorf("two heads %d and %d", head, v)
			}
			head = v
			continue
		}
		if next[p] >= 0 {
			return nil, fmt.Errorf("node %d has two successors", p)
		}
		next[p] = v
	}
	if head < 0 {
		return nil, fmt.Errorf("no head")
	}
	order := []int{head}
	for v := next[head]; v >= 0 && len(order) <= n; v = next[v] {
		order = append(order, v)
	}
	if len(order) != n {
		return nil, fmt.Errorf("the list from %d covers %d of %d nodes", head, len(order), n)
	}
	return order, nil
}

// arrOneHot returns the index of the single 1 of a one-hot row, or -1.
func arrOneHot(row []float64) int {
	at := -1
	for i, v := range row {
		if v == 1 {
			if at >= 0 {
				return -1
			}
			at = i
		} else if v != 0 {
			return -1
		}
	}
	return at
}

// arrCheckRun runs the common checks on a trajectory: it validates, and
// the arguments were not modified.
func arrCheckRun(t *testing.T, label string, tr *Trajectory, err error, args, before Args) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	if err := tr.Validate(); err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	for i := range args {
		if fmt.Sprint(args[i]) != fmt.Sprint(before[i]) {
			t.Fatalf("%s: argument %d modified: %v, was %v", label, i, args[i], before[i])
		}
	}
}

func TestSortingBadInput(t *testing.T) {
	cases := []struct {
		name string
		A    []float64
		want string
		only string // only this algorithm rejects it
	}{
		{"empty", []float64{}, "want at least one element", ""},
		{"nil", nil, "want at least one element", ""},
		{"NaN", []float64{1, math.NaN()}, "element 1 is NaN; want a finite number", ""},
		{"+Inf", []float64{math.Inf(1), 0}, "element 0 is +Inf; want a finite number", ""},
		{"-Inf", []float64{0, 1, math.Inf(-1)}, "element 2 is -Inf; want a finite number", ""},
		{"one key", []float64{0.5}, "quicksort needs at least 2 keys", "quicksort"},
	}
	for _, s := range arrSorts {
		for _, c := range cases {
			t.Run(s.name+"/"+c.name, func(t *testing.T) {
				_, err := s.run(c.A)
				_, errRun := Run(s.name, Args{c.A})
				if c.only != "" && c.only != s.name {
					if err != nil || errRun != nil {
						t.Fatalf("rejected a valid input: %v / %v", err, errRun)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("typed: got error %v; want one mentioning %q", err, c.want)
				}
				if errRun == nil || !strings.Contains(errRun.Error(), c.want) || !strings.Contains(errRun.Error(), s.name) {
					t.Errorf("Run: got error %v; want one naming %s and mentioning %q", errRun, s.name, c.want)
				}
			})
		}
	}
	t.Run("quicksort sampler of length 1", func(t *testing.T) {
		s, err := NewSampler("quicksort", Length(1), Seed(0), NumSamples(2))
		if err == nil {
			_, err = s.Dataset()
		}
		if err == nil || !strings.Contains(err.Error(), "at least 2 keys") {
			t.Errorf("got %v; want an error about quicksort needing 2 keys", err)
		}
	})
	t.Run("wrong argument type", func(t *testing.T) {
		if _, err := Run("heapsort", Args{"3 1 2"}); err == nil || !strings.Contains(err.Error(), "want array of numbers") {
			t.Errorf("got %v; want a type error", err)
		}
	})
}

// TestSortingProperties sorts keys from several distributions and checks
// the output against an independent sort: the decoded order is a
// permutation with non-decreasing keys and, for the stable sorts, exactly
// the stable order. Every pred_h step must be a valid list order, the last
// one the output's, and the step counts of the fixed-schedule sorts are
// known in closed form.
func TestSortingProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 600 {
		n := 1 + rng.IntN(40)
		if trial%10 == 0 {
			n = 1 + rng.IntN(3)
		}
		A := arrKeys(rng, n)
		stable := arange(n)
		sort.SliceStable(stable, func(i, j int) bool { return A[stable[i]] < A[stable[j]] })
		for _, s := range arrSorts {
			if n < s.minN {
				continue
			}
			before := slices.Clone(A)
			tr, err := s.run(A)
			label := fmt.Sprintf("trial %d %s(%v)", trial, s.name, A)
			arrCheckRun(t, label, tr, err, Args{A}, Args{before})
			out := tr.Output("pred")
			if out.DType != Int64 {
				t.Fatalf("%s: pred dtype %v, want int64", label, out.DType)
			}
			order, err := arrListOrder(out.Data)
			if err != nil {
				t.Fatalf("%s: output pred is not a list: %v", label, err)
			}
			for k := 1; k < n; k++ {
				if A[order[k-1]] > A[order[k]] {
					t.Fatalf("%s: not sorted at position %d: order %v", label, k, order)
				}
			}
			if s.stable && !slices.Equal(order, stable) {
				t.Fatalf("%s: order %v; want the stable order %v", label, order, stable)
			}
			pred := tr.Hint("pred_h")
			for step := range tr.Length {
				if _, err := arrListOrder(pred.Step(step)); err != nil {
					t.Fatalf("%s: pred_h at step %d: %v", label, step, err)
				}
			}
			if !slices.Equal(pred.Step(tr.Length-1), out.Data) {
				t.Fatalf("%s: last pred_h %v differs from the output %v", label, pred.Step(tr.Length-1), out.Data)
			}
			switch s.name {
			case "insertion_sort":
				if tr.Length != n {
					t.Fatalf("%s: %d steps; want n = %d", label, tr.Length, n)
				}
			case "bubble_sort":
				if tr.Length != 1+n*(n-1)/2 {
					t.Fatalf("%s: %d steps; want 1+n(n-1)/2 = %d", label, tr.Length, 1+n*(n-1)/2)
				}
			case "heapsort":
				arrCheckHeapExtractions(t, label, A, tr)
			}
		}
	}
}

// arrCheckHeapExtractions checks heapsort's extraction steps (phase 1):
// the node just swapped to the end of the heap (hint j) holds a key no
// smaller than every key still in the heap, and the heap shrinks by one
// each time.
func arrCheckHeapExtractions(t *testing.T, label string, A []float64, tr *Trajectory) {
	t.Helper()
	n := len(A)
	phase, pred, j := tr.Hint("phase"), tr.Hint("pred_h"), tr.Hint("j")
	extractions := 0
	for step := range tr.Length {
		if arrOneHot(phase.Step(step)) != heapExtract {
			continue
		}
		extractions++
		order, _ := arrListOrder(pred.Step(step))
		node := arrOneHot(j.Step(step))
		at := slices.Index(order, node)
		if at != n-extractions {
			t.Fatalf("%s: extraction %d put node %d at position %d; want %d", label, extractions, node, at, n-extractions)
		}
		for _, other := range order[:at] {
			if A[other] > A[node] {
				t.Fatalf("%s: extraction %d took key %v while %v is still in the heap", label, extractions, A[node], A[other])
			}
		}
	}
	if extractions != n-1 {
		t.Fatalf("%s: %d extractions; want n-1 = %d", label, extractions, n-1)
	}
}

// TestArraySampledTrajectoriesValidate samples every array algorithm at
// several lengths and checks that each trajectory validates and that the
// sampler's arguments were recorded.
func TestArraySampledTrajectoriesValidate(t *testing.T) {
	algos := []string{"insertion_sort", "bubble_sort", "heapsort", "quicksort", "minimum", "binary_search",
		"quickselect", "find_maximum_subarray_kadane", "find_maximum_subarray", "activity_selector",
		"task_scheduling", "matrix_chain_order", "lcs_length", "optimal_bst"}
	for _, algo := range algos {
		for _, n := range []int{2, 3, 4, 9, 17, 33} {
			s, err := NewSampler(algo, Length(n), Seed(int64(n)), NumSamples(3))
			if err != nil {
				t.Fatalf("%s n=%d: %v", algo, n, err)
			}
			for i, tr := range s.Trajectories() {
				if err := tr.Validate(); err != nil {
					t.Errorf("%s n=%d sample %d: %v", algo, n, i, err)
				}
				if len(tr.Args) == 0 {
					t.Errorf("%s n=%d sample %d: no arguments recorded", algo, n, i)
				}
			}
		}
	}
}
