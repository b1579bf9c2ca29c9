package dsr

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
)

// Op is one operation of a compound task. Which fields are used depends on
// the task:
//
//	stack        push Args[0] | pop
//	queue        enqueue Args[0] | dequeue
//	lru_cache    access Args[0]
//	priority_q.  insert/raise_key/decrease_key Args = [value, priority] | delete
//	hashmap      add Args = [key, value] | remove Args[0]
//	trie, dawg   insert/delete Word
//	skip_list    insert Args[0] with Probs (the promotion draws) | delete Args[0]
//	bst, rb,
//	b_plus_tree,
//	bloom_filter insert/delete Args[0]
//	heap         insert Args[0] | delete
//	kd_heap      insert Args[0] (the label) with Vec (the priority) | delete
//	dsu          union Args = [x, y]
//	queue (realistic) enqueue Word | dequeue (Word: the name served, if recorded)
//	bst (realistic)   insert Word at Time | delete Word
type Op struct {
	Name  string    `json:"op"`
	Args  []int     `json:"args,omitempty"`
	Word  string    `json:"word,omitempty"`
	Time  string    `json:"time,omitempty"`
	Vec   []int     `json:"vec,omitempty"`
	Probs []float64 `json:"probs,omitempty"`
}

func (op Op) arg(i int) int {
	if i < len(op.Args) {
		return op.Args[i]
	}
	return 0
}

// TreeNode is one node of a given tree, listed in pre-order with the values
// of its children (nil when absent) and, for red-black trees, its color
// ("r" or "b").
type TreeNode struct {
	Value int    `json:"v"`
	Left  *int   `json:"l,omitempty"`
	Right *int   `json:"r,omitempty"`
	Color string `json:"c,omitempty"`
}

// Input holds the inputs of an instance. Each task uses a few fields:
//
//	array        Array, Index (access, insert), Value (delete, insert, search)
//	heap/heapify Array
//	rb construct Array (the insertion order)
//	dsu          Array (the elements), Ops
//	bst          Tree (traversals, depth, insert, remove), Value (insert, remove), Ops (compound)
//	suffix_tree  Word (without the terminal $)
//	kd_tree      Points
//	geom_graph   Coords, Threshold, From
//	graph        Nodes, Edges, Source; realistic: Names, NameEdges, SourceName
//	lru_cache    Capacity, Ops;  hashmap Buckets, Ops;  skip_list MaxLevel, Ops
//	b_plus_tree  Order, Ops;  bloom_filter M, K, Ops;  kd_heap Dim, Ops
type Input struct {
	Array      []int       `json:"array,omitempty"`
	Index      *int        `json:"index,omitempty"`
	Value      *int        `json:"value,omitempty"`
	Tree       []TreeNode  `json:"tree,omitempty"`
	Ops        []Op        `json:"ops,omitempty"`
	Word       string      `json:"word,omitempty"`
	Points     [][]int     `json:"points,omitempty"`
	Coords     [][]float64 `json:"coords,omitempty"`
	From       []float64   `json:"from,omitempty"`
	Threshold  float64     `json:"threshold,omitempty"`
	Nodes      []int       `json:"nodes,omitempty"`
	Edges      [][2]int    `json:"edges,omitempty"`
	Source     *int        `json:"source,omitempty"`
	Names      []string    `json:"names,omitempty"`
	NameEdges  [][2]string `json:"name_edges,omitempty"`
	SourceName string      `json:"source_name,omitempty"`
	Capacity   int         `json:"capacity,omitempty"`
	Buckets    int         `json:"buckets,omitempty"`
	MaxLevel   int         `json:"max_level,omitempty"`
	Order      int         `json:"order,omitempty"`
	M          int         `json:"m,omitempty"`
	K          int         `json:"k,omitempty"`
	Dim        int         `json:"dim,omitempty"`
}

func intp(v int) *int { return &v }

// Instance is one problem: a task, its inputs and its ground truth.
type Instance struct {
	// ID names the instance: structure/operation[/variant]/level/index.
	ID        string `json:"id"`
	Structure string `json:"structure"`
	Operation string `json:"operation"`
	Level     Level  `json:"level"`
	Index     int    `json:"index"`
	// Dim is the dimension of spatial tasks (K-D tree, K-D heap, geometric
	// graph); Dist the K-D tree point distribution (uniform when empty).
	Dim  int    `json:"dim,omitempty"`
	Dist string `json:"distribution,omitempty"`
	// Seed is the generator seed (absent for published instances).
	Seed *uint64 `json:"seed,omitempty"`
	// Options are the non-default options the truth was computed with.
	Options map[string]string `json:"options,omitempty"`
	Input   Input             `json:"input"`
	// Truth is the ground truth, a canonical value of the task's answer
	// shape; in JSON it is a valid final_answer.
	Truth any `json:"truth"`
	// Source says where a loaded instance came from (file:line).
	Source string `json:"source,omitempty"`
	// Extra marks published instances that are not part of the paper's
	// benchmark (earlier generations kept in the reference repository);
	// they are verified but left out of the structure, category, overall
	// and challenge scores.
	Extra bool `json:"extra,omitempty"`
}

// Task returns the instance's task.
func (in *Instance) Task() (*Task, error) { return LookupTask(in.Structure, in.Operation) }

// Variant returns the spatial variant: the distribution when not uniform,
// else "<dim>d" for spatial tasks, else "".
func (in *Instance) Variant() string {
	if in.Dist != "" && in.Dist != "uniform" {
		return in.Dist
	}
	if in.Dim > 0 {
		return fmt.Sprintf("%dd", in.Dim)
	}
	return ""
}

// makeID builds the canonical instance ID.
func makeID(structure, operation, variant string, l Level, index int) string {
	parts := []string{structure, operation}
	if variant != "" {
		parts = append(parts, variant)
	}
	parts = append(parts, l.String(), fmt.Sprint(index))
	return strings.Join(parts, "/")
}

// EffectiveOptions returns base with the instance's recorded options on top.
func (in *Instance) EffectiveOptions(base Options) (Options, error) {
	o := base
	if err := o.ApplyMap(in.Options); err != nil {
		return o, fmt.Errorf("dsr: instance %s: %w", in.ID, err)
	}
	return o, nil
}

// UnmarshalJSON decodes an instance, checking its truth against the task's
// answer shape.
func (in *Instance) UnmarshalJSON(data []byte) error {
	type plain Instance
	var aux struct {
		plain
		Truth json.RawMessage `json:"truth"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*in = Instance(aux.plain)
	t, err := LookupTask(in.Structure, in.Operation)
	if err != nil {
		return err
	}
	if len(aux.Truth) == 0 || string(aux.Truth) == "null" {
		in.Truth = nil
		return nil
	}
	v, err := t.Answer.DecodeJSON(aux.Truth, "truth")
	if err != nil {
		return err
	}
	in.Truth = v
	return nil
}

// WriteJSONL writes instances, one JSON object a line.
func WriteJSONL(w io.Writer, insts []Instance) error {
	bw := bufio.NewWriter(w)
	for i := range insts {
		b, err := json.Marshal(&insts[i])
		if err != nil {
			return fmt.Errorf("dsr: instance %s: %w", insts[i].ID, err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ReadJSONL reads instances written by WriteJSONL. Blank lines are skipped;
// a bad line is an error naming its line number.
func ReadJSONL(r io.Reader) ([]Instance, error) {
	var out []Instance
	err := fsutil.ReadJSONL(r, func(_ int, in Instance) error {
		out = append(out, in)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dsr: instances %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("dsr: no instances found (expected one JSON object per line)")
	}
	return out, nil
}

// LoadInstances reads instances from path: a narlab JSONL file (as written
// by WriteJSONL), one published DSR-Bench instance file, or a folder of a
// DSR-Bench layout (every instance file in it). structure and operation,
// when set, keep only the matching instances (for a published file they
// also pick the task when the path does not tell it).
func LoadInstances(path, structure, operation string) ([]Instance, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("dsr: %w", err)
	}
	var insts []Instance
	switch {
	case st.IsDir():
		files, err := LoadReferenceDir(path)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			insts = append(insts, f.Instances...)
		}
	case isJSONL(path):
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("dsr: %w", err)
		}
		defer f.Close()
		if insts, err = ReadJSONL(f); err != nil {
			return nil, fmt.Errorf("%w (in %s)", err, path)
		}
	default:
		return LoadReferenceFile(path, structure, operation)
	}
	if structure == "" && operation == "" {
		return insts, nil
	}
	if err := checkTaskFilter(structure, operation); err != nil {
		return nil, err
	}
	var out []Instance
	for _, in := range insts {
		if structure != "" {
			if s, ok := LookupStructure(structure); !ok || s.Name != in.Structure {
				continue
			}
		}
		if operation != "" && in.Operation != operation {
			continue
		}
		out = append(out, in)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("dsr: %s: no instances of structure %q operation %q", path, structure, operation)
	}
	return out, nil
}

// isJSONL reports whether a file looks like narlab's JSONL (by extension,
// else by a first non-blank byte of '{').
func isJSONL(path string) bool {
	if strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".json") {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 512)
	n, _ := f.Read(b)
	t := bytes.TrimSpace(b[:n])
	return len(t) > 0 && t[0] == '{'
}

// checkTaskFilter refuses a structure or operation filter that names no
// task, listing what is accepted (a typo would otherwise read as "no
// instances").
func checkTaskFilter(structure, operation string) error {
	switch {
	case structure != "" && operation != "":
		_, err := LookupTask(structure, operation)
		return err
	case structure != "":
		if _, ok := LookupStructure(structure); ok {
			return nil
		}
		_, err := LookupTask(structure, "") // its error lists the structures
		return err
	}
	var ops []string
	for _, n := range taskOrder {
		if op := tasks[n].Operation; !slices.Contains(ops, op) {
			ops = append(ops, op)
		}
	}
	if slices.Contains(ops, operation) {
		return nil
	}
	slices.Sort(ops)
	return fmt.Errorf("dsr: unknown operation %q (expected one of %s)", operation, strings.Join(ops, ", "))
}
