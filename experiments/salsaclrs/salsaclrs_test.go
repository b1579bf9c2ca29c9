package salsaclrs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// TestRunLogsParentAndChildren runs the protocol at a tiny budget against a
// real MLflow server and reads it back with MLflow's own Python client: a
// parent run per algorithm (params, training loss, validation score, a
// per-set table) and a finished child run per test set with its score.
func TestRunLogsParentAndChildren(t *testing.T) {
	srv := mlflowtest.Server(t)
	cfg := Config{Algos: []string{"bfs"}, TestSets: []string{"er_16", "delaunay_160"}, Steps: 6, EvalEvery: 3,
		TrainSamples: 40, ValSamples: 8, TestSamples: func(int) int { return 3 }, Hidden: 8, Backend: "go",
		TrackingURI: srv.URL, Experiment: "salsa-test"}
	res, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || len(res[0].Tests) != 2 {
		t.Fatalf("results %+v; want one algorithm with two test sets", res)
	}
	r := res[0]
	runs := mlflowtest.ReadRuns(t, srv.URL, r.RunID)
	parent := runs[r.RunID]
	if parent.Status != "FINISHED" || parent.Params["algorithm"] != "bfs" || parent.Params["train_steps"] != "6" {
		t.Errorf("parent run: status %s, params %v", parent.Status, parent.Params)
	}
	for _, k := range []string{"train/loss", "val/score", "test/er_16/score", "test/delaunay_160/score"} {
		if len(parent.Metrics[k]) == 0 {
			t.Errorf("parent run has no %s", k)
		}
	}
	children := mlflowtest.Children(t, srv.URL, r.RunID)
	if len(children) != 2 {
		t.Fatalf("%d child runs, want 2", len(children))
	}
	got := mlflowtest.ReadRuns(t, srv.URL, children...)
	sets := map[string]bool{}
	for _, c := range got {
		sets[c.Params["test_set"]] = true
		if c.Status != "FINISHED" {
			t.Errorf("child %s: status %s", c.Params["test_set"], c.Status)
		}
		sc := c.Metrics["test/score"]
		if len(sc) != 1 || sc[0].Value < 0 || sc[0].Value > 1 {
			t.Errorf("child %s: test/score %v; want one fraction", c.Params["test_set"], sc)
		}
	}
	if !sets["er_16"] || !sets["delaunay_160"] {
		t.Errorf("children cover %v", sets)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Algos: []string{"quicksort"}}, "unknown algorithm"},
		{Config{TestSets: []string{"train"}}, "not a test set"},
		{Config{TestSets: []string{"er_17"}}, "er_17"},
		{Config{Processor: "triplet_gmpnn"}, "no sparse form"},
		{Config{HintMode: "encoded_decoded"}, "hints"},
	} {
		c.cfg.NoMLflow = true
		if _, err := Run(t.Context(), c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.cfg, err, c.want)
		}
	}
}

func TestFigure(t *testing.T) {
	pts := []Point{{"bfs", "er", 16, 1}, {"bfs", "er", 1600, 0.9}, {"bfs", "ws", 16, 1}, {"bfs", "ws", 1600, 0.7},
		{"dfs", "er", 16, 0.6}, {"dfs", "er", 160, 0.4}}
	f, err := Figure(pts)
	if err != nil {
		t.Fatal(err)
	}
	png, err := f.PNG()
	if err != nil || len(png) < 1000 {
		t.Fatalf("PNG: %d bytes, %v", len(png), err)
	}
	if _, err := Figure(nil); err == nil {
		t.Error("Figure(nil) drew something")
	}
	// Sizes span two decades: a log x axis with a tick at each size.
	p := f.Panels[0][0]
	if fmt.Sprintf("%T", p.X.Scale) != "plot.LogScale" { // (this package does not import gonum's plot)
		t.Errorf("x scale %T, want a log scale", p.X.Scale)
	}
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(16, 1600) {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "16 1600" {
		t.Errorf("bfs panel's x ticks %q, want \"16 1600\"", got)
	}
}

// TestTableOrder: whatever order the algorithms ran in, the table's columns
// and the figure's points follow SALSA-CLRS's order (bfs, dfs, dijkstra,
// mst_prim, fast_mis, eccentricity).
func TestTableOrder(t *testing.T) {
	res := func(algo string, score float64) Result {
		return Result{Algo: algo, Tests: []SetResult{{Set: "er_16", Family: "er", N: 16, Samples: 3, Scores: map[string]float64{"score": score}}}}
	}
	tests := []struct {
		ran  []string
		want string // the header's algorithms
	}{
		{[]string{"bfs", "dfs"}, "bfs | dfs"},
		{[]string{"fast_mis", "eccentricity", "bfs"}, "bfs | fast_mis | eccentricity"},
		{[]string{"eccentricity", "mst_prim", "dijkstra", "dfs"}, "dfs | dijkstra | mst_prim | eccentricity"},
	}
	for _, tt := range tests {
		var results []Result
		for i, a := range tt.ran {
			results = append(results, res(a, float64(i+1)/10))
		}
		header := strings.SplitN(Table(results), "\n", 2)[0]
		if want := "| family | n | graphs | " + tt.want + " |"; header != want {
			t.Errorf("ran %v: header %q, want %q", tt.ran, header, want)
		}
		var order []string
		for _, p := range Points(results) {
			order = append(order, p.Algo)
		}
		if got := strings.Join(order, " | "); got != tt.want {
			t.Errorf("ran %v: points in order %q, want %q", tt.ran, got, tt.want)
		}
		// Scores stay with their algorithm.
		row := strings.SplitN(Table(results), "\n", 4)[2]
		for i, a := range tt.ran {
			col := slices.Index(strings.Split(tt.want, " | "), a)
			if cells := strings.Split(row, "|"); strings.TrimSpace(cells[4+col]) != fmt.Sprintf("%.1f", float64(i+1)*10) {
				t.Errorf("ran %v: %s's cell %q, want %.1f", tt.ran, a, cells[4+col], float64(i+1)*10)
			}
		}
	}
}

// TestDirResumes runs with a results directory: the first run writes
// ALGO.json, results.md and figure.png; a second run with the same settings
// reads the results back without training (the same scores); one with
// other settings is refused, naming the setting.
func TestDirResumes(t *testing.T) {
	dir := t.TempDir()
	var log strings.Builder
	cfg := Config{Algos: []string{"bfs"}, TestSets: []string{"er_16", "ws_80"}, Steps: 4, EvalEvery: 2,
		TrainSamples: 20, ValSamples: 4, TestSamples: func(int) int { return 2 }, Hidden: 8, Backend: "go",
		NoMLflow: true, Dir: dir, Progress: &log, NodesPerBatch: 100}
	first, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Two 80-node graphs, 100 nodes a batch: progress after each batch.
	if !strings.Contains(log.String(), "bfs: ws_80: batch 1 of 2 evaluated") {
		t.Errorf("no progress line for ws_80's first batch:\n%s", log.String())
	}
	for _, f := range []string{"bfs.json", "results.md", "figure.png"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	table, err := os.ReadFile(filepath.Join(dir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| family | n | graphs | bfs |", "| er | 16 | 2 |", "| ws | 80 | 2 |"} {
		if !strings.Contains(string(table), want) {
			t.Errorf("results.md lacks %q:\n%s", want, table)
		}
	}
	log.Reset()
	again, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "done before") || strings.Contains(log.String(), "drawing") {
		t.Errorf("the second run trained again:\n%s", log.String())
	}
	if len(again) != 1 || again[0].Tests[1].Scores["score"] != first[0].Tests[1].Scores["score"] || again[0].BestStep != first[0].BestStep {
		t.Errorf("read back %+v, want %+v", again, first)
	}
	// Another algorithm in the same directory: the summary covers both.
	other := cfg
	other.Algos = []string{"fast_mis"}
	if _, err := Run(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	if table, err := os.ReadFile(filepath.Join(dir, "results.md")); err != nil || !strings.Contains(string(table), "| family | n | graphs | bfs | fast_mis |") {
		t.Errorf("results.md after a fast_mis run in bfs's directory (%v):\n%s", err, table)
	}
	cfg.Steps = 6
	if _, err := Run(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "train_steps") {
		t.Errorf("other settings in the same directory: error %v, want one naming train_steps", err)
	}
}

// TestDirResumesTestSets resumes an algorithm interrupted while testing:
// the retrained model is the same (training is deterministic), so the sets
// of ALGO.partial.json are kept (a marked score proves it) and the others
// are tested; a partial file whose best validation differs from the
// retrained model's is not trusted.
func TestDirResumesTestSets(t *testing.T) {
	dir := t.TempDir()
	var log strings.Builder
	cfg := Config{Algos: []string{"bfs"}, TestSets: []string{"er_16", "ws_80"}, Steps: 4, EvalEvery: 2,
		TrainSamples: 20, ValSamples: 4, TestSamples: func(int) int { return 2 }, Hidden: 8, Backend: "go",
		NoMLflow: true, Dir: dir, Progress: &log}
	first, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	interrupt := func(bestStep int) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, "bfs.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s saved
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		s.Tests = s.Tests[:1]
		s.Tests[0].Scores = map[string]float64{"score": 0.123}
		s.BestStep = bestStep
		if err := savePartial(dir, s.Params, &s.Result); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(dir, "bfs.json")); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name     string
		bestStep int
		kept     bool
	}{{"same model", first[0].BestStep, true}, {"another model", first[0].BestStep + 1, false}} {
		t.Run(c.name, func(t *testing.T) {
			interrupt(c.bestStep)
			log.Reset()
			res, err := Run(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := res[0].Tests[0].Scores["score"]
			if kept := got == 0.123; kept != c.kept {
				t.Errorf("er_16's score %v: kept %v, want %v\n%s", got, kept, c.kept, log.String())
			}
			if res[0].Tests[1].Scores["score"] != first[0].Tests[1].Scores["score"] {
				t.Errorf("ws_80 tested again: %v, first run %v", res[0].Tests[1].Scores, first[0].Tests[1].Scores)
			}
			if _, err := os.Stat(filepath.Join(dir, "bfs.partial.json")); !os.IsNotExist(err) {
				t.Errorf("bfs.partial.json left behind: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "bfs.json")); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestProtocolScores: the protocol reports SALSA-CLRS's per-graph scores
// under "score" and the outputs' names, CLRS's pooled ones beside them.
func TestProtocolScores(t *testing.T) {
	got := protocolScores(map[string]float64{"inmis": 0.5, "score": 0.5, "salsa/inmis": 0.6, "salsa_score": 0.6})
	want := map[string]float64{"inmis": 0.6, "score": 0.6, "clrs/inmis": 0.5, "clrs_score": 0.5}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("protocolScores: %v, want %v", got, want)
	}
}

// TestTrainingResumes interrupts a training after its third step (its
// second evaluation is due at step 4), runs it again and compares it with
// the same training run straight through in another directory: the
// resumed one continues from the checkpoint (not from scratch) and ends
// exactly where the straight one does: every step's loss, the validation
// curve, the best step and the test scores. In MLflow the resumed
// session's run carries the whole validation curve.
func TestTrainingResumes(t *testing.T) {
	srv := mlflowtest.Server(t)
	cfg := Config{Algos: []string{"bfs"}, TestSets: []string{"er_16"}, Steps: 6, EvalEvery: 2,
		TrainSamples: 20, ValSamples: 4, TestSamples: func(int) int { return 3 }, Hidden: 8, Backend: "go",
		TrackingURI: srv.URL, Experiment: "salsa-resume"}
	straight := cfg
	straight.Dir = t.TempDir()
	want, err := Run(t.Context(), straight)
	if err != nil {
		t.Fatal(err)
	}

	var log strings.Builder
	cfg.Dir, cfg.Progress = t.TempDir(), &log
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	cfg.afterStep = func(algo string, step int) {
		if step == 3 {
			stop()
		}
	}
	if _, err := Run(ctx, cfg); err == nil || !strings.Contains(err.Error(), "interrupted after 3 steps, saved in") {
		t.Fatalf("interrupted run: error %v; want one saying it saved 3 steps", err)
	}
	cfg.afterStep = nil
	got, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "bfs: resuming the training at step 3") {
		t.Errorf("the rerun did not resume:\n%s", log.String())
	}
	if got[0].BestStep != want[0].BestStep || got[0].BestVal != want[0].BestVal ||
		fmt.Sprint(got[0].Tests[0].Scores) != fmt.Sprint(want[0].Tests[0].Scores) {
		t.Errorf("resumed: best %v at %d, test %v; straight: best %v at %d, test %v", got[0].BestVal, got[0].BestStep,
			got[0].Tests[0].Scores, want[0].BestVal, want[0].BestStep, want[0].Tests[0].Scores)
	}
	state := func(dir string) trainState {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(dir, "bfs", "last", stateFile))
		if err != nil {
			t.Fatal(err)
		}
		var st trainState
		if err := json.Unmarshal(data, &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	a, b := state(cfg.Dir), state(straight.Dir)
	if a.Step != 6 || len(a.Losses) != 6 || fmt.Sprint(a.Losses) != fmt.Sprint(b.Losses) || fmt.Sprint(a.History) != fmt.Sprint(b.History) {
		t.Errorf("resumed: step %d, losses %v, history %v\nstraight: losses %v, history %v", a.Step, a.Losses, a.History, b.Losses, b.History)
	}
	runs := mlflowtest.ReadRuns(t, srv.URL, got[0].RunID)
	r := runs[got[0].RunID]
	if r.Status != "FINISHED" || r.Tags["resumed_at_step"] != "3" || len(r.Metrics["val/score"]) != 3 || len(r.Metrics["train/loss"]) != 3 {
		t.Errorf("resumed run: %s, resumed_at_step %q, %d val/score and %d train/loss points; want FINISHED at 3, the whole curve (3) and this session's losses (3)",
			r.Status, r.Tags["resumed_at_step"], len(r.Metrics["val/score"]), len(r.Metrics["train/loss"]))
	}
}
