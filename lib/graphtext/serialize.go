package graphtext

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Header is the sentence that introduces a graph in every Erdős prompt:
// "Here is an undirected graph containing nodes from 1 to N." ("a
// directed graph" for directed graphs).
func (g *Graph) Header() string {
	kind := "an undirected"
	if g.Directed {
		kind = "a directed"
	}
	return fmt.Sprintf("Here is %s graph containing nodes from 1 to %d.", kind, g.N)
}

// ErdosText is the baseline Erdős serialization (encoding E0, syntax
// Erdős): the header followed by the edges in their stored order,
//
//	Here is an undirected graph containing nodes from 1 to 5. The edges are: (1, 2), (1, 3), (2, 3).
//
// Weighted graphs write each edge as (u, v, w).
func (g *Graph) ErdosText() string {
	return g.Header() + " " + edgeListSentence(g, g.Edges, false)
}

// formatWeight writes a weight the shortest way that reads back exactly
// (5, 0.25, 1e-07).
func formatWeight(w float64) string { return strconv.FormatFloat(w, 'g', -1, 64) }

// tuple writes one edge as "(u, v)" or "(u, v, w)".
func tuple(g *Graph, e Edge) string {
	if g.Weighted {
		return "(" + strconv.Itoa(e.U) + ", " + strconv.Itoa(e.V) + ", " + formatWeight(e.W) + ")"
	}
	return "(" + strconv.Itoa(e.U) + ", " + strconv.Itoa(e.V) + ")"
}

// edgeListSentence writes "The edges are: (u, v), ...." (or the replicated
// variant's intro).
func edgeListSentence(g *Graph, edges []Edge, replicated bool) string {
	var b strings.Builder
	if replicated {
		b.WriteString("The edges are (each undirected edge is listed in both directions): ")
	} else {
		b.WriteString("The edges are: ")
	}
	if len(edges) == 0 {
		return "The graph has no edges."
	}
	for i, e := range edges {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tuple(g, e))
	}
	b.WriteString(".")
	return b.String()
}

// Encoding is one of the 12 edge encodings of the paper's Tables 3–5
// (data structure × ordering rule × replication of undirected edges),
// named by the codes of the serialization notes (§1.3).
type Encoding string

// The 12 edge encodings. E0 is the Erdős baseline.
const (
	EdgeErdos       Encoding = "E0" // edge list in the stored (Erdős) order
	EdgeSorted      Encoding = "E1" // edge list, (min, max) pairs sorted by (s, t)
	EdgeSortedRep   Encoding = "E2" // E1 with every undirected edge in both directions
	EdgeBySource    Encoding = "E3" // sources ascending, targets shuffled within a source
	EdgeBySourceRep Encoding = "E4" // E3 with every undirected edge in both directions
	EdgeShuffled    Encoding = "E5" // random edge order and random endpoint order
	EdgeShuffledRep Encoding = "E6" // 2m entries in random order
	AdjSorted       Encoding = "A1" // adjacency list, nodes and neighbours ascending
	AdjBySource     Encoding = "A2" // nodes ascending, neighbour lists shuffled
	AdjByTarget     Encoding = "A3" // node order shuffled, neighbour lists ascending
	AdjShuffled     Encoding = "A4" // node order and neighbour lists shuffled
	AdjMatrix       Encoding = "M"  // binary adjacency matrix, rows 1..n
)

var encodingInfo = map[Encoding]struct {
	name, desc    string
	deterministic bool
}{
	EdgeErdos:       {"edge-erdos", "edge list, Erdős order (baseline)", true},
	EdgeSorted:      {"edge-st", "edge list sorted by (s,t)", true},
	EdgeSortedRep:   {"edge-st-rep", "edge list sorted by (s,t), undirected edges replicated", true},
	EdgeBySource:    {"edge-s", "edge list sorted by s, targets shuffled", false},
	EdgeBySourceRep: {"edge-s-rep", "edge list sorted by s, targets shuffled, replicated", false},
	EdgeShuffled:    {"edge-shuffle", "edge list fully shuffled", false},
	EdgeShuffledRep: {"edge-shuffle-rep", "edge list fully shuffled, replicated", false},
	AdjSorted:       {"adjl-st", "adjacency list sorted by (s,t)", true},
	AdjBySource:     {"adjl-s", "adjacency list, nodes ascending, neighbours shuffled", false},
	AdjByTarget:     {"adjl-t", "adjacency list, nodes shuffled, neighbours ascending", false},
	AdjShuffled:     {"adjl-shuffle", "adjacency list fully shuffled", false},
	AdjMatrix:       {"adjm", "adjacency matrix", true},
}

// Encodings returns the 12 encodings in the order of the paper's tables.
func Encodings() []Encoding {
	return []Encoding{EdgeErdos, EdgeSorted, EdgeSortedRep, EdgeBySource, EdgeBySourceRep,
		EdgeShuffled, EdgeShuffledRep, AdjSorted, AdjBySource, AdjByTarget, AdjShuffled, AdjMatrix}
}

// Deterministic reports whether the encoding has no random choices (the
// shuffled ones are run with several seeds).
func (e Encoding) Deterministic() bool { return encodingInfo[e].deterministic }

// Name is the long name of the encoding ("edge-st", "adjl-shuffle", ...).
func (e Encoding) Name() string { return encodingInfo[e].name }

// Description says what the encoding is, in words.
func (e Encoding) Description() string { return encodingInfo[e].desc }

// IsEdgeList reports whether the encoding is one of the edge lists E0–E6.
func (e Encoding) IsEdgeList() bool { return strings.HasPrefix(string(e), "E") }

// ParseEncoding accepts a code (E0…E6, A1…A4, M, case-insensitive) or a long
// name (edge-erdos, edge-st, ..., adjm).
func ParseEncoding(s string) (Encoding, error) {
	for _, e := range Encodings() {
		if strings.EqualFold(s, string(e)) || strings.EqualFold(s, e.Name()) {
			return e, nil
		}
	}
	return "", fmt.Errorf("graphtext: unknown encoding %q; want one of E0..E6, A1..A4, M or their names (edge-erdos, edge-st, edge-st-rep, edge-s, edge-s-rep, edge-shuffle, edge-shuffle-rep, adjl-st, adjl-s, adjl-t, adjl-shuffle, adjm)", s)
}

// Syntax is how the graph is written: plain Erdős text, JSON, NetworkX code
// or PyG code (§1.5 of the notes).
type Syntax string

// The four syntaxes of the paper's Table 6.
const (
	SyntaxErdos    Syntax = "erdos"
	SyntaxJSON     Syntax = "json"
	SyntaxNetworkX Syntax = "networkx"
	SyntaxPyG      Syntax = "pyg"
)

// Syntaxes returns the four syntaxes in the order of Table 6.
func Syntaxes() []Syntax { return []Syntax{SyntaxErdos, SyntaxJSON, SyntaxNetworkX, SyntaxPyG} }

// ParseSyntax accepts erdos, json, networkx (or nx) and pyg, case-insensitive.
func ParseSyntax(s string) (Syntax, error) {
	switch strings.ToLower(s) {
	case "erdos", "erdős", "text":
		return SyntaxErdos, nil
	case "json":
		return SyntaxJSON, nil
	case "networkx", "nx":
		return SyntaxNetworkX, nil
	case "pyg":
		return SyntaxPyG, nil
	}
	return "", fmt.Errorf("graphtext: unknown syntax %q; want erdos, json, networkx or pyg", s)
}

// EncodeOptions holds the choices of the shuffled encodings.
type EncodeOptions struct {
	// Seed drives every shuffle (the paper uses 10 seeds per shuffled
	// encoding; narlab uses 0..9 by default).
	Seed uint64
	// Strict makes E6 write exactly one (u, v) and one (v, u) per
	// undirected edge. The default (false) is "faithful" to the paper's
	// printed example, where each of the two copies gets an independent
	// random endpoint order, so some pairs appear twice in the same
	// orientation.
	Strict bool
}

// encRand is the shuffle source of one serialization.
func encRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x656e636f64696e67)) }

// canonical returns the edges with (min, max) endpoints for undirected
// graphs (unchanged for directed ones).
func canonical(g *Graph) []Edge {
	out := slices.Clone(g.Edges)
	if !g.Directed {
		for i, e := range out {
			if e.U > e.V {
				out[i].U, out[i].V = e.V, e.U
			}
		}
	}
	return out
}

func sortEdges(es []Edge) {
	slices.SortStableFunc(es, func(a, b Edge) int {
		if a.U != b.U {
			return a.U - b.U
		}
		return a.V - b.V
	})
}

// replicate adds (v, u) for every undirected edge; directed graphs are
// returned unchanged.
func replicate(g *Graph, es []Edge) []Edge {
	if g.Directed {
		return es
	}
	out := make([]Edge, 0, 2*len(es))
	for _, e := range es {
		out = append(out, e, Edge{U: e.V, V: e.U, W: e.W})
	}
	return out
}

// groupShuffle sorts by source and shuffles the targets within each source.
func groupShuffle(es []Edge, r *rand.Rand) {
	r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	slices.SortStableFunc(es, func(a, b Edge) int { return a.U - b.U })
}

// EdgeOrder returns the edge sequence an edge-list encoding writes. For
// directed graphs, replication and endpoint shuffling are not applied.
func (g *Graph) EdgeOrder(enc Encoding, opts EncodeOptions) ([]Edge, error) {
	r := encRand(opts.Seed)
	switch enc {
	case EdgeErdos:
		return slices.Clone(g.Edges), nil
	case EdgeSorted, EdgeSortedRep:
		es := canonical(g)
		if enc == EdgeSortedRep {
			es = replicate(g, es)
		}
		sortEdges(es)
		return es, nil
	case EdgeBySource, EdgeBySourceRep:
		es := canonical(g)
		if enc == EdgeBySourceRep {
			es = replicate(g, es)
		}
		groupShuffle(es, r)
		return es, nil
	case EdgeShuffled:
		es := canonical(g)
		r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		if !g.Directed {
			for i, e := range es {
				if r.IntN(2) == 1 {
					es[i].U, es[i].V = e.V, e.U
				}
			}
		}
		return es, nil
	case EdgeShuffledRep:
		es := canonical(g)
		if g.Directed {
			r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
			return es, nil
		}
		es = replicate(g, es)
		if !opts.Strict {
			for i, e := range es {
				if r.IntN(2) == 1 {
					es[i].U, es[i].V = e.V, e.U
				}
			}
		}
		r.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
		return es, nil
	}
	return nil, fmt.Errorf("graphtext: encoding %q is not an edge list; want one of E0..E6", enc)
}

// Encode writes the graph header and the graph body in the given encoding
// (syntax Erdős), e.g. for A1
//
//	Here is an undirected graph containing nodes from 1 to 3. The adjacency list is: node 1 is connected to (2, 3), node 2 is connected to (1), node 3 is connected to (1).
//
// Weighted adjacency lists write a neighbour as "v: w"; weighted matrices
// hold the weights.
func (g *Graph) Encode(enc Encoding, opts EncodeOptions) (string, error) {
	body, err := g.EncodeBody(enc, opts)
	if err != nil {
		return "", err
	}
	return g.Header() + " " + body, nil
}

// EncodeBody is [Graph.Encode] without the header sentence.
func (g *Graph) EncodeBody(enc Encoding, opts EncodeOptions) (string, error) {
	switch enc {
	case EdgeErdos, EdgeSorted, EdgeSortedRep, EdgeBySource, EdgeBySourceRep, EdgeShuffled, EdgeShuffledRep:
		es, err := g.EdgeOrder(enc, opts)
		if err != nil {
			return "", err
		}
		rep := !g.Directed && (enc == EdgeSortedRep || enc == EdgeBySourceRep || enc == EdgeShuffledRep)
		return edgeListSentence(g, es, rep), nil
	case AdjSorted, AdjBySource, AdjByTarget, AdjShuffled:
		return g.adjacencyList(enc, encRand(opts.Seed)), nil
	case AdjMatrix:
		return g.adjacencyMatrix(), nil
	}
	return "", fmt.Errorf("graphtext: unknown encoding %q; want one of E0..E6, A1..A4, M", enc)
}

// weightOf maps each ordered pair to its weight.
func (g *Graph) weightOf() map[[2]int]float64 {
	w := make(map[[2]int]float64, 2*len(g.Edges))
	for _, e := range g.Edges {
		w[[2]int{e.U, e.V}] = e.W
		if !g.Directed {
			w[[2]int{e.V, e.U}] = e.W
		}
	}
	return w
}

func (g *Graph) adjacencyList(enc Encoding, r *rand.Rand) string {
	nb := g.Neighbors()
	w := g.weightOf()
	nodes := make([]int, g.N)
	for i := range nodes {
		nodes[i] = i + 1
	}
	if enc == AdjByTarget || enc == AdjShuffled {
		r.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	}
	var b strings.Builder
	b.WriteString("The adjacency list is: ")
	for i, u := range nodes {
		l := slices.Clone(nb[u])
		slices.Sort(l)
		if enc == AdjBySource || enc == AdjShuffled {
			r.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "node %d is connected to (", u)
		for j, v := range l {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(v))
			if g.Weighted {
				b.WriteString(": " + formatWeight(w[[2]int{u, v}]))
			}
		}
		b.WriteString(")")
	}
	b.WriteString(".")
	return b.String()
}

func (g *Graph) adjacencyMatrix() string {
	var b strings.Builder
	switch {
	case g.Weighted:
		b.WriteString("This is the weighted adjacency matrix representation of the graph where entry (i, j) is the weight of the edge from node i to node j and 0 denotes no edge: [")
	case g.Directed:
		b.WriteString("This is the binary adjacency matrix representation of the graph where 1 in row i, column j denotes an edge from node i to node j: [")
	default:
		b.WriteString("This is the binary adjacency matrix representation of the graph where 1 denotes an edge between nodes: [")
	}
	a := g.Adjacency()
	for i, row := range a {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("[")
		for j, x := range row {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(formatWeight(x))
		}
		b.WriteString("]")
	}
	b.WriteString("]")
	return b.String()
}

// Serialize writes the header and the graph in a syntax, with the edges in
// the order of an edge-list encoding that does not replicate edges (E0, E1,
// E3 or E5; the paper's syntax study uses E0). SyntaxErdos with any encoding
// is the same as [Graph.Encode].
func (g *Graph) Serialize(syn Syntax, enc Encoding, opts EncodeOptions) (string, error) {
	if syn == SyntaxErdos {
		return g.Encode(enc, opts)
	}
	switch enc {
	case EdgeErdos, EdgeSorted, EdgeBySource, EdgeShuffled:
	default:
		return "", fmt.Errorf("graphtext: syntax %s needs a non-replicated edge-list encoding (E0, E1, E3 or E5), got %q", syn, enc)
	}
	es, err := g.EdgeOrder(enc, opts)
	if err != nil {
		return "", err
	}
	var body string
	switch syn {
	case SyntaxJSON:
		body = g.jsonText(es)
	case SyntaxNetworkX:
		body = g.networkxText(es)
	case SyntaxPyG:
		body = g.pygText(es)
	default:
		_, err := ParseSyntax(string(syn))
		return "", err
	}
	return g.Header() + " " + body, nil
}

func (g *Graph) jsonText(es []Edge) string {
	var b strings.Builder
	b.WriteString("This is the JSON form representation of the graph:\n{\n\"nodes\": [ ")
	for v := 1; v <= g.N; v++ {
		if v > 1 {
			b.WriteString(", ")
		}
		b.WriteString(`"` + strconv.Itoa(v) + `"`)
	}
	b.WriteString(" ],\n\"edges\": [ ")
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[ %d, %d", e.U, e.V)
		if g.Weighted {
			b.WriteString(", " + formatWeight(e.W))
		}
		b.WriteString(" ]")
	}
	if len(es) > 0 {
		b.WriteString(" ")
	}
	fmt.Fprintf(&b, "],\n\"directed\": %t\n}", g.Directed)
	return b.String()
}

func (g *Graph) networkxText(es []Edge) string {
	var b strings.Builder
	b.WriteString("This is the NetworkX code representation of the graph:\nimport networkx as nx\n")
	if g.Directed {
		b.WriteString("G = nx.DiGraph()\n")
	} else {
		b.WriteString("G = nx.Graph()\n")
	}
	b.WriteString("G.add_nodes_from([")
	for v := 1; v <= g.N; v++ {
		if v > 1 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(v))
	}
	if g.Weighted {
		b.WriteString("])\nG.add_weighted_edges_from([")
	} else {
		b.WriteString("])\nG.add_edges_from([")
	}
	for i, e := range es {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tuple(g, e))
	}
	b.WriteString("])")
	return b.String()
}

func (g *Graph) pygText(es []Edge) string {
	var src, dst, ws []string
	for _, e := range es {
		src = append(src, strconv.Itoa(e.U))
		dst = append(dst, strconv.Itoa(e.V))
		ws = append(ws, formatWeight(e.W))
		if !g.Directed {
			src = append(src, strconv.Itoa(e.V))
			dst = append(dst, strconv.Itoa(e.U))
			ws = append(ws, formatWeight(e.W))
		}
	}
	var b strings.Builder
	b.WriteString("This is the PyG code representation of the graph:\nfrom torch_geometric.data import Data\nimport torch\n")
	b.WriteString("edge_index = torch.tensor([[" + strings.Join(src, ", ") + "], [" + strings.Join(dst, ", ") + "]], dtype=torch.long).t().contiguous()\n")
	if g.Weighted {
		b.WriteString("edge_attr = torch.tensor([" + strings.Join(ws, ", ") + "], dtype=torch.float)\n")
		b.WriteString("data = Data(edge_index=edge_index, edge_attr=edge_attr)")
	} else {
		b.WriteString("data = Data(edge_index=edge_index)")
	}
	return b.String()
}
