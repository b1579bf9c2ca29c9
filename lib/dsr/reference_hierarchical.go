package dsr

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Record formats of the hierarchical structures' published files (see
// reference_records.go), and the shared input trees some of them refer to.

var hierarchicalRefs = map[string]refTask{
	"binary_tree/traversal":      {"bst", "traversal", &bstTraversalFormat},
	"binary_tree/insert":         {"bst", "insert", bstChangeFormat("Insert:")},
	"binary_tree/remove":         {"bst", "remove", bstChangeFormat("Remove:")},
	"binary_tree/compound":       {"bst", "compound", &bstCompoundFormat},
	"heap/compound":              {"heap", "compound", &heapFormat},
	"heap/heapify":               {"heap", "heapify", &heapifyFormat},
	"rb_tree/construct":          {"rb_tree", "construct", &rbConstructFormat},
	"rb_tree/compound":           {"rb_tree", "compound", rbCompoundFormat(false)},
	"rb_tree/construct_compound": {"rb_tree", "construct_compound", rbCompoundFormat(true)},
	"b_plus_tree/compound":       {"b_plus_tree", "compound", &bplusFormat},
}

var (
	bpHeadRe  = regexp.MustCompile(`^BPlusTree (\d+) \(Order: (\d+)\)$`)
	kdhHeadRe = regexp.MustCompile(`^Heap (\d+), Dimension: (\d+)$`)
	kdhOpRe   = regexp.MustCompile(`^insert \((-?\d+), (\[.*\])\)$`)
)

// withTree reads a record's first line with rule after giving the record
// the input tree of its position in the file (p.trees).
func withTree(rule lineRule) lineRule {
	read := rule.read
	rule.read = func(r *record, v string, m []string, n int) error {
		rows, err := r.p.tree(r.p.trees, r.k, r.start)
		if err != nil {
			return err
		}
		r.in.Tree = rows
		return read(r, v, m, n)
	}
	return rule
}

// loadBSTInputs reads the input trees the BST operation files refer to.
func loadBSTInputs(p *refParser) (err error) {
	p.trees, err = p.bstInputs()
	return err
}

// bstTraversalFormat: blocks of "Pre-order: […]", "In-order: […]",
// "Post-order: […]" and "Depth: d"; each block gives one instance of each
// of the four tasks, on the input tree of its position.
var bstTraversalFormat = recordFormat{
	prepare: loadBSTInputs,
	fields: []lineRule{
		withTree(truthFor("Pre-order:", "preorder")),
		truthFor("In-order:", "inorder"),
		truthFor("Post-order:", "postorder"),
		truthFor("Depth:", "depth"),
	},
}

// bstChangeFormat: "Insert: v" (or "Remove: v"), then the tree's
// "Pre-order: […]" and "Post-order: […]" after the change.
func bstChangeFormat(word string) *recordFormat {
	traversal := func(k, name string) lineRule {
		return keyed(k, func(r *record, v string, n int) error {
			t, err := pyAt(r.p, n, v)
			if err != nil {
				return err
			}
			if r.truth == nil {
				r.truth = map[string]any{}
			}
			r.truth.(map[string]any)[name] = t
			r.set = true
			return nil
		})
	}
	open := withTree(intField(word, func(in *Input, x int) { in.Value = intp(x) }))
	return &recordFormat{
		prepare: loadBSTInputs,
		open:    &open,
		fields:  []lineRule{traversal("Pre-order:", "pre_order"), traversal("Post-order:", "post_order")},
	}
}

// bstCompoundFormat: "Insert: v" / "Delete: v" lines, then the pre-order
// "[…]".
var bstCompoundFormat = recordFormat{
	body:  []lineRule{opInt("Insert:", "insert"), opInt("Delete:", "delete")},
	close: truthRule("the final state", listLine),
}

// bstInputs reads binary_tree/bst_generation/bst_input_<level>.txt: "Tree i"
// then rows "value left right" with None for no child.
func (p *refParser) bstInputs() ([][]TreeNode, error) {
	name := filepath.Join(p.root, "generation", "binary_tree", "bst_generation", "bst_input_"+p.level.FileSuffix()+".txt")
	lines, err := readLines(name)
	if err != nil {
		return nil, fmt.Errorf("reading the input trees: %w", err)
	}
	var trees [][]TreeNode
	for n, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "Tree ") {
			trees = append(trees, nil)
			continue
		}
		f := strings.Fields(l)
		if len(f) != 3 || len(trees) == 0 {
			return nil, fmt.Errorf("%s:%d: expected \"value left right\", found %q", filepath.Base(name), n+1, l)
		}
		var row TreeNode
		var err error
		if row.Value, err = strconv.Atoi(f[0]); err != nil {
			return nil, fmt.Errorf("%s:%d: bad value %q", filepath.Base(name), n+1, f[0])
		}
		for i, c := range []**int{&row.Left, &row.Right} {
			if f[i+1] == "None" {
				continue
			}
			x, err := strconv.Atoi(f[i+1])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: bad child %q", filepath.Base(name), n+1, f[i+1])
			}
			*c = intp(x)
		}
		trees[len(trees)-1] = append(trees[len(trees)-1], row)
	}
	return trees, nil
}

// tree returns input tree i of trees for the record at line.
func (p *refParser) tree(trees [][]TreeNode, i, line int) ([]TreeNode, error) {
	if i >= len(trees) {
		return nil, p.errAt(line, "instance %d has no input tree (the input file has %d)", i, len(trees))
	}
	return trees[i], nil
}

// heapFormat: "Heap i", "insert X" / "delete" lines, then the heap "[…]".
var heapFormat = recordFormat{
	open:  header("Heap ", nil, nil),
	body:  []lineRule{opBare("delete"), opInt("insert ", "insert")},
	close: truthRule("the final state", listLine),
}

// heapifyFormat: "Heap i", the array "[…]", then the heap "[…]".
var heapifyFormat = recordFormat{
	open:   header("Heap ", nil, nil),
	fields: []lineRule{keyed("", intsInto(func(in *Input) *[]int { return &in.Array })), truthField("")},
}

// rbTruth converts [[v, 'b'|'r'], …] to [[v, 1|0], …].
func rbTruth(v any) (any, error) {
	xs, ok := v.([]any)
	if !ok {
		return nil, errors.New("expected a list of [value, color] pairs")
	}
	out := make([]any, len(xs))
	for i, x := range xs {
		pr, ok := x.([]any)
		if !ok || len(pr) != 2 {
			return nil, fmt.Errorf("item %d: expected a [value, color] pair", i)
		}
		c := 0
		switch pr[1] {
		case "b":
			c = black
		case "r":
			c = red
		default:
			return nil, fmt.Errorf("item %d: color %v (expected 'r' or 'b')", i, pr[1])
		}
		out[i] = []any{pr[0], c}
	}
	return out, nil
}

// rbConstructFormat: "Tree i", "Values: […]", then "Pre-order: [[v, 'r'|'b'], …]".
var rbConstructFormat = recordFormat{
	open:   header("Tree ", nil, nil),
	fields: []lineRule{keyed("Values:", intsInto(func(in *Input) *[]int { return &in.Array })), truthField("Pre-order:")},
	truth:  rbTruth,
}

// rbCompoundFormat: "Tree i", "Insert: v" / "Delete: v" lines, then
// "Pre-order: [[v, 'r'|'b'], …]"; withInitial: the operations start from
// the initial tree of the record's position (rbt_input_<level>.txt).
func rbCompoundFormat(withInitial bool) *recordFormat {
	f := &recordFormat{
		open:  header("Tree ", nil, nil),
		body:  []lineRule{opInt("Insert:", "insert"), opInt("Delete:", "delete")},
		close: truthRule(`"Pre-order:"`, key("Pre-order:")),
		truth: rbTruth,
	}
	if withInitial {
		open := withTree(*f.open)
		f.open = &open
		f.prepare = func(p *refParser) (err error) {
			p.trees, err = p.rbInputs()
			return err
		}
	}
	return f
}

// rbInputs reads rb_tree/rbt_input_<level>.txt: "Tree i" then a pre-order
// serialization, one "value color" per node and "#" for an empty subtree.
func (p *refParser) rbInputs() ([][]TreeNode, error) {
	name := filepath.Join(p.root, "generation", "rb_tree", "rbt_input_"+p.level.FileSuffix()+".txt")
	lines, err := readLines(name)
	if err != nil {
		return nil, fmt.Errorf("reading the initial trees: %w", err)
	}
	var trees [][]TreeNode
	var toks [][]string
	flush := func() error {
		if toks == nil {
			return nil
		}
		pos := 0
		var rows []TreeNode
		var build func() (*int, error)
		build = func() (*int, error) {
			if pos >= len(toks) {
				return nil, errors.New("serialization ends early")
			}
			t := toks[pos]
			pos++
			if t[0] == "#" {
				return nil, nil
			}
			if len(t) != 2 {
				return nil, fmt.Errorf("bad node %q", strings.Join(t, " "))
			}
			v, err := strconv.Atoi(t[0])
			if err != nil {
				return nil, fmt.Errorf("bad value %q", t[0])
			}
			idx := len(rows)
			rows = append(rows, TreeNode{Value: v, Color: t[1]})
			l, err := build()
			if err != nil {
				return nil, err
			}
			r, err := build()
			if err != nil {
				return nil, err
			}
			rows[idx].Left, rows[idx].Right = l, r
			return intp(v), nil
		}
		if _, err := build(); err != nil {
			return fmt.Errorf("%s: tree %d: %w", filepath.Base(name), len(trees), err)
		}
		trees = append(trees, rows)
		toks = nil
		return nil
	}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "Tree ") {
			if err := flush(); err != nil {
				return nil, err
			}
			toks = [][]string{}
			continue
		}
		toks = append(toks, strings.Fields(l))
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return trees, nil
}

// bplusFormat: "BPlusTree i (Order: o)", "insert X" / "delete X" lines,
// then the leaves "[…]".
var bplusFormat = recordFormat{
	open:  header("BPlusTree ", bpHeadRe, func(in *Input, xs []int) { in.Order = xs[1] }),
	body:  insertDelete,
	close: truthRule("the final state", listLine),
}

// kdTreeFormat: "Tree i", "Points: [[x, y, …], …]", then "Traversal: […]".
// The earlier generations (folder "construction") tell the distribution
// by their file names, and are extras (tagged IDs).
var kdTreeFormat = recordFormat{
	prepare: func(p *refParser) error {
		if p.spec.dist != "infer" {
			return nil
		}
		base := filepath.Base(p.rel)
		p.tag = strings.TrimSuffix(levelRe.ReplaceAllString(base, ""), "_construct")
		p.spec.dist = ""
		for _, d := range []string{"blob", "circle", "moon"} {
			if strings.HasPrefix(base, d) {
				p.spec.dist = d
			}
		}
		return nil
	},
	open: header("Tree ", nil, nil),
	fields: []lineRule{keyed("Points:", func(r *record, v string, n int) error {
		raw, err := pyAt(r.p, n, v)
		if err != nil {
			return err
		}
		c, err := shapeIntRows.Convert(raw, "points")
		if err != nil {
			return r.p.errAt(n, "%v", err)
		}
		for _, row := range c.([]any) {
			xs, _ := valueInts(row)
			r.in.Points = append(r.in.Points, xs)
		}
		return nil
	}), truthField("Traversal:")},
}

// kdHeapFormat: "Heap i, Dimension: d", "insert (label, [x, …])" /
// "delete" lines, then the heap "[…]".
var kdHeapFormat = recordFormat{
	open: header("Heap ", kdhHeadRe, func(in *Input, xs []int) { in.Dim = xs[1] }),
	body: []lineRule{opBare("delete"), {name: `"insert (label, [x, …])"`, match: pattern(kdhOpRe),
		read: func(r *record, _ string, m []string, n int) error {
			label, _ := strconv.Atoi(m[1])
			vec, err := pyInts(r.p, n, m[2])
			if err != nil {
				return err
			}
			r.in.Ops = append(r.in.Ops, Op{Name: "insert", Args: []int{label}, Vec: vec})
			return nil
		}}},
	close: truthRule("the final state", listLine),
}
