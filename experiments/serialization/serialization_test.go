package serialization

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/graphtext"
)

func genPrompts(t *testing.T, spec Spec) []Record {
	t.Helper()
	var buf bytes.Buffer
	n, err := Generate(&buf, spec)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadPrompts(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != n {
		t.Fatalf("wrote %d, read %d", n, len(recs))
	}
	return recs
}

func predictAll(t *testing.T, recs []Record, predictor string) map[string]string {
	out := map[string]string{}
	for _, r := range recs {
		s, err := Predict(r, predictor, 1)
		if err != nil {
			t.Fatal(err)
		}
		out[r.ID] = s
	}
	return out
}

func TestGenerateAndScore(t *testing.T) {
	tasks, err := graphtext.ParseTasks("degree,shortest_path,density,bfs,min_vertex_cover,is_tournament")
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Tasks: tasks, Encodings: []graphtext.Encoding{"E0", "E2", "E5", "A1", "M"}, Syntaxes: graphtext.Syntaxes(),
		Relabel: 3, Seeds: 2, Instances: 4, Seed: 9, Gen: graphtext.GenOptions{MaxNodes: 15}, Wrap: true}
	recs := genPrompts(t, spec)
	// 6 tasks × 4 instances × 4 labelings × (E0 ×4 syntaxes + E2 + E5×2 seeds×2 (erdos, +3 syntaxes) + A1 + M)
	perInst := 4 + 1 + 2*4 + 1 + 1
	if want := 6 * 4 * 4 * perInst; len(recs) != want {
		t.Fatalf("%d prompts, want %d", len(recs), want)
	}
	for _, r := range recs[:50] {
		if !r.Synthetic || r.Source != "synthetic" {
			t.Fatal("synthetic prompts not marked")
		}
		if !strings.Contains(r.Prompt, "\\boxed{ANSWER}") || !strings.Contains(r.Prompt, "Question: ") {
			t.Fatalf("prompt %q", r.Prompt)
		}
	}
	rep, err := Score(recs, predictAll(t, recs, PredictOracle), graphtext.ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Configs {
		for _, task := range rep.Tasks {
			if ts := rep.Scores[c][task]; ts.Accuracy != 100 || ts.ParseRate != 100 {
				t.Errorf("oracle %s %s: accuracy %v parse %v", c, task, ts.Accuracy, ts.ParseRate)
			}
		}
	}
	s := rep.Summarize()
	if s.SyntaxVariability != 0 || s.BestIn["E0/json/orig"] != 6 || len(rep.Configs) != 2*11 {
		t.Errorf("oracle summary %+v, configs %v", s, rep.Configs)
	}
	for task, sp := range rep.Spread {
		if sp.Mean != 0 || sp.Used == 0 {
			t.Errorf("oracle spread %s: %+v", task, sp)
		}
	}
	if _, ok := rep.Spread["degree"]; !ok {
		t.Error("no output spread for the numerical task degree")
	}
	// The noisy predictor is wrong 30% of the time and spreads numerical answers.
	noisy, err := Score(recs, predictAll(t, recs, PredictNoisy), graphtext.ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := noisy.MeanAccuracy(Baseline)
	if m < 40 || m > 95 {
		t.Errorf("noisy baseline accuracy %v, want about 70", m)
	}
	if sp := noisy.Spread["density"]; sp.Mean <= 0 {
		t.Errorf("noisy spread %+v, want > 0", sp)
	}
	// Constant answers: the tournament task is Yes or No about half the time.
	cons, err := Score(recs, predictAll(t, recs, PredictConstant), graphtext.ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a := cons.Scores[Baseline]["degree"].Accuracy; a != 0 {
		t.Errorf("constant 0 degree accuracy %v", a)
	}
}

func TestScoreMissingAndUnknown(t *testing.T) {
	tasks, _ := graphtext.ParseTasks("degree")
	recs := genPrompts(t, Spec{Tasks: tasks, Instances: 3})
	preds := predictAll(t, recs, PredictOracle)
	delete(preds, recs[0].ID)
	rep, err := Score(recs, preds, graphtext.ExtractOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := rep.Scores[Baseline]["degree"]
	if rep.Missing != 1 || ts.Answered != 2 || math.Abs(ts.Accuracy-200.0/3) > 1e-9 {
		t.Errorf("missing %d, score %+v", rep.Missing, ts)
	}
	preds["nope"] = "x"
	if _, err := Score(recs, preds, graphtext.ExtractOptions{}); err == nil || !strings.Contains(err.Error(), "name no prompt") {
		t.Errorf("unknown id: %v", err)
	}
}

func TestGenerateErrors(t *testing.T) {
	var buf bytes.Buffer
	if _, err := Generate(&buf, Spec{Encodings: []graphtext.Encoding{"A1"}, Syntaxes: []graphtext.Syntax{"json"}}); err == nil {
		t.Error("A1 × json accepted")
	}
	if _, err := Generate(&buf, Spec{Relabel: -1}); err == nil {
		t.Error("negative relabel accepted")
	}
	bad := []struct{ in, want string }{
		{"{\"id\": \"a\"}", "line 1: want id, task, graph and answer"},
		{"\n{", "line 2"},
	}
	for _, c := range bad {
		if _, err := ReadPrompts(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadPrompts(%q): %v", c.in, err)
		}
	}
}

// TestRelabeledPromptsConsistent: the relabeled prompts' question and
// answer use the new labels, and the stored answer is valid on the
// stored graph.
func TestRelabeledPromptsConsistent(t *testing.T) {
	tasks, _ := graphtext.ParseTasks("shortest_path,common_neighbor")
	recs := genPrompts(t, Spec{Tasks: tasks, Relabel: 2, Instances: 3, Seed: 4})
	for _, r := range recs {
		task, _ := graphtext.LookupTask(r.Task)
		g, err := graphtext.ReadJSON(bytes.NewReader(r.Graph))
		if err != nil {
			t.Fatal(err)
		}
		gold, _ := graphtext.DecodeAnswer(task.Kind, r.Answer)
		if err := task.Validate(g, gold); err != nil {
			t.Errorf("%s: stored answer invalid: %v", r.ID, err)
		}
		if !strings.Contains(r.Prompt, task.QuestionFor(g)) {
			t.Errorf("%s: prompt lacks %q", r.ID, task.QuestionFor(g))
		}
		if (r.Relabel >= 0) != (len(r.Perm) == g.N) {
			t.Errorf("%s: perm %v", r.ID, r.Perm)
		}
	}
}

func ExamplePredict() {
	tasks, _ := graphtext.ParseTasks("edge_number")
	var buf bytes.Buffer
	Generate(&buf, Spec{Tasks: tasks, Instances: 1, Seed: 3})
	recs, _ := ReadPrompts(&buf)
	out, _ := Predict(recs[0], PredictOracle, 0)
	fmt.Println(recs[0].ID, recs[0].Synthetic)
	fmt.Println(out == "Therefore, the final answer is: $\\boxed{"+string(recs[0].Answer)+"}$.")
	// Output:
	// edge_number/0/E0/erdos/s0/r-1 true
	// true
}
