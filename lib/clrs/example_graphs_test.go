package clrs_test

import (
	"fmt"
	"slices"

	"github.com/narlab/narlab/lib/clrs"
)

// ExampleDijkstra runs Dijkstra's algorithm on a small directed graph and
// reads the trajectory: the output pointers, then the `u` and `d` hints
// step by step.
func ExampleDijkstra() {
	// A[u][v] is the weight of the edge u→v; 0 means no edge.
	A, err := clrs.MatrixFromRows([][]float64{
		{0, 4, 1, 0},
		{0, 0, 0, 1},
		{0, 2, 0, 5},
		{0, 0, 0, 0},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	tr, err := clrs.Dijkstra(A, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	// pi: each node's predecessor on a shortest path (the source points
	// to itself).
	fmt.Println("pi:", tr.Output("pi").Data)

	// Hints have one row per step; Step(t) is a view of step t. `u` is
	// one-hot over the nodes: the node settled at that step.
	u, d := tr.Hint("u"), tr.Hint("d")
	for t := 1; t < tr.Length; t++ {
		fmt.Printf("step %d: settle %d, d = %v\n", t, slices.Index(u.Step(t), 1), d.Step(t))
	}
	// Output:
	// pi: [0 2 0 1]
	// step 1: settle 0, d = [0 4 1 0]
	// step 2: settle 2, d = [0 3 1 6]
	// step 3: settle 1, d = [0 3 1 4]
	// step 4: settle 3, d = [0 3 1 4]
}
