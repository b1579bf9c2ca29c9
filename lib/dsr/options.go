package dsr

import (
	"fmt"
	"sort"
	"strings"
)

// Reading picks, where the reference code departs from the paper's words,
// which of the two narlab follows. The zero value is the code's reading,
// which produced the published truths and numbers.
type Reading uint8

// The two readings.
const (
	CodeReading  Reading = iota // what the reference code does (default)
	PaperReading                // what the paper's text says
)

// Metric is the comparison of K-D heap priorities.
type Metric uint8

// K-D heap metrics (the paper's Fig. 5a compares the two).
const (
	Euclidean     Metric = iota // Euclidean norm of the priority vector (default)
	Lexicographic               // vectors compared coordinate by coordinate
)

// Options are the choices that change a ground truth or a score. Every
// field is logged as a run parameter (Params), so a run can be rerun from
// its parameters alone. The zero value reproduces the published benchmark.
type Options struct {
	// PriorityQueue: code = every remaining (value, priority) pair sorted by
	// priority then value, descending (the reference's Fibonacci heap never
	// consolidates); paper = level-order traversal of a consolidating
	// max-Fibonacci-heap forest, ties broken by insertion order.
	PriorityQueue Reading
	// BSTDelete: a node with two children is replaced by its in-order
	// successor (code) or predecessor (paper: "predecessor or successor").
	BSTDelete Reading
	// BPlusDelete: code = the key is removed from its leaf only (no borrow,
	// no merge, routing keys untouched); paper = balanced deletion with
	// borrowing and merging.
	BPlusDelete Reading
	// LRUScore: both readings score the final cache as a set (the paper:
	// "a set of elements"); code = the Levenshtein metric compares the
	// answer with itself (always 1 for a parsed answer, as the reference
	// does); paper = it compares the sorted answer with the sorted truth.
	LRUScore Reading
	// KDTies orders K-D tree points with equal coordinates when picking a
	// median: code = as numpy.argsort's default (unstable) quicksort orders
	// them, which is what the reference's truths follow; paper = a stable
	// sort (the rule the notes and the prompts state).
	KDTies Reading
	// KDHeapMetric compares K-D heap priorities.
	KDHeapMetric Metric
}

type optionDef struct {
	key    string
	values [2]string // [code/default, alternative]
	get    func(*Options) *uint8
	doc    string
}

var optionDefs = []optionDef{
	{"pq_order", [2]string{"flat", "fibonacci"}, func(o *Options) *uint8 { return (*uint8)(&o.PriorityQueue) },
		"priority queue truth: flat sort (code) or Fibonacci-heap forest level order (paper)"},
	{"bst_delete", [2]string{"successor", "predecessor"}, func(o *Options) *uint8 { return (*uint8)(&o.BSTDelete) },
		"BST two-child deletion: in-order successor (code) or predecessor (paper)"},
	{"bplus_delete", [2]string{"leaf-only", "rebalance"}, func(o *Options) *uint8 { return (*uint8)(&o.BPlusDelete) },
		"B+ tree deletion: remove from the leaf only (code) or borrow/merge (paper)"},
	{"lru_levenshtein", [2]string{"self", "truth"}, func(o *Options) *uint8 { return (*uint8)(&o.LRUScore) },
		"LRU Levenshtein: answer against itself (code) or against the truth (paper)"},
	{"kd_ties", [2]string{"numpy", "stable"}, func(o *Options) *uint8 { return (*uint8)(&o.KDTies) },
		"K-D tree median among equal coordinates: numpy argsort order (code) or stable order (paper)"},
	{"kd_heap_metric", [2]string{"euclidean", "lexicographic"}, func(o *Options) *uint8 { return (*uint8)(&o.KDHeapMetric) },
		"K-D heap priority comparison"},
}

// OptionKeys lists the option names with their allowed values (the default
// first) and what they choose.
func OptionKeys() []string {
	var out []string
	for _, d := range optionDefs {
		out = append(out, fmt.Sprintf("%s=%s|%s: %s", d.key, d.values[0], d.values[1], d.doc))
	}
	return out
}

// Params returns every option as a run parameter, keyed "dsr.<name>".
func (o Options) Params() map[string]string {
	m := map[string]string{}
	for _, d := range optionDefs {
		v := *d.get(&o)
		m["dsr."+d.key] = d.values[v&1]
	}
	return m
}

// NonDefault returns the options that differ from the default, keyed by
// name (without the "dsr." prefix); nil when all are default.
func (o Options) NonDefault() map[string]string {
	var m map[string]string
	for _, d := range optionDefs {
		if v := *d.get(&o); v != 0 {
			if m == nil {
				m = map[string]string{}
			}
			m[d.key] = d.values[v&1]
		}
	}
	return m
}

// Set sets one option by name ("pq_order", or "dsr.pq_order") and value
// ("fibonacci"); "code" and "paper" are accepted for the four departures.
func (o *Options) Set(key, value string) error {
	key = strings.TrimPrefix(strings.TrimSpace(key), "dsr.")
	value = strings.TrimSpace(value)
	for _, d := range optionDefs {
		if d.key != key {
			continue
		}
		switch {
		case value == d.values[0] || (value == "code" && d.key != "kd_heap_metric"):
			*d.get(o) = 0
		case value == d.values[1] || (value == "paper" && d.key != "kd_heap_metric"):
			*d.get(o) = 1
		default:
			return fmt.Errorf("dsr: option %s: unknown value %q (expected %s or %s)", key, value, d.values[0], d.values[1])
		}
		return nil
	}
	var keys []string
	for _, d := range optionDefs {
		keys = append(keys, d.key)
	}
	return fmt.Errorf("dsr: unknown option %q (expected one of %s)", key, strings.Join(keys, ", "))
}

// ParseOptions reads "key=value,key=value" (as written by the CLI flag
// --option) on top of the defaults.
func ParseOptions(s string) (Options, error) {
	var o Options
	err := o.Apply(s)
	return o, err
}

// Apply sets the "key=value,…" options of s.
func (o *Options) Apply(s string) error {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return fmt.Errorf("dsr: option %q: expected key=value", part)
		}
		if err := o.Set(k, v); err != nil {
			return err
		}
	}
	return nil
}

// ApplyMap sets the options of a name → value map (an instance's recorded
// options).
func (o *Options) ApplyMap(m map[string]string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := o.Set(k, m[k]); err != nil {
			return err
		}
	}
	return nil
}
