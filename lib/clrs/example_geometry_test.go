package clrs_test

import (
	"fmt"

	"github.com/narlab/narlab/lib/clrs"
)

// ExampleSegmentsIntersect tests whether segment (0,0)-(2,2) crosses
// segment (0,2)-(1,1), which ends on it, and prints the `dir` hint (the
// orientation of each endpoint relative to the other segment) at every
// step.
func ExampleSegmentsIntersect() {
	xs := []float64{0, 2, 0, 1}
	ys := []float64{0, 2, 2, 1}
	tr, err := clrs.SegmentsIntersect(xs, ys)
	if err != nil {
		fmt.Println(err)
		return
	}
	dir := tr.Hint("dir")
	for t := range tr.Length {
		fmt.Println("step", t, "dir", dir.Step(t))
	}
	fmt.Println("intersect:", tr.Output("intersect").Data[0])
	// Output:
	// step 0 dir [0 0 0 0]
	// step 1 dir [2 0 0 0]
	// step 2 dir [2 -2 0 0]
	// step 3 dir [2 -2 -4 0]
	// step 4 dir [2 -2 -4 0]
	// intersect: 1
}
