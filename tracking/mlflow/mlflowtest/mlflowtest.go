// Package mlflowtest gives tests a real `mlflow server` (from the project's
// Python environment) and reads runs back through MLflow's own Python
// client (mlflow.MlflowClient), so that a test checks what a user of
// MLflow sees, not what narlab's Go client believes it wrote.
package mlflowtest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
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
