package clrs

import (
	"fmt"
	"math"
)

// Searching: minimum, binary_search and quickselect (CLRS §9.1, §2.3
// exercise 2.3-5, §9.2). Their array does not move except in quickselect,
// so pred_h is the identity list order (0 ← 0 ← 1 ← 2 …) at every step of
// minimum and binary_search.

func init() {
	register(&algorithmDef{name: "minimum", args: keysArg, sampler: sortingSampler,
		run: func(a Args) (*Trajectory, error) { return Minimum(a[0].([]float64)) }})
	register(&algorithmDef{name: "binary_search", sampler: searchSampler,
		args: []argSpec{
			{"x", argReal, "the value to search for"},
			{"A", argFloats, "the array to search, sorted in non-decreasing order"},
		},
		run: func(a Args) (*Trajectory, error) { return BinarySearch(a[0].(float64), a[1].([]float64)) }})
	register(&algorithmDef{name: "quickselect", args: keysArg, sampler: sortingSampler,
		run: func(a Args) (*Trajectory, error) { return Quickselect(a[0].([]float64)) }})
}

// Minimum scans A once for its smallest key (CLRS §9.1); with ties the
// first occurrence wins.
//
// Output: min, the node of the smallest key. Hints (one step per element):
// pred_h, the identity order; min_h, the smallest key so far; i, the node
// just examined.
func Minimum(A []float64) (*Trajectory, error) {
	if err := checkKeys(A); err != nil {
		return nil, err
	}
	n := len(A)
	r, a, order := keysRecorder("minimum", A)
	hPred, hMin, hI := r.hint("pred_h"), r.hint("min_h"), r.hint("i")
	push := func(minIdx, i int) {
		r.step()
		r.pushListPointers(hPred, order)
		r.pushOneHot(hMin, minIdx, n)
		r.pushOneHot(hI, i, n)
	}
	best := 0
	push(best, 0)
	for i := 1; i < n; i++ {
		if a[best] > a[i] {
			best = i
		}
		push(best, i)
	}
	r.outputOneHot("min", best, n)
	return r.finish(keysArgs(A)), nil
}

// BinarySearch looks for x in the sorted array A and returns, as output
// `return`, the first node whose key is >= x — or the last node when every
// key is smaller, so that the answer is always a node. A must be sorted in
// non-decreasing order (an unsorted A is an error); duplicates are fine.
//
// Hints (one step per halving after the initial state): pred_h, the
// identity order; low and high, the ends of the current range; mid, its
// midpoint (low+high)/2.
func BinarySearch(x float64, A []float64) (*Trajectory, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil, fmt.Errorf("x: got %v; want a finite number", x)
	}
	if len(A) == 0 {
		return nil, fmt.Errorf("A: the array is empty; want at least one element")
	}
	if err := checkFinite(A); err != nil {
		return nil, fmt.Errorf("A: %w", err)
	}
	for i := 1; i < len(A); i++ {
		if A[i] < A[i-1] {
			return nil, fmt.Errorf("A: the array is not sorted: element %d (%v) is smaller than element %d (%v); want a non-decreasing array", i, A[i], i-1, A[i-1])
		}
	}
	n := len(A)
	r := newRecorder("binary_search", n)
	r.input("pos", positions(n))
	r.input("key", A)
	r.inputScalar("target", x)
	order := arange(n)
	hPred, hLow, hHigh, hMid := r.hint("pred_h"), r.hint("low"), r.hint("high"), r.hint("mid")
	r.expectSteps(bitLen(n) + 1)
	push := func(low, high int) {
		r.step()
		r.pushListPointers(hPred, order)
		r.pushOneHot(hLow, low, n)
		r.pushOneHot(hHigh, high, n)
		r.pushOneHot(hMid, (low+high)/2, n)
	}
	low, high := 0, n-1
	push(low, high)
	for low < high {
		mid := (low + high) / 2
		if x <= A[mid] {
			high = mid
		} else {
			low = mid + 1
		}
		push(low, high)
	}
	r.outputOneHot("return", high, n)
	return r.finish(Args{x, append([]float64(nil), A...)}), nil
}

// Quickselect finds the median — the key of rank n/2 (0-based), i.e. the
// upper median for even n — of a copy of A with Hoare's selection
// algorithm using the Lomuto partition (CLRS §9.2), always recursing into
// the part that holds the wanted rank. Keys equal to the pivot go to its
// left.
//
// Output: median, the node of that key. Hints (one step per comparison and
// per pivot placement): pred_h, the current order; p and r, the nodes at
// the ends of the part being partitioned; i, the node just right of the
// keys known to be <= the pivot; j, the node compared (the pivot on the
// placement step); pivot, the pivot's node; i_rank, during a partition the
// absolute position (i+1)/n, and on the placement step the pivot's rank
// within the part, (q-p)/n; target, the rank sought within the part, /n.
func Quickselect(A []float64) (*Trajectory, error) {
	if err := checkKeys(A); err != nil {
		return nil, err
	}
	n := len(A)
	fn := float64(n)
	r, a, order := keysRecorder("quickselect", A)
	r.expectSteps(3 * n)
	hPred, hP, hR, hI, hJ := r.hint("pred_h"), r.hint("p"), r.hint("r"), r.hint("i"), r.hint("j")
	hRank, hTarget, hPivot := r.hint("i_rank"), r.hint("target"), r.hint("pivot")
	target := n / 2
	q := &partitioner{r: r, a: a, order: order}
	q.step = func(p, rr, i, j int, final bool) {
		r.step()
		r.pushListPointers(hPred, order)
		r.pushOneHot(hP, order[p], n)
		r.pushOneHot(hR, order[rr], n)
		r.pushOneHot(hI, order[i+1], n)
		r.pushOneHot(hJ, order[j], n)
		if final {
			r.pushScalar(hRank, float64(i+1-p)/fn)
			r.pushOneHot(hPivot, order[i+1], n)
		} else {
			r.pushScalar(hRank, float64(i+1)/fn)
			r.pushOneHot(hPivot, order[rr], n)
		}
		r.pushScalar(hTarget, float64(target)/fn)
	}
	p, rr := 0, n-1
	for {
		m := q.partition(p, rr)
		k := m - p
		if target == k {
			r.outputOneHot("median", order[m], n)
			break
		}
		if target < k {
			rr = m - 1
		} else {
			p = m + 1
			target -= k + 1
		}
	}
	return r.finish(keysArgs(A)), nil
}
