package dsr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Reading the published instance files of the DSR-Bench repository (the
// layout of a checkout, or of ../shared/fixtures/dsr):
//
//	generation/<structure>/<operation>/<op>_<easy|medium|hard>.txt
//	natural/<queue|bst|graph>/natural-<easy|medium|hard>.txt
//
// Each file holds 30 instances with their inputs and the reference's truth.
// Some tasks read a shared input file beside them (BST trees, graphs, the
// initial red-black trees).

// RefFile is one published file read by LoadReferenceDir.
type RefFile struct {
	Path      string
	Task      string // "structure/operation" (or several, for the BST traversal file)
	Instances []Instance
	// Skipped is set, instead of Instances, for files that hold no
	// recomputable instances, with the reason.
	Skipped string
}

// refSpec says how a published file maps to tasks.
type refSpec struct {
	structure string
	operation string
	dim       int
	dist      string
	parse     func(p *refParser) error
}

var (
	levelRe = regexp.MustCompile(`[_-](easy|medium|hard)\.txt$`)
	dimRe   = regexp.MustCompile(`^(?:construct|compound)_(\d)d$`)
)

// skippedRef lists published files that are not recomputable instances, with
// the reason (paths relative to the layout root).
var skippedRef = []struct{ pattern, reason string }{
	{"generation/array/array_input_*.txt", "shared input arrays (the instances are in the operation files)"},
	{"generation/array/sorting/*", "sorted arrays with no question or truth (no paper task)"},
	{"generation/binary_tree/bst_generation/*", "shared input trees (read with the BST operation files)"},
	{"generation/binary_tree/archived/*", "archived random binary trees whose traversal files do not match their input trees (no paper task)"},
	{"generation/binary_tree/archived/bt_generation/*", "archived input trees (no paper task)"},
	{"generation/graph/graph_input_*.txt", "shared input graphs (read with the BFS/DFS files)"},
	{"generation/rb_tree/rbt_input_*.txt", "shared initial red-black trees (read with construct_compound)"},
	{"generation/rb_tree/insert/*", "no paper task; the initial trees of these insert instances were not recorded, so their truth cannot be recomputed"},
	{"generation/rb_tree/delete/*", "no paper task; the initial trees of these delete instances were not recorded, so their truth cannot be recomputed"},
	{"generation/kd_tree/archived/*", "archived K-D trees given as node tables (no question)"},
	{"generation/ball_tree/*/*", "ball tree: in the repository but not a DSR-Bench task"},
	{"natural/bst/appointments_*.txt", "an early version of the realistic BST data, superseded by natural-*.txt"},
	{"natural/*/template/*", "scenario templates (prose, read at run time by LoadRealisticTemplates)"},
}

// refSpecFor maps a path relative to the layout root to its spec.
func refSpecFor(rel string) (refSpec, string, error) {
	rel = filepath.ToSlash(rel)
	for _, s := range skippedRef {
		if ok, _ := filepath.Match(s.pattern, rel); ok {
			return refSpec{}, s.reason, nil
		}
	}
	parts := strings.Split(rel, "/")
	if len(parts) == 3 && parts[0] == "natural" {
		switch parts[1] {
		case "queue":
			return refSpec{structure: "queue", operation: "realistic", parse: parseNaturalQueue}, "", nil
		case "bst":
			return refSpec{structure: "bst", operation: "realistic", parse: parseNaturalBST}, "", nil
		case "graph":
			return refSpec{structure: "graph", operation: "realistic", parse: parseNaturalGraph}, "", nil
		}
	}
	if len(parts) != 4 || parts[0] != "generation" {
		return refSpec{}, "", fmt.Errorf("dsr: %s: not a recognised DSR-Bench instance file (expected generation/<structure>/<operation>/<file> or natural/<task>/<file>)", rel)
	}
	dir, op := parts[1], parts[2]
	simple := func(structure, operation string, f func(*refParser) error) (refSpec, string, error) {
		return refSpec{structure: structure, operation: operation, parse: f}, "", nil
	}
	switch dir + "/" + op {
	case "array/access", "array/delete", "array/insert", "array/reverse", "array/search":
		return simple("array", op, parseArray)
	case "stack/compound":
		return simple("stack", "compound", parseStackQueue)
	case "queue/compound":
		return simple("queue", "compound", parseStackQueue)
	case "lru_cache/cache":
		return simple("lru_cache", "cache", parseLRU)
	case "priority_queue/compound":
		return simple("priority_queue", "compound", parsePQ)
	case "hashmap/compound":
		return simple("hashmap", "compound", parseHashmap)
	case "trie/compound":
		return simple("trie", "compound", parseWordOps("trie"))
	case "suffix_tree/construct":
		return simple("suffix_tree", "construct", parseSuffix)
	case "skip_list/compound":
		return simple("skip_list", "compound", parseSkipList)
	case "binary_tree/traversal":
		return simple("bst", "traversal", parseBSTTraversal)
	case "binary_tree/insert":
		return simple("bst", "insert", parseBSTChange("Insert"))
	case "binary_tree/remove":
		return simple("bst", "remove", parseBSTChange("Remove"))
	case "binary_tree/compound":
		return simple("bst", "compound", parseBSTCompound)
	case "heap/compound":
		return simple("heap", "compound", parseHeap)
	case "heap/heapify":
		return simple("heap", "heapify", parseHeapify)
	case "rb_tree/construct":
		return simple("rb_tree", "construct", parseRBConstruct)
	case "rb_tree/compound":
		return simple("rb_tree", "compound", parseRBCompound(false))
	case "rb_tree/construct_compound":
		return simple("rb_tree", "construct_compound", parseRBCompound(true))
	case "b_plus_tree/compound":
		return simple("b_plus_tree", "compound", parseBPlus)
	case "dsu/compound":
		return simple("dsu", "compound", parseDSU)
	case "graph/bfs", "graph/dfs":
		return simple("graph", op, parseGraph)
	case "bloom_filter/compound":
		return simple("bloom_filter", "compound", parseBloom)
	case "dawg/compound":
		return simple("dawg", "compound", parseWordOps("dawg"))
	}
	switch dir {
	case "kd_tree":
		s := refSpec{structure: "kd_tree", operation: "construct", parse: parseKDTree}
		if m := dimRe.FindStringSubmatch(op); m != nil {
			s.dim, _ = strconv.Atoi(m[1])
		} else if d, ok := strings.CutPrefix(op, "construct_"); ok && d != "" {
			s.dist, s.dim = d, 2
		} else if op == "construction" {
			// Earlier generations of the same task; the dimension comes
			// from the points and the distribution from the file name.
			s.dist = "infer"
		} else {
			break
		}
		return s, "", nil
	case "kd_heap":
		if m := dimRe.FindStringSubmatch(op); m != nil {
			d, _ := strconv.Atoi(m[1])
			return refSpec{structure: "kd_heap", operation: "compound", dim: d, parse: parseKDHeap}, "", nil
		}
	case "geom_graph":
		if m := dimRe.FindStringSubmatch(op); m != nil {
			d, _ := strconv.Atoi(m[1])
			return refSpec{structure: "geom_graph", operation: "construct", dim: d, parse: parseGeom}, "", nil
		}
	}
	return refSpec{}, "", fmt.Errorf("dsr: %s: unknown DSR-Bench task folder %s/%s", rel, dir, op)
}

// layoutRoot finds the layout root above path (the folder that holds
// generation/ or natural/) and path relative to it.
func layoutRoot(path string) (root, rel string, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", "", err
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		base := filepath.Base(d)
		if base == "generation" || base == "natural" {
			root = filepath.Dir(d)
			rel, err = filepath.Rel(root, abs)
			return root, rel, err
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", "", fmt.Errorf("dsr: %s: not inside a DSR-Bench layout (expected a path under generation/ or natural/)", path)
}

// LoadReferenceFile reads one published instance file. The task is inferred
// from the path (structure and operation may be given to select or to
// check: the BST traversal file yields the preorder, inorder, postorder and
// depth tasks unless operation picks one).
//
// A file outside a DSR-Bench layout is read as the given structure and
// operation (both required then); tasks whose inputs live in a shared file
// beside (BST trees, graphs) still need the layout.
func LoadReferenceFile(path, structure, operation string) ([]Instance, error) {
	root, rel, err := layoutRoot(path)
	if err != nil {
		if structure == "" || operation == "" {
			return nil, fmt.Errorf("%w; outside a layout, give the structure and the operation", err)
		}
		t, lerr := LookupTask(structure, operation)
		if lerr != nil {
			return nil, lerr
		}
		abs, aerr := filepath.Abs(path)
		if aerr != nil {
			return nil, aerr
		}
		// Read the file where it is, with the parser its layout name
		// would select.
		spec, _, perr := refSpecFor(refRelPath(t, filepath.Base(abs)))
		if perr != nil {
			return nil, perr
		}
		insts, perr := parseRef(filepath.Dir(abs), filepath.Base(abs), spec)
		if perr != nil {
			return nil, perr
		}
		return filterInstances(insts, filepath.Base(abs), structure, operation)
	}
	spec, skip, err := refSpecFor(rel)
	if err != nil {
		return nil, err
	}
	if skip != "" {
		return nil, fmt.Errorf("dsr: %s: holds no recomputable instances: %s", rel, skip)
	}
	insts, err := parseRef(root, rel, spec)
	if err != nil {
		return nil, err
	}
	return filterInstances(insts, rel, structure, operation)
}

// refRelPath is the layout path of a task's file named base.
func refRelPath(t *Task, base string) string {
	info := t.Info()
	switch {
	case t.Probe == ProbeRealistic:
		return filepath.Join("natural", t.Structure, base)
	case t.Structure == "bst" && (t.Operation == "preorder" || t.Operation == "inorder" || t.Operation == "postorder" || t.Operation == "depth"):
		return filepath.Join("generation", info.RefDir, "traversal", base)
	case t.Structure == "kd_tree" || t.Structure == "geom_graph":
		return filepath.Join("generation", info.RefDir, "construct_2d", base)
	case t.Structure == "kd_heap":
		return filepath.Join("generation", info.RefDir, "compound_2d", base)
	}
	return filepath.Join("generation", info.RefDir, t.Operation, base)
}

func filterInstances(insts []Instance, rel, structure, operation string) ([]Instance, error) {
	if structure == "" && operation == "" {
		return insts, nil
	}
	var out []Instance
	for _, in := range insts {
		if structure != "" {
			s, ok := LookupStructure(structure)
			if !ok || s.Name != in.Structure {
				continue
			}
		}
		if operation != "" && operation != in.Operation {
			continue
		}
		out = append(out, in)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("dsr: %s: holds %s instances, none of structure %q operation %q", rel, insts[0].TaskName(), structure, operation)
	}
	return out, nil
}

// TaskName returns "structure/operation" of the instance.
func (in *Instance) TaskName() string { return in.Structure + "/" + in.Operation }

// LoadReferenceDir walks a DSR-Bench layout (a checkout or the fixtures'
// dsr folder, or any folder inside one) and reads every instance file. Files
// that hold no instances are listed with Skipped set; a file that fails to
// parse is an error.
func LoadReferenceDir(dir string) ([]RefFile, error) {
	var out []RefFile
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "prompt" || d.Name() == "figures" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".txt") {
			return nil
		}
		root, rel, err := layoutRoot(path)
		if err != nil {
			return nil // not part of the layout (e.g. a README)
		}
		spec, skip, err := refSpecFor(rel)
		if err != nil {
			return err
		}
		f := RefFile{Path: path}
		if skip != "" {
			f.Skipped = skip
			out = append(out, f)
			return nil
		}
		insts, err := parseRef(root, rel, spec)
		if err != nil {
			return err
		}
		f.Task = spec.structure + "/" + spec.operation
		f.Instances = insts
		out = append(out, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("dsr: %s: no DSR-Bench instance files found (expected generation/ or natural/ folders)", dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// refParser walks the lines of one file and collects instances.
type refParser struct {
	root, rel string
	spec      refSpec
	level     Level
	lines     []string
	i         int // next line
	out       []Instance
	// truthConv converts a recorded truth to the answer shape first.
	truthConv func(any) (any, error)
	// tag distinguishes the IDs of extra files that repeat a task.
	tag string
}

// readLines returns the lines of a published text file (blank lines
// included, so that line numbers match the file), each without its line
// ending and trailing blanks.
func readLines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) == 0 {
		return nil, nil
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return lines, nil
}

func parseRef(root, rel string, spec refSpec) ([]Instance, error) {
	m := levelRe.FindStringSubmatch(rel)
	if m == nil {
		return nil, fmt.Errorf("dsr: %s: cannot tell the level from the file name (expected …_easy/medium/hard.txt)", rel)
	}
	lvl, _ := ParseLevel(m[1])
	lines, err := readLines(filepath.Join(root, rel))
	if err != nil {
		return nil, fmt.Errorf("dsr: %w", err)
	}
	p := &refParser{root: root, rel: rel, spec: spec, level: lvl, lines: lines}
	if err := spec.parse(p); err != nil {
		return nil, fmt.Errorf("dsr: %s: %w", rel, err)
	}
	if len(p.out) == 0 {
		return nil, fmt.Errorf("dsr: %s: no instances found", rel)
	}
	return p.out, nil
}

// errAt reports a problem at line n (1-based).
func (p *refParser) errAt(n int, format string, args ...any) error {
	return fmt.Errorf("line %d: %s", n, fmt.Sprintf(format, args...))
}

// next returns the next non-blank line and its 1-based number, or ok=false.
func (p *refParser) next() (string, int, bool) {
	for p.i < len(p.lines) {
		l := strings.TrimSpace(p.lines[p.i])
		p.i++
		if l != "" {
			return l, p.i, true
		}
	}
	return "", 0, false
}

// add records an instance whose truth is a Python literal.
func (p *refParser) add(operation string, in Input, truth any, line int) error {
	op := operation
	if op == "" {
		op = p.spec.operation
	}
	t, err := LookupTask(p.spec.structure, op)
	if err != nil {
		return err
	}
	if p.truthConv != nil {
		c, err := p.truthConv(truth)
		if err != nil {
			return p.errAt(line, "recorded truth: %v", err)
		}
		truth = c
	}
	tv, err := t.Answer.Convert(truth, "truth")
	if err != nil {
		return p.errAt(line, "recorded truth: %v", err)
	}
	idx := 0
	for _, o := range p.out {
		if o.Operation == op {
			idx++
		}
	}
	inst := Instance{Structure: t.Structure, Operation: op, Level: p.level, Index: idx,
		Dim: p.spec.dim, Dist: p.spec.dist, Input: in, Truth: tv,
		Source: fmt.Sprintf("%s:%d", filepath.ToSlash(p.rel), line)}
	if t.Spatial {
		// The input tells the dimension; the folder name is a fallback.
		switch {
		case in.Dim > 0:
			inst.Dim = in.Dim
		case len(in.Points) > 0:
			inst.Dim = len(in.Points[0])
		case len(in.Coords) > 0:
			inst.Dim = len(in.Coords[0])
		}
	}
	v := inst.Variant()
	if p.tag != "" {
		v += "~" + p.tag
		inst.Extra = true
	}
	if t.Probe == ProbeExtra {
		inst.Extra = true
	}
	inst.ID = makeID(t.Structure, op, v, p.level, idx)
	p.out = append(p.out, inst)
	return nil
}

func pyAt(p *refParser, line int, text string) (any, error) {
	v, err := ParsePython(text)
	if err != nil {
		return nil, p.errAt(line, "%v", err)
	}
	return v, nil
}

func pyInts(p *refParser, line int, text string) ([]int, error) {
	v, err := pyAt(p, line, text)
	if err != nil {
		return nil, err
	}
	c, err := shapeInts.Convert(v, "list")
	if err != nil {
		return nil, p.errAt(line, "%v", err)
	}
	xs, _ := valueInts(c)
	return xs, nil
}

func atoiAt(p *refParser, line int, s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, p.errAt(line, "expected an integer, found %q", s)
	}
	return n, nil
}

// fields splits "key: value" lines.
func cutField(l, key string) (string, bool) {
	v, ok := strings.CutPrefix(l, key)
	return strings.TrimSpace(v), ok
}

// parseArray: "<i>", "[array]", optional "Index: i", "Element: v", then "Answer: x".
func parseArray(p *refParser) error {
	var in Input
	start := 0
	for {
		l, n, ok := p.next()
		if !ok {
			return nil
		}
		switch {
		case strings.HasPrefix(l, "["):
			xs, err := pyInts(p, n, l)
			if err != nil {
				return err
			}
			in = Input{Array: xs}
			start = n
		case strings.HasPrefix(l, "Index:"):
			v, _ := cutField(l, "Index:")
			i, err := atoiAt(p, n, v)
			if err != nil {
				return err
			}
			in.Index = intp(i)
		case strings.HasPrefix(l, "Element:"):
			v, _ := cutField(l, "Element:")
			i, err := atoiAt(p, n, v)
			if err != nil {
				return err
			}
			in.Value = intp(i)
		case strings.HasPrefix(l, "Answer:"):
			v, _ := cutField(l, "Answer:")
			if in.Array == nil {
				return p.errAt(n, "answer before any array")
			}
			truth, err := pyAt(p, n, v)
			if err != nil {
				return err
			}
			if err := p.add("", in, truth, start); err != nil {
				return err
			}
			in = Input{}
		default:
			if _, err := strconv.Atoi(l); err != nil {
				return p.errAt(n, "unexpected line %q", l)
			}
		}
	}
}

// parseStackQueue: operation lines, then the final state "[…]".
func parseStackQueue(p *refParser) error {
	var ops []Op
	start := 0
	for {
		l, n, ok := p.next()
		if !ok {
			if len(ops) > 0 {
				return p.errAt(n, "operations without a final state at the end of the file")
			}
			return nil
		}
		if start == 0 {
			start = n
		}
		f := strings.Fields(l)
		switch {
		case strings.HasPrefix(l, "["):
			truth, err := pyAt(p, n, l)
			if err != nil {
				return err
			}
			if err := p.add("", Input{Ops: ops}, truth, start); err != nil {
				return err
			}
			ops, start = nil, 0
		case len(f) == 2 && (f[0] == "push" || f[0] == "enqueue"):
			v, err := atoiAt(p, n, f[1])
			if err != nil {
				return err
			}
			ops = append(ops, Op{Name: f[0], Args: []int{v}})
		case len(f) == 1 && (f[0] == "pop" || f[0] == "dequeue"):
			ops = append(ops, Op{Name: f[0]})
		default:
			return p.errAt(n, "unexpected line %q (expected push/pop/enqueue/dequeue or a final state)", l)
		}
	}
}

var (
	lruHeadRe  = regexp.MustCompile(`^LRU Cache Simulation (\d+), Cache Size: (\d+)$`)
	pqOpRe     = regexp.MustCompile(`^(insert|raise_key|decrease_key) \((-?\d+), (-?\d+)\)$`)
	hmHeadRe   = regexp.MustCompile(`^HashMap (\d+) with (\d+) buckets$`)
	hmAddRe    = regexp.MustCompile(`^add key (-?\d+) value (-?\d+)$`)
	skipHeadRe = regexp.MustCompile(`^SkipList (\d+) \(Max Level: (\d+)\)$`)
	bpHeadRe   = regexp.MustCompile(`^BPlusTree (\d+) \(Order: (\d+)\)$`)
	kdhHeadRe  = regexp.MustCompile(`^Heap (\d+), Dimension: (\d+)$`)
	kdhOpRe    = regexp.MustCompile(`^insert \((-?\d+), (\[.*\])\)$`)
	bloomRe    = regexp.MustCompile(`^CountingBloomFilter (\d+) \(m: (\d+), k: (\d+)\)$`)
	unionRe    = regexp.MustCompile(`^union\((-?\d+), (-?\d+)\)$`)
	sourceRe   = regexp.MustCompile(`^Graph (\d+): Source = (-?\d+)$`)
)

// headed parses files whose instances start with a header line: onHead
// reads the header into a fresh input, onLine reads an operation line, and
// the truth line (starting with prefix) closes the instance.
func headed(p *refParser, isHead func(string) bool, onHead func(l string, n int, in *Input) error,
	onLine func(l string, n int, in *Input) error, truthPrefix string) error {
	var in *Input
	start := 0
	for {
		l, n, ok := p.next()
		if !ok {
			if in != nil {
				return p.errAt(start, "instance without a final state")
			}
			return nil
		}
		if isHead(l) {
			if in != nil {
				return p.errAt(n, "new instance before the final state of the one at line %d", start)
			}
			in = &Input{}
			start = n
			if err := onHead(l, n, in); err != nil {
				return err
			}
			continue
		}
		if in == nil {
			return p.errAt(n, "line %q before any instance header", l)
		}
		if rest, ok := strings.CutPrefix(l, truthPrefix); ok && (truthPrefix != "" || strings.HasPrefix(l, "[")) {
			truth, err := pyAt(p, n, strings.TrimSpace(rest))
			if err != nil {
				return err
			}
			if err := p.add("", *in, truth, start); err != nil {
				return err
			}
			in = nil
			continue
		}
		if err := onLine(l, n, in); err != nil {
			return err
		}
	}
}

func prefixHead(prefix string) func(string) bool {
	return func(l string) bool { return strings.HasPrefix(l, prefix) }
}

func noHead(string, int, *Input) error { return nil }

func parseLRU(p *refParser) error {
	return headed(p, prefixHead("LRU Cache Simulation"), func(l string, n int, in *Input) error {
		m := lruHeadRe.FindStringSubmatch(l)
		if m == nil {
			return p.errAt(n, "bad header %q", l)
		}
		in.Capacity, _ = strconv.Atoi(m[2])
		return nil
	}, func(l string, n int, in *Input) error {
		v, ok := strings.CutPrefix(l, "access ")
		if !ok {
			return p.errAt(n, "unexpected line %q (expected access p)", l)
		}
		x, err := atoiAt(p, n, v)
		if err != nil {
			return err
		}
		in.Ops = append(in.Ops, Op{Name: "access", Args: []int{x}})
		return nil
	}, "Final Cache:")
}

func parsePQ(p *refParser) error {
	return headed(p, prefixHead("PriorityQueue "), noHead, func(l string, n int, in *Input) error {
		if l == "delete" {
			in.Ops = append(in.Ops, Op{Name: "delete"})
			return nil
		}
		m := pqOpRe.FindStringSubmatch(l)
		if m == nil {
			return p.errAt(n, "unexpected line %q", l)
		}
		a, _ := strconv.Atoi(m[2])
		b, _ := strconv.Atoi(m[3])
		in.Ops = append(in.Ops, Op{Name: m[1], Args: []int{a, b}})
		return nil
	}, "")
}

func parseHashmap(p *refParser) error {
	p.truthConv = hashmapFromBuckets
	return headed(p, prefixHead("HashMap "), func(l string, n int, in *Input) error {
		m := hmHeadRe.FindStringSubmatch(l)
		if m == nil {
			return p.errAt(n, "bad header %q", l)
		}
		in.Buckets, _ = strconv.Atoi(m[2])
		return nil
	}, func(l string, n int, in *Input) error {
		if m := hmAddRe.FindStringSubmatch(l); m != nil {
			k, _ := strconv.Atoi(m[1])
			v, _ := strconv.Atoi(m[2])
			in.Ops = append(in.Ops, Op{Name: "add", Args: []int{k, v}})
			return nil
		}
		if v, ok := strings.CutPrefix(l, "remove "); ok {
			k, err := atoiAt(p, n, v)
			if err != nil {
				return err
			}
			in.Ops = append(in.Ops, Op{Name: "remove", Args: []int{k}})
			return nil
		}
		return p.errAt(n, "unexpected line %q", l)
	}, "Final HashMap:")
}

// hashmapFromBuckets converts the reference's [[(k, v), …], …] truth to the
// answer shape.
func hashmapFromBuckets(v any) (any, error) {
	bs, ok := v.([]any)
	if !ok {
		return nil, errors.New("expected a list of buckets")
	}
	out := make([]any, len(bs))
	for i, b := range bs {
		pairs, ok := b.([]any)
		if !ok {
			return nil, fmt.Errorf("bucket %d: expected a list", i)
		}
		contents := make([]any, len(pairs))
		for j, pr := range pairs {
			kv, ok := pr.([]any)
			if !ok || len(kv) != 2 {
				return nil, fmt.Errorf("bucket %d item %d: expected a (key, value) pair", i, j)
			}
			contents[j] = map[string]any{"key": kv[0], "value": kv[1]}
		}
		out[i] = map[string]any{"number": i, "contents": contents}
	}
	return out, nil
}

func parseWordOps(kind string) func(p *refParser) error {
	head := "TrieTree "
	if kind == "dawg" {
		head = "DAWG "
	}
	return func(p *refParser) error {
		return headed(p, prefixHead(head), noHead, func(l string, n int, in *Input) error {
			f := strings.Fields(l)
			if len(f) != 2 || (f[0] != "insert" && f[0] != "delete") {
				return p.errAt(n, "unexpected line %q (expected insert/delete word)", l)
			}
			in.Ops = append(in.Ops, Op{Name: f[0], Word: f[1]})
			return nil
		}, "")
	}
}

func parseSuffix(p *refParser) error {
	return headed(p, prefixHead("SuffixTree "), noHead, func(l string, n int, in *Input) error {
		if !strings.HasSuffix(l, "$") || in.Word != "" {
			return p.errAt(n, "unexpected line %q (expected one word ending in $)", l)
		}
		in.Word = strings.TrimSuffix(l, "$")
		return nil
	}, "")
}

func parseSkipList(p *refParser) error {
	return headed(p, prefixHead("SkipList "), func(l string, n int, in *Input) error {
		m := skipHeadRe.FindStringSubmatch(l)
		if m == nil {
			return p.errAt(n, "bad header %q", l)
		}
		in.MaxLevel, _ = strconv.Atoi(m[2])
		return nil
	}, func(l string, n int, in *Input) error {
		if v, ok := strings.CutPrefix(l, "Level generation probabilities:"); ok {
			if len(in.Ops) == 0 || in.Ops[len(in.Ops)-1].Name != "insert" {
				return p.errAt(n, "promotion draws not after an insert")
			}
			var ps []float64
			for _, s := range strings.Split(v, ",") {
				f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
				if err != nil {
					return p.errAt(n, "bad promotion draw %q", s)
				}
				ps = append(ps, f)
			}
			in.Ops[len(in.Ops)-1].Probs = ps
			return nil
		}
		return insertDeleteOp(p)(l, n, in)
	}, "")
}

// insertDeleteOp parses the operation lines "insert X" / "delete X" (X an
// integer) of the skip list, B+ tree and Bloom filter files.
func insertDeleteOp(p *refParser) func(l string, n int, in *Input) error {
	return func(l string, n int, in *Input) error {
		f := strings.Fields(l)
		if len(f) != 2 || (f[0] != "insert" && f[0] != "delete") {
			return p.errAt(n, "unexpected line %q (expected insert/delete and an integer)", l)
		}
		x, err := atoiAt(p, n, f[1])
		if err != nil {
			return err
		}
		in.Ops = append(in.Ops, Op{Name: f[0], Args: []int{x}})
		return nil
	}
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

func (p *refParser) tree(trees [][]TreeNode, i, line int) ([]TreeNode, error) {
	if i >= len(trees) {
		return nil, p.errAt(line, "instance %d has no input tree (the input file has %d)", i, len(trees))
	}
	return trees[i], nil
}

// parseBSTTraversal: blocks of "Pre-order:", "In-order:", "Post-order:",
// "Depth:"; each block gives one instance of each of the four tasks.
func parseBSTTraversal(p *refParser) error {
	trees, err := p.bstInputs()
	if err != nil {
		return err
	}
	k := 0
	for {
		l, n, ok := p.next()
		if !ok {
			return nil
		}
		block := map[string]string{}
		start := n
		for {
			key, val, found := strings.Cut(l, ":")
			if !found {
				return p.errAt(n, "unexpected line %q", l)
			}
			block[key] = strings.TrimSpace(val)
			if key == "Depth" {
				break
			}
			if l, n, ok = p.next(); !ok {
				return p.errAt(start, "traversal block without Depth")
			}
		}
		rows, err := p.tree(trees, k, start)
		if err != nil {
			return err
		}
		k++
		for _, t := range []struct{ key, op string }{{"Pre-order", "preorder"}, {"In-order", "inorder"}, {"Post-order", "postorder"}, {"Depth", "depth"}} {
			text, ok := block[t.key]
			if !ok {
				return p.errAt(start, "block without %s", t.key)
			}
			truth, err := pyAt(p, start, text)
			if err != nil {
				return err
			}
			if err := p.add(t.op, Input{Tree: rows}, truth, start); err != nil {
				return err
			}
		}
	}
}

// parseBSTChange: "Insert: v" / "Remove: v", "Pre-order: […]", "Post-order: […]".
func parseBSTChange(word string) func(p *refParser) error {
	return func(p *refParser) error {
		trees, err := p.bstInputs()
		if err != nil {
			return err
		}
		k := 0
		for {
			l, n, ok := p.next()
			if !ok {
				return nil
			}
			v, ok := cutField(l, word+":")
			if !ok {
				return p.errAt(n, "unexpected line %q (expected %s: v)", l, word)
			}
			x, err := atoiAt(p, n, v)
			if err != nil {
				return err
			}
			pre, n2, ok1 := p.next()
			post, n3, ok2 := p.next()
			if !ok1 || !ok2 {
				return p.errAt(n, "missing traversals")
			}
			preV, ok1 := cutField(pre, "Pre-order:")
			postV, ok2 := cutField(post, "Post-order:")
			if !ok1 || !ok2 {
				return p.errAt(n2, "expected Pre-order: and Post-order: lines")
			}
			a, err := pyAt(p, n2, preV)
			if err != nil {
				return err
			}
			b, err := pyAt(p, n3, postV)
			if err != nil {
				return err
			}
			rows, err := p.tree(trees, k, n)
			if err != nil {
				return err
			}
			k++
			if err := p.add("", Input{Tree: rows, Value: intp(x)}, map[string]any{"pre_order": a, "post_order": b}, n); err != nil {
				return err
			}
		}
	}
}

// parseBSTCompound: "Insert: v" / "Delete: v" lines, then "[pre-order]".
func parseBSTCompound(p *refParser) error {
	var in Input
	start := 0
	for {
		l, n, ok := p.next()
		if !ok {
			return nil
		}
		if start == 0 {
			start = n
		}
		if strings.HasPrefix(l, "[") {
			truth, err := pyAt(p, n, l)
			if err != nil {
				return err
			}
			if err := p.add("", in, truth, start); err != nil {
				return err
			}
			in, start = Input{}, 0
			continue
		}
		op, v, ok := strings.Cut(l, ":")
		if !ok || (op != "Insert" && op != "Delete") {
			return p.errAt(n, "unexpected line %q", l)
		}
		x, err := atoiAt(p, n, v)
		if err != nil {
			return err
		}
		in.Ops = append(in.Ops, Op{Name: strings.ToLower(op), Args: []int{x}})
	}
}

func parseHeap(p *refParser) error {
	return headed(p, prefixHead("Heap "), noHead, func(l string, n int, in *Input) error {
		if l == "delete" {
			in.Ops = append(in.Ops, Op{Name: "delete"})
			return nil
		}
		v, ok := strings.CutPrefix(l, "insert ")
		if !ok {
			return p.errAt(n, "unexpected line %q", l)
		}
		x, err := atoiAt(p, n, v)
		if err != nil {
			return err
		}
		in.Ops = append(in.Ops, Op{Name: "insert", Args: []int{x}})
		return nil
	}, "")
}

func parseHeapify(p *refParser) error {
	for {
		l, n, ok := p.next()
		if !ok {
			return nil
		}
		if !strings.HasPrefix(l, "Heap ") {
			return p.errAt(n, "unexpected line %q (expected Heap i)", l)
		}
		a, n1, ok1 := p.next()
		t, n2, ok2 := p.next()
		if !ok1 || !ok2 {
			return p.errAt(n, "incomplete instance")
		}
		xs, err := pyInts(p, n1, a)
		if err != nil {
			return err
		}
		truth, err := pyAt(p, n2, t)
		if err != nil {
			return err
		}
		if err := p.add("", Input{Array: xs}, truth, n); err != nil {
			return err
		}
	}
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

func parseRBConstruct(p *refParser) error {
	for {
		l, n, ok := p.next()
		if !ok {
			return nil
		}
		if !strings.HasPrefix(l, "Tree ") {
			return p.errAt(n, "unexpected line %q", l)
		}
		a, n1, _ := p.next()
		t, n2, _ := p.next()
		vals, ok1 := cutField(a, "Values:")
		pre, ok2 := cutField(t, "Pre-order:")
		if !ok1 || !ok2 {
			return p.errAt(n, "expected Values: and Pre-order: lines")
		}
		xs, err := pyInts(p, n1, vals)
		if err != nil {
			return err
		}
		raw, err := pyAt(p, n2, pre)
		if err != nil {
			return err
		}
		truth, err := rbTruth(raw)
		if err != nil {
			return p.errAt(n2, "%v", err)
		}
		if err := p.add("", Input{Array: xs}, truth, n); err != nil {
			return err
		}
	}
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

func parseRBCompound(withInitial bool) func(p *refParser) error {
	return func(p *refParser) error {
		var initial [][]TreeNode
		if withInitial {
			var err error
			if initial, err = p.rbInputs(); err != nil {
				return err
			}
		}
		k := 0
		var in *Input
		start := 0
		for {
			l, n, ok := p.next()
			if !ok {
				if in != nil {
					return p.errAt(start, "instance without a final tree")
				}
				return nil
			}
			switch {
			case strings.HasPrefix(l, "Tree "):
				in = &Input{}
				start = n
				if withInitial {
					rows, err := p.tree(initial, k, n)
					if err != nil {
						return err
					}
					in.Tree = rows
				}
				k++
			case strings.HasPrefix(l, "Pre-order:"):
				if in == nil {
					return p.errAt(n, "final tree before a header")
				}
				v, _ := cutField(l, "Pre-order:")
				raw, err := pyAt(p, n, v)
				if err != nil {
					return err
				}
				truth, err := rbTruth(raw)
				if err != nil {
					return p.errAt(n, "%v", err)
				}
				if err := p.add("", *in, truth, start); err != nil {
					return err
				}
				in = nil
			default:
				op, v, ok := strings.Cut(l, ":")
				if in == nil || !ok || (op != "Insert" && op != "Delete") {
					return p.errAt(n, "unexpected line %q", l)
				}
				x, err := atoiAt(p, n, v)
				if err != nil {
					return err
				}
				in.Ops = append(in.Ops, Op{Name: strings.ToLower(op), Args: []int{x}})
			}
		}
	}
}

func parseBPlus(p *refParser) error {
	return headed(p, prefixHead("BPlusTree "), func(l string, n int, in *Input) error {
		m := bpHeadRe.FindStringSubmatch(l)
		if m == nil {
			return p.errAt(n, "bad header %q", l)
		}
		in.Order, _ = strconv.Atoi(m[2])
		return nil
	}, insertDeleteOp(p), "")
}

func parseKDTree(p *refParser) error {
	dist := p.spec.dist
	if dist == "infer" {
		base := filepath.Base(p.rel)
		p.tag = strings.TrimSuffix(levelRe.ReplaceAllString(base, ""), "_construct")
		dist = ""
		for _, d := range []string{"blob", "circle", "moon"} {
			if strings.HasPrefix(base, d) {
				dist = d
			}
		}
	}
	for {
		l, n, ok := p.next()
		if !ok {
			return nil
		}
		if !strings.HasPrefix(l, "Tree ") {
			return p.errAt(n, "unexpected line %q", l)
		}
		a, n1, _ := p.next()
		t, n2, _ := p.next()
		pts, ok1 := cutField(a, "Points:")
		tr, ok2 := cutField(t, "Traversal:")
		if !ok1 || !ok2 {
			return p.errAt(n, "expected Points: and Traversal: lines")
		}
		raw, err := pyAt(p, n1, pts)
		if err != nil {
			return err
		}
		c, err := shapeIntRows.Convert(raw, "points")
		if err != nil {
			return p.errAt(n1, "%v", err)
		}
		var points [][]int
		for _, row := range c.([]any) {
			xs, _ := valueInts(row)
			points = append(points, xs)
		}
		truth, err := pyAt(p, n2, tr)
		if err != nil {
			return err
		}
		save := p.spec
		if len(points) > 0 {
			p.spec.dim = len(points[0])
		}
		p.spec.dist = dist
		err = p.add("", Input{Points: points}, truth, n)
		p.spec = save
		if err != nil {
			return err
		}
	}
}

func parseKDHeap(p *refParser) error {
	return headed(p, prefixHead("Heap "), func(l string, n int, in *Input) error {
		m := kdhHeadRe.FindStringSubmatch(l)
		if m == nil {
			return p.errAt(n, "bad header %q", l)
		}
		in.Dim, _ = strconv.Atoi(m[2])
		return nil
	}, func(l string, n int, in *Input) error {
		if l == "delete" {
			in.Ops = append(in.Ops, Op{Name: "delete"})
			return nil
		}
		m := kdhOpRe.FindStringSubmatch(l)
		if m == nil {
			return p.errAt(n, "unexpected line %q", l)
		}
		label, _ := strconv.Atoi(m[1])
		vec, err := pyInts(p, n, m[2])
		if err != nil {
			return err
		}
		in.Ops = append(in.Ops, Op{Name: "insert", Args: []int{label}, Vec: vec})
		return nil
	}, "")
}

// graphInputs reads graph/graph_input_<level>.txt: "Graph i", the node
// labels on one line, then one "u, v" line per edge.
func (p *refParser) graphInputs() ([]Input, error) {
	name := filepath.Join(p.root, "generation", "graph", "graph_input_"+p.level.FileSuffix()+".txt")
	lines, err := readLines(name)
	if err != nil {
		return nil, fmt.Errorf("reading the input graphs: %w", err)
	}
	var gs []Input
	expectNodes := false
	for n, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "Graph ") {
			gs = append(gs, Input{Nodes: []int{}})
			expectNodes = true
			continue
		}
		if len(gs) == 0 {
			return nil, fmt.Errorf("%s:%d: line before any graph", filepath.Base(name), n+1)
		}
		g := &gs[len(gs)-1]
		if expectNodes {
			for _, f := range strings.Fields(l) {
				x, err := strconv.Atoi(f)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: bad node %q", filepath.Base(name), n+1, f)
				}
				g.Nodes = append(g.Nodes, x)
			}
			expectNodes = false
			continue
		}
		a, b, ok := strings.Cut(l, ",")
		x, err1 := strconv.Atoi(strings.TrimSpace(a))
		y, err2 := strconv.Atoi(strings.TrimSpace(b))
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: expected an edge \"u, v\", found %q", filepath.Base(name), n+1, l)
		}
		g.Edges = append(g.Edges, [2]int{x, y})
	}
	return gs, nil
}

func parseGraph(p *refParser) error {
	gs, err := p.graphInputs()
	if err != nil {
		return err
	}
	for {
		l, n, ok := p.next()
		if !ok {
			return nil
		}
		m := sourceRe.FindStringSubmatch(l)
		if m == nil {
			return p.errAt(n, "unexpected line %q (expected Graph i: Source = s)", l)
		}
		gi, _ := strconv.Atoi(m[1])
		src, _ := strconv.Atoi(m[2])
		t, n2, ok := p.next()
		if !ok {
			return p.errAt(n, "missing traversal")
		}
		truth, err := pyAt(p, n2, t)
		if err != nil {
			return err
		}
		if gi >= len(gs) {
			return p.errAt(n, "graph %d is not in the input file (it has %d)", gi, len(gs))
		}
		in := gs[gi]
		in.Source = intp(src)
		if err := p.add("", in, truth, n); err != nil {
			return err
		}
	}
}

func parseDSU(p *refParser) error {
	var in *Input
	start := 0
	for {
		l, n, ok := p.next()
		if !ok {
			if in != nil {
				return p.errAt(start, "instance without a final answer")
			}
			return nil
		}
		switch {
		case strings.HasPrefix(l, "[") && in == nil:
			xs, err := pyInts(p, n, l)
			if err != nil {
				return err
			}
			in = &Input{Array: xs}
			start = n
		case strings.HasPrefix(l, "["):
			truth, err := pyAt(p, n, l)
			if err != nil {
				return err
			}
			if err := p.add("", *in, truth, start); err != nil {
				return err
			}
			in = nil
		default:
			m := unionRe.FindStringSubmatch(l)
			if m == nil || in == nil {
				return p.errAt(n, "unexpected line %q", l)
			}
			x, _ := strconv.Atoi(m[1])
			y, _ := strconv.Atoi(m[2])
			in.Ops = append(in.Ops, Op{Name: "union", Args: []int{x, y}})
		}
	}
}

func parseGeom(p *refParser) error {
	for {
		l, n, ok := p.next()
		if !ok {
			return nil
		}
		if !strings.HasPrefix(l, "Graph ") {
			return p.errAt(n, "unexpected line %q", l)
		}
		var in Input
		fieldsWanted := []string{"Nodes:", "Threshold:", "From:", "BFS:"}
		var truth any
		for _, key := range fieldsWanted {
			t, n2, ok := p.next()
			v, ok2 := cutField(t, key)
			if !ok || !ok2 {
				return p.errAt(n2, "expected a %s line", key)
			}
			switch key {
			case "Threshold:":
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return p.errAt(n2, "bad threshold %q", v)
				}
				in.Threshold = f
			default:
				raw, err := pyAt(p, n2, v)
				if err != nil {
					return err
				}
				switch key {
				case "Nodes:":
					c, err := shapeFloatRows.Convert(raw, "nodes")
					if err != nil {
						return p.errAt(n2, "%v", err)
					}
					for _, row := range c.([]any) {
						var xs []float64
						for _, x := range row.([]any) {
							xs = append(xs, x.(float64))
						}
						in.Coords = append(in.Coords, xs)
					}
				case "From:":
					c, err := listOf(shapeFloat).Convert(raw, "from")
					if err != nil {
						return p.errAt(n2, "%v", err)
					}
					for _, x := range c.([]any) {
						in.From = append(in.From, x.(float64))
					}
				case "BFS:":
					truth = raw
				}
			}
		}
		if err := p.add("", in, truth, n); err != nil {
			return err
		}
	}
}

func parseBloom(p *refParser) error {
	return headed(p, prefixHead("CountingBloomFilter "), func(l string, n int, in *Input) error {
		m := bloomRe.FindStringSubmatch(l)
		if m == nil {
			return p.errAt(n, "bad header %q", l)
		}
		in.M, _ = strconv.Atoi(m[2])
		in.K, _ = strconv.Atoi(m[3])
		return nil
	}, insertDeleteOp(p), "")
}

// parseNaturalQueue: "enqueue Name Surname" / "dequeue Name Surname" lines,
// then the remaining names.
func parseNaturalQueue(p *refParser) error {
	var ops []Op
	start := 0
	for {
		l, n, ok := p.next()
		if !ok {
			return nil
		}
		if start == 0 {
			start = n
		}
		if strings.HasPrefix(l, "[") {
			truth, err := pyAt(p, n, l)
			if err != nil {
				return err
			}
			if err := p.add("", Input{Ops: ops}, truth, start); err != nil {
				return err
			}
			ops, start = nil, 0
			continue
		}
		op, name, ok := strings.Cut(l, " ")
		if !ok || (op != "enqueue" && op != "dequeue") {
			return p.errAt(n, "unexpected line %q", l)
		}
		ops = append(ops, Op{Name: op, Word: name})
	}
}

var apptRe = regexp.MustCompile(`^insert (.+) (\d\d:\d\d)$`)

// parseNaturalBST: "insert Name HH:MM" / "delete Name", then the pre-order
// list of (name, time) tuples.
func parseNaturalBST(p *refParser) error {
	var ops []Op
	start := 0
	for {
		l, n, ok := p.next()
		if !ok {
			return nil
		}
		if start == 0 {
			start = n
		}
		switch {
		case strings.HasPrefix(l, "["):
			truth, err := pyAt(p, n, l)
			if err != nil {
				return err
			}
			if err := p.add("", Input{Ops: ops}, truth, start); err != nil {
				return err
			}
			ops, start = nil, 0
		case strings.HasPrefix(l, "delete "):
			ops = append(ops, Op{Name: "delete", Word: strings.TrimPrefix(l, "delete ")})
		default:
			m := apptRe.FindStringSubmatch(l)
			if m == nil {
				return p.errAt(n, "unexpected line %q", l)
			}
			ops = append(ops, Op{Name: "insert", Word: m[1], Time: m[2]})
		}
	}
}

// parseNaturalGraph: "nodes: […]", "edges: […]", "source: X", "traversal: […]".
func parseNaturalGraph(p *refParser) error {
	for {
		l, n, ok := p.next()
		if !ok {
			return nil
		}
		var in Input
		var truth any
		for _, key := range []string{"nodes:", "edges:", "source:", "traversal:"} {
			if key != "nodes:" {
				l, n, ok = p.next()
			}
			v, ok2 := cutField(l, key)
			if !ok || !ok2 {
				return p.errAt(n, "expected a %s line", key)
			}
			if key == "source:" {
				in.SourceName = v
				continue
			}
			raw, err := pyAt(p, n, v)
			if err != nil {
				return err
			}
			switch key {
			case "nodes:":
				c, err := shapeStrings.Convert(raw, "nodes")
				if err != nil {
					return p.errAt(n, "%v", err)
				}
				for _, x := range c.([]any) {
					in.Names = append(in.Names, x.(string))
				}
			case "edges:":
				c, err := shapeStrPairs.Convert(raw, "edges")
				if err != nil {
					return p.errAt(n, "%v", err)
				}
				for _, e := range c.([]any) {
					pr := e.([]any)
					in.NameEdges = append(in.NameEdges, [2]string{pr[0].(string), pr[1].(string)})
				}
			case "traversal:":
				truth = raw
			}
		}
		if err := p.add("", in, truth, n); err != nil {
			return err
		}
	}
}
