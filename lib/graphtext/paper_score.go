package graphtext

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/narlab/narlab/internal/pyval"
)

// Paper scoring: G1's checker (evaluation/Erdos/correctness_check.py,
// verify_correctness, with math_utils.py and string_utils.py of
// github.com/PKU-ML/G1), reproduced step by step:
//
//   - extraction: the last \boxed{...} (braces matched; any "\boxed "
//     followed by a space wins, up to the next "$"; else the last \fbox,
//     whose first character G1 drops), normalised by strip_string;
//     without a box, the text after the first "the (final) answer is" up to
//     the end of that line, stripped, with ":", the two characters "\n" and
//     every "." removed (and not normalised further);
//   - strip_string: removes newlines, "\!", "\text", \left, \right,
//     degree signs, "\$", "\%", spaces and finally every backslash (so
//     \text{18} is {18}, $18$ keeps its dollars and 4 \text{ nodes} becomes
//     4{nodes}); "x = " prefixes of up to two characters go; 0.5 and a/b
//     become frac{1}{2} and frac{a}{b};
//   - comparison: the same string as the stripped golden answer is right;
//     otherwise integers must be that string, yes/no answers compare their
//     letters, floats parse (plain, frac{a}{b} or a/b) and must be within
//     1e-3, lists are read with ast.literal_eval (a bare number is [n]) and
//     go to the task's validator — dominating_set, maximal_independent_set,
//     min_vertex_cover, shortest_path, weighted_shortest_path,
//     topological_sort, min_edge_covering, minimum_spanning_tree,
//     weighted_minimum_spanning_tree, max_weight_matching,
//     bipartite_maximum_matching, bfs, dfs — or must equal the golden list
//     (the other list tasks, hamiltonian_path included).
//
// Where the checker raises (an IndexError in strip_string for a trailing
// \frac or \sqrt, an OverflowError squaring a huge float difference,
// AmbiguousSolution for a matching on a disconnected bipartite graph), the
// response has no paper score: Score.Raised says so and narlab's lenient
// reading decides.

// G1AnswerType returns the answer_type G1's checker reads for a task:
// integer, float, bool, node_list, ordered_node_list, edge_list or
// ordered_edge_list (the Erdős data's field; the checker treats the node
// and the edge kinds alike).
func G1AnswerType(t *Task) string {
	switch t.Kind {
	case KindInt:
		return "integer"
	case KindFloat:
		return "float"
	case KindBool:
		return "bool"
	case KindNodeSet:
		return "node_list"
	case KindNodeSeq:
		return "ordered_node_list"
	case KindEdgeSet:
		if t.Ordered {
			return "ordered_edge_list"
		}
		return "edge_list"
	}
	return ""
}

// G1Extract is G1's extract_solution: the answer it reads from a model
// output, ok false when it finds none (Python's None). A non-nil error is
// the exception strip_string raises on it.
func G1Extract(output string) (ans string, ok bool, err error) {
	output = string([]rune(output)) // invalid UTF-8 bytes as U+FFFD
	if boxed, found := g1LastBoxed(output); found {
		s, err := G1StripString(g1RemoveBoxed(boxed))
		return s, true, err
	}
	m := g1AnswerIsRe.FindStringSubmatch(output)
	if m == nil {
		return "", false, nil
	}
	s := string(pyval.Strip([]rune(m[1])))
	s = strings.NewReplacer(":", "", `\n`, "", ".", "").Replace(s)
	return s, true, nil
}

// Python's \s (str.isspace) and "." (anything but a newline) in the
// fallback pattern (?:the (?:final )?answer is\s*)(.*), case-insensitive.
var g1AnswerIsRe = regexp.MustCompile(`(?i)the (?:final )?answer is[\t\n\v\f\r\x1c-\x1f\x85\p{Z}]*(.*)`)

// g1LastBoxed is last_boxed_only_string.
func g1LastBoxed(s string) (string, bool) {
	idx := strings.LastIndex(s, `\boxed`)
	if strings.Contains(s, `\boxed `) {
		parts := strings.Split(s, `\boxed `)
		last, _, _ := strings.Cut(parts[len(parts)-1], "$")
		return `\boxed ` + last, true
	}
	if idx < 0 {
		idx = strings.LastIndex(s, `\fbox`)
		if idx < 0 {
			return "", false
		}
	}
	open := 0
	for i := idx; i < len(s); i++ {
		switch s[i] {
		case '{':
			open++
		case '}':
			open--
			if open == 0 {
				return s[idx : i+1], true
			}
		}
	}
	return "", false
}

// g1RemoveBoxed is remove_boxed: drop "\boxed " or the first 7 and the
// last code points ("\boxed{" and "}").
func g1RemoveBoxed(s string) string {
	if strings.Contains(s, `\boxed `) {
		return string([]rune(s)[len(`\boxed `):])
	}
	r := []rune(s)
	if len(r) <= len(`\boxed{`) {
		return ""
	}
	return string(r[len(`\boxed{`) : len(r)-1])
}

// G1StripString is G1's strip_string (string_utils.py). It raises an
// IndexError where G1's does: a "\sqrt" or "\frac" with nothing after it.
func G1StripString(s string) (string, error) {
	s = strings.ReplaceAll(s, "\n", "")
	s = strings.ReplaceAll(s, `\!`, "")
	s = strings.ReplaceAll(s, `\\`, `\`)
	s = strings.ReplaceAll(s, "tfrac", "frac")
	s = strings.ReplaceAll(s, "dfrac", "frac")
	s = strings.ReplaceAll(s, `\text`, "")
	s = strings.ReplaceAll(s, `\left`, "")
	s = strings.ReplaceAll(s, `\right`, "")
	s = strings.ReplaceAll(s, `^{\circ}`, "")
	s = strings.ReplaceAll(s, `^\circ`, "")
	s = strings.ReplaceAll(s, `\$`, "")
	if strings.Contains(s, `\text{ `) {
		s = strings.Split(s, `\text{ `)[0]
	}
	s = strings.ReplaceAll(s, `\%`, "")
	s = strings.ReplaceAll(s, " .", " 0.")
	s = strings.ReplaceAll(s, "{.", "{0.")
	if s == "" {
		return s, nil
	}
	if s[0] == '.' {
		s = "0" + s
	}
	if parts := strings.Split(s, "="); len(parts) == 2 && len([]rune(parts[0])) <= 2 {
		s = parts[1]
	}
	s, err := g1FixSqrt(s)
	if err != nil {
		return "", err
	}
	s = strings.ReplaceAll(s, " ", "")
	if s, err = g1FixFracs(s); err != nil {
		return "", err
	}
	if s == "0.5" {
		s = `\frac{1}{2}`
	}
	s = g1FixSlash(s)
	s = strings.ReplaceAll(s, `\`, "")
	if l := strings.ToLower(s); l == "{yes}" || l == "{no}" {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "}", ""), "{", "")
	}
	return s, nil
}

var errIndex = pyval.Raise("IndexError", "string index out of range")

func g1FixSqrt(s string) (string, error) {
	if !strings.Contains(s, `\sqrt`) {
		return s, nil
	}
	splits := strings.Split(s, `\sqrt`)
	out := splits[0]
	for _, sp := range splits[1:] {
		r := []rune(sp)
		if len(r) == 0 {
			return "", errIndex
		}
		if r[0] != '{' {
			out += `\sqrt{` + string(r[0]) + "}" + string(r[1:])
		} else {
			out += `\sqrt` + sp
		}
	}
	return out, nil
}

func g1FixFracs(s string) (string, error) {
	subs := strings.Split(s, `\frac`)
	out := subs[0]
	for _, sub := range subs[1:] {
		out += `\frac`
		r := []rune(sub)
		if len(r) == 0 {
			return "", errIndex
		}
		if r[0] == '{' {
			out += sub
			continue
		}
		if len(r) < 2 {
			return s, nil
		}
		a, b := string(r[0]), string(r[1])
		if b != "{" {
			out += "{" + a + "}{" + b + "}" + string(r[2:])
		} else {
			out += "{" + a + "}" + b + string(r[2:])
		}
	}
	return out, nil
}

func g1FixSlash(s string) string {
	parts := strings.Split(s, "/")
	if len(parts) != 2 {
		return s
	}
	a, err1 := pyval.ParseIntStr([]rune(parts[0]))
	b, err2 := pyval.ParseIntStr([]rune(parts[1]))
	if err1 != nil || err2 != nil || s != a.V.String()+"/"+b.V.String() {
		return s
	}
	return `\frac{` + a.V.String() + "}{" + b.V.String() + "}"
}

// g1ExtractFloat is extract_floats: a plain float, frac{a}{b} at the
// start, or a/b; ok false for None.
func g1ExtractFloat(s string) (float64, bool) {
	r := pyval.Strip([]rune(s))
	if f, err := pyval.ParseFloatStr(r); err == nil {
		return f, true
	}
	t := string(r)
	if m := g1FracRe.FindStringSubmatch(t); m != nil {
		a, _ := pyval.ParseFloatStr([]rune(m[1]))
		b, _ := pyval.ParseFloatStr([]rune(m[2]))
		if b == 0 {
			return 0, false
		}
		return a / b, true
	}
	if m := g1DivRe.FindStringSubmatch(t); m != nil {
		a, _ := pyval.ParseFloatStr([]rune(m[1]))
		b, _ := pyval.ParseFloatStr([]rune(m[2]))
		if b == 0 {
			return 0, false
		}
		return a / b, true
	}
	return 0, false
}

// Python's \d (any decimal digit) and \s in extract_floats' patterns.
const pyS = `[\t\n\v\f\r\x1c-\x1f\x85\p{Z}]`

var (
	g1FracRe = regexp.MustCompile(`^frac` + pyS + `*\{` + pyS + `*(-?\p{Nd}+(?:\.\p{Nd}+)?)` + pyS + `*\}` + pyS + `*\{` + pyS + `*(-?\p{Nd}+(?:\.\p{Nd}+)?)` + pyS + `*\}`)
	g1DivRe  = regexp.MustCompile(`^(-?\p{Nd}+(?:\.\p{Nd}+)?)` + pyS + `*/` + pyS + `*(-?\p{Nd}+(?:\.\p{Nd}+)?)\n?$`)
)

// g1Graph is the NetworkX graph G1's construct_graph builds: nodes 1..n,
// the edges (weighted only for the two weighted path and tree tasks).
type g1Graph struct {
	n        int
	directed bool
	adj      []map[int]float64 // adj[u][v] = weight (successors when directed)
	v        *view
}

func newG1Graph(t *Task, g *Graph) *g1Graph {
	h := &g1Graph{n: g.N, directed: g.Directed, adj: make([]map[int]float64, g.N+1)}
	for i := range h.adj {
		h.adj[i] = map[int]float64{}
	}
	weighted := t.Name == "weighted_shortest_path" || t.Name == "weighted_minimum_spanning_tree"
	for _, e := range g.Edges {
		w := 1.0
		if weighted && g.Weighted {
			w = e.W
		}
		h.adj[e.U][e.V] = w
		if !g.Directed {
			h.adj[e.V][e.U] = w
		}
	}
	vg := *g
	vg.Weighted = weighted && g.Weighted
	h.v = newView(&vg)
	return h
}

// node returns a Python value as a node id of the graph.
func (h *g1Graph) node(v pyval.Value) (int, bool) {
	switch x := v.(type) {
	case pyval.Bool:
		if x {
			return h.nodeInt(1)
		}
		return h.nodeInt(0)
	case *pyval.Int:
		if x.V.IsInt64() {
			return h.nodeInt(x.V.Int64())
		}
	case pyval.Float:
		f := float64(x)
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return h.nodeInt(int64(f))
		}
	case pyval.Complex:
		if imag(x) == 0 {
			return h.node(pyval.Float(real(x)))
		}
	}
	return 0, false
}

func (h *g1Graph) nodeInt(x int64) (int, bool) {
	if x >= 1 && x <= int64(h.n) {
		return int(x), true
	}
	return 0, false
}

func (h *g1Graph) hasEdge(u, v pyval.Value) bool {
	a, ok1 := h.node(u)
	b, ok2 := h.node(v)
	if !ok1 || !ok2 {
		return false
	}
	_, ok := h.adj[a][b]
	return ok
}

// validNodeSet is is_valid_node_set: a non-empty list of ints.
func validNodeSet(xs []pyval.Value) bool {
	if len(xs) == 0 {
		return false
	}
	for _, x := range xs {
		if !pyval.IsInt(x) {
			return false
		}
	}
	return true
}

// validEdgeSet is is_valid_edge_set: a non-empty list of 2-item lists or
// tuples of ints.
func validEdgeSet(xs []pyval.Value) bool {
	if len(xs) == 0 {
		return false
	}
	for _, x := range xs {
		var it []pyval.Value
		switch e := x.(type) {
		case pyval.List:
			it = e
		case pyval.Tuple:
			it = e
		default:
			return false
		}
		if len(it) != 2 || !pyval.IsInt(it[0]) || !pyval.IsInt(it[1]) {
			return false
		}
	}
	return true
}

// ints returns the int items (validated beforehand) as Go ints, ok false
// when one is too large to be a node of any graph.
func bigInts(xs []pyval.Value) []*big.Int {
	out := make([]*big.Int, len(xs))
	for i, x := range xs {
		out[i] = x.(*pyval.Int).V
	}
	return out
}

// g1Verify runs verify_correctness on an output. It returns what G1
// returns, or the exception it raises.
func g1Verify(t *Task, g *Graph, gold Answer, output string) (correct bool, extracted string, found bool, err error) {
	gen, found, err := G1Extract(output)
	if err != nil {
		return false, "", true, err
	}
	golden, err := G1StripString(gold.String())
	if err != nil {
		return false, gen, found, err
	}
	if !found {
		return false, "", false, nil
	}
	ok, err := g1Equal(t, g, gen, golden)
	return ok, gen, true, err
}

// g1Equal is equal_function.
func g1Equal(t *Task, g *Graph, gen, golden string) (bool, error) {
	if gen == "" || golden == "" {
		return false, nil
	}
	if gen == golden {
		return true, nil
	}
	switch G1AnswerType(t) {
	case "integer":
		return false, nil
	case "bool":
		return asciiLetters(strings.ToLower(golden)) == asciiLetters(strings.ToLower(gen)), nil
	case "float":
		a, ok1 := g1ExtractFloat(golden)
		b, ok2 := g1ExtractFloat(gen)
		if !ok1 || !ok2 {
			return false, nil
		}
		d := a - b
		sq := d * d
		if math.IsInf(sq, 0) && !math.IsInf(d, 0) {
			return false, pyval.Raise("OverflowError", "(34, 'Numerical result out of range')")
		}
		return sq < 1e-6, nil
	}
	goldV, err := pyval.LiteralEval(convertIntToSet(golden))
	if err != nil {
		return false, err
	}
	goldList, err := pyval.Iterate(goldV)
	if err != nil {
		return false, err
	}
	ansV, err := pyval.LiteralEval(convertIntToSet(gen))
	if err != nil {
		return false, nil
	}
	ans, err := pyval.Iterate(ansV)
	if err != nil {
		return false, nil
	}
	if validate, ok := g1Validators[t.Name]; ok {
		return validate(newG1Graph(t, g), g, ans)
	}
	return pyval.Equal(pyval.List(goldList), pyval.List(ans)), nil
}

func convertIntToSet(s string) string {
	if s != "" && isDigits(s) {
		return "[" + s + "]"
	}
	return s
}

// isDigits is str.isdigit for the answers G1 sees (decimal digits of any
// script; other digit-like characters cannot make a valid list anyway).
func isDigits(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9') && !isUnicodeDigit(r) {
			return false
		}
	}
	return true
}

func isUnicodeDigit(r rune) bool { return unicode.IsDigit(r) || unicode.Is(unicode.No, r) }

func asciiLetters(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// g1Validators are the validators equal_function calls, by task; each
// returns what G1's does or the exception it raises.
var g1Validators = map[string]func(h *g1Graph, g *Graph, ans []pyval.Value) (bool, error){
	"dominating_set": func(h *g1Graph, _ *Graph, ans []pyval.Value) (bool, error) {
		if !validNodeSet(ans) {
			return false, nil
		}
		in := map[int]bool{}
		for _, x := range ans {
			if u, ok := h.node(x); ok {
				in[u] = true
			}
		}
		covered := map[int]bool{}
		for u := range in {
			covered[u] = true
			for w := range h.adj[u] {
				covered[w] = true
			}
		}
		return len(covered) == h.n, nil
	},
	"maximal_independent_set": func(h *g1Graph, _ *Graph, ans []pyval.Value) (bool, error) {
		if !validNodeSet(ans) {
			return false, nil
		}
		for _, a := range ans {
			for _, b := range ans {
				if !pyval.Equal(a, b) && h.hasEdge(a, b) {
					return false, nil
				}
			}
		}
		in := map[int]bool{}
		for _, x := range ans {
			if u, ok := h.node(x); ok {
				in[u] = true
			}
		}
		for u := 1; u <= h.n; u++ {
			if in[u] {
				continue
			}
			found := false
			for _, x := range ans {
				if h.hasEdge(pyval.NewInt(int64(u)), x) {
					found = true
					break
				}
			}
			if !found {
				return false, nil
			}
		}
		return true, nil
	},
	"min_vertex_cover": func(h *g1Graph, _ *Graph, ans []pyval.Value) (bool, error) {
		if !validNodeSet(ans) {
			return false, nil
		}
		in := map[int]bool{}
		distinct := map[string]bool{}
		for _, x := range bigInts(ans) {
			distinct[x.String()] = true
			if x.IsInt64() && x.Int64() >= 1 && x.Int64() <= int64(h.n) {
				in[int(x.Int64())] = true
			}
		}
		for u := 1; u <= h.n; u++ {
			for w := range h.adj[u] {
				if !in[u] && !in[w] {
					return false, nil
				}
			}
		}
		cover, err := h.v.minVertexCover()
		if err != nil {
			return false, err
		}
		return len(distinct) == len(cover), nil
	},
	"shortest_path":          g1ShortestPath,
	"weighted_shortest_path": g1ShortestPath,
	"topological_sort": func(h *g1Graph, _ *Graph, ans []pyval.Value) (bool, error) {
		if !validNodeSet(ans) {
			return false, nil
		}
		pos := map[int]int{}
		seen := map[string]bool{}
		for i, x := range bigInts(ans) {
			seen[x.String()] = true
			if x.IsInt64() && x.Int64() >= 1 && x.Int64() <= int64(h.n) {
				pos[int(x.Int64())] = i
			}
		}
		if len(seen) != h.n || len(pos) != h.n {
			return false, nil
		}
		for u := 1; u <= h.n; u++ {
			for w := range h.adj[u] {
				if pos[u] >= pos[w] {
					return false, nil
				}
			}
		}
		return true, nil
	},
	"min_edge_covering": func(h *g1Graph, g *Graph, ans []pyval.Value) (bool, error) {
		for u := 1; u <= h.n; u++ {
			if len(h.adj[u]) == 0 && !h.hasPredecessor(u) {
				return false, nil // an isolated node: G1 rejects every answer
			}
		}
		if !validEdgeSet(ans) {
			return false, nil
		}
		type pair struct{ a, b string }
		edges := map[pair]bool{}
		covered := map[string]bool{}
		for _, e := range ans {
			it := edgeItems(e)
			a, b := it[0].(*pyval.Int).V, it[1].(*pyval.Int).V
			if a.Cmp(b) > 0 {
				a, b = b, a
			}
			edges[pair{a.String(), b.String()}] = true
			covered[a.String()], covered[b.String()] = true, true
		}
		if len(covered) != h.n {
			return false, nil
		}
		for u := 1; u <= h.n; u++ {
			if !covered[fmt.Sprint(u)] {
				return false, nil
			}
		}
		return len(edges) == h.n-h.v.matchingSize(), nil
	},
	"minimum_spanning_tree": func(h *g1Graph, _ *Graph, ans []pyval.Value) (bool, error) {
		if !validEdgeSet(ans) {
			return false, nil
		}
		tr := newPyGraph(h.n)
		for _, e := range ans {
			it := edgeItems(e)
			tr.addEdge(it[0].(*pyval.Int).V.String(), it[1].(*pyval.Int).V.String())
		}
		if !tr.connected() {
			return false, nil
		}
		if len(ans) != h.n-1 {
			return false, nil
		}
		return tr.edgeCount() == len(tr.nodes)-1, nil
	},
	"weighted_minimum_spanning_tree": func(h *g1Graph, _ *Graph, ans []pyval.Value) (bool, error) {
		if !validEdgeSet(ans) {
			return false, nil
		}
		tr := newPyGraph(h.n)
		for _, e := range ans {
			it := edgeItems(e)
			tr.addEdge(it[0].(*pyval.Int).V.String(), it[1].(*pyval.Int).V.String())
		}
		if !tr.connected() || tr.edgeCount() != h.n-1 {
			return false, nil
		}
		_, mst := h.v.mstEdges()
		total := 0.0
		for _, e := range tr.edgeList() {
			a, ok1 := h.nodeKey(e[0])
			b, ok2 := h.nodeKey(e[1])
			if !ok1 || !ok2 {
				return false, nil
			}
			w, ok := h.adj[a][b]
			if !ok {
				return false, nil
			}
			total += w
		}
		return math.Abs(total-mst) < 1e-8, nil
	},
	"max_weight_matching": func(h *g1Graph, _ *Graph, ans []pyval.Value) (bool, error) {
		if !validEdgeSet(ans) {
			return false, nil
		}
		used := map[string]bool{}
		weight := 0.0
		for _, e := range ans {
			it := edgeItems(e)
			if !h.hasEdge(it[0], it[1]) {
				return false, nil
			}
			a, b := it[0].(*pyval.Int).V.String(), it[1].(*pyval.Int).V.String()
			if used[a] || used[b] {
				return false, nil
			}
			used[a], used[b] = true, true
			u, _ := h.node(it[0])
			w, _ := h.node(it[1])
			weight += h.adj[u][w]
		}
		return weight == float64(h.v.matchingSize()), nil
	},
	"bipartite_maximum_matching": func(h *g1Graph, _ *Graph, ans []pyval.Value) (bool, error) {
		if !validEdgeSet(ans) {
			return false, nil
		}
		if !isBipartite(h.v) {
			return false, pyval.Raise("ValueError", "The input graph must be bipartite")
		}
		for _, e := range ans {
			it := edgeItems(e)
			if !h.hasEdge(it[0], it[1]) {
				return false, nil
			}
		}
		used := map[string]bool{}
		for _, e := range ans {
			it := edgeItems(e)
			a, b := it[0].(*pyval.Int).V.String(), it[1].(*pyval.Int).V.String()
			if used[a] || used[b] {
				return false, nil
			}
			used[a], used[b] = true, true
		}
		if h.v.components() != 1 {
			return false, pyval.Raise("AmbiguousSolution", "Disconnected graph: Ambiguous solution for bipartite sets.")
		}
		return len(ans) == h.v.matchingSize(), nil
	},
	"bfs": func(h *g1Graph, g *Graph, ans []pyval.Value) (bool, error) { return g1Traversal(h, g, ans, false) },
	"dfs": func(h *g1Graph, g *Graph, ans []pyval.Value) (bool, error) { return g1Traversal(h, g, ans, true) },
}

func edgeItems(e pyval.Value) []pyval.Value {
	switch x := e.(type) {
	case pyval.List:
		return x
	case pyval.Tuple:
		return x
	}
	return nil
}

func (h *g1Graph) hasPredecessor(u int) bool {
	for a := 1; a <= h.n; a++ {
		if _, ok := h.adj[a][u]; ok {
			return true
		}
	}
	return false
}

// nodeKey maps a decimal node name back to a graph node.
func (h *g1Graph) nodeKey(s string) (int, bool) {
	var x big.Int
	if _, ok := x.SetString(s, 10); !ok || !x.IsInt64() {
		return 0, false
	}
	return h.nodeInt(x.Int64())
}

// pyGraph is an undirected nx.Graph over int node names (decimal strings,
// so that ids outside the graph keep their identity), in the order nodes
// and edges were added.
type pyGraph struct {
	nodes []string
	index map[string]int
	adj   []map[int]bool
}

func newPyGraph(n int) *pyGraph {
	p := &pyGraph{index: map[string]int{}}
	for u := 1; u <= n; u++ {
		p.add(fmt.Sprint(u))
	}
	return p
}

func (p *pyGraph) add(s string) int {
	if i, ok := p.index[s]; ok {
		return i
	}
	p.index[s] = len(p.nodes)
	p.nodes = append(p.nodes, s)
	p.adj = append(p.adj, map[int]bool{})
	return len(p.nodes) - 1
}

func (p *pyGraph) addEdge(a, b string) {
	i, j := p.add(a), p.add(b)
	p.adj[i][j] = true
	p.adj[j][i] = true
}

func (p *pyGraph) edgeCount() int {
	c := 0
	for i, m := range p.adj {
		for j := range m {
			if i <= j { // each edge once; a self-loop is one edge
				c++
			}
		}
	}
	return c
}

func (p *pyGraph) edgeList() [][2]string {
	var out [][2]string
	for i, m := range p.adj {
		for j := range m {
			if i <= j {
				out = append(out, [2]string{p.nodes[i], p.nodes[j]})
			}
		}
	}
	return out
}

func (p *pyGraph) connected() bool {
	if len(p.nodes) == 0 {
		return false
	}
	seen := make([]bool, len(p.nodes))
	stack := []int{0}
	seen[0] = true
	count := 1
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for j := range p.adj[i] {
			if !seen[j] {
				seen[j] = true
				count++
				stack = append(stack, j)
			}
		}
	}
	return count == len(p.nodes)
}

// g1ShortestPath is is_valid_shortest_path with the samples' source and
// target.
func g1ShortestPath(h *g1Graph, g *Graph, ans []pyval.Value) (bool, error) {
	if !validNodeSet(ans) {
		return false, nil
	}
	s, t := g.Params["source"], g.Params["target"]
	if !pyval.Equal(ans[0], pyval.NewInt(int64(s))) || !pyval.Equal(ans[len(ans)-1], pyval.NewInt(int64(t))) {
		return false, nil
	}
	length := 0.0
	for i := 0; i+1 < len(ans); i++ {
		if !h.hasEdge(ans[i], ans[i+1]) {
			return false, nil
		}
		a, _ := h.node(ans[i])
		b, _ := h.node(ans[i+1])
		length += h.adj[a][b]
	}
	d := h.v.dijkstra(s)[t]
	return length == d, nil
}

// g1Traversal is is_valid_bfs_sequence / is_valid_dfs_sequence.
func g1Traversal(h *g1Graph, g *Graph, ans []pyval.Value, dfs bool) (bool, error) {
	start := g.Params["source"]
	if len(ans) == 0 {
		return len(h.adj[start]) == 0, nil
	}
	if !validEdgeSet(ans) {
		return false, nil
	}
	type edge [2]int
	inGraph := func(a, b *big.Int) bool {
		if !a.IsInt64() || !b.IsInt64() {
			return false
		}
		u, ok1 := h.nodeInt(a.Int64())
		w, ok2 := h.nodeInt(b.Int64())
		if !ok1 || !ok2 {
			return false
		}
		_, ok := h.adj[u][w]
		return ok
	}
	discovered := map[int]bool{start: true}
	discEdges := map[edge]bool{}
	unvisited := func(cur int) []int {
		var out []int
		for nb := range h.adj[cur] {
			if !discovered[nb] && !(discEdges[edge{cur, nb}] || (!h.directed && discEdges[edge{nb, cur}])) {
				out = append(out, nb)
			}
		}
		slices.Sort(out)
		return out
	}
	// take consumes the next answer edge from cur; ok false: the
	// validator returns False.
	idx := 0
	take := func(cur int) (u, v int, ok bool) {
		it := edgeItems(ans[idx])
		idx++
		a, b := it[0].(*pyval.Int).V, it[1].(*pyval.Int).V
		if !h.directed && inGraph(b, a) && !inGraph(a, b) {
			a, b = b, a
		}
		if !inGraph(a, b) {
			return 0, 0, false
		}
		u, v = int(a.Int64()), int(b.Int64())
		if u != cur && v != cur {
			return 0, 0, false
		}
		if v == cur {
			u, v = v, u
			if _, ok := h.adj[v][u]; h.directed && !ok {
				return 0, 0, false
			}
		}
		if discovered[v] {
			return 0, 0, false
		}
		discEdges[edge{int(a.Int64()), int(b.Int64())}] = true
		if !h.directed {
			discEdges[edge{v, u}] = true
		}
		discovered[v] = true
		return u, v, true
	}
	if dfs {
		stack := []int{start}
		for len(stack) > 0 && idx < len(ans) {
			cur := stack[len(stack)-1]
			if len(unvisited(cur)) == 0 {
				stack = stack[:len(stack)-1]
				continue
			}
			_, v, ok := take(cur)
			if !ok {
				return false, nil
			}
			stack = append(stack, v)
		}
		return idx == len(ans), nil
	}
	queue := []int{start}
	for len(queue) > 0 && idx < len(ans) {
		cur := queue[0]
		queue = queue[1:]
		var possible []edge
		for _, nb := range unvisited(cur) {
			possible = append(possible, edge{cur, nb})
		}
		for len(possible) > 0 && idx < len(ans) {
			u, v, ok := take(cur)
			if !ok {
				return false, nil
			}
			queue = append(queue, v)
			if i := slices.Index(possible, edge{u, v}); i >= 0 {
				possible = slices.Delete(possible, i, i+1)
			} else if i := slices.Index(possible, edge{v, u}); !h.directed && i >= 0 {
				possible = slices.Delete(possible, i, i+1)
			} else {
				return false, nil
			}
		}
	}
	return idx == len(ans), nil
}

// ModeComparison summarises outputs scored both ways.
type ModeComparison struct {
	// N counts outputs; Paper and Lenient those right in each mode; Raised
	// those on which G1's checker raises (their paper verdict is the
	// lenient reading's); Differ those judged differently by the modes.
	N, Paper, Lenient, Raised, Differ int
}

// Add counts one output's paper and lenient scores.
func (c *ModeComparison) Add(paper, lenient Score) {
	c.N++
	if paper.Correct {
		c.Paper++
	}
	if lenient.Correct {
		c.Lenient++
	}
	if paper.Raised != "" {
		c.Raised++
	}
	if paper.Correct != lenient.Correct {
		c.Differ++
	}
}

// Metrics names the comparison's numbers for a tracking run (accuracies
// as fractions, the others as counts):
//
//	scoring/paper_accuracy, scoring/lenient_accuracy
//	scoring/raised, scoring/differ
func (c ModeComparison) Metrics() map[string]float64 {
	frac := func(k int) float64 {
		if c.N == 0 {
			return 0
		}
		return float64(k) / float64(c.N)
	}
	return map[string]float64{"scoring/paper_accuracy": frac(c.Paper), "scoring/lenient_accuracy": frac(c.Lenient),
		"scoring/raised": float64(c.Raised), "scoring/differ": float64(c.Differ)}
}

// String is a one-line summary.
func (c ModeComparison) String() string {
	pct := func(k int) float64 { return 100 * float64(k) / float64(max(c.N, 1)) }
	return fmt.Sprintf("paper (G1's checker) %.2f %% right, lenient %.2f %%; %d of %d outputs judged differently; %d on which G1's checker raises (scored by the lenient reading)",
		pct(c.Paper), pct(c.Lenient), c.Differ, c.N, c.Raised)
}
