package dsr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type genCase struct {
	task *Task
	dim  int
	dist string
}

func allGenCases() []genCase {
	var out []genCase
	for _, t := range Tasks() {
		switch {
		case t.Structure == "kd_tree":
			for _, d := range SpatialDims() {
				out = append(out, genCase{t, d, ""})
			}
			for _, dist := range []string{DistCircle, DistMoon, DistBlob} {
				out = append(out, genCase{t, 2, dist})
			}
		case t.Spatial:
			for _, d := range SpatialDims() {
				out = append(out, genCase{t, d, ""})
			}
		default:
			out = append(out, genCase{t, 0, ""})
		}
	}
	return out
}

// size returns the length the level governs: the number of operations for
// compound tasks, else the number of elements.
func size(in *Input, t *Task) (n int, ok bool) {
	switch {
	case t.Structure == "dsu":
		return 0, false // elements and unions have their own ranges
	case len(in.Ops) > 0:
		return len(in.Ops), true
	case in.Array != nil:
		return len(in.Array), true
	case in.Tree != nil:
		return len(in.Tree), true
	case in.Points != nil:
		return len(in.Points), true
	case in.Coords != nil:
		return len(in.Coords), true
	case in.Nodes != nil:
		return len(in.Nodes), true
	case in.Word != "":
		return len(in.Word), true
	case in.Names != nil:
		return len(in.Names), true
	}
	return 0, false
}

func TestGenerateAllTasks(t *testing.T) {
	t.Parallel()
	for _, c := range allGenCases() {
		for _, l := range Levels() {
			name := fmt.Sprintf("%s/%d%s/%s", c.task.Name(), c.dim, c.dist, l)
			cfg := GenConfig{Level: l, Count: 30, Seed: 1, Dim: c.dim, Dist: c.dist}
			insts, err := c.task.Generate(cfg)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			again, _ := c.task.Generate(cfg)
			cfg.Count = 5
			prefix, _ := c.task.Generate(cfg)
			var a, b, p bytes.Buffer
			if err := WriteJSONL(&a, insts); err != nil {
				t.Fatal(err)
			}
			WriteJSONL(&b, again)
			WriteJSONL(&p, prefix)
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("%s: not deterministic", name)
			}
			if !bytes.HasPrefix(a.Bytes(), p.Bytes()) {
				t.Fatalf("%s: 5 instances are not a prefix of 30", name)
			}
			back, err := ReadJSONL(&a)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if rep := Verify(back, Options{}); rep.Matched != 30 {
				t.Fatalf("%s: after a JSONL round trip %d/30 verify: %v", name, rep.Matched, rep.Mismatches)
			}
			lo, hi := l.Range()
			ids := map[string]bool{}
			for _, in := range insts {
				if ids[in.ID] {
					t.Fatalf("%s: duplicate id %s", name, in.ID)
				}
				ids[in.ID] = true
				if n, ok := size(&in.Input, c.task); ok && (n < lo || n > hi) && c.task.Probe != ProbeExtra {
					t.Errorf("%s: %s has size %d outside %d–%d", name, in.ID, n, lo, hi)
				}
				if c.dist == "" {
					checkValueRange(t, name, &in.Input)
				}
			}
		}
	}
}

// checkValueRange: generated ints lie in [0, 100] (paper §3.4).
func checkValueRange(t *testing.T, name string, in *Input) {
	t.Helper()
	check := func(xs ...int) {
		for _, x := range xs {
			if x < 0 || x > 100 {
				t.Fatalf("%s: value %d outside [0, 100]", name, x)
			}
		}
	}
	check(in.Array...)
	check(in.Nodes...)
	for _, op := range in.Ops {
		check(op.Args...)
		check(op.Vec...)
	}
	for _, p := range in.Points {
		check(p...)
	}
	for _, r := range in.Tree {
		check(r.Value)
	}
	for _, c := range in.Coords {
		for _, x := range c {
			if x < 0 || x > 100 {
				t.Fatalf("%s: coordinate %v outside [0, 100]", name, x)
			}
		}
	}
}

// TestGenerateSpecifics checks per-level parameters stated in the notes.
func TestGenerateSpecifics(t *testing.T) {
	gen := func(s, o string, l Level, dim int) []Instance {
		tk, _ := LookupTask(s, o)
		insts, err := tk.Generate(GenConfig{Level: l, Count: 30, Seed: 3, Dim: dim})
		if err != nil {
			t.Fatal(err)
		}
		return insts
	}
	for _, l := range Levels() {
		for _, in := range gen("lru_cache", "cache", l, 0) {
			c := pick3(l, [2]int{2, 5}, [2]int{3, 7}, [2]int{4, 10})
			if in.Input.Capacity < c[0] || in.Input.Capacity > c[1] {
				t.Errorf("LRU %s capacity %d", l, in.Input.Capacity)
			}
		}
		for _, in := range gen("hashmap", "compound", l, 0) {
			if in.Input.Buckets != pick3(l, 10, 20, 30) {
				t.Errorf("hashmap %s buckets %d", l, in.Input.Buckets)
			}
		}
		for _, in := range gen("b_plus_tree", "compound", l, 0) {
			if in.Input.Order != pick3(l, 4, 6, 8) {
				t.Errorf("B+ %s order %d", l, in.Input.Order)
			}
		}
		for _, in := range gen("skip_list", "compound", l, 0) {
			if in.Input.MaxLevel != pick3(l, 3, 5, 7) {
				t.Errorf("skip list %s max level %d", l, in.Input.MaxLevel)
			}
		}
		for _, in := range gen("bloom_filter", "compound", l, 0) {
			if in.Input.M != pick3(l, 20, 50, 100) || in.Input.K != pick3(l, 3, 4, 5) {
				t.Errorf("bloom %s m=%d k=%d", l, in.Input.M, in.Input.K)
			}
		}
		for _, in := range gen("dsu", "compound", l, 0) {
			n := len(in.Input.Array)
			r := pick3(l, [2]int{10, 19}, [2]int{20, 39}, [2]int{40, 59})
			if n < r[0] || n > r[1] || len(in.Input.Ops) < n/2 || len(in.Input.Ops) > pick3(l, 10, 20, 30) {
				t.Errorf("dsu %s: %d elements, %d unions", l, n, len(in.Input.Ops))
			}
		}
		for _, in := range gen("trie", "compound", l, 0) {
			w := pick3(l, [2]int{8, 12}, [2]int{18, 22}, [2]int{28, 32})
			for _, op := range in.Input.Ops {
				if len(op.Word) < w[0] || len(op.Word) > w[1] {
					t.Errorf("trie %s word %q", l, op.Word)
				}
			}
		}
		for _, d := range SpatialDims() {
			for _, in := range gen("geom_graph", "construct", l, d) {
				if in.Input.Threshold != GeomThreshold(d) || len(in.Input.Coords[0]) != d {
					t.Errorf("geom %s %dd threshold %v", l, d, in.Input.Threshold)
				}
			}
		}
	}
	// Thresholds of the published data: 30, 40, 60, 85.
	for d, want := range map[int]float64{1: 30, 2: 40, 3: 60, 5: 85} {
		if GeomThreshold(d) != want {
			t.Errorf("threshold %dd = %v", d, GeomThreshold(d))
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	q, _ := LookupTask("queue", "compound")
	kdt, _ := LookupTask("kd_tree", "construct")
	kdh, _ := LookupTask("kd_heap", "compound")
	cases := []struct {
		task *Task
		cfg  GenConfig
		want string
	}{
		{q, GenConfig{Count: 1, Dim: 2}, "only to the spatial tasks"},
		{q, GenConfig{Count: -1}, "non-negative"},
		{q, GenConfig{Count: 1, Level: Level(7)}, "unknown level"},
		{kdt, GenConfig{Count: 1, Dist: "spiral"}, "unknown distribution"},
		{kdt, GenConfig{Count: 1, Dist: DistCircle, Dim: 3}, "two-dimensional"},
		{kdh, GenConfig{Count: 1, Dist: DistMoon}, "only to kd_tree"},
		{kdh, GenConfig{Count: 1, Dim: 100}, "expected 1 to 64"},
	}
	for _, c := range cases {
		if _, err := c.task.Generate(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %+v: got %v, want %q", c.task.Name(), c.cfg, err, c.want)
		}
	}
	for _, bad := range []struct{ s, o string }{{"tree", "compound"}, {"queue", "construct"}} {
		if _, err := LookupTask(bad.s, bad.o); err == nil || !strings.Contains(err.Error(), "expected one of") {
			t.Errorf("LookupTask(%s, %s): %v", bad.s, bad.o, err)
		}
	}
}

// TestTruthBadInput: malformed inputs are errors, never panics.
func TestTruthBadInput(t *testing.T) {
	cases := []struct {
		s, o string
		in   Input
		want string
	}{
		{"array", "access", Input{Array: []int{1}, Index: intp(5)}, "out of range"},
		{"array", "search", Input{}, "no array"},
		{"array", "insert", Input{Array: []int{1}, Value: intp(1)}, "no index"},
		{"lru_cache", "cache", Input{}, "capacity"},
		{"stack", "compound", Input{Ops: []Op{{Name: "enqueue"}}}, "unknown operation"},
		{"hashmap", "compound", Input{}, "bucket count"},
		{"bst", "inorder", Input{}, "no tree"},
		{"bst", "inorder", Input{Tree: []TreeNode{{Value: 1, Left: intp(2)}}}, "no row"},
		{"bst", "inorder", Input{Tree: []TreeNode{{Value: 1}, {Value: 1}}}, "twice"},
		{"bst", "inorder", Input{Tree: []TreeNode{{Value: 1, Left: intp(2), Right: intp(2)}, {Value: 2}}}, "reached twice"},
		{"bst", "inorder", Input{Tree: []TreeNode{{Value: 1}, {Value: 2}}}, "not reachable"},
		{"b_plus_tree", "compound", Input{Order: 2}, "at least 3"},
		{"kd_tree", "construct", Input{Points: [][]int{{1, 2}, {3}}}, "coordinates"},
		{"kd_heap", "compound", Input{Dim: 2, Ops: []Op{{Name: "insert", Args: []int{1}, Vec: []int{1}}}}, "coordinates"},
		{"graph", "bfs", Input{Nodes: []int{1}, Edges: [][2]int{{1, 2}}, Source: intp(1)}, "not in the node list"},
		{"graph", "dfs", Input{Nodes: []int{1}, Source: intp(3)}, "not in the node list"},
		{"dsu", "compound", Input{Array: []int{1}, Ops: []Op{{Name: "union", Args: []int{1, 2}}}}, "not an element"},
		{"geom_graph", "construct", Input{Coords: [][]float64{{1}}, Threshold: 1, From: []float64{2}}, "not one of the nodes"},
		{"geom_graph", "construct", Input{Coords: [][]float64{{1}}, From: []float64{1}}, "threshold"},
		{"bloom_filter", "compound", Input{M: 0, K: 1}, "positive sizes"},
		{"suffix_tree", "construct", Input{Word: "a$b"}, "no '$'"},
		{"rb_tree", "construct_compound", Input{Tree: []TreeNode{{Value: 1, Color: "g"}}}, "color"},
		{"graph", "realistic", Input{Names: []string{"A"}, SourceName: "B"}, "not in the node list"},
		{"bst", "realistic", Input{Ops: []Op{{Name: "insert", Word: "A"}}}, "no time"},
	}
	for _, c := range cases {
		tk, err := LookupTask(c.s, c.o)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tk.Truth(&c.in, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), tk.Name()) {
			t.Errorf("%s %+v: got %v, want an error naming the task and %q", tk.Name(), c.in, err, c.want)
		}
	}
}

func TestOptions(t *testing.T) {
	o, err := ParseOptions("pq_order=fibonacci, dsr.bst_delete=paper,kd_heap_metric=lexicographic")
	if err != nil {
		t.Fatal(err)
	}
	if o.PriorityQueue != PaperReading || o.BSTDelete != PaperReading || o.KDHeapMetric != Lexicographic || o.BPlusDelete != CodeReading {
		t.Errorf("parsed %+v", o)
	}
	p := o.Params()
	if p["dsr.pq_order"] != "fibonacci" || p["dsr.bplus_delete"] != "leaf-only" || len(p) != 6 {
		t.Errorf("params %v", p)
	}
	nd := o.NonDefault()
	var back Options
	if err := back.ApplyMap(nd); err != nil || back != o {
		t.Errorf("round trip through NonDefault: %+v %v", back, err)
	}
	if (Options{}).NonDefault() != nil {
		t.Error("default options should have no non-default entries")
	}
	for _, bad := range []string{"nope=1", "pq_order=sorted", "kd_heap_metric=paper", "pq_order"} {
		if _, err := ParseOptions(bad); err == nil {
			t.Errorf("ParseOptions(%q) should fail", bad)
		}
	}
	// An instance's recorded options apply on top of the caller's.
	tk, _ := LookupTask("bst", "compound")
	insts, err := tk.Generate(GenConfig{Count: 3, Level: Long, Seed: 9, Options: Options{BSTDelete: PaperReading}})
	if err != nil {
		t.Fatal(err)
	}
	if insts[0].Options["bst_delete"] != "predecessor" {
		t.Errorf("recorded options %v", insts[0].Options)
	}
	if rep := Verify(insts, Options{}); rep.Matched != 3 {
		t.Errorf("verify with recorded options: %v", rep.Mismatches)
	}
	var buf bytes.Buffer
	WriteJSONL(&buf, insts)
	if !strings.Contains(buf.String(), `"options":{"bst_delete":"predecessor"}`) {
		t.Errorf("options not written: %s", buf.String()[:200])
	}
}

func TestReadJSONLErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"", "no instances"},
		{"{}\n", "unknown structure"},
		{`{"structure": "queue", "operation": "compound", "level": "tiny"}`, "unknown level"},
		{`{"structure": "queue", "operation": "compound", "truth": [1, "x"]}`, "truth[1]: expected integer"},
		{"{\n", "line 1"},
	}
	for _, c := range cases {
		_, err := ReadJSONL(strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.text, err, c.want)
		}
	}
	// A valid instance round-trips its truth shape.
	var in Instance
	if err := json.Unmarshal([]byte(`{"id": "x", "structure": "bst", "operation": "insert", "level": "long", "truth": {"pre_order": [1], "post_order": [1]}}`), &in); err != nil {
		t.Fatal(err)
	}
	if in.Level != Long || shapePrePost.Repr(in.Truth) != "{'pre_order': [1], 'post_order': [1]}" {
		t.Errorf("decoded %+v", in)
	}
}

// TestWriteLevelsAndVerifyPath writes two levels of a task, reads them back
// as Generate made them, and verifies the file: every truth recomputes.
// Check refuses what Generate refuses, before anything is written.
func TestWriteLevelsAndVerifyPath(t *testing.T) {
	task, err := LookupTask("stack", "compound")
	if err != nil {
		t.Fatal(err)
	}
	cfg := GenConfig{Count: 3, Seed: 7}
	var buf bytes.Buffer
	n, err := task.WriteLevels(&buf, []Level{Short, Long}, cfg)
	if err != nil || n != 6 {
		t.Fatalf("WriteLevels: %d instances, %v; want 6", n, err)
	}
	got, err := ReadJSONL(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range []Level{Short, Long} {
		cfg.Level = l
		want, err := task.Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for k := range want {
			if got[3*i+k].ID != want[k].ID || got[3*i+k].Level != l {
				t.Errorf("instance %d: %s (%v); want %s (%v)", 3*i+k, got[3*i+k].ID, got[3*i+k].Level, want[k].ID, l)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "stack.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := task.WriteLevels(f, []Level{Short}, cfg); err != nil {
		t.Fatal(err)
	}
	f.Close()
	reps, err := VerifyPath(path, "", "", Options{})
	if err != nil || len(reps) != 1 || reps[0].Name != path || reps[0].Total != 3 || reps[0].Matched != 3 || reps[0].Skipped != "" {
		t.Errorf("VerifyPath: %+v, %v; want the file with 3 of 3 matching", reps, err)
	}
	var all VerifyReport
	all.Add(reps[0].VerifyReport)
	all.Add(VerifyReport{Total: 2, Matched: 1, Mismatches: []Mismatch{{ID: "x"}}})
	if all.Total != 5 || all.Matched != 4 || len(all.Mismatches) != 1 {
		t.Errorf("Add: %+v", all)
	}
	if err := task.Check(GenConfig{Level: Short, Dim: 3}); err == nil || !strings.Contains(err.Error(), "only to the spatial tasks") {
		t.Errorf("Check with a dimension on a stack: %v", err)
	}
}
