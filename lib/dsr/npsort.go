package dsr

// npArgsort returns the permutation that numpy.argsort (default kind,
// "quicksort") returns for v on a machine without AVX-512: numpy's
// introsort on indices, which partitions ranges of more than 16 elements
// around a median of three and finishes them with insertion sort, falling
// back to heapsort past 2*floor(log2 n) partition levels. It is not stable:
// the order of equal values depends on the partitioning. The reference's
// K-D tree generator sorts with it, so its medians among tied coordinates
// follow this order (see Options.KDTies).
func npArgsort(v []int) []int {
	n := len(v)
	t := make([]int, n)
	for i := range t {
		t[i] = i
	}
	if n < 2 {
		return t
	}
	const small = 15 // ranges with pr-pl > 15 are partitioned
	type span struct{ pl, pr, depth int }
	var stack []span
	pl, pr := 0, n-1
	depth := 2 * msb(n)
	for {
		if depth < 0 {
			npAHeapsort(v, t[pl:pr+1])
		} else {
			for pr-pl > small {
				pm := pl + (pr-pl)>>1
				if v[t[pm]] < v[t[pl]] {
					t[pm], t[pl] = t[pl], t[pm]
				}
				if v[t[pr]] < v[t[pm]] {
					t[pr], t[pm] = t[pm], t[pr]
				}
				if v[t[pm]] < v[t[pl]] {
					t[pm], t[pl] = t[pl], t[pm]
				}
				pivot := v[t[pm]]
				pi, pj := pl, pr-1
				t[pm], t[pj] = t[pj], t[pm]
				for {
					pi++
					for v[t[pi]] < pivot {
						pi++
					}
					pj--
					for pivot < v[t[pj]] {
						pj--
					}
					if pi >= pj {
						break
					}
					t[pi], t[pj] = t[pj], t[pi]
				}
				t[pi], t[pr-1] = t[pr-1], t[pi]
				// Keep the smaller side, defer the larger one.
				depth--
				if pi-pl < pr-pi {
					stack = append(stack, span{pi + 1, pr, depth})
					pr = pi - 1
				} else {
					stack = append(stack, span{pl, pi - 1, depth})
					pl = pi + 1
				}
			}
			for i := pl + 1; i <= pr; i++ {
				x := t[i]
				j := i
				for j > pl && v[x] < v[t[j-1]] {
					t[j] = t[j-1]
					j--
				}
				t[j] = x
			}
		}
		if len(stack) == 0 {
			return t
		}
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		pl, pr, depth = s.pl, s.pr, s.depth
	}
}

// msb returns floor(log2 n) for n >= 1.
func msb(n int) int {
	d := 0
	for n > 1 {
		n >>= 1
		d++
	}
	return d
}

// npAHeapsort sorts the indices t by v with numpy's index heapsort (1-based
// sift-down, larger child preferred only when strictly larger).
func npAHeapsort(v []int, t []int) {
	n := len(t)
	a := func(i int) *int { return &t[i-1] } // 1-based view
	sift := func(tmp, i, n int) {
		for j := i << 1; j <= n; {
			if j < n && v[*a(j)] < v[*a(j + 1)] {
				j++
			}
			if v[tmp] < v[*a(j)] {
				*a(i) = *a(j)
				i = j
				j += j
			} else {
				break
			}
		}
		*a(i) = tmp
	}
	for l := n >> 1; l > 0; l-- {
		sift(*a(l), l, n)
	}
	for ; n > 1; n-- {
		tmp := *a(n)
		*a(n) = *a(1)
		sift(tmp, 1, n-1)
	}
}
