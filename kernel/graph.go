package kernel

import (
	"fmt"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/plots"
)

// GraphTrajectoryFigure draws a BFS or DFS trajectory step by step on its
// graph: the edges of the input adjacency, the nodes coloured by the
// search's state hint (BFS: reach_h, reached or not; DFS: color, white,
// grey or black), the tree pointers pi_h as arrows to each node's parent,
// and BFS's source ringed. Other algorithms return an error.
func GraphTrajectoryFigure(t *clrs.Trajectory) (*plots.Figure, error) {
	adjP, ok := t.Probe("adj")
	if !ok || len(adjP.Shape) != 2 || adjP.Shape[0] != adjP.Shape[1] {
		return nil, fmt.Errorf("kernel: %s has no n×n adjacency input to draw", t.Algorithm)
	}
	n := adjP.Shape[0]
	adj := make([][]bool, n)
	for i := range adj {
		adj[i] = make([]bool, n)
		for j := range adj[i] {
			adj[i][j] = i != j && adjP.Data[i*n+j] != 0
		}
	}
	pi, ok := t.Probe("pi_h")
	if !ok {
		return nil, fmt.Errorf("kernel: %s has no pi_h hint to draw", t.Algorithm)
	}
	o := plots.GraphOptions{Source: -1, Pointer: "pi_h: tree parent"}
	var state func(s, i int) plots.NodeState
	switch t.Algorithm {
	case "bfs":
		reach := t.Hint("reach_h")
		src := t.Input("s")
		for i, v := range src.Data {
			if v == 1 {
				o.Source = i
			}
		}
		o.Reached = "reached (reach_h = 1)"
		state = func(s, i int) plots.NodeState {
			if reach.Step(s)[i] == 1 {
				return plots.Reached
			}
			return plots.Untouched
		}
	case "dfs":
		col := t.Hint("color")
		k := 3
		o.Reached, o.Finished = "grey: discovered (color)", "black: finished (color)"
		state = func(s, i int) plots.NodeState {
			row := col.Step(s)[i*k : (i+1)*k]
			switch {
			case row[2] == 1:
				return plots.Finished
			case row[1] == 1:
				return plots.Reached
			}
			return plots.Untouched
		}
	default:
		return nil, fmt.Errorf("kernel: GraphTrajectoryFigure draws bfs and dfs, not %s", t.Algorithm)
	}
	steps := make([]plots.GraphStep, t.Length)
	for s := range steps {
		st := plots.GraphStep{Title: fmt.Sprintf("%s, step %d", t.Algorithm, s),
			States: make([]plots.NodeState, n), Parents: make([]int, n)}
		for i := range n {
			st.States[i] = state(s, i)
			st.Parents[i] = int(pi.Step(s)[i])
		}
		steps[s] = st
	}
	return plots.GraphSteps(adj, steps, o)
}

// GraphTrajectory shows GraphTrajectoryFigure(t) in the notebook.
func GraphTrajectory(t *clrs.Trajectory) error {
	f, err := GraphTrajectoryFigure(t)
	if err != nil {
		return err
	}
	return Show(f)
}
