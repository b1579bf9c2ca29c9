package sweep_test

import (
	"fmt"

	"github.com/narlab/narlab/sweep"
)

// A grid of two processors, two seeds and two hidden sizes: eight cells,
// each a `narlab train` with its own flags.
func ExampleSpec_Cells() {
	s := sweep.Spec{Name: "demo", Algorithms: []string{"bfs"}, Processors: []string{"mpnn", "pgn"},
		Seeds: []int64{1, 2}, Vary: map[string][]string{"hidden": {"64", "128"}},
		Flags: map[string]string{"steps": "500"}, Executor: "local"}
	if err := s.Validate(nil); err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range s.Cells() {
		fmt.Println(c.Index, c.Key, c.Args)
	}
	// Output:
	// 0 bfs-mpnn-s1-hidden=64 [--algo bfs --processor mpnn --seed 1 --hidden=64 --steps=500]
	// 1 bfs-mpnn-s1-hidden=128 [--algo bfs --processor mpnn --seed 1 --hidden=128 --steps=500]
	// 2 bfs-mpnn-s2-hidden=64 [--algo bfs --processor mpnn --seed 2 --hidden=64 --steps=500]
	// 3 bfs-mpnn-s2-hidden=128 [--algo bfs --processor mpnn --seed 2 --hidden=128 --steps=500]
	// 4 bfs-pgn-s1-hidden=64 [--algo bfs --processor pgn --seed 1 --hidden=64 --steps=500]
	// 5 bfs-pgn-s1-hidden=128 [--algo bfs --processor pgn --seed 1 --hidden=128 --steps=500]
	// 6 bfs-pgn-s2-hidden=64 [--algo bfs --processor pgn --seed 2 --hidden=64 --steps=500]
	// 7 bfs-pgn-s2-hidden=128 [--algo bfs --processor pgn --seed 2 --hidden=128 --steps=500]
}

// The validation errors name what is wrong, all at once, before anything
// runs.
func ExampleSpec_Validate() {
	s := sweep.Spec{Name: "demo", Algorithms: []string{"bfs"}, Seeds: []int64{1},
		Flags: map[string]string{"dir": "/tmp/x"}, Executor: "pbs"}
	fmt.Println(s.Validate(nil))
	// Output:
	// sweep: invalid sweep:
	//   no processors
	//   flag "dir": set by the sweep directory
	//   executor "pbs": want one of slurm, local
}
