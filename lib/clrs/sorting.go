package clrs

import "fmt"

// Sorting algorithms: insertion_sort, bubble_sort, heapsort, quicksort.
// Each takes one array of keys; the output `pred` encodes the sorted order
// as predecessor pointers (the smallest key points to itself).

var keysArg = []argSpec{{"key", argFloats, "the keys to process"}}

func init() {
	register(&algorithmDef{name: "insertion_sort", args: keysArg, sampler: sortingSampler,
		run: func(a Args) (*Trajectory, error) { return InsertionSort(a[0].([]float64)) }})
}

func checkKeys(A []float64) error {
	if len(A) == 0 {
		return fmt.Errorf("key: want at least one element")
	}
	return checkFinite(A)
}

// InsertionSort runs insertion sort (CLRS §2.1) on a copy of A.
//
// Hints: pred_h, the current order as predecessor pointers; i, the node
// whose position was just taken; j, the node being inserted.
func InsertionSort(A []float64) (*Trajectory, error) {
	if err := checkKeys(A); err != nil {
		return nil, err
	}
	n := len(A)
	a := append([]float64(nil), A...)
	pos := arange(n)
	r := newRecorder("insertion_sort", n)
	r.input("pos", positions(n))
	r.input("key", a)
	hPred, hI, hJ := r.hint("pred_h"), r.hint("i"), r.hint("j")
	r.step()
	r.pushListPointers(hPred, pos)
	r.pushOneHot(hI, 0, n)
	r.pushOneHot(hJ, 0, n)
	for j := 1; j < n; j++ {
		key := a[j]
		i := j - 1
		for i >= 0 && a[i] > key {
			a[i+1] = a[i]
			pos[i+1] = pos[i]
			i--
		}
		a[i+1] = key
		stored := pos[i+1]
		pos[i+1] = j
		r.step()
		r.pushListPointers(hPred, pos)
		r.pushOneHot(hI, stored, n)
		r.pushOneHot(hJ, j, n)
	}
	r.outputInts("pred", listPointers(pos))
	return r.finish(Args{append([]float64(nil), A...)}), nil
}
