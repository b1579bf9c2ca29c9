package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

func graphsCLI(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(narlabCLI(t), args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func TestGraphsTruthCLI(t *testing.T) {
	t.Parallel()
	five := `{"n": 5, "edges": [[1,2],[1,3],[1,4],[1,5],[2,3],[2,4],[3,4],[4,5]], "params": {"u": 5, "v": 2, "source": 5, "target": 3}}`
	cases := []struct {
		task, input, want, wantErr string
	}{
		{"degree", five, `{"task":"degree","answer":2}`, ""},
		{"common_neighbor", five, `{"task":"common_neighbor","answer":[1,4]}`, ""},
		{"has_cycle", five, `{"task":"has_cycle","answer":true}`, ""},
		{"density", five, `{"task":"density","answer":0.8}`, ""},
		{"bridges", five, `{"task":"bridges","answer":[]}`, ""},
		{"maximum_flow", `{"n": 3, "directed": true, "edges": [[1,2,3],[2,3,2],[1,3,1]], "params": {"source": 1, "target": 3}}`, `{"task":"maximum_flow","answer":3}`, ""},
		{"degree", `{"n": 5, "edges": [[1,2]]}`, "", `needs parameter "u"`},
		{"topological_sort", five, "", "needs a directed graph"},
		{"nope", five, "", "unknown task"},
		{"degree", `{"edges": [[1,2]]}`, "", `no "n"`},
		{"degree", `{"n": 2, "edges": [[1,2],[2,1]], "params": {"u": 1}}`, "", "duplicates"},
	}
	for _, c := range cases {
		out, stderr, err := graphsCLI(t, c.input, "graphs", "truth", "--task", c.task, "--graph", "-")
		if c.wantErr != "" {
			if err == nil || !strings.Contains(stderr, c.wantErr) || out != "" {
				t.Errorf("%s: err %v, stderr %q, stdout %q; want failure mentioning %q", c.task, err, stderr, out, c.wantErr)
			}
			continue
		}
		if err != nil || strings.TrimSpace(out) != c.want {
			t.Errorf("%s: %q (%v %s), want %q", c.task, out, err, stderr, c.want)
		}
	}
}

// graphsWorkspace writes prompts and noisy predictions through the CLI.
func graphsWorkspace(t *testing.T) (prompts, preds string) {
	dir := t.TempDir()
	prompts, preds = filepath.Join(dir, "p.jsonl"), filepath.Join(dir, "pred.jsonl")
	if _, stderr, err := graphsCLI(t, "", "graphs", "prompts", "--tasks", "degree,density,shortest_path,has_cycle", "--encoding", "E0,A1",
		"--syntax", "erdos,json", "--relabel", "3", "--count", "4", "--max-nodes", "12", "--out", prompts); err != nil || !strings.Contains(stderr, "not Erdős") {
		t.Fatalf("prompts: %v %s", err, stderr)
	}
	if _, stderr, err := graphsCLI(t, "", "graphs", "predict", "--prompts", prompts, "--predictor", "noisy", "--out", preds); err != nil {
		t.Fatalf("predict: %v %s", err, stderr)
	}
	return prompts, preds
}

func TestGraphsPromptsScoreCLI(t *testing.T) {
	t.Parallel()
	prompts, preds := graphsWorkspace(t)
	b, _ := os.ReadFile(prompts)
	if n := strings.Count(string(b), "\n"); n != 4*4*4*3 {
		t.Errorf("%d prompts, want %d", n, 4*4*4*3)
	}
	out, stderr, err := graphsCLI(t, "", "graphs", "score", "--prompts", prompts, "--predictions", preds, "--no-mlflow")
	if err != nil {
		t.Fatalf("score: %v %s", err, stderr)
	}
	for _, want := range []string{"E0/erdos/orig", "A1/erdos/relabeled", "syntax variability", "E0/json/orig best in", "normalized output spread", "density", "not Erdős",
		"scoring: paper", "lenient", "G1's checker"} {
		if !strings.Contains(out, want) {
			t.Errorf("score output lacks %q:\n%s", want, out)
		}
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"id\": \"degree/0/E0/erdos/s0/r-1\", \"answer_text\": \"x\"}\n{\"id\": 3\n"), 0o644)
	if _, stderr, err := graphsCLI(t, "", "graphs", "score", "--prompts", prompts, "--predictions", bad, "--no-mlflow"); err == nil || !strings.Contains(stderr, "line 2") {
		t.Errorf("malformed predictions: %v %s", err, stderr)
	}
	unknown := filepath.Join(dir, "unknown.jsonl")
	os.WriteFile(unknown, []byte("{\"id\": \"zzz\", \"answer_text\": \"x\"}\n"), 0o644)
	if _, stderr, err := graphsCLI(t, "", "graphs", "score", "--prompts", prompts, "--predictions", unknown, "--no-mlflow"); err == nil || !strings.Contains(stderr, "name no prompt") {
		t.Errorf("unknown ids: %v %s", err, stderr)
	}
	out2 := filepath.Join(dir, "x.jsonl")
	for _, args := range [][]string{
		{"graphs", "prompts", "--encoding", "E9", "--out", out2},
		{"graphs", "prompts", "--syntax", "yaml", "--out", out2},
		{"graphs", "prompts", "--tasks", "isomorphic_mapping", "--out", out2},
		{"graphs", "prompts", "--encoding", "A1", "--syntax", "pyg", "--out", out2},
		{"graphs", "prompts", "--relabel", "-1", "--out", out2},
	} {
		if _, stderr, err := graphsCLI(t, "", args...); err == nil || stderr == "" {
			t.Errorf("%v: succeeded", args)
		}
		if _, err := os.Stat(out2); err == nil {
			t.Errorf("%v: left a file behind", args)
		}
	}
}

// TestGraphsScoreMLflow logs a score to narlab's embedded MLflow server (a
// real `mlflow server`) and reads the run back.
func TestGraphsScoreMLflow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real MLflow server; run without -short")
	}
	if _, err := project.VenvBin("mlflow"); err != nil {
		t.Fatalf("MLflow is not installed (%v): run make setup", err)
	}
	prompts, preds := graphsWorkspace(t)
	t.Setenv("NARLAB_DATA", sharedLocalData(t))
	t.Setenv(mlflow.EnvTrackingURI, "")
	_, stderr, err := graphsCLI(t, "", "graphs", "score", "--prompts", prompts, "--predictions", preds, "--model", "noisy-baseline", "--experiment", "narlab-test/serialization")
	if err != nil {
		t.Fatalf("score: %v\n%s", err, stderr)
	}
	m := regexp.MustCompile(`MLflow run ([0-9a-f]+): (http://\S+)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no run address on stderr:\n%s", stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := tracking.Client(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	run, err := c.GetRun(ctx, m[1])
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := run.Data.Param("data.graphs"); got != "synthetic (not Erdős)" {
		t.Errorf("data.graphs = %q", got)
	}
	if got, _ := run.Data.Param("model"); got != "noisy-baseline" {
		t.Errorf("model = %q", got)
	}
	for _, key := range []string{"mean_accuracy/E0/erdos/orig", "syntax_variability", "parse_rate",
		"lenient/mean_accuracy/E0/erdos/orig", "scoring/paper_accuracy", "scoring/lenient_accuracy", "scoring/raised", "scoring/differ"} {
		if _, ok := run.Data.Metric(key); !ok {
			t.Errorf("no metric %s (both scoring modes are logged)", key)
		}
	}
	if got, _ := run.Data.Param("scoring"); got != "paper" {
		t.Errorf("scoring = %q, want paper", got)
	}
	for _, m := range run.Data.Metrics { // per-task numbers are tables, not one-point charts
		if strings.HasPrefix(m.Key, "accuracy/") || strings.HasPrefix(m.Key, "output_spread/") {
			t.Errorf("metric %s: per-task results belong in the tables", m.Key)
		}
	}
	for name, want := range map[string]string{"serialization_configs.json": "mean_delta_vs_baseline", "serialization_spread.json": "density"} {
		b, err := c.ReadArtifact(ctx, run.Info.ArtifactURI, name)
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("table %s: %v\n%.300s", name, err, b)
		}
	}
	table, err := c.ReadArtifact(ctx, run.Info.ArtifactURI, "serialization_scores.json")
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(table, &v); err != nil || !strings.Contains(string(table), "shortest_path") {
		t.Errorf("scores table: %v\n%.300s", err, table)
	}
}
