package salsa

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/narlab/narlab/lib/clrs"
)

// Algorithms returns SALSA-CLRS's six algorithms, in its order.
func Algorithms() []string { return slices.Clone(algorithms) }

var algorithms = []string{"bfs", "dfs", "dijkstra", "mst_prim", "fast_mis", "eccentricity"}

// Specs maps each algorithm to its probes in CLRS-30's vocabulary (stage,
// location, type), in SALSA-CLRS's order: bfs, dfs, dijkstra and mst_prim
// have CLRS-30's specs (clrs.Specs) unchanged; fast_mis and eccentricity
// are SALSA-CLRS's own. It is filled at init and must not be modified.
var Specs = map[string]clrs.Spec{
	"bfs":      clrs.Specs["bfs"].Clone(),
	"dfs":      clrs.Specs["dfs"].Clone(),
	"dijkstra": clrs.Specs["dijkstra"].Clone(),
	"mst_prim": clrs.Specs["mst_prim"].Clone(),
	"fast_mis": {
		{Name: "pos", Stage: clrs.Input, Location: clrs.Node, Type: clrs.Scalar},
		{Name: "randomness", Stage: clrs.Input, Location: clrs.Node, Type: clrs.Scalar},
		{Name: "Ain_h", Stage: clrs.Hint, Location: clrs.Edge, Type: clrs.Mask},
		{Name: "alive_h", Stage: clrs.Hint, Location: clrs.Node, Type: clrs.Mask},
		{Name: "phase_h", Stage: clrs.Hint, Location: clrs.Graph, Type: clrs.Mask},
		{Name: "inmis_h", Stage: clrs.Hint, Location: clrs.Node, Type: clrs.Mask},
		{Name: "inmis", Stage: clrs.Output, Location: clrs.Node, Type: clrs.Mask},
		{Name: "adj", Stage: clrs.Input, Location: clrs.Edge, Type: clrs.Mask},
	},
	"eccentricity": {
		{Name: "pos", Stage: clrs.Input, Location: clrs.Node, Type: clrs.Scalar},
		{Name: "adj", Stage: clrs.Input, Location: clrs.Edge, Type: clrs.Mask},
		{Name: "A", Stage: clrs.Input, Location: clrs.Edge, Type: clrs.Scalar},
		{Name: "s", Stage: clrs.Input, Location: clrs.Node, Type: clrs.MaskOne},
		{Name: "visited_h", Stage: clrs.Hint, Location: clrs.Node, Type: clrs.Mask},
		{Name: "msgphase_h", Stage: clrs.Hint, Location: clrs.Node, Type: clrs.Mask},
		{Name: "floodstate_h", Stage: clrs.Hint, Location: clrs.Node, Type: clrs.Scalar},
		{Name: "echostate_h", Stage: clrs.Hint, Location: clrs.Node, Type: clrs.Scalar},
		{Name: "tree_h", Stage: clrs.Hint, Location: clrs.Edge, Type: clrs.Mask},
		{Name: "leaf_h", Stage: clrs.Hint, Location: clrs.Node, Type: clrs.Mask},
		{Name: "eccentricity_h", Stage: clrs.Hint, Location: clrs.Graph, Type: clrs.Scalar},
		{Name: "eccentricity", Stage: clrs.Output, Location: clrs.Graph, Type: clrs.Scalar},
	},
}

// HasSource reports whether the algorithm starts from a source node (the
// `s` input): bfs, dijkstra, mst_prim and eccentricity.
func HasSource(algo string) bool {
	p, ok := Specs[algo].Find("s")
	return ok && p.Stage == clrs.Input // dfs has an "s" hint, not an input
}

// checkAlgorithm returns an error naming the known algorithms.
func checkAlgorithm(algo string) error {
	if _, ok := Specs[algo]; !ok {
		return fmt.Errorf("salsa: unknown algorithm %q (known: %s)", algo, strings.Join(algorithms, ", "))
	}
	return nil
}

// Trajectory is one run of an algorithm on one graph, in CLRS-30's probe
// vocabulary on the graph's edge list.
//
// Shapes: node-located data are [N] (categorical [N, C]), edge-located
// data [E], one value per edge of Graph's edge list (not [N, N]), graph-
// located data []; hints have a leading time axis [T, …]. Pointers are
// node indices (node i points to p[i], along the edge i→p[i]). The one
// input with a time axis is fast_mis's randomness, [T, N]: the random
// numbers the nodes compare at each hint step.
type Trajectory struct {
	Algorithm string
	Graph     *Graph
	// Source is the start node, or -1 for dfs and fast_mis.
	Source  int
	Inputs  []clrs.DataPoint
	Hints   []clrs.DataPoint // nil when run without hints
	Outputs []clrs.DataPoint
	// Length is the number of hint steps T (also when the hints were not
	// kept).
	Length int
}

// Probe returns the data of the probe with the given name, whatever its
// stage.
func (t *Trajectory) Probe(name string) (clrs.DataPoint, bool) {
	for _, list := range [][]clrs.DataPoint{t.Inputs, t.Hints, t.Outputs} {
		for _, d := range list {
			if d.Name == name {
				return d, true
			}
		}
	}
	return clrs.DataPoint{}, false
}

// recorder collects a trajectory's probes as an algorithm runs.
type recorder struct {
	algo   string
	g      *Graph
	spec   clrs.Spec
	keep   bool // record the hints
	hspec  clrs.Spec
	hdata  [][]float64
	io     map[string]clrs.DataPoint
	steps  int
	source int
}

func newRecorder(algo string, g *Graph, keepHints bool) *recorder {
	spec := Specs[algo]
	r := &recorder{algo: algo, g: g, spec: spec, keep: keepHints, hspec: spec.Stage(clrs.Hint), io: map[string]clrs.DataPoint{}, source: -1}
	r.hdata = make([][]float64, len(r.hspec))
	return r
}

// hint returns the index of a hint; it panics for a name the spec lacks
// (a programming error).
func (r *recorder) hint(name string) int {
	for i, p := range r.hspec {
		if p.Name == name {
			return i
		}
	}
	panic(fmt.Sprintf("salsa: %s has no hint %q", r.algo, name))
}

// set records an input or output with the given shape and dtype.
func (r *recorder) set(name string, dt clrs.DType, shape []int, data []float64) {
	p, ok := r.spec.Find(name)
	if !ok || p.Stage == clrs.Hint {
		panic(fmt.Sprintf("salsa: %s has no input or output %q", r.algo, name))
	}
	r.io[name] = clrs.DataPoint{Probe: p, Array: clrs.Array{Shape: shape, Data: data, DType: dt}}
}

func (r *recorder) nodes(name string, dt clrs.DType, data []float64) {
	r.set(name, dt, []int{r.g.N}, data)
}

func (r *recorder) edges(name string, dt clrs.DType, data []float64) {
	r.set(name, dt, []int{r.g.NumEdges()}, data)
}

// graphInputs records pos, and s when src >= 0, and A and adj per edge.
func (r *recorder) graphInputs(src int, withA bool) {
	n := r.g.N
	pos := make([]float64, n)
	for i := range pos {
		pos[i] = float64(i) / float64(n)
	}
	r.nodes("pos", clrs.Float64, pos)
	if src >= 0 {
		r.nodes("s", clrs.Float64, oneHot(src, n))
		r.source = src
	}
	if withA {
		dt := clrs.Int64
		if r.g.Weighted {
			dt = clrs.Float64
		}
		r.edges("A", dt, r.g.A)
	}
	r.edges("adj", clrs.Float64, ones(r.g.NumEdges()))
}

// onesBuf backs every trajectory's `adj` input (all ones): one shared,
// read-only slice instead of E float64s per sample.
var (
	onesMu  sync.Mutex
	onesBuf []float64
)

// ones returns n ones, shared: never modify them.
func ones(n int) []float64 {
	onesMu.Lock()
	defer onesMu.Unlock()
	if len(onesBuf) < n {
		onesBuf = make([]float64, max(n, 2*len(onesBuf)))
		for i := range onesBuf {
			onesBuf[i] = 1
		}
	}
	return onesBuf[:n:n]
}

func (r *recorder) step() { r.steps++ }

func (r *recorder) vals(i int, v []float64) {
	if r.keep {
		r.hdata[i] = append(r.hdata[i], v...)
	}
}

func (r *recorder) ints(i int, v []int) {
	if r.keep {
		for _, x := range v {
			r.hdata[i] = append(r.hdata[i], float64(x))
		}
	}
}

func (r *recorder) bools(i int, v []bool) {
	if r.keep {
		for _, x := range v {
			r.hdata[i] = append(r.hdata[i], b2f(x))
		}
	}
}

func (r *recorder) scalar(i int, v float64) {
	if r.keep {
		r.hdata[i] = append(r.hdata[i], v)
	}
}

func (r *recorder) oneHot(i, k, n int) {
	if r.keep {
		start := len(r.hdata[i])
		r.hdata[i] = append(r.hdata[i], make([]float64, n)...)
		r.hdata[i][start+k] = 1
	}
}

// categorical pushes one-hot classes per node, [N, c].
func (r *recorder) categorical(i int, v []int, c int) {
	if r.keep {
		start := len(r.hdata[i])
		r.hdata[i] = append(r.hdata[i], make([]float64, c*len(v))...)
		for j, x := range v {
			r.hdata[i][start+c*j+x] = 1
		}
	}
}

// finish returns the trajectory, its probes in spec order.
func (r *recorder) finish() *Trajectory {
	t := &Trajectory{Algorithm: r.algo, Graph: r.g, Source: r.source, Length: r.steps}
	for _, p := range r.spec {
		if p.Stage == clrs.Hint {
			continue
		}
		d, ok := r.io[p.Name]
		if !ok {
			panic(fmt.Sprintf("salsa: %s did not record %s", r.algo, p))
		}
		if p.Stage == clrs.Input {
			t.Inputs = append(t.Inputs, d)
		} else {
			t.Outputs = append(t.Outputs, d)
		}
	}
	if !r.keep {
		return t
	}
	for i, p := range r.hspec {
		data := r.hdata[i]
		base := 1
		switch p.Location {
		case clrs.Node:
			base = r.g.N
		case clrs.Edge:
			base = r.g.NumEdges()
		}
		shape := []int{r.steps}
		if p.Location != clrs.Graph {
			shape = append(shape, base)
		}
		if per := len(data) / max(r.steps, 1); per != base {
			shape = append(shape, per/base) // categorical classes
		}
		t.Hints = append(t.Hints, clrs.DataPoint{Probe: p, Array: clrs.Array{Shape: shape, Data: data}})
	}
	return t
}

func oneHot(k, n int) []float64 {
	v := make([]float64, n)
	v[k] = 1
	return v
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func intsToFloats(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
