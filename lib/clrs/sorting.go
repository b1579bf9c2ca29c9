package clrs

import "fmt"

// Sorting algorithms: insertion_sort, bubble_sort, heapsort, quicksort.
// Each takes one array of keys; the output `pred` encodes the sorted order
// as predecessor pointers (the smallest key points to itself).
//
// While sorting, each algorithm keeps the keys a (moved around as the
// algorithm moves them) and order, where order[k] is the original index
// (the node) of the key now at position k. Hints name nodes, so a position
// k is always reported as order[k].

var keysArg = []argSpec{{"key", argFloats, "the keys to process"}}

func init() {
	register(&algorithmDef{name: "insertion_sort", args: keysArg, sampler: sortingSampler,
		run: func(a Args) (*Trajectory, error) { return InsertionSort(a[0].([]float64)) }})
	register(&algorithmDef{name: "bubble_sort", args: keysArg, sampler: sortingSampler,
		run: func(a Args) (*Trajectory, error) { return BubbleSort(a[0].([]float64)) }})
	register(&algorithmDef{name: "heapsort", args: keysArg, sampler: sortingSampler,
		run: func(a Args) (*Trajectory, error) { return Heapsort(a[0].([]float64)) }})
	register(&algorithmDef{name: "quicksort", args: keysArg, sampler: sortingSampler,
		run: func(a Args) (*Trajectory, error) { return Quicksort(a[0].([]float64)) }})
}

func checkKeys(A []float64) error {
	if len(A) == 0 {
		return fmt.Errorf("key: want at least one element")
	}
	return checkFinite(A)
}

// keysRecorder starts the recording of an algorithm over one array of keys
// (inputs `pos` and `key`) and returns it with working copies of the keys
// and of the identity order.
func keysRecorder(algo string, A []float64) (*recorder, []float64, []int) {
	n := len(A)
	a := append([]float64(nil), A...)
	r := newRecorder(algo, n)
	r.input("pos", positions(n))
	r.input("key", a)
	return r, a, arange(n)
}

// keysArgs returns a copy of A as the trajectory's arguments.
func keysArgs(A []float64) Args { return Args{append([]float64(nil), A...)} }

// swapKeys exchanges positions i and j of the keys and of the order.
func swapKeys(a []float64, order []int, i, j int) {
	a[i], a[j] = a[j], a[i]
	order[i], order[j] = order[j], order[i]
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
	r, a, pos := keysRecorder("insertion_sort", A)
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
	return r.finish(keysArgs(A)), nil
}

// BubbleSort runs bubble sort (CLRS problem 2-2) on a copy of A: pass i
// (i = 0 … n-2) walks j from the end down to i+1, swapping out-of-order
// neighbours, so that the smallest remaining key bubbles to position i.
// Ties are never swapped.
//
// One hint step per comparison after the initial state (1 + n(n-1)/2
// steps): pred_h, the current order; i, the node at position i; j, the
// node at position j after the comparison.
func BubbleSort(A []float64) (*Trajectory, error) {
	if err := checkKeys(A); err != nil {
		return nil, err
	}
	n := len(A)
	r, a, order := keysRecorder("bubble_sort", A)
	r.expectSteps(1 + n*(n-1)/2)
	hPred, hI, hJ := r.hint("pred_h"), r.hint("i"), r.hint("j")
	r.step()
	r.pushListPointers(hPred, order)
	r.pushOneHot(hI, 0, n)
	r.pushOneHot(hJ, 0, n)
	for i := 0; i < n-1; i++ {
		for j := n - 1; j > i; j-- {
			if a[j] < a[j-1] {
				swapKeys(a, order, j, j-1)
			}
			r.step()
			r.pushListPointers(hPred, order)
			r.pushOneHot(hI, order[i], n)
			r.pushOneHot(hJ, order[j], n)
		}
	}
	r.outputInts("pred", listPointers(order))
	return r.finish(keysArgs(A)), nil
}

// pushHeapParents pushes heapPointers(order, size) to hint idx without
// allocating.
func pushHeapParents(r *recorder, idx int, order []int, size int) {
	s := r.slot(idx, len(order))
	for i := range s {
		s[i] = float64(i)
	}
	for k := 1; k < size; k++ {
		s[order[k]] = float64(order[(k-1)/2])
	}
}

// Heapsort phases (the `phase` hint, categorical over 3 classes).
const (
	heapBuild   = 0 // building the max-heap
	heapExtract = 1 // the maximum was just swapped to the end
	heapSift    = 2 // restoring the heap after an extraction
)

// heapSorter holds the state of one heapsort run.
type heapSorter struct {
	r                                               *recorder
	a                                               []float64
	order                                           []int
	hPred, hParent, hI, hJ, hLargest, hSize, hPhase int
}

// push records one hint step. i, j and largest are nodes; heapSize is the
// current heap size (the hint marks the node at its last position).
func (h *heapSorter) push(i, j, largest, heapSize, phase int) {
	n := len(h.a)
	h.r.step()
	h.r.pushListPointers(h.hPred, h.order)
	pushHeapParents(h.r, h.hParent, h.order, heapSize)
	h.r.pushOneHot(h.hI, i, n)
	h.r.pushOneHot(h.hJ, j, n)
	h.r.pushOneHot(h.hLargest, largest, n)
	h.r.pushOneHot(h.hSize, h.order[heapSize-1], n)
	h.r.pushOneHot(h.hPhase, phase, 3)
}

// siftDown is MAX-HEAPIFY from position i in a heap of heapSize keys, one
// hint step per level; `caller` is the position of the outer loop (the
// build loop's i or the extraction's position), reported as hint i.
func (h *heapSorter) siftDown(i, heapSize, caller, phase int) {
	a := h.a
	for {
		largest := i
		if l := 2*i + 1; l < heapSize && a[l] > a[i] {
			largest = l
		}
		if rc := 2*i + 2; rc < heapSize && a[rc] > a[largest] {
			largest = rc
		}
		if largest != i {
			swapKeys(a, h.order, i, largest)
		}
		h.push(h.order[caller], h.order[i], h.order[largest], heapSize, phase)
		if largest == i {
			return
		}
		i = largest
	}
}

// Heapsort runs heapsort (CLRS §6.4) on a copy of A: build a max-heap
// (phase 0), then repeatedly swap the maximum to the end of the heap
// (phase 1) and sift the new root down (phase 2).
//
// One hint step per MAX-HEAPIFY level and per extraction: pred_h, the
// current order; parent, the heap's parent pointers (nodes outside the
// heap point to themselves); i, the node at the outer loop's position; j,
// the node at the position being sifted; largest, the node at the largest
// of it and its children; heap_size, the node at the heap's last
// position; phase.
func Heapsort(A []float64) (*Trajectory, error) {
	if err := checkKeys(A); err != nil {
		return nil, err
	}
	n := len(A)
	r, a, order := keysRecorder("heapsort", A)
	r.expectSteps(n * (bitLen(n) + 1))
	h := &heapSorter{r: r, a: a, order: order,
		hPred: r.hint("pred_h"), hParent: r.hint("parent"), hI: r.hint("i"), hJ: r.hint("j"),
		hLargest: r.hint("largest"), hSize: r.hint("heap_size"), hPhase: r.hint("phase")}
	h.push(n-1, n-1, n-1, n, heapBuild)
	for i := n - 1; i >= 0; i-- {
		h.siftDown(i, n, i, heapBuild)
	}
	for i := n - 1; i >= 1; i-- {
		swapKeys(a, order, 0, i)
		// The extraction step reports node 0 (not the node at position 0)
		// as `largest`, as the reference does.
		h.push(order[0], order[i], 0, i, heapExtract)
		h.siftDown(0, i, i, heapSift)
	}
	r.outputInts("pred", listPointers(order))
	return r.finish(keysArgs(A)), nil
}

// bitLen is the number of bits of n (0 for 0).
func bitLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

// partitioner runs Lomuto partitions (CLRS §7.1) over keys and their
// order, for quicksort and quickselect.
type partitioner struct {
	r     *recorder
	a     []float64
	order []int
	// step records the hint step of one comparison (final == false; i is
	// the index of the last key <= the pivot, j the compared position) or
	// of the final pivot swap (final == true; the pivot is at i+1).
	step func(p, rr, i, j int, final bool)
}

// partition partitions a[p..rr] around the pivot a[rr] and returns the
// pivot's final position. Keys equal to the pivot go to its left.
func (q *partitioner) partition(p, rr int) int {
	a := q.a
	x := a[rr]
	i := p - 1
	for j := p; j < rr; j++ {
		if a[j] <= x {
			i++
			swapKeys(a, q.order, i, j)
		}
		q.step(p, rr, i, j, false)
	}
	swapKeys(a, q.order, i+1, rr)
	q.step(p, rr, i, rr, true)
	return i + 1
}

// Quicksort runs quicksort with the Lomuto partition (CLRS §7.1) on a copy
// of A, sorting the left part before the right one. A needs at least two
// keys: the reference records no hint step for a single key and fails.
//
// One hint step per comparison and per pivot placement: pred_h, the
// current order; p and r, the nodes at the ends of the part being
// partitioned; i, the node just right of the keys known to be <= the
// pivot; j, the node compared (the pivot on the placement step).
func Quicksort(A []float64) (*Trajectory, error) {
	if err := checkKeys(A); err != nil {
		return nil, err
	}
	n := len(A)
	if n < 2 {
		return nil, fmt.Errorf("key: quicksort needs at least 2 keys (the reference records no hint step for %d); got %d", n, n)
	}
	r, a, order := keysRecorder("quicksort", A)
	r.expectSteps(n * (bitLen(n) + 1))
	hPred, hP, hR, hI, hJ := r.hint("pred_h"), r.hint("p"), r.hint("r"), r.hint("i"), r.hint("j")
	q := &partitioner{r: r, a: a, order: order}
	q.step = func(p, rr, i, j int, _ bool) {
		r.step()
		r.pushListPointers(hPred, order)
		r.pushOneHot(hP, order[p], n)
		r.pushOneHot(hR, order[rr], n)
		r.pushOneHot(hI, order[i+1], n)
		r.pushOneHot(hJ, order[j], n)
	}
	var sort func(p, rr int)
	sort = func(p, rr int) {
		for p < rr {
			m := q.partition(p, rr)
			sort(p, m-1)
			p = m + 1
		}
	}
	sort(0, n-1)
	r.outputInts("pred", listPointers(order))
	return r.finish(keysArgs(A)), nil
}
