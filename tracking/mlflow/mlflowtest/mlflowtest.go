// Package mlflowtest gives tests a real `mlflow server` (from the project's
// Python environment) and reads runs back through MLflow's own Python
// client (mlflow.MlflowClient), so that a test checks what a user of
// MLflow sees, not what narlab's Go client believes it wrote.
package mlflowtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/tracking/mlflow"
)

// Server starts a real MLflow server with its own SQLite store and
// artifact directory, stopped when the test ends. It skips the test under
// -short and fails it when MLflow is not installed (make setup installs
// it).
func Server(t testing.TB) *mlflow.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: this test needs a real MLflow server (make test runs it)")
	}
	bin, err := project.VenvBin("mlflow")
	if err != nil {
		t.Fatalf("MLflow is not installed (%v): run scripts/setup.sh (make setup)", err)
	}
	dir, err := os.MkdirTemp("", "narlab-mlflowtest-")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := mlflow.StartServer(ctx, mlflow.ServerConfig{Dir: dir, MLflow: bin})
	if err != nil {
		os.RemoveAll(dir)
		t.Fatalf("starting a test MLflow server: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("stopping the test MLflow server: %v", err)
		}
		os.RemoveAll(dir)
	})
	return srv
}

// A Restartable is a real MLflow server (as [Server] starts one) that a
// test can crash and start again on the same port and stores, as a lab's
// server goes down and comes back.
type Restartable struct {
	t   testing.TB
	bin string
	dir string

	mu  sync.Mutex
	srv *mlflow.Server // nil while it is down
	url string
}

// RestartableServer starts a real MLflow server that the test may Kill
// and Start again; it is stopped when the test ends. It skips the test
// under -short and fails it when MLflow is not installed.
func RestartableServer(t testing.TB) *Restartable {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: this test needs a real MLflow server (make test runs it)")
	}
	bin, err := project.VenvBin("mlflow")
	if err != nil {
		t.Fatalf("MLflow is not installed (%v): run scripts/setup.sh (make setup)", err)
	}
	dir, err := os.MkdirTemp("", "narlab-mlflowtest-")
	if err != nil {
		t.Fatal(err)
	}
	r := &Restartable{t: t, bin: bin, dir: dir}
	t.Cleanup(func() {
		r.mu.Lock()
		srv := r.srv
		r.srv = nil
		r.mu.Unlock()
		if srv != nil {
			if err := srv.Stop(); err != nil {
				t.Errorf("stopping the test MLflow server: %v", err)
			}
		}
		os.RemoveAll(dir)
	})
	r.Start()
	return r
}

// URL returns the server's address (the same after a restart).
func (r *Restartable) URL() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.url
}

// Kill kills the server's process group with SIGKILL, cutting the
// requests in flight, as a crash does, and waits until it is gone.
func (r *Restartable) Kill() {
	r.t.Helper()
	r.mu.Lock()
	srv := r.srv
	r.srv = nil
	r.mu.Unlock()
	if srv == nil {
		r.t.Fatal("mlflowtest: Kill: the server is not running")
	}
	if err := syscall.Kill(-srv.PID, syscall.SIGKILL); err != nil {
		r.t.Fatalf("mlflowtest: killing the MLflow server: %v", err)
	}
	<-srv.Exited()
}

// Start starts the server (again, on the same port and stores).
func (r *Restartable) Start() {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.srv != nil {
		r.t.Fatal("mlflowtest: Start: the server is running")
	}
	port := 0
	if r.url != "" {
		u, err := url.Parse(r.url)
		if err != nil {
			r.t.Fatal(err)
		}
		port, _ = strconv.Atoi(u.Port())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := mlflow.StartServer(ctx, mlflow.ServerConfig{Dir: r.dir, MLflow: r.bin, Port: port})
	if err != nil {
		r.t.Fatalf("starting a test MLflow server: %v", err)
	}
	r.srv, r.url = srv, srv.URL
}

// Python runs script with the project's Python (which has mlflow) and
// MLFLOW_TRACKING_URI = uri, passing args, and decodes the JSON it prints
// into out.
func Python(t testing.TB, uri, script string, out any, args ...string) {
	t.Helper()
	py, err := project.Python()
	if err != nil {
		t.Fatalf("the project's Python is missing (%v): run scripts/setup.sh", err)
	}
	cmd := exec.Command(py, append([]string{"-c", script}, args...)...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MLFLOW_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "MLFLOW_TRACKING_URI="+uri, "PYTHONWARNINGS=ignore")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("python output: %v\n%s\nstderr: %s", err, b, stderr.String())
	}
}

// Run is a run as MLflow's Python client reads it (MlflowClient.get_run,
// get_metric_history, list_artifacts, get_experiment).
type Run struct {
	ID           string `json:"run_id"`
	Name         string `json:"run_name"`
	Experiment   string `json:"experiment"` // the experiment's name
	Status       string `json:"status"`
	StartTime    int64  `json:"start_time"`
	EndTime      *int64 `json:"end_time"` // nil: none
	UserID       string `json:"user_id"`
	Lifecycle    string `json:"lifecycle_stage"`
	Params       map[string]string
	Tags         map[string]string
	Metrics      map[string][]Point // every point of every metric, by key
	Artifacts    []string           // every file, recursively
	Datasets     []Dataset          // run.inputs.dataset_inputs
	ModelOutputs []string           // run.outputs.model_outputs: model ids
}

// Point is one metric point.
type Point struct {
	Step  int64   `json:"step"`
	Value float64 `json:"value"`
}

// Dataset is one dataset input of a run.
type Dataset struct {
	Name, Digest, SourceType, Source, Schema, Profile, Context string
}

// readRunsPy prints every run named on its command line as MlflowClient
// reads it. NaN and ±Inf metric values are printed as null (none is
// expected by the callers: they compare with finite values).
const readRunsPy = `
import json, math, sys
from mlflow import MlflowClient
c = MlflowClient()
exp_names = {}
def walk(run_id, path=None):
    out = []
    for f in c.list_artifacts(run_id, path):
        out += walk(run_id, f.path) if f.is_dir else [f.path]
    return out
def num(v):
    return None if (isinstance(v, float) and (math.isnan(v) or math.isinf(v))) else v
out = {}
for run_id in sys.argv[1:]:
    r = c.get_run(run_id)
    e = r.info.experiment_id
    if e not in exp_names:
        exp_names[e] = c.get_experiment(e).name
    metrics = {k: [{"step": m.step, "value": num(m.value)} for m in c.get_metric_history(run_id, k)] for k in r.data.metrics}
    ds = []
    for d in r.inputs.dataset_inputs:
        ctx = {t.key: t.value for t in d.tags}.get("mlflow.data.context", "")
        x = d.dataset
        ds.append({"Name": x.name, "Digest": x.digest, "SourceType": x.source_type, "Source": x.source,
                   "Schema": x.schema or "", "Profile": x.profile or "", "Context": ctx})
    outs = [m.model_id for m in (r.outputs.model_outputs if r.outputs else [])]
    out[run_id] = {"run_id": r.info.run_id, "run_name": r.info.run_name, "experiment": exp_names[e],
        "status": r.info.status, "start_time": r.info.start_time, "end_time": r.info.end_time,
        "user_id": r.info.user_id, "lifecycle_stage": r.info.lifecycle_stage,
        "Params": r.data.params, "Tags": r.data.tags, "Metrics": metrics,
        "Artifacts": walk(run_id), "Datasets": ds, "ModelOutputs": outs}
print(json.dumps(out))
`

// ReadRuns reads runs with MLflow's Python client, by id.
func ReadRuns(t testing.TB, uri string, ids ...string) map[string]Run {
	t.Helper()
	out := map[string]Run{}
	if len(ids) == 0 {
		return out
	}
	Python(t, uri, readRunsPy, &out, ids...)
	return out
}

// childrenPy prints the ids of the runs nested under a parent run
// (mlflow.parentRunId), active ones only, as MlflowClient.search_runs
// finds them.
const childrenPy = `
import json, sys
from mlflow import MlflowClient
c = MlflowClient()
p = c.get_run(sys.argv[1])
bq = chr(96)
runs = c.search_runs([p.info.experiment_id], "tags." + bq + "mlflow.parentRunId" + bq + " = '%s'" % sys.argv[1])
print(json.dumps([r.info.run_id for r in runs]))
`

// Children returns the ids of a parent run's active child runs.
func Children(t testing.TB, uri, parent string) []string {
	t.Helper()
	var ids []string
	Python(t, uri, childrenPy, &ids, parent)
	return ids
}

// runsInPy prints the ids of every run (active and deleted) of the
// experiment named on its command line, as MlflowClient.search_runs finds
// them; [] when the experiment does not exist.
const runsInPy = `
import json, sys
from mlflow import MlflowClient
from mlflow.entities import ViewType
c = MlflowClient()
e = c.get_experiment_by_name(sys.argv[1])
runs = [] if e is None else c.search_runs([e.experiment_id], run_view_type=ViewType.ALL, max_results=10000)
print(json.dumps([r.info.run_id for r in runs]))
`

// RunsIn returns the ids of every run (active and deleted) of the named
// experiment, as MLflow's Python client finds them.
func RunsIn(t testing.TB, uri, experiment string) []string {
	t.Helper()
	var ids []string
	Python(t, uri, runsInPy, &ids, experiment)
	return ids
}

// DiffMetrics compares the metric histories of a run (got) with those of
// a reference run (want, e.g. the same seeded run logged without faults),
// point for point: for each key not ignored, the same (step, value)
// points, each as many times (a point lost or doubled is a difference).
// It returns the differences, one line each; none when they are equal.
func DiffMetrics(want, got map[string][]Point, ignore func(key string) bool) []string {
	var diffs []string
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		if ignore == nil || !ignore(k) {
			sorted = append(sorted, k)
		}
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		w, g := sortedPoints(want[k]), sortedPoints(got[k])
		if len(w) != len(g) {
			diffs = append(diffs, fmt.Sprintf("%s: %d points, want %d (%s)", k, len(g), len(w), firstDiff(w, g)))
			continue
		}
		if d := firstDiff(w, g); d != "" {
			diffs = append(diffs, k+": "+d)
		}
	}
	return diffs
}

func sortedPoints(ps []Point) []Point {
	out := append([]Point(nil), ps...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Step != out[j].Step {
			return out[i].Step < out[j].Step
		}
		return out[i].Value < out[j].Value
	})
	return out
}

// firstDiff describes the first point where two sorted histories differ.
func firstDiff(want, got []Point) string {
	for i := 0; i < len(want) || i < len(got); i++ {
		switch {
		case i >= len(got):
			return fmt.Sprintf("missing step %d (value %v)", want[i].Step, want[i].Value)
		case i >= len(want):
			return fmt.Sprintf("extra point at step %d (value %v)", got[i].Step, got[i].Value)
		case want[i] != got[i]:
			return fmt.Sprintf("at position %d: step %d value %v, want step %d value %v", i, got[i].Step, got[i].Value, want[i].Step, want[i].Value)
		}
	}
	return ""
}
