package mlflow

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Integration tests against a real `mlflow server` (see main_test.go).

// readBackPy reads a run back through MLflow's Python client:
// mlflow.search_runs, MlflowClient.get_metric_history, list_artifacts and
// download_artifacts. Non-finite values are written as strings, as in
// MLflow's REST JSON.
const readBackPy = `
import hashlib, json, math, os, sys, tempfile
import mlflow
from mlflow import MlflowClient

run_id, exp_id, keys = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
def num(v):
    if isinstance(v, float) and math.isnan(v): return "NaN"
    if isinstance(v, float) and math.isinf(v): return "Infinity" if v > 0 else "-Infinity"
    return v
client = MlflowClient()
df = mlflow.search_runs(experiment_ids=[exp_id], filter_string=f"attributes.run_id = '{run_id}'")
row = {k: (num(v) if isinstance(v, float) else str(v)) for k, v in df.to_dict("records")[0].items()} if len(df) else {}
hist = {k: [[m.step, num(m.value), m.timestamp] for m in client.get_metric_history(run_id, k)] for k in keys}
def walk(path=None):
    out = []
    for f in client.list_artifacts(run_id, path):
        out += walk(f.path) if f.is_dir else [f.path]
    return out
paths = walk()
files = {}
with tempfile.TemporaryDirectory() as d:
    for p in paths:
        local = mlflow.artifacts.download_artifacts(run_id=run_id, artifact_path=p, dst_path=d)
        files[p] = hashlib.sha256(open(local, "rb").read()).hexdigest()
print(json.dumps({"row": row, "history": hist, "artifacts": paths, "sha256": files}))
`

type pyReadBack struct {
	Row       map[string]any      `json:"row"`
	History   map[string][][3]any `json:"history"`
	Artifacts []string            `json:"artifacts"`
	SHA256    map[string]string   `json:"sha256"`
}

// storedValue is what a SQL-backed MLflow server returns for v: ±Inf is
// stored as ±MaxFloat64.
func storedValue(v float64) float64 {
	switch {
	case math.IsInf(v, 1):
		return math.MaxFloat64
	case math.IsInf(v, -1):
		return -math.MaxFloat64
	}
	return v
}

func sameValue(got, want float64) bool {
	want = storedValue(want)
	return got == want || math.IsNaN(got) && math.IsNaN(want)
}

func testPNG(t testing.TB) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			img.Set(x, y, color.RGBA{uint8(4 * x), uint8(5 * y), 128, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	tags := []Tag{
		{TagSourceName, "narlab/tracking/mlflow.test"}, {TagSourceType, SourceLocal},
		{TagUser, "tester"}, {TagGitCommit, "0123456789abcdef0123456789abcdef01234567"},
		{TagNote, "# Round trip\nEvery value logged from Go, read back through REST and Python."},
	}
	r, err := c.StartRun(ctx, RunOptions{Experiment: "narlab-test/round-trip", RunName: "round-trip", Tags: tags,
		SpoolDir: newSpoolDir(t), FlushInterval: 50 * time.Millisecond, Logf: quietLogf(t)})
	if err != nil {
		t.Fatal(err)
	}
	if r.RunID() == "" {
		t.Fatalf("the run was not created on a running server")
	}
	params := map[string]string{"model.hidden": "128", "model.processor": "mpnn", "algo": "bfs", "lr": "0.001",
		"long": strings.Repeat("p", MaxParamValueLength), "empty": ""}
	if err := r.LogParams(params); err != nil {
		t.Fatal(err)
	}
	if err := r.SetTag("clrs.algorithm", "bfs"); err != nil {
		t.Fatal(err)
	}
	if err := r.SetTag("clrs.stage", "draft"); err != nil {
		t.Fatal(err)
	}
	if err := r.SetTag("clrs.stage", "final"); err != nil { // last write wins
		t.Fatal(err)
	}
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	want := map[string][]Metric{}
	log := func(key string, step int64, v float64) {
		ts := t0.Add(time.Duration(step) * time.Millisecond)
		if err := r.LogMetricAt(key, step, v, ts); err != nil {
			t.Fatal(err)
		}
		want[key] = append(want[key], Metric{Key: key, Value: v, Step: step, Timestamp: ts.UnixMilli()})
	}
	for step := int64(0); step < 1500; step++ {
		log("train/loss", step, 1/float64(step+1))
		if step%10 == 0 {
			log("val/score", step, float64(step)/1500)
		}
	}
	for step, v := range []float64{1, math.NaN(), math.Inf(1), math.Inf(-1), -0.5, 1e-300, 1e300} {
		log("train/grad_norm", int64(step), v)
	}
	pngData := testPNG(t)
	if err := r.LogArtifactBytes("plots/curve.png", pngData); err != nil {
		t.Fatal(err)
	}
	ckpt := make([]byte, 300<<10)
	for i := range ckpt {
		ckpt[i] = byte(rand.IntN(256))
	}
	ckptFile := filepath.Join(t.TempDir(), "model.bin")
	os.WriteFile(ckptFile, ckpt, 0o644)
	if err := r.LogArtifactFile(ckptFile, "checkpoints/model.bin"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(ckptFile, []byte("changed after logging"), 0o644) // the spooled copy is what counts
	if err := r.LogTable("tables/scores.json", []string{"algorithm", "score"}, [][]any{{"bfs", 0.93}, {"dfs", 0.41}}); err != nil {
		t.Fatal(err)
	}
	if err := r.End(ctx, StatusFinished); err != nil {
		t.Fatalf("End: %v", err)
	}
	runID, expID := r.RunID(), r.ExperimentID()
	if _, err := os.Stat(filepath.Join(r.SpoolDir(), requestsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the delivered spool was not compacted: %v", err)
	}

	// Through the REST API.
	run, err := c.GetRun(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Info.Status != StatusFinished || run.Info.EndTime == 0 || run.Info.RunName != "round-trip" {
		t.Errorf("run info %+v", run.Info)
	}
	for k, v := range params {
		if got, ok := run.Data.Param(k); !ok || got != v {
			t.Errorf("param %s = %.40q (set %v), want %.40q", k, got, ok, v)
		}
	}
	if len(run.Data.Params) != len(params) {
		t.Errorf("%d params, want %d", len(run.Data.Params), len(params))
	}
	wantTags := map[string]string{"clrs.algorithm": "bfs", "clrs.stage": "final", TagRunName: "round-trip",
		SpoolIDTag: r.LocalID(), TagLoggedArtifacts: `[{"path":"tables/scores.json","type":"table"}]`}
	for _, tg := range tags {
		wantTags[tg.Key] = tg.Value
	}
	for k, v := range wantTags {
		if got, _ := run.Data.Tag(k); got != v {
			t.Errorf("tag %s = %q, want %q", k, got, v)
		}
	}
	keys := []string{"train/loss", "val/score", "train/grad_norm"}
	for _, k := range keys {
		hist, err := c.GetMetricHistory(ctx, runID, k)
		if err != nil {
			t.Fatal(err)
		}
		checkHistory(t, "REST "+k, hist, want[k])
	}
	if m, _ := run.Data.Metric("train/loss"); m.Step != 1499 {
		t.Errorf("latest train/loss at step %d, want 1499", m.Step)
	}
	files, err := c.ListArtifactsRecursive(ctx, run.Info.ArtifactURI, "")
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := map[string][]byte{"plots/curve.png": pngData, "checkpoints/model.bin": ckpt,
		"tables/scores.json": []byte(`{"columns":["algorithm","score"],"data":[["bfs",0.93],["dfs",0.41]]}`)}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
		b, err := c.ReadArtifact(ctx, run.Info.ArtifactURI, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, wantFiles[f.Path]) {
			t.Errorf("artifact %s: %d bytes differ from the %d logged", f.Path, len(b), len(wantFiles[f.Path]))
		}
		if int(f.FileSize) != len(wantFiles[f.Path]) {
			t.Errorf("artifact %s listed with size %d, want %d", f.Path, f.FileSize, len(wantFiles[f.Path]))
		}
	}
	sort.Strings(got)
	if want := []string{"checkpoints/model.bin", "plots/curve.png", "tables/scores.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("artifacts %v, want %v", got, want)
	}

	// Through MLflow's Python client.
	var py pyReadBack
	python(t, readBackPy, &py, runID, expID, strings.Join(keys, ","))
	for k, v := range params {
		if got := py.Row["params."+k]; got != v {
			t.Errorf("python: params.%s = %.40q, want %.40q", k, got, v)
		}
	}
	for k, v := range wantTags {
		if got := py.Row["tags."+k]; got != v {
			t.Errorf("python: tags.%s = %q, want %q", k, got, v)
		}
	}
	if py.Row["status"] != "FINISHED" {
		t.Errorf("python: status %v", py.Row["status"])
	}
	if got := py.Row["metrics.val/score"]; got != want["val/score"][len(want["val/score"])-1].Value {
		t.Errorf("python: metrics.val/score = %v", got)
	}
	for _, k := range keys {
		var hist []Metric
		for _, p := range py.History[k] {
			var m Metric
			b, _ := json.Marshal(map[string]any{"key": k, "step": p[0], "value": p[1], "timestamp": p[2]})
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			hist = append(hist, m)
		}
		checkHistory(t, "python "+k, hist, want[k])
	}
	sort.Strings(py.Artifacts)
	if !reflect.DeepEqual(py.Artifacts, got) {
		t.Errorf("python: artifacts %v, want %v", py.Artifacts, got)
	}
	for p, data := range wantFiles {
		sum := sha256.Sum256(data)
		if py.SHA256[p] != hex.EncodeToString(sum[:]) {
			t.Errorf("python: artifact %s has another content", p)
		}
	}
}

// checkHistory compares a metric history with the points logged: every
// point exactly once, in step order.
func checkHistory(t *testing.T, what string, got, want []Metric) {
	t.Helper()
	sort.SliceStable(got, func(i, j int) bool { return got[i].Step < got[j].Step })
	if len(got) != len(want) {
		t.Errorf("%s: %d points, want %d", what, len(got), len(want))
	}
	for i := 0; i < min(len(got), len(want)); i++ {
		g, w := got[i], want[i]
		if g.Key != w.Key || g.Step != w.Step || g.Timestamp != w.Timestamp || !sameValue(g.Value, w.Value) {
			t.Errorf("%s: point %d = %+v, want %+v", what, i, g, w)
			return
		}
	}
}

// checkSteps checks that a history holds the steps 0..n-1 exactly once.
func checkSteps(t *testing.T, what string, hist []Metric, n int) {
	t.Helper()
	count := map[int64]int{}
	for _, m := range hist {
		count[m.Step]++
	}
	var dups, missing []int64
	for s, c := range count {
		if c > 1 {
			dups = append(dups, s)
		}
	}
	for s := int64(0); s < int64(n); s++ {
		if count[s] == 0 {
			missing = append(missing, s)
		}
	}
	if len(hist) != n || len(dups) > 0 || len(missing) > 0 {
		t.Errorf("%s: %d points for %d steps; duplicated steps %v; missing steps %v", what, len(hist), n, head(dups), head(missing))
	}
}

func head(s []int64) string {
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) > 10 {
		return fmt.Sprint(s[:10]) + "…(" + strconv.Itoa(len(s)) + ")"
	}
	return fmt.Sprint(s)
}

func TestExperimentsAndSearch(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	name := fmt.Sprintf("narlab-test/sweep-%d", time.Now().UnixNano())
	e1, err := c.GetOrCreateExperiment(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	e2, err := c.GetOrCreateExperiment(ctx, name)
	if err != nil || e2.ID != e1.ID {
		t.Fatalf("get-or-create twice: %v, %v", e2, err)
	}
	if _, err := c.CreateExperiment(ctx, name); !IsAlreadyExists(err) {
		t.Errorf("creating an existing experiment: %v", err)
	}
	if _, err := c.GetExperimentByName(ctx, name+"-none"); !IsNotFound(err) {
		t.Errorf("a missing experiment: %v", err)
	}
	exps, err := c.SearchExperiments(ctx, SearchOptions{Filter: fmt.Sprintf("name = '%s'", name)})
	if err != nil || len(exps) != 1 || exps[0].ID != e1.ID {
		t.Errorf("SearchExperiments: %v, %v", exps, err)
	}

	// A sweep: a parent run and nested children.
	parent, err := c.StartRun(ctx, RunOptions{Experiment: name, RunName: "sweep", SpoolDir: newSpoolDir(t), Logf: quietLogf(t)})
	if err != nil {
		t.Fatal(err)
	}
	for i, lr := range []string{"0.1", "0.01", "0.001"} {
		child, err := c.StartRun(ctx, RunOptions{Experiment: name, RunName: "lr=" + lr, Parent: parent, SpoolDir: newSpoolDir(t), Logf: quietLogf(t)})
		if err != nil {
			t.Fatal(err)
		}
		child.LogParam("lr", lr)
		child.LogMetric("val/score", 100, float64(i)/10)
		if err := child.End(ctx, StatusFinished); err != nil {
			t.Fatal(err)
		}
	}
	if err := parent.End(ctx, StatusFinished); err != nil {
		t.Fatal(err)
	}
	children, err := c.SearchRuns(ctx, []string{e1.ID}, SearchOptions{
		Filter: fmt.Sprintf(`tags."%s" = '%s'`, TagParentRunID, parent.RunID()), OrderBy: []string{"params.lr ASC"}})
	if err != nil {
		t.Fatal(err)
	}
	var lrs []string
	for _, r := range children {
		v, _ := r.Data.Param("lr")
		lrs = append(lrs, v)
	}
	if !reflect.DeepEqual(lrs, []string{"0.001", "0.01", "0.1"}) {
		t.Errorf("nested runs by lr: %v", lrs)
	}
	best, err := c.SearchRuns(ctx, []string{e1.ID}, SearchOptions{Filter: "metrics.`val/score` > 0.05", OrderBy: []string{"metrics.`val/score` DESC"}, MaxResults: 1})
	if err != nil || len(best) != 1 {
		t.Fatalf("search by metric: %v, %v", best, err)
	}
	if v, _ := best[0].Data.Param("lr"); v != "0.001" {
		t.Errorf("best run has lr %s, want 0.001", v)
	}
	all, err := c.SearchRuns(ctx, []string{e1.ID}, SearchOptions{})
	if err != nil || len(all) != 4 {
		t.Errorf("all runs: %d, %v", len(all), err)
	}
	if _, err := c.SearchRuns(ctx, []string{e1.ID}, SearchOptions{Filter: "params.lr ="}); err == nil || !strings.Contains(err.Error(), "HTTP 400") {
		t.Errorf("a bad filter: %v", err)
	}
}

// TestDirectClient exercises the synchronous client calls.
func TestDirectClient(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	e, err := c.GetOrCreateExperiment(ctx, "narlab-test/direct")
	if err != nil {
		t.Fatal(err)
	}
	run, err := c.CreateRun(ctx, CreateRunOptions{ExperimentID: e.ID, RunName: "direct", Tags: []Tag{{"a", "b"}}})
	if err != nil {
		t.Fatal(err)
	}
	id := run.Info.RunID
	var ms []Metric
	for i := 0; i < 2345; i++ {
		ms = append(ms, Metric{Key: "train/loss", Value: float64(i), Step: int64(i), Timestamp: int64(1000 + i)})
	}
	if err := c.LogBatch(ctx, id, Batch{Metrics: ms, Params: []Param{{"p", "1"}}}); err != nil {
		t.Fatal(err)
	}
	hist, err := c.GetMetricHistory(ctx, id, "train/loss")
	if err != nil {
		t.Fatal(err)
	}
	checkHistory(t, "LogBatch over 3 chunks", hist, ms)
	if err := c.SetTag(ctx, id, "x", "1"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteTag(ctx, id, "x"); err != nil {
		t.Fatal(err)
	}
	if err := c.UploadArtifact(ctx, run.Info.ArtifactURI, "notes/a b.txt", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := c.DownloadArtifact(ctx, run.Info.ArtifactURI, "notes/a b.txt", &buf); err != nil || buf.String() != "hello" {
		t.Errorf("download: %q, %v", buf.String(), err)
	}
	dst := filepath.Join(t.TempDir(), "x", "a.txt")
	if err := c.DownloadArtifactToFile(ctx, run.Info.ArtifactURI, "notes/a b.txt", dst); err != nil {
		t.Error(err)
	}
	if err := c.DownloadArtifact(ctx, run.Info.ArtifactURI, "notes/missing.txt", &buf); !IsNotFound(err) {
		t.Errorf("a missing artifact: %v", err)
	}
	if err := c.EndRun(ctx, id, StatusKilled); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Info.Status != StatusKilled {
		t.Errorf("status %s, want KILLED", got.Info.Status)
	}
	if _, ok := got.Data.Tag("x"); ok {
		t.Error("deleted tag still set")
	}
	if err := c.EndRun(ctx, id, StatusRunning); err == nil {
		t.Error("EndRun with RUNNING accepted")
	}
	if _, err := c.GetRun(ctx, "0123456789abcdef0123456789abcdef"); !IsNotFound(err) {
		t.Errorf("a missing run: %v", err)
	}
}

// TestRejections checks that bad values get clear errors before anything
// is sent, and that what the server refuses is reported, never dropped
// silently.
func TestRejections(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	r, err := c.StartRun(ctx, RunOptions{Experiment: "narlab-test/rejections", SpoolDir: newSpoolDir(t), Logf: quietLogf(t)})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"bad metric key", r.LogMetric("acc@64", 1, 0.5), "character '@'"},
		{"path-like key", r.LogMetric("train//loss", 1, 0.5), "normalized path"},
		{"long key", r.LogMetric(strings.Repeat("k", 300), 1, 0.5), "more than the limit of 250"},
		{"long param", r.LogParam("notes", strings.Repeat("n", 7000)), "more than the limit of 6000"},
		{"long tag", r.SetTag("notes", strings.Repeat("n", 9000)), "more than the limit of 8000"},
		{"bad artifact path", r.LogArtifactBytes("../escape.txt", nil), "normalized relative path"},
		{"ragged table", r.LogTable("tables/t.json", []string{"a", "b"}, [][]any{{1}}), "row 0 has 1 values for 2 columns"},
		{"NaN in a table", r.LogTable("tables/t.json", []string{"a"}, [][]any{{math.NaN()}}), "NaN"},
		{"bad end status", r.End(ctx, StatusRunning), "expected FINISHED, FAILED or KILLED"},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, tt.err, tt.want)
		}
	}
	if err := r.LogParam("lr", "0.1"); err != nil {
		t.Fatal(err)
	}
	if err := r.LogParam("lr", "0.2"); err == nil || !strings.Contains(err.Error(), "write-once") {
		t.Errorf("changing a param: %v", err)
	}
	// Non-finite values are not an error: they use MLflow's encoding.
	if err := r.LogMetric("train/loss", 1, math.NaN()); err != nil {
		t.Errorf("NaN metric: %v", err)
	}
	if err := r.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// A value the server refuses (here: a param changed behind the logger's
	// back) is reported by End and kept in rejected.jsonl.
	if err := c.LogParam(ctx, r.RunID(), "seed", "1"); err != nil {
		t.Fatal(err)
	}
	if err := r.LogParam("seed", "2"); err != nil {
		t.Fatal(err)
	}
	err = r.End(ctx, StatusFinished)
	if err == nil || !strings.Contains(err.Error(), "rejected") || !strings.Contains(err.Error(), "INVALID_PARAMETER_VALUE") {
		t.Errorf("End after a rejected request: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(r.SpoolDir(), rejectedFile))
	if !bytes.Contains(b, []byte(`"seed"`)) {
		t.Errorf("rejected.jsonl does not hold the rejected request: %s", b)
	}
	// The same through the synchronous client.
	err = c.LogParam(ctx, r.RunID(), "seed", "3")
	var ae *APIError
	if !errors.As(err, &ae) || ae.HTTPStatus != 400 || ae.ErrorCode != "INVALID_PARAMETER_VALUE" {
		t.Errorf("changing a param directly: %v", err)
	}
}

func TestServerReuse(t *testing.T) {
	s := testServer(t)
	ctx := context.Background()
	got, reused, err := EnsureServer(ctx, ServerConfig{Dir: s.Dir, MLflow: mlflowBin})
	if err != nil || !reused || got.URL != s.URL || got.PID != s.PID {
		t.Errorf("EnsureServer on a running server: %+v reused=%v %v", got, reused, err)
	}
	found, err := FindServer(ctx, s.Dir)
	if err != nil || found == nil || found.URL != s.URL {
		t.Errorf("FindServer: %+v, %v", found, err)
	}
	none, err := FindServer(ctx, t.TempDir())
	if err != nil || none != nil {
		t.Errorf("FindServer on an empty dir: %+v, %v", none, err)
	}
}

func TestServerStartFailures(t *testing.T) {
	dir := t.TempDir()
	failing := filepath.Join(dir, "mlflow-fails")
	os.WriteFile(failing, []byte("#!/bin/sh\necho 'Error: the database is locked' >&2\nexit 3\n"), 0o755)
	_, err := StartServer(context.Background(), ServerConfig{Dir: filepath.Join(dir, "a"), MLflow: failing, StartTimeout: 30 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "exited during start-up") || !strings.Contains(err.Error(), "the database is locked") {
		t.Errorf("a server that exits: %v", err)
	}
	hanging := filepath.Join(dir, "mlflow-hangs")
	os.WriteFile(hanging, []byte("#!/bin/sh\necho 'starting slowly' >&2\nexec sleep 60\n"), 0o755)
	start := time.Now()
	_, err = StartServer(context.Background(), ServerConfig{Dir: filepath.Join(dir, "b"), MLflow: hanging, StartTimeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "did not answer") || !strings.Contains(err.Error(), "starting slowly") {
		t.Errorf("a server that never answers: %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("giving up took %v", d)
	}
}

// TestAttachOffline resumes an existing run (MLFLOW_RUN_ID's request)
// while the server cannot be reached: the resumption, the metrics and the
// run's end wait in the spool, and Sync delivers them to the run, which is
// then FINISHED with every point. Dataset inputs take the same path.
func TestAttachOffline(t *testing.T) {
	c := testClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	exp, err := c.GetOrCreateExperiment(ctx, "narlab-test/attach")
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.CreateRun(ctx, CreateRunOptions{ExperimentID: exp.ID, RunName: "existing", Tags: []Tag{{TagUser, "someone"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.LogMetric(ctx, r.Info.RunID, "m", 0, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.EndRun(ctx, r.Info.RunID, StatusFinished); err != nil {
		t.Fatal(err)
	}
	down, err := NewClient("http://127.0.0.1:1", WithRetry(NoRetry))
	if err != nil {
		t.Fatal(err)
	}
	lg, err := down.StartRun(ctx, RunOptions{Experiment: "ignored", AttachRunID: r.Info.RunID, SpoolDir: newSpoolDir(t),
		Tags: []Tag{{"k", "v"}, {TagNote, "not set on a resumed run"}}, CreateTimeout: 200 * time.Millisecond, EndTimeout: 500 * time.Millisecond, Logf: quietLogf(t)})
	if err != nil {
		t.Fatal(err)
	}
	for s := int64(1); s <= 3; s++ {
		lg.LogMetric("m", s, float64(s+1))
	}
	ds := DatasetInput{Dataset: Dataset{Name: "d", Digest: "abc", SourceType: "code", Source: "{}"}, Tags: []Tag{{TagDatasetContext, "train"}}}
	if err := lg.LogInputs(ds); err != nil {
		t.Fatal(err)
	}
	if err := lg.End(ctx, StatusFinished); !errors.Is(err, ErrPending) {
		t.Fatalf("End with the server down: %v, want ErrPending", err)
	}
	res, err := Sync(ctx, c, lg.SpoolDir(), SyncOptions{})
	if err != nil || res.RunID != r.Info.RunID || res.Pending != 0 || !res.Ended {
		t.Fatalf("Sync: %+v, %v", res, err)
	}
	got, err := c.GetRun(ctx, r.Info.RunID)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := c.GetMetricHistory(ctx, r.Info.RunID, "m")
	if err != nil {
		t.Fatal(err)
	}
	note, hasNote := got.Data.Tag(TagNote)
	k, _ := got.Data.Tag("k")
	if got.Info.Status != StatusFinished || got.Info.RunName != "existing" || got.Info.UserID != "someone" || len(hist) != 4 || k != "v" || hasNote {
		t.Errorf("the resumed run: %s, name %q, user %q, %d points of m, tag k %q, description %q (%v)", got.Info.Status,
			got.Info.RunName, got.Info.UserID, len(hist), k, note, hasNote)
	}
	if len(got.Inputs.DatasetInputs) != 1 || got.Inputs.DatasetInputs[0].Dataset.Name != "d" {
		t.Errorf("dataset inputs %+v", got.Inputs.DatasetInputs)
	}
}
