package graphtext

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func sameAnswer(task *Task, a, b Answer) bool {
	if task.Kind == KindFloat {
		return math.Abs(a.Float-b.Float) <= 1e-9*max(1, math.Abs(a.Float))
	}
	return a.Equal(b)
}

// TestRelabelInvariance: relabeling never changes the ground truth after
// remapping, for every task (validated tasks: each labeling's answer,
// mapped to the other labeling, passes the validator there).
func TestRelabelInvariance(t *testing.T) {
	for _, task := range Tasks() {
		gs, err := MakeInstances(task, 11, 8, GenOptions{MaxNodes: 20})
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range gs {
			a, err := task.Truth(g)
			if err != nil {
				t.Fatal(err)
			}
			for k := uint64(0); k < 3; k++ {
				p := RandomPermutation(g.N, k)
				h, err := g.Relabel(p)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.IsSortedFunc(h.Edges, func(x, y Edge) int {
					if x.U != y.U {
						return x.U - y.U
					}
					return x.V - y.V
				}) {
					t.Fatalf("%s: relabeled edges not sorted", task.Name)
				}
				for _, name := range task.Params {
					if h.Params[name] != p.Map(g.Params[name]) {
						t.Fatalf("%s: parameter %s not remapped", task.Name, name)
					}
				}
				if !Synthetic(h) {
					t.Fatalf("%s: relabeling dropped the synthetic mark", task.Name)
				}
				b, err := task.Truth(h)
				if err != nil {
					t.Fatalf("%s #%d perm %d: %v", task.Name, i, k, err)
				}
				ra, err := task.RemapAnswer(a, p)
				if err != nil {
					t.Fatal(err)
				}
				if task.Validated {
					if err := task.Validate(h, ra); err != nil {
						t.Errorf("%s #%d perm %d: remapped answer %s invalid on the relabeled graph: %v", task.Name, i, k, ra, err)
					}
					back, _ := task.RemapAnswer(b, p.Inverse())
					if err := task.Validate(g, back); err != nil {
						t.Errorf("%s #%d perm %d: relabeled graph's answer mapped back %s invalid: %v", task.Name, i, k, back, err)
					}
				} else if !sameAnswer(task, ra, b) {
					t.Errorf("%s #%d perm %d: truth %s remapped to %s, but the relabeled graph gives %s", task.Name, i, k, a, ra, b)
				}
			}
		}
	}
}

var (
	tupleRe = regexp.MustCompile(`\((\d+), (\d+)(?:, ([0-9.e+-]+))?\)`)
	adjRe   = regexp.MustCompile(`node (\d+) is connected to \(([^)]*)\)`)
)

// parseEncoded reads a graph back from any encoding's text (test helper,
// written independently of the encoders).
func parseEncoded(t *testing.T, g *Graph, txt string) *Graph {
	t.Helper()
	h := &Graph{N: g.N, Directed: g.Directed, Weighted: g.Weighted, Params: g.Params}
	seen := map[[2]int]bool{}
	add := func(u, v int, w float64) {
		k := [2]int{u, v}
		if !g.Directed && u > v {
			k = [2]int{v, u}
		}
		if !seen[k] {
			seen[k] = true
			h.Edges = append(h.Edges, Edge{U: k[0], V: k[1], W: w})
		}
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(strings.TrimSpace(s)); return n }
	switch {
	case strings.Contains(txt, "adjacency list is"):
		for _, m := range adjRe.FindAllStringSubmatch(txt, -1) {
			if m[2] == "" {
				continue
			}
			for _, part := range strings.Split(m[2], ", ") {
				vs, ws, _ := strings.Cut(part, ": ")
				w, _ := strconv.ParseFloat(ws, 64)
				add(atoi(m[1]), atoi(vs), w)
			}
		}
	case strings.Contains(txt, "adjacency matrix"):
		body := txt[strings.Index(txt, "[[")+1:]
		for i, row := range strings.Split(body, ",\n") {
			for j, x := range strings.Split(strings.Trim(row, "[]"), ", ") {
				if w, _ := strconv.ParseFloat(x, 64); w != 0 {
					if !g.Weighted {
						w = 0
					}
					add(i+1, j+1, w)
				}
			}
		}
	default:
		for _, m := range tupleRe.FindAllStringSubmatch(txt, -1) {
			w, _ := strconv.ParseFloat(m[3], 64)
			add(atoi(m[1]), atoi(m[2]), w)
		}
	}
	return h
}

// TestEncodingInvariance: every encoding and syntax keeps the whole graph,
// so the ground truth read back from the text equals the original's.
func TestEncodingInvariance(t *testing.T) {
	for _, task := range Tasks() {
		gs, err := MakeInstances(task, 5, 3, GenOptions{MaxNodes: 15})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gs {
			want, _ := task.Truth(g)
			for _, enc := range Encodings() {
				for seed := uint64(0); seed < 2; seed++ {
					txt, err := g.Encode(enc, EncodeOptions{Seed: seed})
					if err != nil {
						t.Fatal(err)
					}
					h := parseEncoded(t, g, txt)
					if len(h.Edges) != len(g.Edges) {
						t.Fatalf("%s/%s: %d edges read back, want %d\n%s", task.Name, enc, len(h.Edges), len(g.Edges), txt)
					}
					got, err := task.Truth(h)
					if err != nil {
						t.Fatalf("%s/%s: %v", task.Name, enc, err)
					}
					if task.Validated {
						if err := task.Validate(h, want); err != nil {
							t.Errorf("%s/%s: answer invalid after re-encoding: %v", task.Name, enc, err)
						}
					} else if !sameAnswer(task, want, got) {
						t.Errorf("%s/%s: truth %s became %s", task.Name, enc, want, got)
					}
				}
			}
		}
	}
}

// altGraph is a small undirected graph with several valid answers for most
// validated tasks: a 6-cycle 1-2-3-4-5-6 with chord 1-4 and pendant 7 on 4.
func altGraph(t *testing.T, params map[string]int) *Graph {
	g := pairsGraph(t, 7, [][2]int{{1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 1}, {1, 4}, {4, 7}}, false)
	g.Params = params
	return g
}

func nodesAns(xs ...int) Answer    { return Answer{Kind: KindNodeSet, Nodes: xs} }
func seqAns(xs ...int) Answer      { return Answer{Kind: KindNodeSeq, Nodes: xs} }
func edgesAns(es ...[2]int) Answer { return Answer{Kind: KindEdgeSet, Edges: es} }
func weightedAlt(t *testing.T) *Graph { // two shortest 1→4 paths of weight 4
	g, err := New(5, false, true, []Edge{{1, 2, 1}, {2, 4, 3}, {1, 3, 2}, {3, 4, 2}, {1, 4, 5}, {4, 5, 1}})
	if err != nil {
		t.Fatal(err)
	}
	g.Params = map[string]int{"source": 1, "target": 4}
	return g
}

// TestValidators: every valid alternative is accepted, near misses are
// rejected with a reason.
func TestValidators(t *testing.T) {
	dag, _ := New(5, true, false, []Edge{{1, 2, 0}, {1, 3, 0}, {2, 4, 0}, {3, 4, 0}, {4, 5, 0}})
	tour, _ := New(4, true, false, []Edge{{1, 2, 0}, {2, 3, 0}, {3, 1, 0}, {1, 4, 0}, {2, 4, 0}, {3, 4, 0}})
	cases := []struct {
		task string
		g    *Graph
		good []Answer
		bad  []Answer
	}{
		{"shortest_path", altGraph(t, map[string]int{"source": 2, "target": 6}),
			[]Answer{seqAns(2, 1, 6)},
			[]Answer{seqAns(2, 3, 4, 5, 6), seqAns(2, 6), seqAns(2, 1), seqAns(6, 1, 2)}},
		{"shortest_path", altGraph(t, map[string]int{"source": 2, "target": 5}),
			[]Answer{seqAns(2, 1, 6, 5), seqAns(2, 1, 4, 5), seqAns(2, 3, 4, 5)},
			[]Answer{seqAns(2, 1, 4, 3, 4, 5), seqAns(2, 4, 5)}},
		{"weighted_shortest_path", weightedAlt(t),
			[]Answer{seqAns(1, 2, 4), seqAns(1, 3, 4)},
			[]Answer{seqAns(1, 4), seqAns(1, 2, 4, 5)}},
		{"topological_sort", dag,
			[]Answer{seqAns(1, 2, 3, 4, 5), seqAns(1, 3, 2, 4, 5)},
			[]Answer{seqAns(2, 1, 3, 4, 5), seqAns(1, 2, 3, 4), seqAns(1, 2, 3, 5, 4)}},
		{"hamiltonian_path", tour,
			[]Answer{seqAns(1, 2, 3, 4), seqAns(2, 3, 1, 4), seqAns(3, 1, 2, 4)},
			[]Answer{seqAns(1, 2, 4, 3), seqAns(1, 2, 3), seqAns(4, 1, 2, 3)}},
		{"bfs", altGraph(t, map[string]int{"source": 1}),
			[]Answer{edgesAns([2]int{1, 2}, [2]int{1, 4}, [2]int{1, 6}, [2]int{2, 3}, [2]int{4, 5}, [2]int{4, 7}),
				edgesAns([2]int{1, 6}, [2]int{1, 4}, [2]int{1, 2}, [2]int{6, 5}, [2]int{4, 3}, [2]int{4, 7}),
				edgesAns([2]int{1, 4}, [2]int{1, 2}, [2]int{1, 6}, [2]int{4, 3}, [2]int{4, 5}, [2]int{4, 7}),
				edgesAns([2]int{2, 1}, [2]int{1, 4}, [2]int{6, 1}, [2]int{3, 2}, [2]int{5, 4}, [2]int{7, 4})},
			[]Answer{edgesAns([2]int{1, 2}, [2]int{2, 3}, [2]int{1, 4}, [2]int{1, 6}, [2]int{4, 5}, [2]int{4, 7}),
				edgesAns([2]int{1, 2}, [2]int{1, 4}, [2]int{1, 6}, [2]int{2, 3}, [2]int{4, 5}),
				edgesAns([2]int{1, 2}, [2]int{1, 4}, [2]int{1, 6}, [2]int{4, 3}, [2]int{4, 5}, [2]int{4, 7}),
				edgesAns([2]int{1, 2}, [2]int{1, 4}, [2]int{1, 6}, [2]int{2, 3}, [2]int{4, 5}, [2]int{4, 7}, [2]int{6, 5})}},
		{"dfs", altGraph(t, map[string]int{"source": 1}),
			[]Answer{edgesAns([2]int{1, 2}, [2]int{2, 3}, [2]int{3, 4}, [2]int{4, 5}, [2]int{5, 6}, [2]int{4, 7}),
				edgesAns([2]int{1, 4}, [2]int{4, 7}, [2]int{4, 3}, [2]int{3, 2}, [2]int{4, 5}, [2]int{5, 6}),
				edgesAns([2]int{1, 6}, [2]int{6, 5}, [2]int{5, 4}, [2]int{4, 3}, [2]int{3, 2}, [2]int{4, 7})},
			[]Answer{edgesAns([2]int{1, 2}, [2]int{1, 4}, [2]int{1, 6}, [2]int{2, 3}, [2]int{4, 5}, [2]int{4, 7}),
				edgesAns([2]int{1, 2}, [2]int{2, 3}, [2]int{3, 4}, [2]int{4, 5}, [2]int{5, 6}),
				edgesAns([2]int{1, 4}, [2]int{4, 7}, [2]int{1, 2}, [2]int{2, 3}, [2]int{4, 5}, [2]int{5, 6})}},
		{"minimum_spanning_tree", altGraph(t, nil),
			[]Answer{edgesAns([2]int{1, 2}, [2]int{2, 3}, [2]int{3, 4}, [2]int{4, 5}, [2]int{5, 6}, [2]int{4, 7}),
				edgesAns([2]int{1, 4}, [2]int{4, 7}, [2]int{1, 2}, [2]int{3, 2}, [2]int{6, 5}, [2]int{1, 6})},
			[]Answer{edgesAns([2]int{1, 2}, [2]int{2, 3}, [2]int{3, 4}, [2]int{4, 1}, [2]int{5, 6}, [2]int{4, 7}),
				edgesAns([2]int{1, 2}, [2]int{2, 3}, [2]int{3, 4}, [2]int{4, 5}, [2]int{5, 6}),
				edgesAns([2]int{1, 2}, [2]int{2, 3}, [2]int{3, 4}, [2]int{4, 5}, [2]int{5, 6}, [2]int{2, 7})}},
		{"max_weight_matching", altGraph(t, nil),
			[]Answer{edgesAns([2]int{1, 2}, [2]int{3, 4}, [2]int{5, 6}), edgesAns([2]int{2, 3}, [2]int{4, 7}, [2]int{6, 1}),
				edgesAns([2]int{2, 3}, [2]int{4, 7}, [2]int{5, 6})},
			[]Answer{edgesAns([2]int{1, 2}, [2]int{5, 6}), edgesAns([2]int{1, 2}, [2]int{2, 3}, [2]int{5, 6}),
				edgesAns([2]int{1, 2}, [2]int{3, 5}, [2]int{4, 7})}},
		{"min_edge_covering", altGraph(t, nil),
			[]Answer{edgesAns([2]int{1, 2}, [2]int{3, 4}, [2]int{5, 6}, [2]int{4, 7}), edgesAns([2]int{2, 3}, [2]int{4, 7}, [2]int{6, 1}, [2]int{5, 6})},
			[]Answer{edgesAns([2]int{1, 2}, [2]int{3, 4}, [2]int{5, 6}), edgesAns([2]int{1, 2}, [2]int{2, 3}, [2]int{3, 4}, [2]int{5, 6}, [2]int{4, 7})}},
		{"dominating_set", altGraph(t, nil),
			[]Answer{nodesAns(1, 4), nodesAns(2, 4, 6), nodesAns(1, 2, 3, 4, 5, 6, 7)},
			[]Answer{nodesAns(1), nodesAns(2, 5), nodesAns(1, 1, 4)}},
		{"maximal_independent_set", altGraph(t, nil),
			[]Answer{nodesAns(1, 3, 5, 7), nodesAns(2, 4, 6), nodesAns(2, 5, 7), nodesAns(3, 6, 7)},
			[]Answer{nodesAns(1, 3, 5), nodesAns(1, 2, 5, 7), nodesAns(2, 4)}},
		{"min_vertex_cover", altGraph(t, nil),
			[]Answer{nodesAns(2, 4, 6), nodesAns(6, 2, 4)},
			[]Answer{nodesAns(1, 3, 5), nodesAns(1, 2, 4, 6), nodesAns(2, 4)}},
		{"min_vertex_cover", pairsGraph(t, 4, [][2]int{{1, 2}, {2, 3}, {3, 4}, {4, 1}}, false),
			[]Answer{nodesAns(1, 3), nodesAns(2, 4)},
			[]Answer{nodesAns(1, 2), nodesAns(1, 2, 3), nodesAns(1, 3, 3)}},
	}
	for _, c := range cases {
		task, err := LookupTask(c.task)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range c.good {
			if err := task.Validate(c.g, a); err != nil {
				t.Errorf("%s: valid answer %s rejected: %v", c.task, a, err)
			}
		}
		for _, a := range c.bad {
			err := task.Validate(c.g, a)
			if err == nil {
				t.Errorf("%s: near miss %s accepted", c.task, a)
			} else if err.Error() == "" {
				t.Errorf("%s: empty reason", c.task)
			}
		}
	}
	// bipartite_maximum_matching on a path 1-2-3-4 (two maximum matchings of
	// size 2 only one of which exists: {12, 34}).
	bp := pairsGraph(t, 4, [][2]int{{1, 3}, {2, 3}, {2, 4}}, false)
	task, _ := LookupTask("bipartite_maximum_matching")
	if err := task.Validate(bp, edgesAns([2]int{1, 3}, [2]int{2, 4})); err != nil {
		t.Error(err)
	}
	if err := task.Validate(bp, edgesAns([2]int{2, 3})); err == nil {
		t.Error("bipartite matching of size 1 accepted")
	}
}

func TestTaskCheckErrors(t *testing.T) {
	g := pairsGraph(t, 5, paper5, false)
	cases := []struct {
		task   string
		params map[string]int
		want   string
	}{
		{"degree", nil, `needs parameter "u"`},
		{"degree", map[string]int{"u": 9}, "not a node in 1..5"},
		{"common_neighbor", map[string]int{"u": 2, "v": 2}, "must differ"},
		{"topological_sort", nil, "needs a directed graph"},
		{"weighted_shortest_path", map[string]int{"source": 1, "target": 2}, "needs a weighted graph"},
	}
	for _, c := range cases {
		task, _ := LookupTask(c.task)
		g.Params = c.params
		_, err := task.Truth(g)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: got %v, want %q", c.task, c.params, err, c.want)
		}
	}
	disc := pairsGraph(t, 4, [][2]int{{1, 2}, {3, 4}}, false)
	task, _ := LookupTask("diameter")
	if _, err := task.Truth(disc); err == nil || !strings.Contains(err.Error(), "not connected") {
		t.Errorf("diameter of a disconnected graph: %v", err)
	}
	if _, err := LookupTask("isomorphic_mapping"); err == nil {
		t.Error("isomorphic_mapping is excluded, as in the paper")
	}
	ts, err := ParseTasks("easy,diameter")
	if err != nil || len(ts) != 16 {
		t.Errorf("ParseTasks(easy,diameter) = %d tasks, %v; want 16", len(ts), err)
	}
}

// TestParseTasksRefusesATaskTwice checks that a task selected twice, by
// name or by name and category, is an error naming both items, and that
// distinct selections still parse.
func TestParseTasksRefusesATaskTwice(t *testing.T) {
	for _, c := range []struct {
		list string
		want string // "" for no error
		n    int
	}{
		{"diameter,node_number", "", 2},
		{"easy,medium", "", 26},
		{"diameter,diameter", `task diameter is selected twice, by "diameter" and by "diameter"`, 0},
		{"easy,node_number", `task node_number is selected twice, by "easy" and by "node_number"`, 0},
		{"node_number,Easy", `task node_number is selected twice, by "node_number" and by "Easy"`, 0},
		{"hard,HARD", "is selected twice", 0},
	} {
		ts, err := ParseTasks(c.list)
		switch {
		case c.want == "" && (err != nil || len(ts) != c.n):
			t.Errorf("ParseTasks(%q) = %d tasks, %v; want %d", c.list, len(ts), err, c.n)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("ParseTasks(%q) error = %v; want it to say %q", c.list, err, c.want)
		}
	}
}

// TestTasksTable checks the task table against §2.1 of the notes: 49 tasks,
// 15/11/17/6 per category, in Table 6 order.
func TestTasksTable(t *testing.T) {
	counts := map[string]int{}
	for _, task := range Tasks() {
		counts[task.Category]++
		if task.Description == "" || task.Question == "" || !strings.HasPrefix(task.Description, "The task is") {
			t.Errorf("%s: missing text", task.Name)
		}
		for _, p := range task.Params {
			if !strings.Contains(task.Question, "{"+p+"}") {
				t.Errorf("%s: question does not use {%s}", task.Name, p)
			}
		}
	}
	want := map[string]int{"Easy": 15, "Medium": 11, "Hard": 17, "Challenging": 6}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("categories %v, want %v", counts, want)
	}
	names := TaskNames()
	if names[0] != "node_number" || names[48] != "min_vertex_cover" || names[31] != "weighted_shortest_path" {
		t.Errorf("task order differs from Table 6: %v", names)
	}
}

func TestPromptPaperExample(t *testing.T) {
	g := pairsGraph(t, 19, paper19, false)
	g.Params = map[string]int{"source": 12, "target": 19}
	task, _ := LookupTask("shortest_path")
	got := task.Prompt(g, g.ErdosText())
	want := "The task is to determine the shortest path between two nodes. The input nodes are guaranteed to be connected. " + goldenString(t, goldenPaper(t), "E0") +
		" Question: What is the shortest path between node 12 and node 19? You need to format your answer as a list of nodes, e.g., [node-1, node-2, ..., node-n]."
	if got != want {
		t.Errorf("prompt:\n got %q\nwant %q", got, want)
	}
	dc, _ := LookupTask("degree_centrality")
	g.Params = map[string]int{"u": 2}
	p := dc.Prompt(g, g.ErdosText())
	if !strings.HasPrefix(p, "The task is to determine the degree centrality of a node in the graph. Degree centrality for a node is the fraction of nodes it is connected to. Here is an undirected graph") ||
		!strings.HasSuffix(p, "Question: What is the degree centrality of node 2 in the graph? You need to format your answer as a float number.") {
		t.Errorf("degree_centrality prompt %q", p)
	}
}

// TestWeightedShortestPathZeroLengths: zero edge lengths make cycles of
// tight arcs, which the path search must step around (it once followed
// 1→2→1→… until memory ran out; found by FuzzReadJSON). The lengths and
// paths were computed with NetworkX 3.4.2 (nx.dijkstra_path and
// nx.dijkstra_path_length); any shortest path is a valid answer, so the
// answer must be a simple path of existing arcs with NetworkX's length.
func TestWeightedShortestPathZeroLengths(t *testing.T) {
	for _, c := range []struct {
		name, graph string
		nxPath      []int
		nxLength    float64
	}{
		{"undirected zero-length edge", `{"n": 3, "edges": [[1, 2, 0], [1, 3, 11]], "params": {"source": 1, "target": 3}}`, []int{1, 3}, 11},
		{"directed zero-length cycle", `{"n": 5, "directed": true, "edges": [[1, 2, 0], [2, 4, 0], [4, 2, 0], [2, 1, 0], [1, 3, 5], [3, 5, 1], [4, 5, 6]], "params": {"source": 1, "target": 5}}`, []int{1, 2, 4, 5}, 6},
		{"zero-length path", `{"n": 4, "edges": [[1, 2, 0], [2, 3, 0], [3, 4, 0], [1, 4, 3]], "params": {"source": 1, "target": 4}}`, []int{1, 2, 3, 4}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := ReadJSON(strings.NewReader(c.graph))
			if err != nil {
				t.Fatal(err)
			}
			task, _ := LookupTask("weighted_shortest_path")
			a, err := task.Truth(g)
			if err != nil {
				t.Fatal(err)
			}
			p := a.Nodes
			if len(p) == 0 || p[0] != 1 || p[len(p)-1] != c.nxPath[len(c.nxPath)-1] {
				t.Fatalf("path %v; want one from 1 to %d (NetworkX: %v)", p, c.nxPath[len(c.nxPath)-1], c.nxPath)
			}
			v := newView(g)
			seen := map[int]bool{}
			length := 0.0
			for i, x := range p {
				if seen[x] {
					t.Fatalf("path %v visits %d twice", p, x)
				}
				seen[x] = true
				if i > 0 {
					if !v.adj[p[i-1]][x] {
						t.Fatalf("path %v uses a missing arc %d→%d", p, p[i-1], x)
					}
					length += v.w[p[i-1]][x]
				}
			}
			if length != c.nxLength {
				t.Errorf("path %v has length %v; NetworkX's shortest is %v (%v)", p, length, c.nxLength, c.nxPath)
			}
		})
	}
}
