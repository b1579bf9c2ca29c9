package clrs_test

import (
	"fmt"

	"github.com/narlab/narlab/lib/clrs"
)

// ExampleBubbleSort sorts four keys and reads the trajectory: the output
// `pred` as a sorted order, and the i and j hints of the first passes.
func ExampleBubbleSort() {
	keys := []float64{0.4, 0.1, 0.3, 0.2}
	tr, err := clrs.BubbleSort(keys)
	if err != nil {
		fmt.Println(err)
		return
	}
	// pred[v] is the node just before v in sorted order; the smallest key
	// points to itself. Walk the list from its head.
	pred := tr.Output("pred").Data
	next := map[int]int{}
	head := -1
	for v, p := range pred {
		if int(p) == v {
			head = v
		} else {
			next[int(p)] = v
		}
	}
	fmt.Print("sorted nodes:")
	for v, ok := head, true; ok; v, ok = next[v] {
		fmt.Printf(" %d (%.1f)", v, keys[v])
	}
	fmt.Println()

	// Hints have one row per step (step 0 is the initial state); Step(t)
	// is a view of step t. i and j are one-hot over the nodes: the node
	// at position i (the end of the sorted prefix) and the node at
	// position j after comparing it with its left neighbour. In step 1,
	// j=3 held 0.2 < 0.3, so the two swapped and node 2 is now at j.
	fmt.Println(tr.Length, "steps")
	for t := 1; t <= 3; t++ {
		fmt.Printf("step %d: i=node %d j=node %d\n", t, argmax(tr.Hint("i").Step(t)), argmax(tr.Hint("j").Step(t)))
	}
	// Output:
	// sorted nodes: 1 (0.1) 3 (0.2) 2 (0.3) 0 (0.4)
	// 7 steps
	// step 1: i=node 0 j=node 2
	// step 2: i=node 0 j=node 3
	// step 3: i=node 1 j=node 0
}

// argmax returns the index of the largest value (the 1 of a one-hot row).
func argmax(row []float64) int {
	best := 0
	for i, v := range row {
		if v > row[best] {
			best = i
		}
	}
	return best
}
