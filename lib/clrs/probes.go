package clrs

// Probe constructors shared by the algorithms. They follow the reference's
// conventions exactly; see the package documentation for what they mean.

// positions returns the `pos` input of an n-node algorithm: i/n.
func positions(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i) / float64(n)
	}
	return out
}

// arange returns [0, 1, …, n-1].
func arange(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// listPointers is the reference's `array` probe: given order[k], the node
// at position k of a list, each node points to its predecessor in the list
// and the first node points to itself.
func listPointers(order []int) []int {
	out := arange(len(order))
	for k := 1; k < len(order); k++ {
		out[order[k]] = order[k-1]
	}
	return out
}

// pushListPointers pushes listPointers(order) to hint idx without
// allocating.
func (r *recorder) pushListPointers(idx int, order []int) {
	s := r.slot(idx, len(order))
	for i := range s {
		s[i] = float64(i)
	}
	for k := 1; k < len(order); k++ {
		s[order[k]] = float64(order[k-1])
	}
}

// heapPointers is the reference's `heap` probe: the node at heap position
// k (1 <= k < size) points to the node at its parent position (k-1)/2;
// every other node points to itself.
func heapPointers(order []int, size int) []int {
	out := arange(len(order))
	for k := 1; k < size; k++ {
		out[order[k]] = order[(k-1)/2]
	}
	return out
}

// graphAdj is the reference's `graph` probe, the `adj` input: 1 where A is
// non-zero or on the diagonal.
func graphAdj(A Matrix) []float64 {
	n := A.N
	out := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := A.Data[i*n+j]
			if i == j {
				v += 1
			}
			if v != 0 {
				out[i*n+j] = 1
			}
		}
	}
	return out
}

// stringsID is the `string` input of string algorithms: 0 for the n
// characters of the first string, 1 for the m of the second.
func stringsID(n, m int) []float64 {
	out := make([]float64, n+m)
	for j := n; j < n+m; j++ {
		out[j] = 1
	}
	return out
}

// stringsPos is the `pos` input of string algorithms: i/n for the first
// string, then j/m for the second.
func stringsPos(n, m int) []float64 {
	out := make([]float64, 0, n+m)
	for i := 0; i < n; i++ {
		out = append(out, float64(i)/float64(n))
	}
	for j := 0; j < m; j++ {
		out = append(out, float64(j)/float64(m))
	}
	return out
}

// stringsPred is the `pred_h` hint of string algorithms: two separate
// predecessor chains, each string's first character pointing to itself.
func stringsPred(n, m int) []int {
	out := arange(n + m)
	for i := 1; i < n; i++ {
		out[i] = i - 1
	}
	for j := 1; j < m; j++ {
		out[n+j] = n + j - 1
	}
	return out
}

// stringsCat one-hot encodes two strings over `chars` classes, [n+m, chars].
func stringsCat(a, b []int, chars int) []float64 {
	out := make([]float64, (len(a)+len(b))*chars)
	for i, c := range a {
		out[i*chars+c] = 1
	}
	for j, c := range b {
		out[(len(a)+j)*chars+c] = 1
	}
	return out
}

// fromBools turns a mask into 0/1 values in a new slice.
func fromBools(v []bool) []float64 { return boolsToFloats(v) }
