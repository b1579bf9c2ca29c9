package dsr

import (
	"fmt"
	"slices"
)

// Array-based min-heaps: the heap tasks (ints) and the K-D heap (labels
// keyed by a k-dimensional priority).

// minHeap is an array-based binary min-heap under a strict order less.
// Sift-up swaps while the child is strictly smaller than its parent;
// sift-down moves to the smaller child, the left one on a tie, while that
// child is strictly smaller.
type minHeap[T any] struct {
	a    []T
	less func(x, y T) bool
}

func (h *minHeap[T]) push(x T) {
	h.a = append(h.a, x)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.a[i], h.a[p]) {
			break
		}
		h.a[i], h.a[p] = h.a[p], h.a[i]
		i = p
	}
}

// pop removes the root: the last element moves to the root and sifts down.
func (h *minHeap[T]) pop() {
	n := len(h.a)
	if n == 0 {
		return
	}
	h.a[0] = h.a[n-1]
	h.a = h.a[:n-1]
	h.down(0)
}

func (h *minHeap[T]) down(i int) {
	n := len(h.a)
	for {
		l, r := 2*i+1, 2*i+2
		if l >= n {
			return
		}
		c := l
		if r < n && h.less(h.a[r], h.a[l]) {
			c = r
		}
		if !h.less(h.a[c], h.a[i]) {
			return
		}
		h.a[i], h.a[c] = h.a[c], h.a[i]
		i = c
	}
}

// heapify turns a into a heap bottom-up (i from n/2-1 down to 0).
func (h *minHeap[T]) heapify() {
	for i := len(h.a)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func intLess(x, y int) bool { return x < y }

// heapRun applies insert/delete (extract-min) to an empty min-heap; the
// answer is the heap's array.
func heapRun(in *Input, _ Options, rec recorder) (any, error) {
	h := &minHeap[int]{less: intLess}
	for i, op := range in.Ops {
		switch op.Name {
		case "insert":
			h.push(op.arg(0))
		case "delete":
			h.pop()
		default:
			return nil, opsError(i, op, "insert or delete")
		}
		rec.put(opText(op), func() any { return intsValue(h.a) })
	}
	return intsValue(slices.Clone(h.a)), nil
}

// heapifyTask turns the input array into a min-heap.
func heapifyTask(in *Input, _ Options) (any, error) {
	if err := needArray(in); err != nil {
		return nil, err
	}
	h := &minHeap[int]{a: slices.Clone(in.Array), less: intLess}
	h.heapify()
	return intsValue(h.a), nil
}

type kdItem struct {
	label int
	vec   []int
}

func sqNorm(v []int) int {
	s := 0
	for _, x := range v {
		s += x * x
	}
	return s
}

func kdLess(m Metric) func(x, y kdItem) bool {
	if m == Lexicographic {
		return func(x, y kdItem) bool { return slices.Compare(x.vec, y.vec) < 0 }
	}
	// Comparing squared norms of integer vectors orders exactly as the
	// Euclidean norms do.
	return func(x, y kdItem) bool { return sqNorm(x.vec) < sqNorm(y.vec) }
}

// kdHeapRun applies insert/delete to an empty K-D min-heap keyed by the
// priority vectors (Euclidean norm by default); the answer lists the labels
// in heap-array order.
func kdHeapRun(in *Input, o Options, rec recorder) (any, error) {
	h := &minHeap[kdItem]{less: kdLess(o.KDHeapMetric)}
	labels := func() any {
		out := make([]int, len(h.a))
		for i, it := range h.a {
			out[i] = it.label
		}
		return intsValue(out)
	}
	for i, op := range in.Ops {
		switch op.Name {
		case "insert":
			if len(op.Vec) == 0 {
				return nil, fmt.Errorf("operation %d: insert of %d has no priority vector", i, op.arg(0))
			}
			if in.Dim > 0 && len(op.Vec) != in.Dim {
				return nil, fmt.Errorf("operation %d: priority %v has %d coordinates, expected %d", i, op.Vec, len(op.Vec), in.Dim)
			}
			h.push(kdItem{op.arg(0), op.Vec})
		case "delete":
			h.pop()
		default:
			return nil, opsError(i, op, "insert or delete")
		}
		rec.put(opText(op), labels)
	}
	return labels(), nil
}
