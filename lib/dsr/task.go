package dsr

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Level is a length level: the number of elements (atomic operations) or of
// operations (compound operations) an instance has.
type Level int

// The three length levels of the paper (§3.2). The reference's files call
// them easy, medium and hard.
const (
	Short  Level = iota // 5–10
	Medium              // 11–20
	Long                // 21–30
)

// Levels lists the length levels in order.
func Levels() []Level { return []Level{Short, Medium, Long} }

// String returns "short", "medium" or "long".
func (l Level) String() string {
	switch l {
	case Short:
		return "short"
	case Medium:
		return "medium"
	case Long:
		return "long"
	}
	return fmt.Sprintf("level(%d)", int(l))
}

// FileSuffix returns the reference's name of the level: easy, medium, hard.
func (l Level) FileSuffix() string {
	switch l {
	case Short:
		return "easy"
	case Medium:
		return "medium"
	case Long:
		return "hard"
	}
	return ""
}

// Range returns the inclusive length range of the level: 5–10, 11–20, 21–30.
func (l Level) Range() (lo, hi int) {
	switch l {
	case Medium:
		return 11, 20
	case Long:
		return 21, 30
	}
	return 5, 10
}

// pick3 returns the value for the level from a (short, medium, long) triple.
func pick3[T any](l Level, short, medium, long T) T {
	switch l {
	case Medium:
		return medium
	case Long:
		return long
	}
	return short
}

// ParseLevel accepts short/medium/long and the reference's easy/medium/hard.
func ParseLevel(s string) (Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "short", "easy", "s":
		return Short, nil
	case "medium", "m":
		return Medium, nil
	case "long", "hard", "l":
		return Long, nil
	}
	return 0, fmt.Errorf("dsr: unknown level %q (expected short, medium or long; easy/hard also accepted)", s)
}

// MarshalText writes the level's name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level name.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := ParseLevel(string(b))
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// Category is one of the paper's six relationship categories.
type Category int

// The six categories, in the paper's order (Table 2).
const (
	Linear Category = iota
	Temporal
	Associative
	Hierarchical
	Network
	Hybrid
)

// Categories lists the six categories in the paper's order.
func Categories() []Category {
	return []Category{Linear, Temporal, Associative, Hierarchical, Network, Hybrid}
}

// String returns the category's name, e.g. "Hierarchical".
func (c Category) String() string {
	switch c {
	case Linear:
		return "Linear"
	case Temporal:
		return "Temporal"
	case Associative:
		return "Associative"
	case Hierarchical:
		return "Hierarchical"
	case Network:
		return "Network"
	case Hybrid:
		return "Hybrid"
	}
	return fmt.Sprintf("Category(%d)", int(c))
}

// Structure is one of the 20 data structures.
type Structure struct {
	Name     string   // identifier, e.g. "priority_queue"
	Title    string   // display name, e.g. "Priority Queue"
	Category Category // relationship category (Table 2)
	// Challenge marks the 11 structures whose long-level scores make up the
	// challenge score (the set of the paper's Table 3).
	Challenge bool
	// RefDir is the structure's folder in the reference layout.
	RefDir string
}

var structures = []Structure{
	{"array", "Array", Linear, false, "array"},
	{"stack", "Stack", Temporal, false, "stack"},
	{"queue", "Queue", Temporal, false, "queue"},
	{"lru_cache", "LRU Cache", Temporal, false, "lru_cache"},
	{"priority_queue", "Priority Queue", Temporal, true, "priority_queue"},
	{"hashmap", "Hashmap", Associative, true, "hashmap"},
	{"trie", "Trie", Associative, false, "trie"},
	{"suffix_tree", "Suffix Tree", Associative, false, "suffix_tree"},
	{"skip_list", "Skip List", Associative, true, "skip_list"},
	{"bst", "BST", Hierarchical, false, "binary_tree"},
	{"heap", "Heap", Hierarchical, true, "heap"},
	{"rb_tree", "RB Tree", Hierarchical, true, "rb_tree"},
	{"b_plus_tree", "B+ Tree", Hierarchical, true, "b_plus_tree"},
	{"kd_tree", "K-D Tree", Hierarchical, true, "kd_tree"},
	{"kd_heap", "K-D Heap", Hierarchical, true, "kd_heap"},
	{"graph", "Graph", Network, false, "graph"},
	{"dsu", "DSU", Network, false, "dsu"},
	{"geom_graph", "Geom Graph", Network, true, "geom_graph"},
	{"bloom_filter", "Bloom Filter", Hybrid, true, "bloom_filter"},
	{"dawg", "DAWG", Hybrid, true, "dawg"},
}

// Structures returns the 20 data structures in the paper's order.
func Structures() []Structure { return slices.Clone(structures) }

// LookupStructure returns the structure with the given name (or title).
func LookupStructure(name string) (Structure, bool) {
	for _, s := range structures {
		if s.Name == name || strings.EqualFold(s.Title, name) || s.RefDir == name {
			return s, true
		}
	}
	return Structure{}, false
}

// Probe says which evaluation component a task belongs to.
type Probe int

// The evaluation components that have their own tasks. The challenge subset
// is a selection of main results and the code probe is a prompting mode.
const (
	ProbeMain      Probe = iota // DSR-Bench-main (spatial variants included)
	ProbeRealistic              // the realistic probe (natural-language scenarios)
	ProbeExtra                  // in the reference data, not a paper task
)

// Task is one (structure, operation) pair: its answer shape, ground truth,
// generator and prompt.
type Task struct {
	Structure string // Structure.Name
	Operation string // e.g. "compound", "construct", "preorder"
	Probe     Probe
	// Answer is the shape of the final answer.
	Answer *Shape
	// Spatial marks the tasks with a dimension (and for the K-D tree a
	// distribution): the spatial probe's variants.
	Spatial bool

	truth    func(in *Input, o Options) (any, error)
	generate func(r *rng, l Level, v variant) (Input, error)
	prompt   func(in *Input, o Options) taskText
	// trace optionally lists intermediate states for worked examples.
	trace func(in *Input, o Options) []traceStep
}

// Name returns "structure/operation".
func (t *Task) Name() string { return t.Structure + "/" + t.Operation }

// Info returns the task's structure.
func (t *Task) Info() Structure {
	s, _ := LookupStructure(t.Structure)
	return s
}

// Truth computes the ground truth of an input under the given options, as a
// canonical value of the task's Answer shape.
func (t *Task) Truth(in *Input, o Options) (any, error) {
	v, err := t.truth(in, o)
	if err != nil {
		return nil, fmt.Errorf("dsr: %s: %w", t.Name(), err)
	}
	return v, nil
}

var tasks = map[string]*Task{}
var taskOrder []string

func register(t *Task) {
	if _, dup := tasks[t.Name()]; dup {
		panic("dsr: duplicate task " + t.Name())
	}
	if _, ok := LookupStructure(t.Structure); !ok {
		panic("dsr: task of unknown structure " + t.Name())
	}
	tasks[t.Name()] = t
	taskOrder = append(taskOrder, t.Name())
}

// Tasks returns all tasks in the paper's order (main tasks, then realistic,
// then extras).
func Tasks() []*Task {
	out := make([]*Task, 0, len(tasks))
	for _, n := range taskOrder {
		out = append(out, tasks[n])
	}
	rank := map[string]int{}
	for i, s := range structures {
		rank[s.Name] = i
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Probe != out[j].Probe {
			return out[i].Probe < out[j].Probe
		}
		return rank[out[i].Structure] < rank[out[j].Structure]
	})
	return out
}

// MainTasks returns the tasks of DSR-Bench-main.
func MainTasks() []*Task {
	var out []*Task
	for _, t := range Tasks() {
		if t.Probe == ProbeMain {
			out = append(out, t)
		}
	}
	return out
}

// LookupTask returns the task of a structure and operation. The structure
// may be given by name, title or reference folder name.
func LookupTask(structure, operation string) (*Task, error) {
	s, ok := LookupStructure(structure)
	if !ok {
		var names []string
		for _, s := range structures {
			names = append(names, s.Name)
		}
		return nil, fmt.Errorf("dsr: unknown structure %q (expected one of %s)", structure, strings.Join(names, ", "))
	}
	if t, ok := tasks[s.Name+"/"+operation]; ok {
		return t, nil
	}
	var ops []string
	for _, n := range taskOrder {
		if tasks[n].Structure == s.Name {
			ops = append(ops, tasks[n].Operation)
		}
	}
	return nil, fmt.Errorf("dsr: structure %s has no operation %q (expected one of %s)", s.Name, operation, strings.Join(ops, ", "))
}
