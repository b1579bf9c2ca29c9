package clrs_test

import (
	"fmt"
	"slices"

	"github.com/narlab/narlab/lib/clrs"
)

// ExampleKMPMatcher runs Knuth–Morris–Pratt on a small haystack and reads
// the trajectory: the output, and the `pi` and `phase` hints step by step.
// Characters are integers in [0, 4); here a=0, b=1.
func ExampleKMPMatcher() {
	T := []int{0, 0, 1, 0, 1, 0, 1} // aababab
	P := []int{0, 1, 0, 1}          // abab
	tr, err := clrs.KMPMatcher(T, P)
	if err != nil {
		fmt.Println(err)
		return
	}
	n := len(T) // nodes 0..n-1 are the haystack, n.. the needle

	// match is one-hot over all nodes: the start of the first occurrence.
	fmt.Println("match at", slices.Index(tr.Output("match").Data, 1))

	// Hints have one row per step; Step(t) is a view of step t. The
	// prefix function is complete when the scan (phase 1) starts.
	phase := tr.Hint("phase")
	scan := 0
	for phase.Step(scan)[0] == 0 {
		scan++
	}
	fmt.Printf("%d steps, the scan starts at step %d\n", tr.Length, scan)
	pi, reset := tr.Hint("pi").Step(scan), tr.Hint("is_reset").Step(scan)
	for q := range P {
		// pi points needle node n+q to needle node n+pi[q]; is_reset marks
		// an empty border.
		fmt.Printf("q=%d pi=%d reset=%v\n", q, int(pi[n+q])-n, reset[n+q] == 1)
	}
	// Output:
	// match at 1
	// 10 steps, the scan starts at step 4
	// q=0 pi=0 reset=true
	// q=1 pi=0 reset=true
	// q=2 pi=0 reset=false
	// q=3 pi=1 reset=false
}
