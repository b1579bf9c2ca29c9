// Package npsort reproduces numpy's default argsort (np.argsort with kind
// "quicksort") on its generic code path, including the order it gives equal
// keys. The CLRS-30 and DSR-Bench reference generators sort with it, so
// wherever their data can tie (the K-D tree's medians, collinear points in
// the convex-hull samplers) narlab must break ties the same way.
package npsort

import "cmp"

// Argsort returns the permutation that numpy.argsort (default kind) returns
// for v on a machine whose numpy does not use AVX-512 sorting kernels (those
// order ties differently): an introsort on indices that partitions ranges of
// more than 16 elements around a median of three, finishes them with
// insertion sort and falls back to heapsort past 2·floor(log2 n) partition
// levels. It is not stable. Floating-point v must not hold NaN.
func Argsort[T cmp.Ordered](v []T) []int {
	n := len(v)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if n < 2 {
		return idx
	}
	const smallQuicksort = 15 // numpy's SMALL_QUICKSORT: longer ranges are partitioned
	type span struct{ lo, hi, depth int }
	var stack []span
	lo, hi := 0, n-1
	depth := 2 * msb(n)
	for {
		if depth < 0 {
			heapArgsort(v, idx[lo:hi+1])
		} else {
			for hi-lo > smallQuicksort {
				mid := lo + (hi-lo)>>1
				if v[idx[mid]] < v[idx[lo]] {
					idx[mid], idx[lo] = idx[lo], idx[mid]
				}
				if v[idx[hi]] < v[idx[mid]] {
					idx[hi], idx[mid] = idx[mid], idx[hi]
				}
				if v[idx[mid]] < v[idx[lo]] {
					idx[mid], idx[lo] = idx[lo], idx[mid]
				}
				pivot := v[idx[mid]]
				i, j := lo, hi-1
				idx[mid], idx[j] = idx[j], idx[mid]
				for {
					for i++; v[idx[i]] < pivot; i++ {
					}
					for j--; pivot < v[idx[j]]; j-- {
					}
					if i >= j {
						break
					}
					idx[i], idx[j] = idx[j], idx[i]
				}
				idx[i], idx[hi-1] = idx[hi-1], idx[i]
				// Continue with the smaller side, defer the larger.
				depth--
				if i-lo < hi-i {
					stack = append(stack, span{i + 1, hi, depth})
					hi = i - 1
				} else {
					stack = append(stack, span{lo, i - 1, depth})
					lo = i + 1
				}
			}
			for i := lo + 1; i <= hi; i++ {
				x := idx[i]
				j := i
				for j > lo && v[x] < v[idx[j-1]] {
					idx[j] = idx[j-1]
					j--
				}
				idx[j] = x
			}
		}
		if len(stack) == 0 {
			return idx
		}
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		lo, hi, depth = s.lo, s.hi, s.depth
	}
}

// msb is floor(log2 n) for n >= 1 (numpy's npy_get_msb).
func msb(n int) int {
	d := 0
	for n >>= 1; n > 0; n >>= 1 {
		d++
	}
	return d
}

// heapArgsort sorts the indices a by v[a[·]] with numpy's index heapsort
// (1-based sift-down; the larger child wins only when strictly larger).
func heapArgsort[T cmp.Ordered](v []T, a []int) {
	sift := func(i, size, tmp int) { // a[k-1] is numpy's a[k]
		for j := 2 * i; j <= size; {
			if j < size && v[a[j-1]] < v[a[j]] {
				j++
			}
			if v[tmp] < v[a[j-1]] {
				a[i-1] = a[j-1]
				i = j
				j += j
			} else {
				break
			}
		}
		a[i-1] = tmp
	}
	n := len(a)
	for l := n >> 1; l > 0; l-- {
		sift(l, n, a[l-1])
	}
	for size := n; size > 1; {
		tmp := a[size-1]
		a[size-1] = a[0]
		size--
		sift(1, size, tmp)
	}
}
