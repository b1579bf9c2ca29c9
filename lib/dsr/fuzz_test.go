package dsr

import (
	"encoding/json"
	"strings"
	"testing"
)

// fuzzInstances are instances of differently shaped answers.
func fuzzInstances(t testing.TB) []*Instance {
	mk := func(structure, op string, in Input) *Instance {
		tk, err := LookupTask(structure, op)
		if err != nil {
			t.Fatal(err)
		}
		truth, err := tk.Truth(&in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return &Instance{ID: structure + "/" + op, Structure: structure, Operation: op, Input: in, Truth: truth}
	}
	return []*Instance{
		mk("queue", "compound", Input{Ops: []Op{{Name: "enqueue", Args: []int{1}}, {Name: "enqueue", Args: []int{2}}}}),
		mk("array", "search", Input{Array: []int{4, 5}, Value: intp(5)}),
		mk("hashmap", "compound", Input{Buckets: 3, Ops: []Op{{Name: "add", Args: []int{4, 1}}}}),
		mk("bst", "remove", Input{Tree: []TreeNode{{Value: 2, Left: intp(1)}, {Value: 1}}, Value: intp(2)}),
		mk("rb_tree", "construct", Input{Array: []int{3, 1, 2}}),
		mk("dawg", "compound", Input{Ops: []Op{{Name: "insert", Word: "ab"}}}),
		mk("geom_graph", "construct", Input{Coords: [][]float64{{1.5}, {2}}, Threshold: 30, From: []float64{1.5}}),
		mk("lru_cache", "cache", Input{Capacity: 2, Ops: []Op{{Name: "access", Args: []int{1}}}}),
	}
}

// FuzzParseResponse feeds arbitrary model output to the scorer of every
// answer shape and strategy: it must never panic, scores stay in range, a
// zero always has a reason, and a parsed answer conforms to its shape.
func FuzzParseResponse(f *testing.F) {
	seeds := []string{
		`{"final_answer": [1, 2]}`,
		`{"steps": [{"explanation": "a", "output": "b"}], "final_answer": [1, 2]}`,
		"```json\n{\"final_answer\": 1}\n```",
		`{"final_answer": [{"number": 0, "contents": []}, {"number": 1, "contents": [{"key": 4, "value": 1}]}, {"number": 2, "contents": []}]}`,
		`{"final_answer": {"pre_order": [1], "post_order": [1]}}`,
		`{"final_answer": [[2, 1], [1, 0], [3, 0]]}`,
		`{"final_answer": [["", "F"], ["a", "F"], ["ab", "T"]]}`,
		`{"final_answer": [[1.5], [2.0]]}`,
		`{"final_answer": [1, 2`,
		`{"final_answer": "[1, 2]"}`,
		`{"final_answer": [1e400]}`,
		`{"final_answer": [-0.0, 9007199254740993]}`,
		`{"steps": null, "final_answer": []}`,
		"",
		"{",
		"}{",
		"\x00\xff",
		strings.Repeat("[", 200),
		`text {"final_answer": 1} more {"final_answer": 2}`,
	}
	for _, s := range seeds {
		f.Add(s, uint8(0))
		f.Add(s, uint8(4))
	}
	insts := fuzzInstances(f)
	f.Fuzz(func(t *testing.T, resp string, strat uint8) {
		s := Strategy(int(strat) % len(strategyNames))
		for _, inst := range insts {
			v := Score(inst, resp, ScoreConfig{Strategy: s})
			if v.Binary != 0 && v.Binary != 1 {
				t.Fatalf("binary %v", v.Binary)
			}
			if v.Levenshtein < 0 || v.Levenshtein > 1 {
				t.Fatalf("levenshtein %v", v.Levenshtein)
			}
			if v.Binary == 0 && v.Reason == "" {
				t.Fatalf("zero without a reason for %q", resp)
			}
			if v.Answer != nil && s != CodeOnly {
				tk, _ := inst.Task()
				// A parsed answer is canonical: converting it again is
				// the identity, and its JSON decodes back to it.
				again, err := tk.Answer.Convert(v.Answer, "final_answer")
				if err != nil || !equalValues(again, v.Answer) {
					t.Fatalf("parsed answer not canonical: %v", err)
				}
				b, err := json.Marshal(v.Answer)
				if err != nil {
					t.Fatalf("marshal: %v", err)
				}
				back, err := tk.Answer.DecodeJSON(b, "final_answer")
				if err != nil || !equalValues(back, v.Answer) {
					t.Fatalf("JSON round trip of %s: %v", b, err)
				}
			}
		}
	})
}

// FuzzParsePython: the Python-literal reader never panics and what it
// accepts prints back (through a shape) into text it accepts again.
func FuzzParsePython(f *testing.F) {
	for _, s := range []string{"[1, 2]", "[('a', '09:00')]", "{'k': [1.5, -2]}", "[[], [(1, 2)]]", "'x\\'y'", "[1,", "((((", "None", "1e5", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParsePython(s)
		if err != nil {
			return
		}
		if c, err := shapeIntRows.Convert(v, "v"); err == nil {
			if _, err := ParsePython(shapeIntRows.Repr(c)); err != nil {
				t.Fatalf("repr of %q does not parse: %v", s, err)
			}
		}
	})
}
