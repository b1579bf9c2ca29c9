package clrs

import (
	"fmt"
	"math"
)

// Maximum subarray: find_maximum_subarray_kadane (CLRS-30; Kadane's scan,
// CLRS exercise 4.1-5) and find_maximum_subarray (not in CLRS-30; the
// divide-and-conquer algorithm of CLRS §4.1). Both output the first and
// last node (start, end) of a contiguous run of keys with the largest sum.

func init() {
	register(&algorithmDef{name: "find_maximum_subarray_kadane", args: keysArg, sampler: maxSubarraySampler,
		run: func(a Args) (*Trajectory, error) { return FindMaximumSubarrayKadane(a[0].([]float64)) }})
	register(&algorithmDef{name: "find_maximum_subarray", args: keysArg, sampler: maxSubarraySampler,
		run: func(a Args) (*Trajectory, error) { return FindMaximumSubarray(a[0].([]float64)) }})
}

// FindMaximumSubarrayKadane scans A once, keeping the best run ending at
// the current element (extended while that does not make it smaller than
// the element alone, else restarted at the element) and the best run seen
// so far (replaced only by a strictly larger sum, so the earliest best run
// wins).
//
// Outputs: start and end, the nodes of the best run. Hints (one step per
// element): pred_h, the identity order; best_low, best_high, best_sum, the
// best run so far; i, j, sum, the current run.
func FindMaximumSubarrayKadane(A []float64) (*Trajectory, error) {
	if err := checkKeys(A); err != nil {
		return nil, err
	}
	n := len(A)
	r, a, order := keysRecorder("find_maximum_subarray_kadane", A)
	hPred, hBestLow, hBestHigh, hBestSum := r.hint("pred_h"), r.hint("best_low"), r.hint("best_high"), r.hint("best_sum")
	hI, hJ, hSum := r.hint("i"), r.hint("j"), r.hint("sum")
	bestLow, bestHigh, bestSum := 0, 0, a[0]
	i, sum := 0, a[0]
	push := func(j int) {
		r.step()
		r.pushListPointers(hPred, order)
		r.pushOneHot(hBestLow, bestLow, n)
		r.pushOneHot(hBestHigh, bestHigh, n)
		r.pushScalar(hBestSum, bestSum)
		r.pushOneHot(hI, i, n)
		r.pushOneHot(hJ, j, n)
		r.pushScalar(hSum, sum)
	}
	push(0)
	for j := 1; j < n; j++ {
		x := a[j]
		if sum+x >= x {
			sum += x
		} else {
			i, sum = j, x
		}
		if sum > bestSum {
			bestLow, bestHigh, bestSum = i, j, sum
		}
		push(j)
	}
	r.outputOneHot("start", bestLow, n)
	r.outputOneHot("end", bestHigh, n)
	return r.finish(keysArgs(A)), nil
}

// maxSubarrayLimit bounds the keys of FindMaximumSubarray: the reference
// seeds its crossing scans with A[mid]-0.1, which must differ from A[mid].
const maxSubarrayLimit = 1 << 50

// subarray is a run of keys [low, high] and its sum.
type subarray struct {
	low, high int
	sum       float64
}

// fmsStep is the value of every hint of find_maximum_subarray at one step.
type fmsStep struct {
	low, high, mid           int
	left, right, cross, ret  subarray
	i, j                     int
	sum, leftXSum, rightXSum float64
	phase                    int
}

// fmsRun holds one divide-and-conquer maximum-subarray run.
type fmsRun struct {
	r     *recorder
	a     []float64
	order []int
	h     [22]int // hint indices, in fmsHints order
}

var fmsHints = [22]string{"pred_h", "low", "high", "mid", "left_low", "left_high", "left_sum",
	"right_low", "right_high", "right_sum", "cross_low", "cross_high", "cross_sum",
	"ret_low", "ret_high", "ret_sum", "i", "j", "sum", "left_x_sum", "right_x_sum", "phase"}

func (f *fmsRun) push(s *fmsStep) {
	r, h, n := f.r, &f.h, len(f.a)
	r.step()
	r.pushListPointers(h[0], f.order)
	for k, v := range [...]int{s.low, s.high, s.mid} {
		r.pushOneHot(h[1+k], v, n)
	}
	for k, run := range [...]subarray{s.left, s.right, s.cross, s.ret} {
		r.pushOneHot(h[4+3*k], run.low, n)
		r.pushOneHot(h[5+3*k], run.high, n)
		r.pushScalar(h[6+3*k], run.sum)
	}
	r.pushOneHot(h[16], s.i, n)
	r.pushOneHot(h[17], s.j, n)
	r.pushScalar(h[18], s.sum)
	r.pushScalar(h[19], s.leftXSum)
	r.pushScalar(h[20], s.rightXSum)
	r.pushOneHot(h[21], s.phase, 3)
}

// solve finds the maximum subarray of a[low..high] (low < high or a
// one-element part of a longer array) and, below the top level, records
// the step that returns it.
func (f *fmsRun) solve(low, high int) subarray {
	a := f.a
	mid := (low + high) / 2
	if low == high {
		f.push(&fmsStep{low: low, high: high, mid: mid,
			left: subarray{low, high, 0}, right: subarray{low, high, 0}, cross: subarray{low, high, 0},
			ret: subarray{low, high, a[low]}, i: low, j: high,
			leftXSum: a[low] - 0.1, rightXSum: a[high] - 0.1, phase: 0})
		return subarray{low, high, a[low]}
	}
	s := fmsStep{low: low, high: high, mid: mid,
		left: subarray{low, mid, 0}, right: subarray{mid + 1, high, 0},
		cross: subarray{mid, mid + 1, a[mid] + a[mid+1] - 0.2},
		ret:   subarray{low, high, 0}, i: mid, j: mid + 1,
		leftXSum: a[mid] - 0.1, rightXSum: a[mid+1] - 0.1, phase: 0}
	f.push(&s)
	s.left = f.solve(low, mid)
	f.push(&s)
	s.right = f.solve(mid+1, high)
	f.push(&s)
	cross, xs := f.crossing(s)
	best := cross
	switch {
	case s.left.sum >= s.right.sum && s.left.sum >= cross.sum:
		best = s.left
	case s.right.sum >= s.left.sum && s.right.sum >= cross.sum:
		best = s.right
	}
	if low == 0 && high == len(a)-1 {
		return best
	}
	s.cross, s.ret = cross, best
	s.i, s.j = low, high
	s.sum, s.leftXSum, s.rightXSum = xs.sum, xs.leftXSum, xs.rightXSum
	f.push(&s)
	return best
}

// crossing finds the best run of a[low..high] that crosses mid (CLRS's
// FIND-MAX-CROSSING-SUBARRAY): a left scan from mid down to low (phase 1),
// then a right scan from mid+1 up to high (phase 2), each recording a step
// before it starts and one per element. ctx holds the halves' results and
// is otherwise reused as scratch. It returns the crossing run and, in a
// step value, the last running sum and the best left and right sums.
func (f *fmsRun) crossing(ctx fmsStep) (subarray, fmsStep) {
	a := f.a
	low, mid, high := ctx.low, ctx.mid, ctx.high
	s := ctx
	s.phase = 1
	leftSum, sum := a[mid]-0.1, 0.0
	maxLeft := mid
	s.cross = subarray{mid, mid + 1, a[mid] + a[mid+1] - 0.2}
	s.ret = subarray{low, high, 0}
	s.i, s.j, s.sum = mid, mid+1, 0
	s.leftXSum, s.rightXSum = a[mid]-0.1, a[mid+1]-0.1
	f.push(&s)
	for i := mid; i >= low; i-- {
		sum += a[i]
		if sum > leftSum {
			leftSum, maxLeft = sum, i
		}
		s.cross = subarray{maxLeft, mid + 1, leftSum + a[mid+1] - 0.1}
		s.i, s.sum, s.leftXSum = i, sum, leftSum
		f.push(&s)
	}
	// s.i stays at low, the left scan's last position.
	rightSum := a[mid+1] - 0.1
	maxRight := mid + 1
	sum = 0
	s.phase = 2
	s.left.sum, s.right.sum = leftSum, rightSum
	s.cross = subarray{maxLeft, mid + 1, leftSum + rightSum}
	s.sum = 0
	f.push(&s)
	for j := mid + 1; j <= high; j++ {
		sum += a[j]
		if sum > rightSum {
			rightSum, maxRight = sum, j
		}
		s.right.sum = rightSum
		s.cross = subarray{maxLeft, maxRight, leftSum + rightSum}
		s.j, s.sum, s.rightXSum = j, sum, rightSum
		f.push(&s)
	}
	return subarray{maxLeft, maxRight, leftSum + rightSum},
		fmsStep{sum: sum, leftXSum: leftSum, rightXSum: rightSum}
}

// FindMaximumSubarray runs the divide-and-conquer maximum-subarray
// algorithm (CLRS §4.1) on A: the best run lies in the left half, the
// right half, or crosses the middle; ties prefer left, then right, then
// crossing. Like the reference, it needs at least two keys, and it needs
// keys smaller than 2^50 in magnitude (its crossing scans start from the
// sentinel A[mid]-0.1, which must differ from A[mid]).
//
// Outputs: start and end, the nodes of the best run. Hints: pred_h (the
// identity order); low, high, mid, the current part; left_*, right_*,
// cross_* and ret_*, the runs found so far and their sums; i, j, sum, the
// crossing scans' positions and running sum; left_x_sum and right_x_sum,
// their best sums; phase: 0 dividing or combining, 1 left scan, 2 right
// scan.
func FindMaximumSubarray(A []float64) (*Trajectory, error) {
	if err := checkKeys(A); err != nil {
		return nil, err
	}
	n := len(A)
	if n < 2 {
		return nil, fmt.Errorf("key: find_maximum_subarray needs at least 2 keys (the reference records no hint step for %d); got %d", n, n)
	}
	for i, v := range A {
		if math.Abs(v) >= maxSubarrayLimit {
			return nil, fmt.Errorf("key: element %d is %v; want keys smaller than 2^50 in magnitude (the crossing scans start from key-0.1, which must differ from the key)", i, v)
		}
	}
	r, a, order := keysRecorder("find_maximum_subarray", A)
	r.expectSteps(2 * n * (bitLen(n) + 1)) // measured 169 steps for n=16, 825 for n=64
	f := &fmsRun{r: r, a: a, order: order}
	for k, name := range fmsHints {
		f.h[k] = r.hint(name)
	}
	best := f.solve(0, n-1)
	r.outputOneHot("start", best.low, n)
	r.outputOneHot("end", best.high, n)
	return r.finish(keysArgs(A)), nil
}
