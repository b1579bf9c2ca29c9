package main

import (
	"bytes"
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
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/clrstext"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

func clrstextCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(narlabCLI(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// fixtureText returns the reference string of one algorithm from a
// CLRS-Text fixture (one Python string literal per line, CLRS-30 order).
func fixtureText(t *testing.T, file, algo string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "fixtures", "clrs-text", file))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i, a := range clrs.CLRS30() {
		if a == algo {
			l := lines[i]
			l = strings.TrimSuffix(strings.TrimPrefix(l, "'"), "'")
			return strings.NewReplacer(`\n`, "\n", `\'`, "'", `\\`, `\`).Replace(l)
		}
	}
	t.Fatalf("no algorithm %s", algo)
	return ""
}

// TestClrstextSampleCLI checks `narlab clrstext sample` against the
// reference fixtures and its errors.
func TestClrstextSampleCLI(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		file string
		algo string
	}{
		{[]string{"--format", "current", "--hints"}, "clrstext_L5_d3_h1_seed0.txt", "bellman_ford"},
		{[]string{"--format", "current", "--decimals", "3"}, "clrstext_L5_d3_h0_seed0.txt", "topological_sort"},
		{[]string{"--format", "legacy", "--hints"}, "clrstext-legacy_L5_h1_seed0.txt", "find_maximum_subarray_kadane"},
		{nil, "clrstext-legacy_L5_h0_seed0.txt", "graham_scan"},
	}
	for _, c := range cases {
		args := append([]string{"clrstext", "sample", "--algo", c.algo, "--length", "5", "--seed", "0", "--count", "2"}, c.args...)
		out, stderr, err := clrstextCLI(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("%v: %d lines", args, len(lines))
		}
		var row struct{ Algo, Text string }
		if err := json.Unmarshal([]byte(lines[0]), &row); err != nil {
			t.Fatal(err)
		}
		if want := fixtureText(t, c.file, c.algo); row.Algo != c.algo || row.Text != want {
			t.Errorf("%v:\n got %q\nwant %q", args, row.Text, want)
		}
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--algo", "bogo_sort"}, "bogo_sort"},
		{[]string{"--algo", "bfs", "--format", "html"}, `unknown format "html"`},
		{[]string{"--algo", "bfs", "--format", "current", "--decimals", "x"}, "--decimals"},
		{[]string{"--algo", "bfs", "--shift", "forest"}, `unknown shift "forest"`},
		{[]string{"--algo", "bfs", "--seed", "-1"}, "seed"},
		{[]string{}, "--algo is required"},
	} {
		out, stderr, err := clrstextCLI(t, append([]string{"clrstext", "sample"}, bad.args...)...)
		if err == nil || !strings.Contains(stderr, bad.want) || out != "" {
			t.Errorf("%v: err %v, stdout %q, stderr %q (want %q)", bad.args, err, out, stderr, bad.want)
		}
	}
}

// clrstextData generates a small test split and writes predictions: the
// right answer for even rows, a wrong final output for odd rows.
func clrstextData(t *testing.T) (data, preds string, rows int) {
	t.Helper()
	dir := t.TempDir()
	data = filepath.Join(dir, "test.jsonl")
	_, stderr, err := clrstextCLI(t, "clrstext", "generate", "--split", "test", "--algos", "bridges,minimum", "--count", "2",
		"--seeds", "3", "--hints", "--out", data)
	if err != nil || !strings.Contains(stderr, "wrote 130 rows") {
		t.Fatalf("generate: %v\n%s", err, stderr)
	}
	f, err := os.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := clrstext.ReadRows(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i, r := range rs {
		ans := r.Answer
		if i%2 == 1 {
			ans = strings.TrimSuffix(ans, "\n\n") + "9\n\n" // spoil the final output
		}
		line, _ := json.Marshal(map[string]any{"index": i, "prediction": "Here you go:\n" + ans})
		b.Write(append(line, '\n'))
	}
	preds = filepath.Join(dir, "preds.jsonl")
	if err := os.WriteFile(preds, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return data, preds, len(rs)
}

// TestClrstextGenerateScoreCLI runs generate → score offline, and the
// generator's failures (which must leave no file behind).
func TestClrstextGenerateScoreCLI(t *testing.T) {
	t.Parallel()
	data, preds, rows := clrstextData(t)
	if rows != 130 { // bridges: sizes 4..7, minimum: 4..64; 2 rows each, one seed
		t.Fatalf("%d rows", rows)
	}
	out, stderr, err := clrstextCLI(t, "clrstext", "score", "--data", data, "--predictions", preds, "--no-mlflow", "--format=json",
		"--figure", filepath.Join(filepath.Dir(data), "fig.png"))
	if err != nil {
		t.Fatalf("score: %v\n%s", err, stderr)
	}
	var rep clrstext.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, out)
	}
	if rep.Overall.N != 130 || rep.Overall.Correct != 65 || len(rep.PerAlgo) != 2 || len(rep.Cells) != 65 {
		t.Errorf("report overall %+v, %d algorithms, %d cells", rep.Overall, len(rep.PerAlgo), len(rep.Cells))
	}
	if png, err := os.ReadFile(filepath.Join(filepath.Dir(data), "fig.png")); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("figure: %v", err)
	}

	dir := t.TempDir()
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"clrstext", "generate", "--split", "dev"}, `unknown split "dev"`},
		{[]string{"clrstext", "generate", "--split", "train", "--algos", "bogo_sort"}, `unknown algorithm "bogo_sort"`},
		{[]string{"clrstext", "generate", "--split", "train", "--layout", "csv"}, `unknown layout "csv"`},
		{[]string{"clrstext", "generate", "--split", "test", "--seeds", "x"}, "--seeds"},
		{[]string{"clrstext", "score", "--data", data}, "--data and --predictions are required"},
		{[]string{"clrstext", "score", "--data", data, "--predictions", data, "--no-mlflow"}, "no prediction, output, response or completion field"},
	} {
		args := append(bad.args, "--out", filepath.Join(dir, "x.jsonl"))
		if bad.args[1] == "score" {
			args = bad.args
		}
		_, stderr, err := clrstextCLI(t, args...)
		if err == nil || !strings.Contains(stderr, bad.want) {
			t.Errorf("%v: err %v, stderr %q (want %q)", bad.args, err, stderr, bad.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed runs left files: %v", entries)
	}
}

// TestClrstextScoreMLflow logs a scoring run to narlab's local MLflow
// server and reads it back: metrics, the table and the figure.
func TestClrstextScoreMLflow(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real MLflow server; run without -short")
	}
	if _, err := project.VenvBin("mlflow"); err != nil {
		t.Fatalf("MLflow is not installed (%v): run make setup", err)
	}
	data, preds, _ := clrstextData(t)
	t.Setenv("NARLAB_DATA", sharedLocalData(t))
	t.Setenv(mlflow.EnvTrackingURI, "")
	bin := narlabCLI(t)
	cmd := exec.Command(bin, "clrstext", "score", "--data", data, "--predictions", preds, "--model", "half-right",
		"--experiment", "narlab-test/clrstext")
	cmd.Env = os.Environ()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("score: %v\n%s", err, errb.String())
	}
	m := regexp.MustCompile(`MLflow run ([0-9a-f]+): (http://\S+)`).FindStringSubmatch(errb.String())
	if m == nil {
		t.Fatalf("no run address on stderr:\n%s", errb.String())
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
	if run.Info.Status != mlflow.StatusFinished || !strings.HasPrefix(run.Info.RunName, "clrstext score half-right ") {
		t.Errorf("run %s status %s", run.Info.RunName, run.Info.Status)
	}
	if got, ok := run.Data.Metric("accuracy"); !ok || got.Value != 0.5 {
		t.Errorf("accuracy = %v (present %v), want 0.5", got.Value, ok)
	}
	for _, k := range []string{"ttff", "macro_accuracy", "accuracy/minimum", "ttff/bridges", "accuracy_by_length/minimum"} {
		if _, ok := run.Data.Metric(k); !ok {
			t.Errorf("no metric %s", k)
		}
	}
	if got, _ := run.Data.Param("rows"); got != "130" {
		t.Errorf("param rows = %q", got)
	}
	png, err := c.ReadArtifact(ctx, run.Info.ArtifactURI, "figures/accuracy_vs_length.png")
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("figure artifact: %v (%d bytes)", err, len(png))
	}
	table, err := c.ReadArtifact(ctx, run.Info.ArtifactURI, "scores.json")
	if err != nil || !strings.Contains(string(table), `"minimum"`) {
		t.Errorf("score table: %v\n%s", err, table)
	}
}

// TestClrstextGenerateDefaultPrecision: `clrstext generate --format
// current` follows generate_clrs_text.py, whose default is full precision
// (--num_decimals_in_float None), while `clrstext sample` keeps the
// Hugging Face generator's 3 decimals; both help texts name both.
func TestClrstextGenerateDefaultPrecision(t *testing.T) {
	t.Parallel()
	gen, stderr, err := clrstextCLI(t, "clrstext", "generate", "--split", "test", "--algos", "insertion_sort", "--count", "1",
		"--seeds", "3", "--format", "current", "--quiet")
	if err != nil {
		t.Fatalf("generate: %v\n%s", err, stderr)
	}
	rs, err := clrstext.ReadRows(strings.NewReader(gen))
	if err != nil || len(rs) == 0 || rs[0].Length != 4 {
		t.Fatalf("generate: %v, %d rows", err, len(rs))
	}
	sample := func(extra ...string) string {
		out, stderr, err := clrstextCLI(t, append([]string{"clrstext", "sample", "--algo", "insertion_sort", "--length", "4", "--seed", "3",
			"--count", "1", "--format", "current"}, extra...)...)
		if err != nil {
			t.Fatalf("sample: %v\n%s", err, stderr)
		}
		var row struct{ Text string }
		if err := json.Unmarshal([]byte(out), &row); err != nil {
			t.Fatal(err)
		}
		return row.Text
	}
	full, three := sample("--decimals", "none"), sample()
	if rs[0].Question+rs[0].Answer != full {
		t.Errorf("generate's default row is not full precision:\n%s\nwant\n%s", rs[0].Question+rs[0].Answer, full)
	}
	if full == three || !regexp.MustCompile(`key: \[0\.\d{4,}`).MatchString(full) {
		t.Errorf("full precision and 3 decimals look alike: %q / %q", full, three)
	}
	for _, cmd := range []string{"generate", "sample"} {
		_, help, _ := clrstextCLI(t, "clrstext", cmd, "-h")
		if !strings.Contains(help, "generate_clrs_text.py") || !strings.Contains(help, "huggingface_generators.clrs_generator") {
			t.Errorf("clrstext %s -h does not name both reference generators:\n%s", cmd, help)
		}
	}
}
