package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/experiments/dsrbench"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// dsrCLI runs the narlab binary with env added, returning stdout, stderr
// and the error.
func dsrCLI(t *testing.T, env []string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(narlabCLI(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// dsrWorkspace generates instances of three tasks (all levels, 3 each)
// with `narlab dsr generate`, verifies them with `narlab dsr verify`, and
// writes the oracle and shuffled baselines' answers with `narlab dsr
// baseline`. It returns the instance file and the folder.
func dsrWorkspace(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	var all []byte
	for _, task := range [][2]string{{"stack", "compound"}, {"heap", "compound"}, {"bst", "insert"}} {
		f := filepath.Join(dir, task[0]+".jsonl")
		out, stderr, err := dsrCLI(t, nil, "dsr", "generate", "--structure", task[0], "--operation", task[1],
			"--level", "all", "--count", "3", "--seed", "11", "--out", f)
		if err != nil || !strings.Contains(out, "wrote 9 ") {
			t.Fatalf("dsr generate %v: %v\n%s%s", task, err, out, stderr)
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, data...)
	}
	insts := filepath.Join(dir, "instances.jsonl")
	if err := os.WriteFile(insts, all, 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := dsrCLI(t, nil, "dsr", "verify", "--input", insts)
	if err != nil || !strings.Contains(out, "27 instances in 1 files, 27 match, 0 mismatch") {
		t.Fatalf("dsr verify: %v\n%s%s", err, out, stderr)
	}
	for _, kind := range []string{"oracle", "shuffled", "malformed"} {
		out, stderr, err := dsrCLI(t, nil, "dsr", "baseline", "--input", insts, "--predictor", kind, "--out", filepath.Join(dir, kind+".jsonl"))
		if err != nil || !strings.Contains(out, "wrote 27 "+kind+" answers") {
			t.Fatalf("dsr baseline --predictor %s: %v\n%s%s", kind, err, out, stderr)
		}
	}
	return insts, dir
}

// TestDSRGenerateVerifyScore runs generate → verify → baseline → score
// offline (--no-mlflow) through the CLI, and the failures each step must
// report.
func TestDSRGenerateVerifyScore(t *testing.T) {
	t.Parallel()
	insts, dir := dsrWorkspace(t)
	offline := func(args ...string) dsr.Tables {
		t.Helper()
		out, stderr, err := dsrCLI(t, nil, append([]string{"dsr", "score", "--input", insts, "--no-mlflow", "--format=json"}, args...)...)
		if err != nil {
			t.Fatalf("dsr score %v: %v\n%s", args, err, stderr)
		}
		if strings.Contains(stderr, "MLflow") {
			t.Errorf("--no-mlflow still talked to MLflow: %s", stderr)
		}
		var tb dsr.Tables
		if err := json.Unmarshal([]byte(out), &tb); err != nil {
			t.Fatalf("dsr score --json printed %q: %v", out, err)
		}
		return tb
	}
	cases := []struct {
		kind                 string
		scoring              string
		binary, lev          float64 // overall; negative: only check < 1 and > 0
		unscored, challenges int
	}{
		{"oracle", "paper", 1, 1, 0, 1},
		{"shuffled", "paper", -1, -1, 0, 1},
		// The lenient reading gives malformed answers nothing; the
		// reference's scripts (paper) give a wrongly typed final_answer a
		// little partial credit.
		{"malformed", "lenient", 0, 0, 27, 1},
		{"malformed", "paper", 0, -1, 27, 1},
	}
	for _, c := range cases {
		tb := offline("--predictions", filepath.Join(dir, c.kind+".jsonl"), "--scoring", c.scoring)
		if len(tb.Structures) != 3 || len(tb.Cells) != 9 || len(tb.Challenge.Rows) != c.challenges {
			t.Errorf("%s: %d structures, %d cells, %d challenge rows", c.kind, len(tb.Structures), len(tb.Cells), len(tb.Challenge.Rows))
		}
		o := tb.Overall
		if c.binary == 0 && c.lev < 0 && (o.Binary != 0 || o.Levenshtein <= 0 || o.Levenshtein > 0.05) {
			t.Errorf("%s (%s): overall %+v, want binary 0 and a little partial credit", c.kind, c.scoring, o)
			continue
		}
		if c.binary >= 0 && c.lev >= 0 && (o.Binary != c.binary || o.Levenshtein != c.lev) {
			t.Errorf("%s: overall %+v, want binary %v, Levenshtein %v", c.kind, o, c.binary, c.lev)
		}
		if c.binary < 0 && !(o.Binary < 1 && o.Levenshtein > 0 && o.Levenshtein < 1) {
			t.Errorf("%s: overall %+v, want a partial score", c.kind, o)
		}
		unscored := 0
		for _, cell := range tb.Cells {
			unscored += cell.Failed
		}
		if unscored != c.unscored {
			t.Errorf("%s: %d unscored responses, want %d", c.kind, unscored, c.unscored)
		}
	}

	// The text tables, the reasons and the figures.
	figs := filepath.Join(dir, "figs")
	out, stderr, err := dsrCLI(t, nil, "dsr", "score", "--input", insts, "--predictions", filepath.Join(dir, "malformed.jsonl"),
		"--tracking", "none", "--reasons", "--figures", figs)
	if err != nil {
		t.Fatalf("dsr score: %v\n%s", err, stderr)
	}
	for _, want := range []string{"Overall", "Challenge score", "responses that could not be scored:", "truncated JSON", "no JSON"} {
		if !strings.Contains(out, want) {
			t.Errorf("dsr score output lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"category_radar.png", "structure_bars.png"} {
		data, err := os.ReadFile(filepath.Join(figs, f))
		if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) {
			t.Errorf("--figures did not write %s: %v", f, err)
		}
	}

	// Bad input: a clear error, exit status 1.
	tampered := filepath.Join(dir, "tampered.jsonl")
	data, _ := os.ReadFile(insts)
	lines := strings.SplitN(string(data), "\n", 2)
	var inst map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &inst); err != nil {
		t.Fatal(err)
	}
	inst["truth"] = []int{999}
	first, _ := json.Marshal(inst)
	os.WriteFile(tampered, append(append(first, '\n'), lines[1]...), 0o644)
	unknown := filepath.Join(dir, "unknown.jsonl")
	os.WriteFile(unknown, []byte(`{"id": "stack/compound/short/99", "response": "{}"}`+"\n"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"verify a tampered truth", []string{"dsr", "verify", "--input", tampered}, "1 of 27 instances do not match"},
		{"score without predictions", []string{"dsr", "score", "--input", insts}, "--input and --predictions are required"},
		{"prediction for an unknown instance", []string{"dsr", "score", "--input", insts, "--predictions", unknown, "--no-mlflow"}, `unknown instance "stack/compound/short/99"`},
		{"unknown baseline", []string{"dsr", "baseline", "--input", insts, "--predictor", "best", "--out", "-"}, `unknown baseline "best"`},
		{"bad strategy", []string{"dsr", "score", "--input", insts, "--predictions", unknown, "--strategy", "5-shot", "--no-mlflow"}, "5-shot"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, stderr, err := dsrCLI(t, nil, c.args...)
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 1 {
				t.Fatalf("exit: %v, want status 1\n%s%s", err, out, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q does not contain %q", stderr, c.want)
			}
		})
	}
	// A scorable run with an address that is not a server fails before
	// logging, naming what is expected.
	_, stderr, err = dsrCLI(t, nil, "dsr", "score", "--input", insts, "--predictions", filepath.Join(dir, "oracle.jsonl"), "--tracking", "file:///tmp/mlruns")
	if err == nil || !strings.Contains(stderr, "http://") || !strings.Contains(stderr, "--no-mlflow") {
		t.Errorf("--tracking file://: %v\n%s", err, stderr)
	}
}

// TestDSRScoreMLflow scores the shuffled baseline against narlab's embedded
// MLflow server (a real `mlflow server` from the project's environment)
// and reads the run back: params, every metric, the tables and the
// figures.
func TestDSRScoreMLflow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real MLflow server; run without -short")
	}
	if _, err := project.VenvBin("mlflow"); err != nil {
		t.Fatalf("MLflow is not installed (%v): run scripts/setup.sh (make setup)", err)
	}
	insts, dir := dsrWorkspace(t)
	t.Setenv("NARLAB_DATA", sharedLocalData(t))
	t.Setenv(mlflow.EnvTrackingURI, "")
	preds := filepath.Join(dir, "shuffled.jsonl")

	out, stderr, err := dsrCLI(t, nil, "dsr", "score", "--input", insts, "--predictions", preds, "--format=json",
		"--model", "shuffled-baseline", "--experiment", "narlab-test/dsr", "--option", "bst_delete=predecessor")
	if err != nil {
		t.Fatalf("dsr score: %v\n%s", err, stderr)
	}
	var tb dsr.Tables
	if err := json.Unmarshal([]byte(out), &tb); err != nil {
		t.Fatalf("stdout is not the JSON tables (%v): %q", err, out)
	}
	m := regexp.MustCompile(`MLflow run ([0-9a-f]+): (http://\S+)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no run address on stderr:\n%s", stderr)
	}
	runID := m[1]

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := tracking.Client(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	run, err := c.GetRun(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Info.Status != mlflow.StatusFinished || !strings.HasPrefix(run.Info.RunName, "dsr score shuffled-baseline ") {
		t.Errorf("run %s status %s", run.Info.RunName, run.Info.Status)
	}
	for k, want := range map[string]string{"instances": insts, "predictions": preds, "strategy": "stepwise",
		"dsr.bst_delete": "predecessor", "dsr.pq_order": "flat", "n_instances": "27", "n_predictions": "27", "model": "shuffled-baseline"} {
		if got, ok := run.Data.Param(k); !ok || got != want {
			t.Errorf("param %s = %q, want %q", k, got, want)
		}
	}
	if got, _ := run.Data.Tag("model"); got != "shuffled-baseline" {
		t.Errorf("tag model = %q", got)
	}
	metrics := dsrbench.Metrics(tb)
	results := 0 // the run's metrics less the system/… samples and the other scoring mode's
	for _, m := range run.Data.Metrics {
		if !strings.HasPrefix(m.Key, "system/") && !strings.HasPrefix(m.Key, "lenient/") && !strings.HasPrefix(m.Key, "scoring/") {
			results++
		}
	}
	if results != len(metrics) {
		t.Errorf("the run has %d result metrics, want %d", results, len(metrics))
	}
	if got, _ := run.Data.Param("scoring"); got != "paper" {
		t.Errorf("param scoring = %q, want paper", got)
	}
	for _, key := range []string{"lenient/score/overall", "lenient/levenshtein/overall", "scoring/paper_binary", "scoring/lenient_binary", "scoring/raised", "scoring/differ"} {
		if _, ok := run.Data.Metric(key); !ok {
			t.Errorf("no metric %s (both scoring modes are logged)", key)
		}
	}
	for _, want := range metrics {
		got, ok := run.Data.Metric(want.Key)
		if !ok || math.Abs(got.Value-want.Value) > 1e-12 {
			t.Errorf("metric %s = %v (present %v), want %v", want.Key, got.Value, ok, want.Value)
		}
	}
	for _, key := range []string{"score/overall", "score/category/hierarchical", "score/challenge"} {
		if _, ok := run.Data.Metric(key); !ok {
			t.Errorf("no metric %s", key)
		}
	}
	files, err := c.ListArtifactsRecursive(ctx, run.Info.ArtifactURI, "")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range files {
		have[f.Path] = true
	}
	for _, p := range []string{dsrbench.RadarArtifact, dsrbench.BarsArtifact, dsrbench.StructuresTable, dsrbench.CellsTable,
		dsrbench.ChallengeTable, dsrbench.ScoresJSONArtifact, dsrbench.ScoresTextArtifact} {
		if !have[p] {
			t.Errorf("artifact %s missing (have %v)", p, have)
		}
	}
	png, err := c.ReadArtifact(ctx, run.Info.ArtifactURI, dsrbench.RadarArtifact)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("radar artifact: %v (%d bytes)", err, len(png))
	}
	table, err := c.ReadArtifact(ctx, run.Info.ArtifactURI, dsrbench.StructuresTable)
	if err != nil || !strings.Contains(string(table), `"Heap"`) || !strings.Contains(string(table), `"Overall"`) {
		t.Errorf("structures table: %v\n%s", err, table)
	}

	// --tracking names the server explicitly: a second run lands there.
	_, stderr, err = dsrCLI(t, nil, "dsr", "score", "--input", insts, "--predictions", filepath.Join(dir, "oracle.jsonl"),
		"--tracking", c.URI(), "--experiment", "narlab-test/dsr")
	if err != nil {
		t.Fatalf("dsr score --tracking %s: %v\n%s", c.URI(), err, stderr)
	}
	m = regexp.MustCompile(`MLflow run ([0-9a-f]+): `).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no run address on stderr:\n%s", stderr)
	}
	run2, err := c.GetRun(ctx, m[1])
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := run2.Data.Metric("score/overall"); !ok || got.Value != 1 {
		t.Errorf("oracle run: score/overall = %v (present %v), want 1", got.Value, ok)
	}
	if got, _ := run2.Data.Param("model"); got != "oracle" {
		t.Errorf("default model name %q, want the predictions file's name \"oracle\"", got)
	}
}
