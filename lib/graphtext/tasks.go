package graphtext

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// GraphKind says which graphs a task is posed on.
type GraphKind int

// Graph kinds of the tasks.
const (
	UndirectedGraph GraphKind = iota // undirected graphs
	DirectedGraph                    // directed graphs
)

// Task is one of the 49 Erdős graph tasks the paper uses (§2.1 of the
// notes; isomorphic_mapping is excluded as in the paper).
type Task struct {
	// Name is the Erdős task name (with its spellings, e.g. is_eularian).
	Name string
	// Category is Easy, Medium, Hard or Challenging.
	Category string
	// Kind is the answer class.
	Kind AnswerKind
	// Graph says whether the task is posed on directed graphs.
	Graph GraphKind
	// Weighted tasks read edge weights (capacities, costs).
	Weighted bool
	// Connected tasks are posed only on connected graphs.
	Connected bool
	// Params are the [Graph.Params] the question needs ("u", "v",
	// "source", "target").
	Params []string
	// Description is the task sentence that opens the prompt.
	Description string
	// Question is the question template; {u}, {v}, {source}, {target} are
	// replaced by the parameters.
	Question string
	// DirectedOK marks tasks posed on undirected graphs whose ground truth
	// is also defined (as in NetworkX) on directed ones, which the Erdős
	// data may hold.
	DirectedOK bool
	// Ordered is true for list answers whose order matters (paths and
	// traversals).
	Ordered bool
	// Validated tasks accept any valid answer, checked by [Task.Validate];
	// the others compare with the ground truth.
	Validated bool

	truth    func(v *view, g *Graph) (Answer, error)
	validate func(v *view, g *Graph, a Answer) error
}

// Categories are the difficulty groups in table order.
var Categories = []string{"Easy", "Medium", "Hard", "Challenging"}

// Tasks returns the 49 tasks in the order of the paper's Table 6.
func Tasks() []*Task { return slices.Clone(taskList) }

// directedOK lists the undirected tasks that also accept directed graphs.
var directedOK = []string{"node_number", "edge_number", "neighbor", "degree", "has_cycle", "density", "is_regular",
	"edge_existence", "degree_centrality", "clustering_coefficient", "closeness_centrality", "betweenness_centrality",
	"harmonic_centrality", "avg_neighbor_degree", "shortest_path", "weighted_shortest_path", "bfs", "dfs",
	"is_eularian", "local_connectivity", "strongly_connected_number"}

func init() {
	for _, t := range taskList {
		t.DirectedOK = slices.Contains(directedOK, t.Name)
	}
}

// TaskNames returns the names of [Tasks], in order.
func TaskNames() []string {
	out := make([]string, len(taskList))
	for i, t := range taskList {
		out[i] = t.Name
	}
	return out
}

// LookupTask returns the named task.
func LookupTask(name string) (*Task, error) {
	for _, t := range taskList {
		if t.Name == name {
			return t, nil
		}
	}
	return nil, fmt.Errorf("graphtext: unknown task %q; want one of the 49 Erdős tasks (%s, ...; `narlab graphs tasks` lists them all)", name, strings.Join(TaskNames()[:5], ", "))
}

// ParseTasks parses a comma-separated task list; "all" (or empty) means
// every task, and a category name (easy, medium, hard, challenging) means
// its tasks. A task selected twice (named twice, or by name and by its
// category) is an error: its prompts would be made twice.
func ParseTasks(list string) ([]*Task, error) {
	if list == "" || list == "all" {
		return Tasks(), nil
	}
	var out []*Task
	by := map[*Task]string{} // the item that selected each task
	add := func(t *Task, item string) error {
		if first, twice := by[t]; twice {
			return fmt.Errorf("graphtext: task %s is selected twice, by %q and by %q; list it once", t.Name, first, item)
		}
		by[t] = item
		out = append(out, t)
		return nil
	}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, c := range Categories {
			if strings.EqualFold(name, c) {
				found = true
				for _, t := range taskList {
					if t.Category == c {
						if err := add(t, name); err != nil {
							return nil, err
						}
					}
				}
			}
		}
		if found {
			continue
		}
		t, err := LookupTask(name)
		if err != nil {
			return nil, err
		}
		if err := add(t, name); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// nonNegativeWeights lists the tasks whose weights must not be negative:
// capacities of a flow network, and Dijkstra's edge lengths.
var nonNegativeWeights = map[string]string{"maximum_flow": "capacities", "weighted_shortest_path": "edge lengths"}

// Check reports whether g is a valid instance of the task: graph kind,
// weights, connectivity and parameters.
func (t *Task) Check(g *Graph) error {
	if err := g.Validate(false); err != nil {
		return err
	}
	if (t.Graph == DirectedGraph) != g.Directed && !(g.Directed && t.DirectedOK) {
		want := "undirected"
		if t.Graph == DirectedGraph {
			want = "directed"
		}
		return fmt.Errorf("graphtext: task %s needs a %s graph", t.Name, want)
	}
	if t.Weighted && !g.Weighted {
		return fmt.Errorf("graphtext: task %s needs a weighted graph (edges [u, v, w])", t.Name)
	}
	if what, ok := nonNegativeWeights[t.Name]; ok {
		for i, e := range g.Edges {
			if e.W < 0 {
				return fmt.Errorf("graphtext: task %s: edge %d (%d, %d) has weight %v; its weights (%s) must be ≥ 0",
					t.Name, i, e.U, e.V, e.W, what)
			}
		}
	}
	for _, p := range t.Params {
		v, ok := g.Params[p]
		if !ok {
			return fmt.Errorf("graphtext: task %s needs parameter %q (want params %v)", t.Name, p, t.Params)
		}
		if v < 1 || v > g.N {
			return fmt.Errorf("graphtext: task %s: parameter %s = %d is not a node in 1..%d", t.Name, p, v, g.N)
		}
	}
	if len(t.Params) == 2 && g.Params[t.Params[0]] == g.Params[t.Params[1]] {
		return fmt.Errorf("graphtext: task %s: parameters %s and %s must differ, both are %d", t.Name, t.Params[0], t.Params[1], g.Params[t.Params[0]])
	}
	if t.Connected && newView(g).components() != 1 {
		return fmt.Errorf("graphtext: task %s: %w", t.Name, errDisconnected)
	}
	return nil
}

// Truth computes the task's ground truth on g (for validated tasks, one
// valid answer).
func (t *Task) Truth(g *Graph) (Answer, error) {
	if err := t.Check(g); err != nil {
		return Answer{}, err
	}
	a, err := t.truth(newView(g), g)
	if err != nil {
		return Answer{}, fmt.Errorf("graphtext: task %s: %w", t.Name, err)
	}
	a.Kind = t.Kind
	return a, nil
}

// Validate reports why a is not a valid answer on g (nil when it is). For
// tasks without a validator it compares a with the ground truth.
func (t *Task) Validate(g *Graph, a Answer) error {
	if err := t.Check(g); err != nil {
		return err
	}
	if t.validate != nil {
		return t.validate(newView(g), g, a)
	}
	want, err := t.Truth(g)
	if err != nil {
		return err
	}
	if !want.Equal(a) {
		return fmt.Errorf("answer %s differs from the ground truth %s", a, want)
	}
	return nil
}

// Question returns the question with g's parameters filled in.
func (t *Task) QuestionFor(g *Graph) string {
	q := t.Question
	for _, p := range t.Params {
		q = strings.ReplaceAll(q, "{"+p+"}", strconv.Itoa(g.Params[p]))
	}
	return q
}

// Prompt assembles the Erdős instruction around a serialized graph (header
// plus body, as returned by [Graph.Encode] or [Graph.Serialize]):
// "<description> <graph> Question: <question> <format sentence>".
func (t *Task) Prompt(g *Graph, graphText string) string {
	s := t.Description + " " + graphText + " Question: " + t.QuestionFor(g)
	if f := t.Kind.FormatSentence(); f != "" {
		s += " " + f
	}
	return s
}

// QueryTemplate is G1's evaluation wrapper (the paper reproduces G1's
// numbers with it); %s is the instruction from [Task.Prompt].
const QueryTemplate = "%s\n\nSolve the above problem efficiently and clearly. The last line of your response should be of the following format: 'Therefore, the final answer is: $\\boxed{ANSWER}$.' (without quotes), where ANSWER is just the final number or expression that solves the problem. Think step by step before answering."

// RemapAnswer maps a ground-truth answer through a relabeling, keeping the
// order of ordered answers and re-sorting set answers.
func (t *Task) RemapAnswer(a Answer, p Permutation) (Answer, error) {
	return a.Remap(p, !t.Ordered, t.Graph == DirectedGraph)
}

// --- helpers shared by the task definitions ---

func intA(x int) (Answer, error)        { return Answer{Int: x}, nil }
func floatA(x float64) (Answer, error)  { return Answer{Float: x}, nil }
func boolA(x bool) (Answer, error)      { return Answer{Bool: x}, nil }
func nodesA(x []int) (Answer, error)    { return Answer{Nodes: nonNil(x)}, nil }
func edgesA(x [][2]int) (Answer, error) { return Answer{Edges: nonNilE(x)}, nil }
func nonNil(x []int) []int              { return append([]int{}, x...) }
func nonNilE(x [][2]int) [][2]int       { return append([][2]int{}, x...) }
func param(g *Graph, name string) int   { return g.Params[name] }
func common(v *view, a, b int) []int {
	var out []int
	for _, x := range v.out[a] {
		if v.adj[b][x] || (!v.directed && v.adj[x][b]) {
			out = append(out, x)
		}
	}
	return out
}

// density is NetworkX's nx.density.
func density(g *Graph) float64 {
	n := float64(g.N)
	if g.N <= 1 {
		return 0
	}
	m := float64(len(g.Edges))
	if g.Directed {
		return m / (n * (n - 1))
	}
	return 2 * m / (n * (n - 1))
}

// clustering is nx.clustering(G, u) (undirected and directed).
func clustering(v *view, u int) float64 {
	if !v.directed {
		nb := v.out[u]
		k := len(nb)
		if k < 2 {
			return 0
		}
		t := 0
		for i, a := range nb {
			for _, b := range nb[i+1:] {
				if v.adj[a][b] {
					t++
				}
			}
		}
		return 2 * float64(t) / float64(k*(k-1))
	}
	// Fagiolo's directed clustering, as NetworkX computes it.
	preds, succs := v.in[u], v.out[u]
	inter := func(a, b []int) int {
		c := 0
		for _, x := range a {
			if x != u && slices.Contains(b, x) {
				c++
			}
		}
		return c
	}
	dt := 0
	for _, j := range append(slices.Clone(preds), succs...) {
		if j == u {
			continue
		}
		jp, js := v.in[j], v.out[j]
		dt += inter(preds, jp) + inter(preds, js) + inter(succs, jp) + inter(succs, js)
	}
	dtot := len(preds) + len(succs)
	dbi := 0
	for _, x := range succs {
		if v.adj[x][u] {
			dbi++
		}
	}
	den := float64(dtot*(dtot-1) - 2*dbi)
	if dt == 0 || den == 0 {
		return 0
	}
	return float64(dt) / (2 * den)
}

// betweenness is nx.betweenness_centrality(G, normalized=True)[u] (Brandes).
func betweenness(v *view, u int) float64 {
	n := v.n
	cb := make([]float64, n+1)
	for s := 1; s <= n; s++ {
		var stack []int
		pred := make([][]int, n+1)
		sigma := make([]float64, n+1)
		d := make([]int, n+1)
		for i := range d {
			d[i] = -1
		}
		sigma[s], d[s] = 1, 0
		q := []int{s}
		for len(q) > 0 {
			x := q[0]
			q = q[1:]
			stack = append(stack, x)
			for _, y := range v.out[x] {
				if d[y] < 0 {
					d[y] = d[x] + 1
					q = append(q, y)
				}
				if d[y] == d[x]+1 {
					sigma[y] += sigma[x]
					pred[y] = append(pred[y], x)
				}
			}
		}
		delta := make([]float64, n+1)
		for i := len(stack) - 1; i >= 0; i-- {
			w := stack[i]
			for _, x := range pred[w] {
				delta[x] += sigma[x] / sigma[w] * (1 + delta[w])
			}
			if w != s {
				cb[w] += delta[w]
			}
		}
	}
	if n <= 2 {
		return cb[u] // NetworkX leaves tiny graphs unscaled
	}
	return cb[u] / float64((n-1)*(n-2))
}

// closeness is nx.closeness_centrality(G)[u] (wf_improved, incoming
// distances for directed graphs).
func closeness(v *view, u int) float64 {
	d := v.bfsDist(u, v.directed)
	tot, r := 0, 0
	for x := 1; x <= v.n; x++ {
		if d[x] > 0 {
			tot += d[x]
			r++
		}
	}
	if tot == 0 || v.n <= 1 {
		return 0
	}
	c := float64(r) / float64(tot)
	return c * float64(r) / float64(v.n-1)
}

// harmonic is nx.harmonic_centrality(G)[u]: Σ_v 1/d(v, u).
func harmonic(v *view, u int) float64 {
	d := v.bfsDist(u, v.directed)
	s := 0.0
	for x := 1; x <= v.n; x++ {
		if d[x] > 0 {
			s += 1 / float64(d[x])
		}
	}
	return s
}

// avgNeighborDegree is nx.average_neighbor_degree(G)[u] (out/out for
// directed graphs).
func avgNeighborDegree(v *view, u int) float64 {
	nb := v.out[u]
	if len(nb) == 0 {
		return 0
	}
	s := 0
	for _, x := range nb {
		s += len(v.out[x])
	}
	return float64(s) / float64(len(nb))
}

func isBipartite(v *view) bool {
	color := make([]int, v.n+1)
	for s := 1; s <= v.n; s++ {
		if color[s] != 0 {
			continue
		}
		color[s] = 1
		q := []int{s}
		for len(q) > 0 {
			x := q[0]
			q = q[1:]
			for _, y := range v.und(x) {
				if color[y] == 0 {
					color[y] = -color[x]
					q = append(q, y)
				} else if color[y] == color[x] {
					return false
				}
			}
		}
	}
	return true
}

func isEulerian(v *view) bool {
	if v.directed {
		for u := 1; u <= v.n; u++ {
			if len(v.in[u]) != len(v.out[u]) {
				return false
			}
		}
		return v.scc() == 1
	}
	for u := 1; u <= v.n; u++ {
		if len(v.out[u])%2 != 0 {
			return false
		}
	}
	return v.components() == 1
}

func isRegular(v *view) bool {
	for u := 2; u <= v.n; u++ {
		if len(v.out[u]) != len(v.out[1]) || len(v.in[u]) != len(v.in[1]) {
			return false
		}
	}
	return true
}

func isTournament(v *view) bool {
	for a := 1; a <= v.n; a++ {
		for b := a + 1; b <= v.n; b++ {
			if v.adj[a][b] == v.adj[b][a] {
				return false
			}
		}
	}
	return true
}

// bfsEdges is nx.bfs_edges from s (neighbours ascending).
func bfsEdges(v *view, s int) [][2]int {
	seen := make([]bool, v.n+1)
	seen[s] = true
	q := []int{s}
	var out [][2]int
	for len(q) > 0 {
		x := q[0]
		q = q[1:]
		for _, y := range v.out[x] {
			if !seen[y] {
				seen[y] = true
				out = append(out, [2]int{x, y})
				q = append(q, y)
			}
		}
	}
	return out
}

// dfsEdges is nx.dfs_edges from s (neighbours ascending).
func dfsEdges(v *view, s int) [][2]int {
	seen := make([]bool, v.n+1)
	var out [][2]int
	var rec func(x int)
	rec = func(x int) {
		seen[x] = true
		for _, y := range v.out[x] {
			if !seen[y] {
				out = append(out, [2]int{x, y})
				rec(y)
			}
		}
	}
	rec(s)
	return out
}

// shortestPath returns one shortest s–t path by hops (smallest ids first).
func shortestPath(v *view, s, t int) ([]int, error) {
	d := v.bfsDist(t, true)
	if d[s] < 0 {
		return nil, fmt.Errorf("node %d is not reachable from node %d", t, s)
	}
	path := []int{s}
	for x := s; x != t; {
		for _, y := range v.out[x] {
			if d[y] == d[x]-1 {
				x = y
				break
			}
		}
		path = append(path, x)
	}
	return path, nil
}

// weightedPath returns one minimum-weight s–t path.
func weightedPath(v *view, s, t int) ([]int, error) {
	// Distances to t (reverse arcs).
	rv := &view{n: v.n, directed: v.directed, out: v.in, in: v.out, adj: transpose(v.adj), w: transposeF(v.w)}
	d := rv.dijkstra(t)
	if math.IsInf(d[s], 1) {
		return nil, fmt.Errorf("node %d is not reachable from node %d", t, s)
	}
	// Any s–t path of tight arcs (d[x] = w(x, y) + d[y]) is a shortest
	// path: depth first, the first tight arc in adjacency order first.
	// With positive lengths every tight arc leads closer to t, so the
	// first one always does; zero lengths can make tight cycles, which
	// the search steps around instead of following forever.
	path, next := []int{s}, []int{0}
	visited := make([]bool, v.n+1)
	visited[s] = true
	for len(path) > 0 {
		x := path[len(path)-1]
		if x == t {
			return path, nil
		}
		top := len(next) - 1
		for next[top] < len(v.out[x]) {
			y := v.out[x][next[top]]
			next[top]++
			if !visited[y] && math.Abs(d[x]-v.w[x][y]-d[y]) < 1e-9 {
				visited[y] = true
				path, next = append(path, y), append(next, 0)
				break
			}
		}
		if path[len(path)-1] == x && x != t && next[top] >= len(v.out[x]) {
			path, next = path[:len(path)-1], next[:top] // a dead end: back up
		}
	}
	return nil, fmt.Errorf("no shortest path of tight arcs from node %d to node %d", s, t)
}

func transpose(a [][]bool) [][]bool {
	out := make([][]bool, len(a))
	for i := range a {
		out[i] = make([]bool, len(a))
		for j := range a {
			out[i][j] = a[j][i]
		}
	}
	return out
}

func transposeF(a [][]float64) [][]float64 {
	out := make([][]float64, len(a))
	for i := range a {
		out[i] = make([]float64, len(a))
		for j := range a {
			out[i][j] = a[j][i]
		}
	}
	return out
}

// tournamentPath builds a Hamiltonian path of a tournament by insertion.
func tournamentPath(v *view) []int {
	var path []int
	for x := 1; x <= v.n; x++ {
		i := 0
		for i < len(path) && v.adj[path[i]][x] {
			i++
		}
		path = slices.Insert(path, i, x)
	}
	return path
}

// dominatingSet is a greedy dominating set (NetworkX's rule with nodes
// taken in ascending order).
func dominatingSet(v *view) []int {
	dominated := make([]bool, v.n+1)
	var set []int
	for x := 1; x <= v.n; x++ {
		if dominated[x] {
			continue
		}
		set = append(set, x)
		dominated[x] = true
		for _, y := range v.und(x) {
			dominated[y] = true
		}
	}
	return set
}

// maximalIndependentSet is a greedy maximal independent set (ascending ids).
func maximalIndependentSet(v *view) []int {
	blocked := make([]bool, v.n+1)
	var set []int
	for x := 1; x <= v.n; x++ {
		if !blocked[x] {
			set = append(set, x)
			for _, y := range v.und(x) {
				blocked[y] = true
			}
		}
	}
	return set
}

// minEdgeCover is a minimum edge cover: a maximum matching plus one edge
// per unmatched node.
func minEdgeCover(v *view) ([][2]int, error) {
	mate := v.maxMatching()
	var out [][2]int
	for u := 1; u <= v.n; u++ {
		switch {
		case mate[u] > u:
			out = append(out, [2]int{u, mate[u]})
		case mate[u] == 0:
			if len(v.out[u]) == 0 {
				return nil, fmt.Errorf("node %d is isolated, so the graph has no edge cover", u)
			}
			out = append(out, [2]int{u, v.out[u][0]})
		}
	}
	canonEdges(out, false)
	return out, nil
}

func matchingEdges(v *view) [][2]int {
	var out [][2]int
	for u, m := range v.maxMatching() {
		if m > u {
			out = append(out, [2]int{u, m})
		}
	}
	return out
}

// distances sums for wiener index / global efficiency / barycenter.
func wiener(v *view) (float64, error) {
	d := v.allDist()
	s := 0
	for a := 1; a <= v.n; a++ {
		for b := 1; b <= v.n; b++ {
			if a == b {
				continue
			}
			if d[a][b] < 0 {
				return 0, errDisconnected
			}
			s += d[a][b]
		}
	}
	if v.directed {
		return float64(s), nil
	}
	return float64(s) / 2, nil
}

func globalEfficiency(v *view) float64 {
	if v.n < 2 {
		return 0
	}
	d := v.allDist()
	s := 0.0
	for a := 1; a <= v.n; a++ {
		for b := 1; b <= v.n; b++ {
			if a != b && d[a][b] > 0 {
				s += 1 / float64(d[a][b])
			}
		}
	}
	return s / float64(v.n*(v.n-1))
}

// flowCapacities is the capacity matrix for maximum_flow (weights).
func flowCapacities(v *view) [][]float64 {
	c := make([][]float64, v.n+1)
	for i := range c {
		c[i] = make([]float64, v.n+1)
		for j := range c[i] {
			if v.adj[i][j] {
				c[i][j] = v.w[i][j]
			}
		}
	}
	return c
}
