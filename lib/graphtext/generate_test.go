package graphtext

import (
	"bytes"
	"reflect"
	"testing"
)

// genComponents counts connected components by union–find (independent of
// the spectral code).
func genComponents(g *Graph) int {
	parent := make([]int, g.N+1)
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	c := g.N
	for _, e := range g.Edges {
		a, b := find(e.U), find(e.V)
		if a != b {
			parent[a] = b
			c--
		}
	}
	return c
}

func TestGenerateDeterministic(t *testing.T) {
	a, err := GenerateSet(7, 20, GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := GenerateSet(7, 20, GenOptions{})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("GenerateSet with the same seed gave different graphs")
	}
	c, _ := GenerateSet(8, 20, GenOptions{})
	if reflect.DeepEqual(a, c) {
		t.Fatal("GenerateSet with different seeds gave the same graphs")
	}
	g5, _ := Generate(SetSeed(7, 5), GenOptions{})
	if !reflect.DeepEqual(g5, a[5]) {
		t.Fatal("Generate(SetSeed(seed, 5)) differs from GenerateSet(seed)[5]")
	}
}

func TestGenerateProperties(t *testing.T) {
	cases := []struct {
		name string
		opts GenOptions
		conn func(c int) bool
	}{
		{"default", GenOptions{}, func(int) bool { return true }},
		{"connected", GenOptions{Connectivity: Connected}, func(c int) bool { return c == 1 }},
		{"disconnected", GenOptions{Connectivity: Disconnected, MaxComponents: 4}, func(c int) bool { return c >= 2 && c <= 4 }},
		{"small dense", GenOptions{MinNodes: 5, MaxNodes: 6, MinDensity: 0.9, MaxDensity: 1}, func(int) bool { return true }},
		{"sparse", GenOptions{MinNodes: 30, MaxNodes: 35, MinDensity: 0, MaxDensity: 0.01, Connectivity: Connected}, func(c int) bool { return c == 1 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, _ := tc.opts.withDefaults()
			gs, err := GenerateSet(1, 200, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			nDisc := 0
			for i, g := range gs {
				if err := g.Validate(false); err != nil {
					t.Fatalf("graph %d: %v", i, err)
				}
				if g.N < o.MinNodes || g.N > o.MaxNodes {
					t.Fatalf("graph %d has %d nodes; want %d..%d", i, g.N, o.MinNodes, o.MaxNodes)
				}
				if !Synthetic(g) {
					t.Fatalf("graph %d is not marked synthetic", i)
				}
				c := genComponents(g)
				if !tc.conn(c) {
					t.Fatalf("graph %d has %d components", i, c)
				}
				if c > 1 {
					nDisc++
				}
				checkErdosOrder(t, g)
			}
			if tc.name == "default" && (nDisc < 30 || nDisc > 90) {
				t.Fatalf("default options gave %d/200 disconnected graphs; want about 30 %%", nDisc)
			}
		})
	}
}

// checkErdosOrder checks the §1.8 order: replaying the edges, every edge's
// first endpoint is the node being listed, nodes are listed in BFS
// discovery order from node 1 (then from the smallest unvisited id), and
// a node never lists an edge to a node already listed.
func checkErdosOrder(t *testing.T, g *Graph) {
	t.Helper()
	adj := make([][]int, g.N+1)
	for _, e := range g.Edges {
		adj[e.U] = append(adj[e.U], e.V)
		adj[e.V] = append(adj[e.V], e.U)
	}
	// Recover the listing order from the edge list (first endpoints in
	// order of first appearance) and check it is a BFS order.
	listed := make([]bool, g.N+1)
	var order []int
	for i, e := range g.Edges {
		if len(order) == 0 || order[len(order)-1] != e.U {
			if listed[e.U] {
				t.Fatalf("edge %d (%d, %d): node %d lists edges twice", i, e.U, e.V, e.U)
			}
			listed[e.U] = true
			order = append(order, e.U)
		}
		if listed[e.V] {
			t.Fatalf("edge %d (%d, %d): %d was already listed", i, e.U, e.V, e.V)
		}
	}
	// BFS discovery order restricted to nodes that list at least one edge
	// must match.
	seen := make([]bool, g.N+1)
	var bfs []int
	for s := 1; s <= g.N; s++ {
		if seen[s] {
			continue
		}
		seen[s] = true
		q := []int{s}
		for len(q) > 0 {
			v := q[0]
			q = q[1:]
			bfs = append(bfs, v)
			for _, w := range adj[v] {
				if !seen[w] {
					seen[w] = true
					q = append(q, w)
				}
			}
		}
	}
	pos := make([]int, g.N+1)
	for i, v := range bfs {
		pos[v] = i
	}
	for i := 1; i < len(order); i++ {
		if pos[order[i-1]] > pos[order[i]] {
			t.Fatalf("nodes %d and %d are listed out of BFS order", order[i-1], order[i])
		}
	}
	if len(g.Edges) > 0 && g.Edges[0].U != 1 && len(adj[1]) > 0 {
		t.Fatalf("first edge (%d, %d) does not start at node 1", g.Edges[0].U, g.Edges[0].V)
	}
}

func TestGenerateJSONRoundTrip(t *testing.T) {
	g, err := Generate(3, GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := g.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	h, err := ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, h) || !Synthetic(h) {
		t.Fatalf("round trip changed the graph:\n%+v\n%+v", g, h)
	}
}

func TestGenerateBadOptions(t *testing.T) {
	cases := []struct {
		name string
		opts GenOptions
	}{
		{"max<min", GenOptions{MinNodes: 10, MaxNodes: 5}},
		{"negative nodes", GenOptions{MinNodes: -1}},
		{"density>1", GenOptions{MaxDensity: 1.5}},
		{"density order", GenOptions{MinDensity: 0.5, MaxDensity: 0.2}},
		{"fraction>1", GenOptions{DisconnectedFraction: 2}},
		{"one component", GenOptions{MaxComponents: 1}},
		{"bad connectivity", GenOptions{Connectivity: 7}},
		{"disconnected single node", GenOptions{MinNodes: 1, MaxNodes: 1, Connectivity: Disconnected}},
	}
	for _, tc := range cases {
		if _, err := Generate(1, tc.opts); err == nil {
			t.Errorf("%s: Generate accepted %+v", tc.name, tc.opts)
		}
	}
	if _, err := GenerateSet(1, -1, GenOptions{}); err == nil {
		t.Error("GenerateSet accepted a negative count")
	}
}

func TestParseConnectivity(t *testing.T) {
	for _, c := range []Connectivity{Mixed, Connected, Disconnected} {
		got, err := ParseConnectivity(c.String())
		if err != nil || got != c {
			t.Errorf("ParseConnectivity(%q) = %v, %v", c.String(), got, err)
		}
	}
	if _, err := ParseConnectivity("dense"); err == nil {
		t.Error("ParseConnectivity accepted \"dense\"")
	}
}
