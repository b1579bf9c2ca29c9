package dsr

import (
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

// refSpec says how a published file maps to tasks: the task, the spatial
// parameters its folder names, and the layout of its records.
type refSpec struct {
	structure string
	operation string
	dim       int
	dist      string
	format    *recordFormat
}

// refTask is a task folder of the published layout ("stack/compound", or
// "natural/queue" for the realistic probe): the task its files hold and
// the layout of their records.
type refTask struct {
	structure, operation string
	format               *recordFormat
}

// refTasks indexes the task folders of every category (the spatial
// folders, whose names carry a dimension, are matched in refSpecFor).
var refTasks = func() map[string]refTask {
	all := map[string]refTask{}
	for _, m := range []map[string]refTask{linearRefs, temporalRefs, associativeRefs, hierarchicalRefs, networkRefs, hybridRefs, realisticRefs} {
		for k, v := range m {
			all[k] = v
		}
	}
	return all
}()

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
		if t, ok := refTasks["natural/"+parts[1]]; ok {
			return refSpec{structure: t.structure, operation: t.operation, format: t.format}, "", nil
		}
	}
	if len(parts) != 4 || parts[0] != "generation" {
		return refSpec{}, "", fmt.Errorf("dsr: %s: not a recognised DSR-Bench instance file (expected generation/<structure>/<operation>/<file> or natural/<task>/<file>)", rel)
	}
	dir, op := parts[1], parts[2]
	if t, ok := refTasks[dir+"/"+op]; ok {
		return refSpec{structure: t.structure, operation: t.operation, format: t.format}, "", nil
	}
	switch dir {
	case "kd_tree":
		s := refSpec{structure: "kd_tree", operation: "construct", format: &kdTreeFormat}
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
			return refSpec{structure: "kd_heap", operation: "compound", dim: d, format: &kdHeapFormat}, "", nil
		}
	case "geom_graph":
		if m := dimRe.FindStringSubmatch(op); m != nil {
			d, _ := strconv.Atoi(m[1])
			return refSpec{structure: "geom_graph", operation: "construct", dim: d, format: &geomFormat}, "", nil
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
	// trees and graphs are the shared inputs the records refer to.
	trees  [][]TreeNode
	graphs []Input
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
	if err := parseRecords(p, spec.format); err != nil {
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
