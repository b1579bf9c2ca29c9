package graphtext

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// paper19 is the paper's running example (App. E) in Erdős edge order.
var paper19 = [][2]int{{1, 7}, {1, 12}, {1, 6}, {1, 3}, {1, 2}, {7, 3}, {7, 6}, {7, 12}, {12, 3}, {6, 17}, {6, 9}, {3, 2},
	{4, 5}, {4, 8}, {4, 10}, {4, 11}, {5, 15}, {5, 16}, {5, 8}, {5, 10}, {5, 13}, {5, 11}, {5, 14}, {8, 10}, {10, 11},
	{10, 14}, {11, 16}, {11, 13}, {16, 18}, {13, 18}, {17, 9}, {17, 19}, {9, 19}}

// paper5 is the 5-node graph of the paper's "Reasoning Styles" appendix.
var paper5 = [][2]int{{1, 2}, {1, 3}, {1, 4}, {1, 5}, {2, 3}, {2, 4}, {3, 4}, {4, 5}}

func pairsGraph(t testing.TB, n int, pairs [][2]int, directed bool) *Graph {
	t.Helper()
	es := make([]Edge, len(pairs))
	for i, p := range pairs {
		es[i] = Edge{U: p[0], V: p[1]}
	}
	g, err := New(n, directed, false, es)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// goldenPaper loads the strings printed in the paper (testdata/erdos/
// golden_paper.json, extracted from the notes by extract_golden.py).
func goldenPaper(t testing.TB) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile("testdata/erdos/golden_paper.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func goldenString(t testing.TB, m map[string]json.RawMessage, k string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(m[k], &s); err != nil {
		t.Fatalf("golden %s: %v", k, err)
	}
	return s
}

func mustSerialize(t testing.TB, g *Graph, syn Syntax, enc Encoding) string {
	t.Helper()
	s, err := g.Serialize(syn, enc, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestErdosTextGolden(t *testing.T) {
	m := goldenPaper(t)
	if got, want := pairsGraph(t, 19, paper19, false).ErdosText(), goldenString(t, m, "E0"); got != want {
		t.Errorf("19-node ErdosText:\n got %q\nwant %q", got, want)
	}
	if got, want := pairsGraph(t, 5, paper5, false).ErdosText(), goldenString(t, m, "five_E0"); got != want {
		t.Errorf("5-node ErdosText:\n got %q\nwant %q", got, want)
	}
}

func TestSerializeGoldenExact(t *testing.T) {
	m := goldenPaper(t)
	g19 := pairsGraph(t, 19, paper19, false)
	g5 := pairsGraph(t, 5, paper5, false)
	cases := []struct {
		name string
		g    *Graph
		syn  Syntax
		enc  Encoding
		key  string
	}{
		{"19/E0", g19, SyntaxErdos, EdgeErdos, "E0"},
		{"19/E1", g19, SyntaxErdos, EdgeSorted, "E1"},
		{"19/E2", g19, SyntaxErdos, EdgeSortedRep, "E2"},
		{"19/A1", g19, SyntaxErdos, AdjSorted, "A1"},
		{"19/PyG", g19, SyntaxPyG, EdgeErdos, "PyG"},
		{"5/E1", g5, SyntaxErdos, EdgeSorted, "five_E0"},
		{"5/E2", g5, SyntaxErdos, EdgeSortedRep, "five_E2"},
		{"5/A1", g5, SyntaxErdos, AdjSorted, "five_A1"},
		{"5/M", g5, SyntaxErdos, AdjMatrix, "five_M"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, want := mustSerialize(t, c.g, c.syn, c.enc), goldenString(t, m, c.key)
			if got != want {
				t.Errorf("got\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func TestSerializeGoldenFragments(t *testing.T) {
	m := goldenPaper(t)
	g19 := pairsGraph(t, 19, paper19, false)
	g5 := pairsGraph(t, 5, paper5, false)
	cases := []struct {
		name           string
		text           string
		prefix, suffix string
		contains       []string
	}{
		{name: "19/M", text: mustSerialize(t, g19, SyntaxErdos, AdjMatrix), prefix: goldenString(t, m, "M_prefix"), suffix: ",\n[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0]]"},
		{name: "19/JSON", text: mustSerialize(t, g19, SyntaxJSON, EdgeErdos), prefix: goldenString(t, m, "JSON_prefix"), suffix: goldenString(t, m, "JSON_suffix")},
		{name: "19/NetworkX", text: mustSerialize(t, g19, SyntaxNetworkX, EdgeErdos), prefix: goldenString(t, m, "NetworkX_prefix"), suffix: "(17, 19), (9, 19)])",
			contains: []string{"G.add_nodes_from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19])\nG.add_edges_from([(1, 7), (1, 12), (1, 6), (1, 3), "}},
		{name: "5/JSON", text: mustSerialize(t, g5, SyntaxJSON, EdgeErdos), suffix: goldenString(t, m, "five_JSON")},
		{name: "5/NetworkX", text: mustSerialize(t, g5, SyntaxNetworkX, EdgeErdos), suffix: goldenString(t, m, "five_NetworkX")},
		{name: "5/PyG", text: mustSerialize(t, g5, SyntaxPyG, EdgeErdos), contains: []string{goldenString(t, m, "five_PyG") + "\ndata = Data(edge_index=edge_index)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.HasPrefix(c.text, c.prefix) {
				t.Errorf("text does not start with the paper's prefix:\n got %q\nwant prefix %q", c.text, c.prefix)
			}
			if !strings.HasSuffix(c.text, c.suffix) {
				t.Errorf("text does not end with the paper's suffix:\n got %q\nwant suffix %q", c.text, c.suffix)
			}
			for _, s := range c.contains {
				if !strings.Contains(c.text, s) {
					t.Errorf("text lacks %q:\n%q", s, c.text)
				}
			}
		})
	}
}

// listed parses the "(u, v)" tuples of an edge-list text.
func listed(t *testing.T, s string) [][2]int {
	t.Helper()
	i := strings.Index(s, ": (") + 2
	var out [][2]int
	for _, part := range strings.Split(strings.TrimSuffix(s[i:], "."), "), (") {
		part = strings.Trim(part, "()")
		var a, b int
		if _, err := fmtSscanf(part, &a, &b); err != nil {
			t.Fatalf("bad tuple %q in %q", part, s)
		}
		out = append(out, [2]int{a, b})
	}
	return out
}

// TestShuffledEncodings checks the structural rules of every shuffled
// encoding over several seeds: the same multiset of edges, the promised
// order, the replication rule (faithful or strict), reproducibility per
// seed.
func TestShuffledEncodings(t *testing.T) {
	g := pairsGraph(t, 19, paper19, false)
	undirected := func(p [2]int) [2]int {
		if p[0] > p[1] {
			return [2]int{p[1], p[0]}
		}
		return p
	}
	base := map[[2]int]int{}
	for _, p := range paper19 {
		base[undirected(p)]++
	}
	for _, enc := range []Encoding{EdgeBySource, EdgeBySourceRep, EdgeShuffled, EdgeShuffledRep} {
		for seed := uint64(0); seed < 10; seed++ {
			for _, strict := range []bool{false, true} {
				opts := EncodeOptions{Seed: seed, Strict: strict}
				txt, err := g.Encode(enc, opts)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := g.Encode(enc, opts)
				if txt != again {
					t.Fatalf("%s seed %d not reproducible", enc, seed)
				}
				es := listed(t, txt)
				rep := enc == EdgeBySourceRep || enc == EdgeShuffledRep
				if want := len(paper19) * map[bool]int{false: 1, true: 2}[rep]; len(es) != want {
					t.Fatalf("%s: %d entries, want %d", enc, len(es), want)
				}
				if rep != strings.Contains(txt, "listed in both directions") {
					t.Errorf("%s: replication sentence wrong: %q", enc, txt[:120])
				}
				cnt := map[[2]int]int{}
				ordered := map[[2]int]int{}
				for _, e := range es {
					cnt[undirected(e)]++
					ordered[e]++
				}
				for k, c := range base {
					if cnt[k] != c*len(es)/len(paper19) {
						t.Fatalf("%s: edge %v listed %d times", enc, k, cnt[k])
					}
				}
				if enc == EdgeBySource || enc == EdgeBySourceRep {
					if !slices.IsSortedFunc(es, func(a, b [2]int) int { return a[0] - b[0] }) {
						t.Errorf("%s: sources not ascending: %v", enc, es)
					}
				}
				if enc == EdgeBySource || (enc == EdgeShuffledRep && strict) || enc == EdgeBySourceRep {
					// every pair appears in each required orientation exactly once
					for k := range base {
						if rep && (ordered[k] != 1 || ordered[[2]int{k[1], k[0]}] != 1) {
							t.Fatalf("%s strict: %v orientations %d/%d", enc, k, ordered[k], ordered[[2]int{k[1], k[0]}])
						}
					}
				}
			}
		}
	}
	// Faithful E6 reproduces the paper's quirk on some seed: an ordered pair
	// listed twice.
	dup := false
	for seed := uint64(0); seed < 10 && !dup; seed++ {
		txt, _ := g.Encode(EdgeShuffledRep, EncodeOptions{Seed: seed})
		seen := map[[2]int]bool{}
		for _, e := range listed(t, txt) {
			dup = dup || seen[e]
			seen[e] = true
		}
	}
	if !dup {
		t.Error("faithful E6 never lists an ordered pair twice; the paper's example does")
	}
	// E5 shuffles endpoints: some edge is written (max, min).
	txt, _ := g.Encode(EdgeShuffled, EncodeOptions{Seed: 1})
	flipped := false
	for _, e := range listed(t, txt) {
		flipped = flipped || e[0] > e[1]
	}
	if !flipped {
		t.Error("E5 never writes an edge (max, min)")
	}
}

func TestAdjacencyShuffles(t *testing.T) {
	g := pairsGraph(t, 19, paper19, false)
	a1 := mustSerialize(t, g, SyntaxErdos, AdjSorted)
	parts := func(s string) []string {
		s = strings.TrimSuffix(strings.SplitN(s, "The adjacency list is: ", 2)[1], ".")
		return strings.Split(s, "), ")
	}
	norm := func(p string) string { // sort the neighbour list of one entry
		head, list, _ := strings.Cut(strings.TrimSuffix(p, ")"), "(")
		xs := strings.Split(list, ", ")
		slices.SortFunc(xs, func(a, b string) int { return len(a)*1000 + strings.Compare(a, b) - len(b)*1000 })
		return head + "(" + strings.Join(xs, ", ")
	}
	ref := parts(a1)
	refSet := map[string]bool{}
	for _, p := range ref {
		refSet[norm(p)] = true
	}
	for _, enc := range []Encoding{AdjBySource, AdjByTarget, AdjShuffled} {
		txt, err := g.Encode(enc, EncodeOptions{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		ps := parts(txt)
		if len(ps) != 19 {
			t.Fatalf("%s: %d entries", enc, len(ps))
		}
		nodesSorted := true
		listsSorted := true
		for i, p := range ps {
			if !refSet[norm(p)] {
				t.Fatalf("%s: entry %q is not a node's neighbour set", enc, p)
			}
			if !strings.HasPrefix(ref[i], strings.SplitN(p, "(", 2)[0]) {
				nodesSorted = false
			}
			if norm(p) != strings.TrimSuffix(p, ")") {
				listsSorted = false
			}
		}
		if wantNodes := enc == AdjBySource; nodesSorted != wantNodes {
			t.Errorf("%s: nodes sorted = %v, want %v", enc, nodesSorted, wantNodes)
		}
		if wantLists := enc == AdjByTarget; listsSorted != wantLists {
			t.Errorf("%s: neighbour lists sorted = %v, want %v", enc, listsSorted, wantLists)
		}
	}
}

func TestSerializeDirectedWeighted(t *testing.T) {
	g, err := New(4, true, true, []Edge{{1, 2, 5}, {2, 3, 1}, {1, 3, 9}, {3, 4, 2.5}})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		syn  Syntax
		enc  Encoding
		want string
	}{
		{SyntaxErdos, EdgeErdos, "Here is a directed graph containing nodes from 1 to 4. The edges are: (1, 2, 5), (2, 3, 1), (1, 3, 9), (3, 4, 2.5)."},
		{SyntaxErdos, EdgeSortedRep, "Here is a directed graph containing nodes from 1 to 4. The edges are: (1, 2, 5), (1, 3, 9), (2, 3, 1), (3, 4, 2.5)."},
		{SyntaxErdos, AdjSorted, "Here is a directed graph containing nodes from 1 to 4. The adjacency list is: node 1 is connected to (2: 5, 3: 9), node 2 is connected to (3: 1), node 3 is connected to (4: 2.5), node 4 is connected to ()."},
		{SyntaxNetworkX, EdgeErdos, "Here is a directed graph containing nodes from 1 to 4. This is the NetworkX code representation of the graph:\nimport networkx as nx\nG = nx.DiGraph()\nG.add_nodes_from([1, 2, 3, 4])\nG.add_weighted_edges_from([(1, 2, 5), (2, 3, 1), (1, 3, 9), (3, 4, 2.5)])"},
		{SyntaxPyG, EdgeErdos, "Here is a directed graph containing nodes from 1 to 4. This is the PyG code representation of the graph:\nfrom torch_geometric.data import Data\nimport torch\nedge_index = torch.tensor([[1, 2, 1, 3], [2, 3, 3, 4]], dtype=torch.long).t().contiguous()\nedge_attr = torch.tensor([5, 1, 9, 2.5], dtype=torch.float)\ndata = Data(edge_index=edge_index, edge_attr=edge_attr)"},
		{SyntaxJSON, EdgeErdos, "Here is a directed graph containing nodes from 1 to 4. This is the JSON form representation of the graph:\n{\n\"nodes\": [ \"1\", \"2\", \"3\", \"4\" ],\n\"edges\": [ [ 1, 2, 5 ], [ 2, 3, 1 ], [ 1, 3, 9 ], [ 3, 4, 2.5 ] ],\n\"directed\": true\n}"},
	}
	for _, c := range cases {
		if got := mustSerialize(t, g, c.syn, c.enc); got != c.want {
			t.Errorf("%s/%s:\n got %q\nwant %q", c.syn, c.enc, got, c.want)
		}
	}
	// Shuffles never flip directed edges.
	for seed := uint64(0); seed < 5; seed++ {
		for _, enc := range []Encoding{EdgeShuffled, EdgeShuffledRep, EdgeBySourceRep} {
			es, _ := g.EdgeOrder(enc, EncodeOptions{Seed: seed})
			for _, e := range es {
				if e.U > e.V && !(e.U == 3 && e.V == 1) {
					t.Errorf("%s flipped directed edge to %v", enc, e)
				}
			}
		}
	}
}

func TestSerializeErrors(t *testing.T) {
	g := pairsGraph(t, 5, paper5, false)
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"unknown encoding", func() error { _, err := g.Encode("E9", EncodeOptions{}); return err }, "unknown encoding"},
		{"json replicated", func() error { _, err := g.Serialize(SyntaxJSON, EdgeSortedRep, EncodeOptions{}); return err }, "non-replicated edge-list"},
		{"pyg adjacency", func() error { _, err := g.Serialize(SyntaxPyG, AdjSorted, EncodeOptions{}); return err }, "non-replicated edge-list"},
		{"unknown syntax", func() error { _, err := g.Serialize("yaml", EdgeErdos, EncodeOptions{}); return err }, "unknown syntax"},
		{"edge order of matrix", func() error { _, err := g.EdgeOrder(AdjMatrix, EncodeOptions{}); return err }, "not an edge list"},
		{"parse encoding", func() error { _, err := ParseEncoding("edges"); return err }, "unknown encoding"},
	}
	for _, c := range cases {
		err := c.run()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want error containing %q", c.name, err, c.want)
		}
	}
	for _, e := range Encodings() {
		if got, err := ParseEncoding(e.Name()); err != nil || got != e {
			t.Errorf("ParseEncoding(%q) = %v, %v", e.Name(), got, err)
		}
		if got, err := ParseEncoding(strings.ToLower(string(e))); err != nil || got != e {
			t.Errorf("ParseEncoding(%q) = %v, %v", e, got, err)
		}
	}
}

func fmtSscanf(s string, a, b *int) (int, error) { return fmt.Sscanf(s, "%d, %d", a, b) }

func fmtInt(i int) string { return fmt.Sprint(i) }

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// quoteInner is s JSON-escaped without the surrounding quotes.
func quoteInner(s string) string { q := quote(s); return q[1 : len(q)-1] }
