package kernel_test

import "github.com/narlab/narlab/kernel"

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
