package dsrbench

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/dsr"
)

// generated returns count instances of each task and level given.
func generated(t *testing.T, count int, tasks ...[2]string) []dsr.Instance {
	t.Helper()
	var out []dsr.Instance
	for _, tk := range tasks {
		task, err := dsr.LookupTask(tk[0], tk[1])
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range dsr.Levels() {
			insts, err := task.Generate(dsr.GenConfig{Level: l, Count: count, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, insts...)
		}
	}
	return out
}

func score(t *testing.T, insts []dsr.Instance, preds []dsr.Prediction) ([]dsr.Result, dsr.Tables) {
	t.Helper()
	rs, err := dsr.ScoreAll(insts, preds, dsr.ScoreConfig{Strategy: dsr.Stepwise})
	if err != nil {
		t.Fatal(err)
	}
	return rs, dsr.Aggregate(rs)
}

var someTasks = [][2]string{{"stack", "compound"}, {"bst", "insert"}, {"heap", "compound"}, {"hashmap", "compound"},
	{"kd_tree", "construct"}, {"dawg", "compound"}}

func TestBaselines(t *testing.T) {
	insts := generated(t, 3, someTasks...)
	cases := []struct {
		kind            string
		binMin, binMax  float64
		wantReasons     []string // each must occur
		levMin, levMax  float64
		allParsed, none bool
	}{
		{kind: "oracle", binMin: 1, binMax: 1, levMin: 1, levMax: 1, allParsed: true},
		{kind: "shuffled", binMin: 0, binMax: 0.5, levMin: 0.05, levMax: 0.99, allParsed: true, wantReasons: []string{"wrong answer"}},
		// In paper mode (the default) the reference's partial credit
		// compares str(final_answer) even when it has the wrong type, so
		// the malformed baseline's {"unexpected": "object"} answers get a
		// little.
		{kind: "malformed", binMin: 0, binMax: 0, levMin: 0, levMax: 0.05, none: true,
			wantReasons: []string{"empty", "no JSON", "truncated JSON", "schema"}},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			preds, err := Baseline(c.kind, insts)
			if err != nil {
				t.Fatal(err)
			}
			if len(preds) != len(insts) {
				t.Fatalf("%d predictions for %d instances", len(preds), len(insts))
			}
			rs, tb := score(t, insts, preds)
			if o := tb.Overall; o.Binary < c.binMin || o.Binary > c.binMax || o.Levenshtein < c.levMin || o.Levenshtein > c.levMax {
				t.Errorf("overall %+v, want binary in [%v, %v], Levenshtein in [%v, %v]", o, c.binMin, c.binMax, c.levMin, c.levMax)
			}
			reasons := map[string]int{}
			for _, r := range rs {
				kind, _, _ := strings.Cut(r.Reason, ":")
				reasons[kind]++
				if c.none && r.Reason == "" {
					t.Errorf("%s scored without a reason", r.ID)
				}
				if c.allParsed && r.Reason != "" && r.Reason != "wrong answer" {
					t.Errorf("%s: %s", r.ID, r.Reason)
				}
			}
			for _, want := range c.wantReasons {
				if reasons[want] == 0 {
					t.Errorf("no response scored 0 for %q (reasons: %v)", want, reasons)
				}
			}
			// The predictions survive the JSONL round trip.
			data, err := WritePredictions(preds)
			if err != nil {
				t.Fatal(err)
			}
			back, err := dsr.ReadPredictions(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if _, tb2 := score(t, insts, back); tb2.Overall != tb.Overall {
				t.Errorf("after JSONL: %+v, before %+v", tb2.Overall, tb.Overall)
			}
		})
	}
	for _, c := range []struct {
		kind  string
		insts []dsr.Instance
		want  string
	}{
		{"best", insts, `unknown baseline "best"`},
		{"oracle", nil, "no instances"},
		{"shuffled", insts[:1], "at least 2 instances"},
	} {
		if _, err := Baseline(c.kind, c.insts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Baseline(%q, %d instances): got %v, want an error containing %q", c.kind, len(c.insts), err, c.want)
		}
	}
}

func TestMetrics(t *testing.T) {
	insts := generated(t, 2, [2]string{"stack", "compound"}, [2]string{"heap", "compound"}, [2]string{"kd_tree", "construct"})
	preds, err := Baseline("oracle", insts)
	if err != nil {
		t.Fatal(err)
	}
	// Drop the answers of the long heap instances: they score 0 ("no
	// prediction"), which the metrics must show.
	var kept []dsr.Prediction
	for _, p := range preds {
		if !strings.HasPrefix(p.ID, "heap/compound/long/") {
			kept = append(kept, p)
		}
	}
	_, tb := score(t, insts, kept)
	got := map[string]float64{}
	for _, m := range Metrics(tb) {
		if _, dup := got[m.Key]; dup {
			t.Errorf("metric %s twice", m.Key)
		}
		got[m.Key] = m.Value
	}
	want := map[string]float64{
		"score/overall":                 (1 + (2.0/3+1)/2) / 2, // Temporal 1; Hierarchical: heap 2/3, kd_tree 1
		"score/category/temporal":       1,
		"score/category/hierarchical":   (2.0/3 + 1) / 2,
		"score/challenge":               (0 + 1) / 2.0, // heap and kd_tree are challenge structures
		"levenshtein/category/temporal": 1,
		"responses/total":               18,
		"responses/unscored":            2, // the missing long heap answers
	}
	for k, v := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("no metric %s (have %d metrics)", k, len(got))
			continue
		}
		if math.Abs(g-v) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, g, v)
		}
	}
	for k := range got {
		if strings.HasPrefix(k, "score/structure/") || strings.HasPrefix(k, "score/task/") {
			t.Errorf("metric %s: per-structure and per-task scores belong in the tables, not in one-point metrics", k)
		}
		if strings.Contains(k, "linear") || strings.Contains(k, " ") || k != strings.ToLower(k) {
			t.Errorf("unexpected metric name %q", k)
		}
	}
	// Only realistic or extra results: no overall, category or challenge.
	empty := Metrics(dsr.Tables{})
	if len(empty) != 2 || empty[0].Key != "responses/total" {
		t.Errorf("metrics of empty tables: %v", empty)
	}
}

type fakeRun struct {
	metrics   map[string]float64
	artifacts map[string][]byte
	tables    map[string][][]any
	failOn    string
}

func (f *fakeRun) LogMetric(key string, step int64, v float64) error {
	if key == f.failOn {
		return fmt.Errorf("server said no")
	}
	f.metrics[key] = v
	return nil
}
func (f *fakeRun) LogArtifact(path string, data []byte) error {
	if path == f.failOn {
		return fmt.Errorf("server said no")
	}
	f.artifacts[path] = data
	return nil
}
func (f *fakeRun) LogTable(path string, cols []string, rows [][]any) error {
	f.tables[path] = rows
	return nil
}

func newFake() *fakeRun {
	return &fakeRun{metrics: map[string]float64{}, artifacts: map[string][]byte{}, tables: map[string][][]any{}}
}

func TestLog(t *testing.T) {
	insts := generated(t, 2, someTasks...)
	preds, err := Baseline("shuffled", insts)
	if err != nil {
		t.Fatal(err)
	}
	_, tb := score(t, insts, preds)
	f := newFake()
	if err := Log(f, tb, "shuffled"); err != nil {
		t.Fatal(err)
	}
	if len(f.metrics) != len(Metrics(tb)) {
		t.Errorf("%d metrics logged, want %d", len(f.metrics), len(Metrics(tb)))
	}
	for _, p := range []string{RadarArtifact, BarsArtifact} {
		if !bytes.HasPrefix(f.artifacts[p], []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s is not a PNG (%d bytes)", p, len(f.artifacts[p]))
		}
	}
	if !bytes.Contains(f.artifacts[ScoresTextArtifact], []byte("Challenge score")) || !bytes.Contains(f.artifacts[ScoresJSONArtifact], []byte(`"categories"`)) {
		t.Errorf("score artifacts incomplete")
	}
	// 6 structures in 4 categories (+4 avg rows, + overall), 6 tasks × 3 levels (k-d tree in 2-D), 4 challenge rows + score.
	for path, n := range map[string]int{StructuresTable: 6 + 4 + 1, CellsTable: 18, ChallengeTable: 4 + 1} {
		if len(f.tables[path]) != n {
			t.Errorf("%s has %d rows, want %d", path, len(f.tables[path]), n)
		}
	}
	// A failure is reported with what failed.
	for _, fail := range []string{"score/overall", RadarArtifact} {
		f := newFake()
		f.failOn = fail
		if err := Log(f, tb, "x"); err == nil || !strings.Contains(err.Error(), fail) {
			t.Errorf("failing on %s: got %v", fail, err)
		}
	}
}

func TestFigures(t *testing.T) {
	overall, radar, err := PaperFigure2("GPT-5", "Gemini-2.5-Pro", "o4-mini", "DeepSeek-R1", "Claude-3.7")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []interface{ PNG() ([]byte, error) }{overall, radar} {
		png, err := f.PNG()
		if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
			t.Errorf("PNG: %v (%d bytes)", err, len(png))
		}
	}
	// A run with only some categories: the others are marked on the radar.
	stack := generated(t, 2, [2]string{"stack", "compound"})
	preds, err := Baseline("oracle", stack)
	if err != nil {
		t.Fatal(err)
	}
	_, tb := score(t, stack, preds)
	vals, _, present := CategoryValues(tb)
	if len(vals) != 6 || !present[1] || present[0] {
		t.Errorf("category values %v, present %v", vals, present)
	}
	if _, err := CategoryRadar("r", Series{"run", tb}); err != nil {
		t.Error(err)
	}
	if _, _, err := RunFigures("run", tb); err != nil {
		t.Error(err)
	}
	if _, _, err := RunFigures("run", dsr.Tables{}); err == nil {
		t.Error("RunFigures of empty tables: no error")
	}
	for name, f := range map[string]func() error{
		"radar without series":    func() error { _, err := CategoryRadar("r"); return err },
		"bars without series":     func() error { _, err := StructureBars("b"); return err },
		"bars without structures": func() error { _, err := StructureBars("b", Series{"x", dsr.Tables{}}); return err },
		"overall without series":  func() error { _, err := OverallBars("o"); return err },
		"overall of no categories": func() error {
			_, err := OverallBars("o", Series{"x", dsr.Tables{}})
			return err
		},
		"figure 2 of an unknown model": func() error { _, _, err := PaperFigure2("GPT-6"); return err },
		"figure 2 without models":      func() error { _, _, err := PaperFigure2(); return err },
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
