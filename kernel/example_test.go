package kernel_test

import (
	"fmt"
	"strconv"

	"github.com/narlab/narlab/kernel"
)

// Outside a notebook the display helpers print text, so the same cell code
// runs in scripts and tests.
func ExampleTable() {
	kernel.Table([]string{"processor", "bfs"}, [][]string{{"MPNN", "99.89"}, {"PGN", "99.63"}})
	kernel.RunLink("http://127.0.0.1:5000/#/experiments/1/runs/4f2a", "best run")
	// Output:
	// processor  bfs
	// MPNN       99.89
	// PGN        99.63
	// best run: http://127.0.0.1:5000/#/experiments/1/runs/4f2a
}

// Must stops a cell on an error (a panic shows it under the cell); a
// notebook needs no helper of its own.
func ExampleMust() {
	n := kernel.Must(strconv.Atoi("42"))
	fmt.Println(n)
	defer func() { fmt.Println("the cell stops:", recover()) }()
	kernel.Must(strconv.Atoi("forty-two"))
	// Output:
	// 42
	// the cell stops: strconv.Atoi: parsing "forty-two": invalid syntax
}
