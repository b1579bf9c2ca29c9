package clrs30

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// several is a small run of three algorithms in one model on the pure-Go
// backend, with dropout and teacher forcing (their draws, each algorithm's
// in its own layout, resume exactly).
func several(dir string) Config {
	return Config{Algo: "bfs,dfs,insertion_sort", Processor: "mpnn", Steps: 6, EvalEvery: 3, Batch: 2, Hidden: 8,
		TrainLength: 4, ValSamples: 4, TestSamples: 4, Seed: 5, Backend: "go", Dir: dir, NoMLflow: true,
		Dropout: 0.1, TeacherForcing: 0.5}
}

// TestSeveralAlgorithmsResume: a run of several algorithms interrupted and
// rerun is the uninterrupted run (each step's loss, the validations of
// each algorithm, the test scores); its model holds the three algorithms,
// its step count is the optimizer's three updates a step, and the best
// checkpoint scores each algorithm's test split as the run reported
// (Evaluate, what narlab eval calls).
func TestSeveralAlgorithmsResume(t *testing.T) {
	full, err := Run(context.Background(), several(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Losses) != 6 || len(full.History) != 2 || len(full.AlgorithmScores) != 2 {
		t.Fatalf("%d losses, history %+v, algorithm scores %v; want 6 and validations at 3 and 6", len(full.Losses), full.History, full.AlgorithmScores)
	}
	for k, p := range full.History {
		mean := 0.0
		for _, s := range full.AlgorithmScores[k] {
			mean += s / 3
		}
		if math.Abs(p.Score-mean) > 1e-12 {
			t.Errorf("validation at step %d: score %v, the algorithms' %v (mean %v)", p.Step, p.Score, full.AlgorithmScores[k], mean)
		}
	}
	mean := 0.0
	for _, a := range []string{"bfs", "dfs", "insertion_sort"} {
		tb, ok := full.TestByAlgorithm[a]
		if !ok || tb["score"] != full.Test["score/"+a] {
			t.Errorf("%s's test scores %v; the run's %v", a, tb, full.Test)
		}
		mean += tb["score"] / 3
	}
	if math.Abs(full.Test["score"]-mean) > 1e-12 {
		t.Errorf("test score %v, the algorithms' mean %v", full.Test["score"], mean)
	}
	be, err := nn.Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	m, err := nn.Load(be, full.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Config().Algorithms; !slices.Equal(got, []string{"bfs", "dfs", "insertion_sort"}) {
		t.Errorf("the checkpoint's algorithms %v", got)
	}
	if got := m.Step(); got != int64(3*full.BestStep) {
		t.Errorf("the best checkpoint (step %d) has taken %d updates; want 3 a step", full.BestStep, got)
	}
	m.Close()
	sc, err := Evaluate(full.Checkpoint, "test", "go", 4)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range full.Test {
		if sc[k] != v {
			t.Errorf("Evaluate's %s %v, the run's %v", k, sc[k], v)
		}
	}

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cfg := several(dir)
	cfg.AfterStep = func(step int, _ float64) {
		if step == 4 {
			cancel()
		}
	}
	_, err = Run(ctx, cfg)
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want an interruption", err)
	}
	res, err := Run(context.Background(), several(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Losses, full.Losses) || !slices.Equal(res.History, full.History) {
		t.Errorf("resumed: losses %v history %+v; want %v, %+v", res.Losses, res.History, full.Losses, full.History)
	}
	for k := range full.AlgorithmScores {
		if !slices.Equal(res.AlgorithmScores[k], full.AlgorithmScores[k]) {
			t.Errorf("resumed: validation %d's scores %v, want %v", k, res.AlgorithmScores[k], full.AlgorithmScores[k])
		}
	}
	for k, v := range full.Test {
		if res.Test[k] != v {
			t.Errorf("resumed: test %s %v, want %v", k, res.Test[k], v)
		}
	}
	// "+" separates algorithms too (a sweep's lists are comma-separated):
	// the same settings, so the same run directory's finished run.
	plus := several(dir)
	plus.Algo = "bfs+dfs+insertion_sort"
	again, err := Run(context.Background(), plus)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Saved || again.Test["score"] != full.Test["score"] || again.TestByAlgorithm["dfs"]["score"] != full.TestByAlgorithm["dfs"]["score"] {
		t.Errorf("bfs+dfs+insertion_sort in the finished run's directory: saved %v, test %v", again.Saved, again.Test)
	}
}

// TestSeveralAlgorithmsErrors: --algo lists that name an algorithm twice,
// an unknown one or an empty item are refused before any work.
func TestSeveralAlgorithmsErrors(t *testing.T) {
	for algo, want := range map[string]string{
		"bfs,dfs,bfs":   `names bfs twice`,
		"bfs,bogosort":  `unknown algorithm "bogosort" in --algo "bfs,bogosort"`,
		"bfs,,dfs":      `want an algorithm or a comma-separated list`,
		"bfs,":          `want an algorithm or a comma-separated list`,
		"bogosort":      `unknown --algo "bogosort"`,
		"bfs+dfs,dfs+x": `names dfs twice`,
	} {
		cfg := several(t.TempDir())
		cfg.Algo = algo
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--algo %q: %v, want %q", algo, err, want)
		}
	}
}

// TestSeveralAlgorithmsMLflow logs a run of several algorithms to a real
// MLflow server and reads it back with MLflow's Python client: one run,
// the algorithms as its algorithm param, each algorithm's training loss
// every step (train/loss/ALGO) and validation score (val/score/ALGO, whose
// mean is val/score), its test score and best validation score
// (test/score/ALGO, val/best_score/ALGO), each algorithm's train, val and
// test data as inputs, and the results table with one row per algorithm
// and the mean's; with --test-every, the current model's test scores every
// that many steps.
func TestSeveralAlgorithmsMLflow(t *testing.T) {
	srv := mlflowtest.Server(t)
	t.Setenv(mlflow.EnvTrackingURI, "")
	t.Setenv(mlflow.EnvExperimentName, "")
	t.Setenv(mlflow.EnvRunID, "")
	t.Setenv(tracking.EnvTrackingTimeout, "2m")
	cfg := several(t.TempDir())
	cfg.NoMLflow, cfg.TrackingURI, cfg.Experiment = false, srv.URL, "narlab-test/several"
	cfg.TestEvery = 3
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := mlflowtest.ReadRuns(t, srv.URL, res.RunID)[res.RunID]
	if r.Params["algorithm"] != "bfs,dfs,insertion_sort" {
		t.Errorf("param algorithm %q", r.Params["algorithm"])
	}
	algos := []string{"bfs", "dfs", "insertion_sort"}
	for i, a := range algos {
		if n := len(r.Metrics["train/loss/"+a]); n != 6 {
			t.Errorf("train/loss/%s: %d points, want 6", a, n)
		}
		val := r.Metrics["val/score/"+a]
		if len(val) != 2 || val[0].Step != 3 || val[0].Value != res.AlgorithmScores[0][i] {
			t.Errorf("val/score/%s %+v; the run's %v", a, val, res.AlgorithmScores)
		}
		for key, want := range map[string]float64{MetricTestScore + "/" + a: res.TestByAlgorithm[a]["score"],
			MetricBestVal + "/" + a: res.BestValByAlgorithm[a]} {
			if p := r.Metrics[key]; len(p) != 1 || p[0].Value != want {
				t.Errorf("%s %+v, want %v", key, p, want)
			}
		}
	}
	// --test-every 3: the model as it is, tested at steps 3 and 6; at
	// step 6 the last checkpoint is the best one or not, so only the
	// points are checked, and that each is the algorithms' mean.
	for _, key := range append([]string{MetricTestNow}, MetricTestNow+"/bfs", MetricTestNow+"/dfs", MetricTestNow+"/insertion_sort") {
		if p := r.Metrics[key]; len(p) != 2 || p[0].Step != 3 || p[1].Step != 6 {
			t.Errorf("%s %+v; want points at steps 3 and 6", key, p)
		}
	}
	if p, per := r.Metrics[MetricTestNow], r.Metrics[MetricTestNow+"/dfs"]; len(p) == 2 && len(per) == 2 {
		mean := (r.Metrics[MetricTestNow+"/bfs"][0].Value + per[0].Value + r.Metrics[MetricTestNow+"/insertion_sort"][0].Value) / 3
		if math.Abs(p[0].Value-mean) > 1e-12 {
			t.Errorf("%s at step 3 %v, the algorithms' mean %v", MetricTestNow, p[0].Value, mean)
		}
	}
	if p := r.Metrics["val/score"]; len(p) != 2 || math.Abs(p[1].Value-res.History[1].Score) > 1e-12 {
		t.Errorf("val/score %+v; history %+v", p, res.History)
	}
	contexts := map[string]int{}
	for _, d := range r.Datasets {
		contexts[d.Context]++
	}
	if contexts["train"] != 3 || contexts["val"] != 3 || contexts["test"] != 3 {
		t.Errorf("dataset inputs by context %v; want 3 of each", contexts)
	}
	var table struct {
		Columns []string
		Data    [][]any
	}
	mlflowtest.Python(t, srv.URL, `
import json, sys, mlflow
p = mlflow.artifacts.download_artifacts(run_id=sys.argv[1], artifact_path="results.json")
print(open(p).read())
`, &table, res.RunID)
	if len(table.Data) != 4 {
		t.Fatalf("results.json: %d rows, want one per algorithm and the mean's: %+v", len(table.Data), table)
	}
	for i, a := range append(algos, "bfs,dfs,insertion_sort") {
		if table.Data[i][0] != a {
			t.Errorf("row %d is %v, want %s", i, table.Data[i][0], a)
		}
	}
	if !slices.Contains(r.Artifacts, "plots/validation_curve.png") {
		t.Errorf("artifacts %v: no validation curves", r.Artifacts)
	}
	raw, _ := json.Marshal(res.TestByAlgorithm)
	t.Logf("test scores by algorithm: %s", raw)

}
