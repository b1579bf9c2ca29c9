package graphtext

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// AnswerKind is the answer class of an Erdős task (G1's graph_meta_data
// classes, §2.1 of the notes).
type AnswerKind int

// The answer classes.
const (
	KindInt     AnswerKind = iota // integer
	KindFloat                     // float, compared with |Δ| < 1e-3
	KindBool                      // Yes / No
	KindNodeSet                   // node list in ascending order ("set")
	KindNodeSeq                   // ordered node list ("ordered_set")
	KindEdgeSet                   // edge list ("pair_set")
)

var kindNames = []string{"integer", "float", "bool", "set", "ordered_set", "pair_set"}

// String returns the class name used by G1 (integer, float, bool, set,
// ordered_set, pair_set).
func (k AnswerKind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("AnswerKind(%d)", int(k))
	}
	return kindNames[k]
}

// Numeric reports whether answers of this kind are numbers (the tasks of the
// output-spread analysis, Fig. 2).
func (k AnswerKind) Numeric() bool { return k == KindInt || k == KindFloat }

// FormatSentence is the answer-format sentence appended to the prompt
// (empty for integers, as in G1's graph_meta_data.json).
func (k AnswerKind) FormatSentence() string {
	switch k {
	case KindFloat:
		return "You need to format your answer as a float number."
	case KindBool:
		return "Your answer should be Yes or No."
	case KindNodeSet:
		return "You need to format your answer as a list of nodes in ascending order, e.g., [node-1, node-2, ..., node-n]."
	case KindNodeSeq:
		return "You need to format your answer as a list of nodes, e.g., [node-1, node-2, ..., node-n]."
	case KindEdgeSet:
		return "You need to format your answer as a list of edges in ascending dictionary order, e.g., [(u1, v1), (u2, v2), ..., (un, vn)]."
	}
	return ""
}

// Answer is one task answer: the field that matches Kind is set.
type Answer struct {
	Kind  AnswerKind
	Int   int
	Float float64
	Bool  bool
	Nodes []int
	Edges [][2]int
}

// FloatTolerance is G1's float check: a prediction is correct when
// (gold − pred)² < 1e-6, i.e. |gold − pred| < 1e-3.
const FloatTolerance = 1e-3

// Value returns the answer as a number (ints and floats; bools as 0/1);
// ok is false for list answers.
func (a Answer) Value() (float64, bool) {
	switch a.Kind {
	case KindInt:
		return float64(a.Int), true
	case KindFloat:
		return a.Float, true
	case KindBool:
		if a.Bool {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// String writes the answer as the Erdős data does: 5, 0.1429, Yes, [1, 2],
// [(1, 2), (3, 4)]. Floats keep full precision.
func (a Answer) String() string {
	switch a.Kind {
	case KindInt:
		return strconv.Itoa(a.Int)
	case KindFloat:
		return strconv.FormatFloat(a.Float, 'g', -1, 64)
	case KindBool:
		if a.Bool {
			return "Yes"
		}
		return "No"
	case KindNodeSet, KindNodeSeq:
		parts := make([]string, len(a.Nodes))
		for i, v := range a.Nodes {
			parts[i] = strconv.Itoa(v)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case KindEdgeSet:
		parts := make([]string, len(a.Edges))
		for i, e := range a.Edges {
			parts[i] = fmt.Sprintf("(%d, %d)", e[0], e[1])
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return "?"
}

// MarshalJSON writes the answer as a plain JSON value: a number, a bool, a
// node list [1, 2] or an edge list [[1, 2], [3, 4]].
func (a Answer) MarshalJSON() ([]byte, error) {
	switch a.Kind {
	case KindInt:
		return json.Marshal(a.Int)
	case KindFloat:
		if math.IsNaN(a.Float) || math.IsInf(a.Float, 0) {
			return nil, fmt.Errorf("graphtext: answer %v is not finite", a.Float)
		}
		return json.Marshal(a.Float)
	case KindBool:
		return json.Marshal(a.Bool)
	case KindNodeSet, KindNodeSeq:
		if a.Nodes == nil {
			return []byte("[]"), nil
		}
		return json.Marshal(a.Nodes)
	case KindEdgeSet:
		if a.Edges == nil {
			return []byte("[]"), nil
		}
		return json.Marshal(a.Edges)
	}
	return nil, fmt.Errorf("graphtext: unknown answer kind %d", int(a.Kind))
}

// DecodeAnswer reads a JSON value written by [Answer.MarshalJSON] as an
// answer of the given kind.
func DecodeAnswer(kind AnswerKind, raw json.RawMessage) (Answer, error) {
	a := Answer{Kind: kind}
	var err error
	switch kind {
	case KindInt:
		err = json.Unmarshal(raw, &a.Int)
	case KindFloat:
		err = json.Unmarshal(raw, &a.Float)
	case KindBool:
		err = json.Unmarshal(raw, &a.Bool)
	case KindNodeSet, KindNodeSeq:
		err = json.Unmarshal(raw, &a.Nodes)
	case KindEdgeSet:
		err = json.Unmarshal(raw, &a.Edges)
	default:
		err = fmt.Errorf("unknown answer kind %d", int(kind))
	}
	if err != nil {
		return Answer{}, fmt.Errorf("graphtext: answer %s is not a valid %s: %w", string(raw), kind, err)
	}
	return a, nil
}

// Equal reports whether b equals a the way G1 compares answers without a
// validator: numbers within [FloatTolerance] for floats, exact otherwise,
// lists element by element in order.
func (a Answer) Equal(b Answer) bool {
	switch a.Kind {
	case KindInt:
		switch b.Kind {
		case KindInt:
			return a.Int == b.Int
		case KindFloat:
			return b.Float == float64(a.Int)
		}
		return false
	case KindFloat:
		v, ok := b.Value()
		if !ok || b.Kind == KindBool {
			return false
		}
		d := a.Float - v
		return d*d < FloatTolerance*FloatTolerance
	case KindBool:
		return b.Kind == KindBool && a.Bool == b.Bool
	case KindNodeSet, KindNodeSeq:
		return (b.Kind == KindNodeSet || b.Kind == KindNodeSeq) && slices.Equal(a.Nodes, b.Nodes)
	case KindEdgeSet:
		return b.Kind == KindEdgeSet && slices.Equal(a.Edges, b.Edges)
	}
	return false
}

// Remap returns the answer with every node id v replaced by p.Map(v). When
// sorted is true, node lists are re-sorted and, for undirected graphs, edges
// are written (min, max) and sorted, which is how set-valued answers are
// stored; ordered answers (paths, traversals) keep their order.
func (a Answer) Remap(p Permutation, sorted, directed bool) (Answer, error) {
	out := a
	check := func(v int) error {
		if v < 1 || v > len(p) {
			return fmt.Errorf("graphtext: answer names node %d outside 1..%d", v, len(p))
		}
		return nil
	}
	if a.Nodes != nil {
		out.Nodes = make([]int, len(a.Nodes))
		for i, v := range a.Nodes {
			if err := check(v); err != nil {
				return Answer{}, err
			}
			out.Nodes[i] = p.Map(v)
		}
		if sorted {
			slices.Sort(out.Nodes)
		}
	}
	if a.Edges != nil {
		out.Edges = make([][2]int, len(a.Edges))
		for i, e := range a.Edges {
			if err := check(e[0]); err != nil {
				return Answer{}, err
			}
			if err := check(e[1]); err != nil {
				return Answer{}, err
			}
			out.Edges[i] = [2]int{p.Map(e[0]), p.Map(e[1])}
		}
		if sorted {
			canonEdges(out.Edges, directed)
		}
	}
	return out, nil
}

// canonEdges writes undirected edges (min, max) and sorts the list.
func canonEdges(es [][2]int, directed bool) {
	if !directed {
		for i, e := range es {
			if e[0] > e[1] {
				es[i] = [2]int{e[1], e[0]}
			}
		}
	}
	slices.SortFunc(es, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
}
