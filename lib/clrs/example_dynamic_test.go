package clrs_test

import (
	"fmt"

	"github.com/narlab/narlab/lib/clrs"
)

// ExampleLCSLength computes the longest common subsequence table of two
// strings (characters are integers in [0, 4); here a=0, b=1, c=2) and
// reads the `c` hint, an edge probe: the LCS length of x[:i+1] and y[:j+1]
// sits at edge (i, n+j) of the N×N matrix, N = n+m.
func ExampleLCSLength() {
	x := []int{0, 1, 2, 1} // abcb
	y := []int{1, 0, 1}    // bab
	tr, err := clrs.LCSLength(x, y)
	if err != nil {
		fmt.Println(err)
		return
	}
	n, m := len(x), len(y)
	N := n + m
	fmt.Println(tr.Length, "rounds")
	c := tr.Hint("c").Step(tr.Length - 1) // the converged table
	for i := range n {
		fmt.Println(c[i*N+n : i*N+n+m]) // row i: edges (i, n) … (i, n+m-1)
	}
	// The output b is categorical: 4 values per edge, one-hot over the
	// arrows diagonal, up and left; blank edges hold [0 0 0 -1].
	b := tr.Output("b")
	fmt.Println("b shape", b.Shape)
	last := (n-1)*N + n + m - 1 // cell (n-1, m-1)
	fmt.Println("arrow at the last cell:", b.Data[4*last:4*last+4])
	fmt.Println("an edge outside the table:", b.Data[0:4])
	// Output:
	// 3 rounds
	// [0 1 1]
	// [1 1 2]
	// [1 1 2]
	// [1 1 2]
	// b shape [7 7 4]
	// arrow at the last cell: [1 0 0 0]
	// an edge outside the table: [0 0 0 -1]
}
