package dsr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/metrics"
)

func mustInstance(t *testing.T, structure, op string, in Input) *Instance {
	t.Helper()
	tk, err := LookupTask(structure, op)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := tk.Truth(&in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &Instance{ID: structure + "/" + op + "/test", Structure: structure, Operation: op, Input: in, Truth: truth}
}

// queueInst: enqueue 49, dequeue, enqueue 86, enqueue 52 → [86, 52] (the
// paper's App. C example, worked by hand).
func queueInst(t *testing.T) *Instance {
	return mustInstance(t, "queue", "compound", Input{Ops: []Op{
		{Name: "enqueue", Args: []int{49}}, {Name: "dequeue"}, {Name: "enqueue", Args: []int{86}}, {Name: "enqueue", Args: []int{52}}}})
}

func TestScoreMalformed(t *testing.T) {
	inst := queueInst(t)
	if got := shapeInts.Repr(inst.Truth); got != "[86, 52]" {
		t.Fatalf("truth %s", got)
	}
	steps := `"steps": [{"explanation": "x", "output": "y"}], `
	cases := []struct {
		name     string
		strategy Strategy
		resp     string
		binary   float64
		reason   string // substring of the reason ("" = match)
	}{
		{"exact", NoReasoning, `{"final_answer": [86, 52]}`, 1, ""},
		{"with steps", Stepwise, `{` + steps + `"final_answer": [86, 52]}`, 1, ""},
		{"fenced", NoReasoning, "```json\n{\"final_answer\": [86, 52]}\n```", 1, ""},
		{"prose around", NoReasoning, `Sure. {"final_answer": [86, 52]} Done.`, 1, ""},
		{"integral floats", NoReasoning, `{"final_answer": [86.0, 52]}`, 1, ""},
		{"extra field ignored", NoReasoning, `{"final_answer": [86, 52], "note": 1}`, 1, ""},
		{"wrong", NoReasoning, `{"final_answer": [52, 86]}`, 0, "wrong answer"},
		{"empty", NoReasoning, "   ", 0, "empty"},
		{"no json", NoReasoning, "the queue is [86, 52]", 0, "no JSON"},
		{"truncated", NoReasoning, `{"final_answer": [86, 5`, 0, "truncated JSON"},
		{"truncated steps", Stepwise, `{"steps": [{"explanation": "enqueue 49`, 0, "truncated JSON"},
		{"invalid", NoReasoning, `{"final_answer": [86,, 52]}`, 0, "invalid JSON"},
		{"string items", NoReasoning, `{"final_answer": ["86", "52"]}`, 0, "final_answer[0]: expected integer"},
		{"fraction", NoReasoning, `{"final_answer": [86.5, 52]}`, 0, "expected integer"},
		{"not a list", NoReasoning, `{"final_answer": 86}`, 0, "final_answer: expected array"},
		{"missing final", NoReasoning, `{"answer": [86, 52]}`, 0, "missing field \"final_answer\""},
		{"missing steps", Stepwise, `{"final_answer": [86, 52]}`, 0, "missing field \"steps\""},
		{"bad steps", ZeroShotCoT, `{"steps": [{"explanation": 1, "output": "y"}], "final_answer": [86, 52]}`, 0, "steps[0].explanation"},
		{"top-level array", NoReasoning, `[86, 52]`, 0, "no JSON"},
		{"null answer", NoReasoning, `{"final_answer": null}`, 0, "got null"},
		{"not utf8", NoReasoning, "{\"final_answer\": [\xff]}", 0, "UTF-8"},
		{"code only", CodeOnly, `{"final_answer": "def solution():\n    return [86, 52]"}`, 0, "ScoreCodeOutput"},
	}
	for _, c := range cases {
		v := Score(inst, c.resp, ScoreConfig{Strategy: c.strategy, Mode: metrics.ScoreLenient})
		if v.Binary != c.binary || !strings.Contains(v.Reason, c.reason) || (c.reason == "" && v.Reason != "") {
			t.Errorf("%s: binary %v reason %q, want %v and a reason containing %q", c.name, v.Binary, v.Reason, c.binary, c.reason)
		}
		if v.Levenshtein < 0 || v.Levenshtein > 1 {
			t.Errorf("%s: Levenshtein %v out of [0, 1]", c.name, v.Levenshtein)
		}
		if v.Answer == nil && v.Levenshtein != 0 {
			t.Errorf("%s: unparsed answer with partial credit %v", c.name, v.Levenshtein)
		}
	}
}

// TestLevenshtein: hand-computed distances and the paper's App. I example
// ([3,1,6] is closer to [1,3,6] than [0,0,0] is).
func TestLevenshtein(t *testing.T) {
	cases := []struct {
		a, b string
		d    int
	}{
		{"kitten", "sitting", 3},
		{"", "abc", 3},
		{"abc", "abc", 0},
		{"[1, 3, 6]", "[3, 1, 6]", 2},
		{"[1, 3, 6]", "[0, 0, 0]", 3},
		{"flaw", "lawn", 2},
	}
	for _, c := range cases {
		if d := Levenshtein(c.a, c.b); d != c.d {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
		if d := Levenshtein(c.b, c.a); d != c.d {
			t.Errorf("not symmetric for %q, %q", c.a, c.b)
		}
	}
	if Similarity("", "") != 1 || !near(Similarity("[1, 3, 6]", "[3, 1, 6]"), 1-2.0/9) {
		t.Error("similarity")
	}
	inst := mustInstance(t, "array", "reverse", Input{Array: []int{6, 3, 1}})
	close := Score(inst, `{"final_answer": [3, 1, 6]}`, ScoreConfig{Strategy: NoReasoning, Mode: metrics.ScoreLenient})
	far := Score(inst, `{"final_answer": [0, 0, 0]}`, ScoreConfig{Strategy: NoReasoning, Mode: metrics.ScoreLenient})
	if close.Binary != 0 || far.Binary != 0 || !(close.Levenshtein > far.Levenshtein) {
		t.Errorf("close %+v far %+v", close, far)
	}
}

// TestScoreSpecialTasks: hashmap answers are compared after sorting the
// buckets by number; BST insert/remove average the pre- and post-order
// similarities.
func TestScoreSpecialTasks(t *testing.T) {
	// add (1, 10), add (3, 30), add (11, 5) with 2 buckets: bucket 0 empty,
	// bucket 1 holds (1, 10), (3, 30), (11, 5) in that order.
	hm := mustInstance(t, "hashmap", "compound", Input{Buckets: 2, Ops: []Op{
		{Name: "add", Args: []int{1, 10}}, {Name: "add", Args: []int{3, 30}}, {Name: "add", Args: []int{11, 5}}}})
	swapped := `{"final_answer": [{"number": 1, "contents": [{"key": 1, "value": 10}, {"key": 3, "value": 30}, {"key": 11, "value": 5}]}, {"number": 0, "contents": []}]}`
	if v := Score(hm, swapped, ScoreConfig{Strategy: NoReasoning, Mode: metrics.ScoreLenient}); v.Binary != 1 || v.Levenshtein != 1 {
		t.Errorf("hashmap buckets out of order: %+v", v)
	}
	reordered := `{"final_answer": [{"number": 0, "contents": []}, {"number": 1, "contents": [{"key": 3, "value": 30}, {"key": 1, "value": 10}, {"key": 11, "value": 5}]}]}`
	if v := Score(hm, reordered, ScoreConfig{Strategy: NoReasoning, Mode: metrics.ScoreLenient}); v.Binary != 0 {
		t.Errorf("chain order must matter: %+v", v)
	}
	// BST 2(1, 3); insert 4 → pre [2, 1, 3, 4], post [1, 4, 3, 2].
	bst := mustInstance(t, "bst", "insert", Input{Tree: []TreeNode{{Value: 2, Left: intp(1), Right: intp(3)}, {Value: 1}, {Value: 3}}, Value: intp(4)})
	// Right pre-order, post-order "[1, 3, 4, 2]" vs "[1, 4, 3, 2]": two
	// substitutions in 12 characters → (1 + 10/12) / 2.
	v := Score(bst, `{"final_answer": {"pre_order": [2, 1, 3, 4], "post_order": [1, 3, 4, 2]}}`, ScoreConfig{Strategy: NoReasoning, Mode: metrics.ScoreLenient})
	if v.Binary != 0 || !near(v.Levenshtein, (1+10.0/12)/2) {
		t.Errorf("BST insert partial: %+v", v)
	}
	if v := Score(bst, `{"final_answer": {"pre_order": [2, 1, 3, 4]}}`, ScoreConfig{Strategy: NoReasoning, Mode: metrics.ScoreLenient}); !strings.Contains(v.Reason, "post_order") {
		t.Errorf("missing post_order: %+v", v)
	}
	// Geometric-graph answers are floats: 63.70 and 63.7 are equal.
	geo := mustInstance(t, "geom_graph", "construct", Input{Coords: [][]float64{{63.7, 1}, {60.66, 2}}, Threshold: 30, From: []float64{63.7, 1}})
	if v := Score(geo, `{"final_answer": [[63.70, 1.0], [60.66, 2]]}`, ScoreConfig{Strategy: NoReasoning, Mode: metrics.ScoreLenient}); v.Binary != 1 {
		t.Errorf("float answer: %+v", v)
	}
	// RB pairs must have exactly two items.
	rb := mustInstance(t, "rb_tree", "construct", Input{Array: []int{5}})
	if v := Score(rb, `{"final_answer": [[5, 1, 0]]}`, ScoreConfig{Strategy: NoReasoning, Mode: metrics.ScoreLenient}); !strings.Contains(v.Reason, "array of 2 items") {
		t.Errorf("pair length: %+v", v)
	}
}

func TestScoreCodeOutput(t *testing.T) {
	inst := queueInst(t)
	if v := ScoreCodeOutput(inst, "[86, 52]\n", Options{}); v.Binary != 1 {
		t.Errorf("printed list: %+v", v)
	}
	if v := ScoreCodeOutput(inst, "Traceback (most recent call last):", Options{}); v.Binary != 0 || !strings.Contains(v.Reason, "invalid output") {
		t.Errorf("traceback: %+v", v)
	}
	// The hashmap's printed form is the reference's list of buckets.
	hm := mustInstance(t, "hashmap", "compound", Input{Buckets: 2, Ops: []Op{{Name: "add", Args: []int{1, 10}}}})
	if v := ScoreCodeOutput(hm, "[[], [(1, 10)]]", Options{}); v.Binary != 1 {
		t.Errorf("hashmap output: %+v", v)
	}
	code, err := ExtractCode("{\"final_answer\": \"```python\\ndef solution():\\n    return 1\\n```\"}")
	if err != nil || code != "def solution():\n    return 1\n" {
		t.Errorf("ExtractCode: %q %v", code, err)
	}
	if _, err := ExtractCode(`{"final_answer": 3}`); err == nil {
		t.Error("non-string code should fail")
	}
}

func TestScoreAll(t *testing.T) {
	a := *queueInst(t)
	b := *queueInst(t)
	b.ID = "queue/compound/test2"
	preds, err := ReadPredictions(strings.NewReader(`{"id": "queue/compound/test", "response": "{\"final_answer\": [86, 52]}"}
{"id": "queue/compound/test", "run": 1, "answer": [1]}

{"id": "queue/compound/test2", "output": "[86, 52]"}
`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ScoreAll([]Instance{a, b}, preds, ScoreConfig{Strategy: NoReasoning, Mode: metrics.ScoreLenient})
	if err != nil {
		t.Fatal(err)
	}
	// Run 0: a matches, b matches (code output). Run 1: a wrong, b has no
	// prediction.
	got := map[string]float64{}
	reasons := map[string]string{}
	for _, r := range res {
		key := r.ID + "#" + string(rune('0'+r.Run))
		got[key] = r.Binary
		reasons[key] = r.Reason
	}
	want := map[string]float64{"queue/compound/test#0": 1, "queue/compound/test2#0": 1, "queue/compound/test#1": 0, "queue/compound/test2#1": 0}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s: %v (present %v), want %v", k, g, ok, w)
		}
	}
	if reasons["queue/compound/test2#1"] != "no prediction" {
		t.Errorf("missing prediction reason %q", reasons["queue/compound/test2#1"])
	}
	for _, bad := range []string{
		`{"id": "nope", "response": "x"}`,
		`{"id": "queue/compound/test", "response": "x"}` + "\n" + `{"id": "queue/compound/test", "response": "y"}`,
	} {
		p, err := ReadPredictions(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ScoreAll([]Instance{a}, p, ScoreConfig{}); err == nil {
			t.Errorf("%s: expected an error", bad)
		}
	}
	for _, bad := range []string{"", "not json", `{"response": "x"}`, `{"id": "a"}`, `{"id": "a", "response": "x", "answer": 1}`} {
		if _, err := ReadPredictions(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadPredictions(%q): expected an error", bad)
		}
	}
}

func TestParsePython(t *testing.T) {
	cases := []struct {
		in   string
		want string // re-printed with %v
		err  bool
	}{
		{"[1, -2, 3]", "[1 -2 3]", false},
		{"[('a', '09:00'), (\"b'c\", 'x')]", "[[a 09:00] [b'c x]]", false},
		{"[[63.7, 1e2], []]", "[[63.7 100] []]", false},
		{"{'k': [1], 2: None}", "map[2:<nil> k:[1]]", false},
		{"[True, False]", "[true false]", false},
		{"'a\\'b\\n'", "a'b\n", false},
		{"[1, 2", "", true},
		{"[1 2]", "", true},
		{"'unterminated", "", true},
		{"[1] tail", "", true},
		{strings.Repeat("[", 100) + strings.Repeat("]", 100), "", true},
	}
	for _, c := range cases {
		v, err := ParsePython(c.in)
		if (err != nil) != c.err {
			t.Errorf("ParsePython(%q): err %v", c.in, err)
			continue
		}
		if err == nil {
			if got := fmt.Sprint(v); got != c.want {
				t.Errorf("ParsePython(%q) = %s, want %s", c.in, got, c.want)
			}
		}
	}
}
