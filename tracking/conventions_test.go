package tracking

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/tracking/mlflow"
	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// TestMLflowConventions logs runs the ways MLflow's own clients do —
// every run with a user and a description, notebook runs as NOTEBOOK,
// MLFLOW_EXPERIMENT_NAME, MLFLOW_RUN_ID, datasets as run inputs, a model
// as a logged model registered in the model registry — against a real
// `mlflow server`, and reads every run back with MLflow's Python client.
func TestMLflowConventions(t *testing.T) {
	srv := mlflowtest.Server(t)
	t.Setenv("NARLAB_DATA", t.TempDir())
	t.Setenv(mlflow.EnvTrackingURI, srv.URL)
	t.Setenv(mlflow.EnvRunID, "")
	t.Setenv(mlflow.EnvExperimentName, "")
	for _, v := range []string{envGoNBPipe, envGoNBDir, envJupyterSession} {
		t.Setenv(v, "")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := Client(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	start := func(t *testing.T, experiment string, params map[string]string, opts ...Option) *Run {
		t.Helper()
		r, err := Start(ctx, experiment, params, append(opts, Logf(t.Logf))...)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	end := func(t *testing.T, r *Run) {
		t.Helper()
		if err := r.End(ctx, mlflow.StatusFinished); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("source, user and description", func(t *testing.T) {
		type want struct{ sourceType, sourceName, narlabSource, note string }
		cases := []struct {
			name string
			env  map[string]string
			opts []Option
			want want
		}{
			{"a command", nil, []Option{Source("narlab graphs score"), Note("what it did")},
				want{mlflow.SourceLocal, "narlab graphs score", "", "what it did"}},
			{"no description given", nil, []Option{Source("narlab x")},
				want{mlflow.SourceLocal, "narlab x", "", "narlab wrote this description because the caller gave none"}},
			{"a notebook opened by a Jupyter server", map[string]string{envGoNBPipe: "/tmp/gonb_pipe", envGoNBDir: "/home/u/nb", envJupyterSession: "/home/u/nb/02_train.ipynb"},
				[]Option{Note("cell 3")}, want{mlflow.SourceNotebook, "/home/u/nb/02_train.ipynb", "", "cell 3"}},
			{"a notebook run by nbconvert", map[string]string{envGoNBPipe: "/tmp/gonb_pipe", envGoNBDir: "/home/u/nb"},
				[]Option{Source("narlab llm run"), Note("llm")}, want{mlflow.SourceNotebook, "GoNB notebook in /home/u/nb", "narlab llm run", "llm"}},
		}
		var ids []string
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				for k, v := range tc.env {
					t.Setenv(k, v)
				}
				r := start(t, "narlab-test/conventions", nil, tc.opts...)
				end(t, r)
				ids = append(ids, r.ID())
			})
		}
		runs := mlflowtest.ReadRuns(t, srv.URL, ids...) // one Python process for all
		for i, tc := range cases {
			t.Run(tc.name+", read back", func(t *testing.T) {
				got := runs[ids[i]]
				if got.Tags[mlflow.TagSourceType] != tc.want.sourceType || got.Tags[mlflow.TagSourceName] != tc.want.sourceName ||
					got.Tags["narlab.source"] != tc.want.narlabSource {
					t.Errorf("source %q %q (narlab.source %q), want %+v", got.Tags[mlflow.TagSourceType], got.Tags[mlflow.TagSourceName],
						got.Tags["narlab.source"], tc.want)
				}
				if !strings.Contains(got.Tags[mlflow.TagNote], tc.want.note) {
					t.Errorf("description %q, want it to contain %q", got.Tags[mlflow.TagNote], tc.want.note)
				}
				if u := CurrentUser(); got.UserID != u || got.Tags[mlflow.TagUser] != u || u == "" {
					t.Errorf("user_id %q, mlflow.user %q; want both %q", got.UserID, got.Tags[mlflow.TagUser], u)
				}
				if got.Status != "FINISHED" || got.EndTime == nil || *got.EndTime < got.StartTime {
					t.Errorf("status %s, start %d, end %v", got.Status, got.StartTime, got.EndTime)
				}
			})
		}
	})

	t.Run("MLFLOW_EXPERIMENT_NAME", func(t *testing.T) {
		cases := []struct {
			name, env, given, want string
		}{
			{"the default experiment", "narlab-test/from-env", "", "narlab-test/from-env"},
			{"an explicit experiment wins", "narlab-test/from-env", "narlab-test/explicit", "narlab-test/explicit"},
		}
		var ids []string
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Setenv(mlflow.EnvExperimentName, tc.env)
				if got := DefaultExperiment("command-default"); got != tc.env {
					t.Errorf("DefaultExperiment = %q, want %q", got, tc.env)
				}
				r := start(t, tc.given, nil, Note("x"))
				end(t, r)
				ids = append(ids, r.ID())
			})
		}
		runs := mlflowtest.ReadRuns(t, srv.URL, ids...)
		for i, tc := range cases {
			if got := runs[ids[i]].Experiment; got != tc.want {
				t.Errorf("%s: experiment %q, want %q", tc.name, got, tc.want)
			}
		}
		t.Setenv(mlflow.EnvExperimentName, "")
		if got := DefaultExperiment("command-default"); got != "command-default" {
			t.Errorf("DefaultExperiment without the variable = %q", got)
		}
	})

	t.Run("MLFLOW_RUN_ID", func(t *testing.T) {
		orig := start(t, "narlab-test/resume", map[string]string{"a": "1"}, RunName("original"), Note("mine"))
		orig.LogMetric("m", 0, 0.25)
		end(t, orig)
		id := orig.ID()
		t.Setenv(mlflow.EnvRunID, id)
		r := start(t, "narlab-test/elsewhere", map[string]string{"b": "2"}, RunName("new name"), Note("theirs"),
			Tags(map[string]string{"k": "v"}))
		if v, ok := os.LookupEnv(mlflow.EnvRunID); ok && v != "" {
			t.Errorf("%s is still %q after the run resumed it; only the first run of a process resumes it", mlflow.EnvRunID, v)
		}
		if r.ID() != id {
			t.Fatalf("resumed run id %q, want %q", r.ID(), id)
		}
		if got, err := c.GetRun(ctx, id); err != nil || got.Info.Status != mlflow.StatusRunning {
			t.Errorf("the resumed run is %v (%v), want RUNNING", got.Info.Status, err)
		}
		r.LogMetric("m", 1, 0.75)
		end(t, r)
		got := mlflowtest.ReadRuns(t, srv.URL, id)[id]
		if got.Status != "FINISHED" || got.Name != "original" || got.Experiment != "narlab-test/resume" || got.Tags[mlflow.TagNote] != "mine" {
			t.Errorf("resumed run: status %s, name %q, experiment %q, description %q; want FINISHED and the original's name, experiment and description",
				got.Status, got.Name, got.Experiment, got.Tags[mlflow.TagNote])
		}
		if got.Params["a"] != "1" || got.Params["b"] != "2" || got.Tags["k"] != "v" {
			t.Errorf("resumed run params %v, tag k %q", got.Params, got.Tags["k"])
		}
		if m := got.Metrics["m"]; len(m) != 2 {
			t.Errorf("metric m: %v, want the original point and the resumed one", m)
		}
		// A second run of the process makes its own run.
		r2 := start(t, "narlab-test/resume", nil, Note("x"))
		end(t, r2)
		if r2.ID() == id {
			t.Error("a second run of the process resumed the run too")
		}

		deleted := start(t, "narlab-test/resume", nil, Note("x"))
		end(t, deleted)
		if err := c.DeleteRun(ctx, deleted.ID()); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name, id string
			opts     []Option
			want     string
		}{
			{"no such run", "0123456789abcdef0123456789abcdef", nil, "does not exist"},
			{"not a run id", "../etc", nil, "expected the id of an MLflow run"},
			{"a deleted run", deleted.ID(), nil, "is deleted"},
			{"nested and resumed", id, []Option{Parent(r2.ID())}, "unset MLFLOW_RUN_ID or do not nest the run"},
			{"explicit Resume", "", []Option{Resume("0123456789abcdef0123456789abcdef")}, "does not exist"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				t.Setenv(mlflow.EnvRunID, tc.id)
				_, err := Start(ctx, "narlab-test/resume", nil, append(tc.opts, Logf(t.Logf))...)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("got %v, want an error containing %q", err, tc.want)
				}
			})
		}
	})

	t.Run("dataset inputs and a registered logged model", func(t *testing.T) {
		dir := t.TempDir()
		data := filepath.Join(dir, "instances.jsonl")
		os.WriteFile(data, []byte(`{"id": 1}`+"\n"), 0o644)
		model := filepath.Join(dir, "ckpt")
		os.Mkdir(model, 0o755)
		os.WriteFile(filepath.Join(model, "weights.bin"), []byte("\x00\x01weights"), 0o644)
		os.WriteFile(filepath.Join(model, "config.json"), []byte(`{"hidden": 8}`), 0o644)
		sum := sha256.Sum256([]byte(`{"id": 1}` + "\n"))
		sig := mlflow.Signature{
			Inputs:  []mlflow.TensorSpec{{Name: "pos", DType: "float64", Shape: []int{-1, -1}}, {Name: "lengths", DType: "int64", Shape: []int{-1}}},
			Outputs: []mlflow.TensorSpec{{Name: "pi", DType: "float64", Shape: []int{-1, -1}}},
		}
		var runs, models []string
		for i := range 2 {
			r := start(t, "narlab-test/models", map[string]string{"hidden_size": "8"}, Note("model"))
			fd, err := FileDataset("test/instances", data, "eval")
			if err != nil {
				t.Fatal(err)
			}
			if err := r.LogInputs(fd, Dataset("test/generated", "abc123", "code", `{"seed": 1}`, "", `{"samples": 4}`, "train")); err != nil {
				t.Fatal(err)
			}
			// The model's metrics are the run's summary points (step 0, one
			// time): the run's history keeps one point of each.
			at := time.Now()
			scores := []mlflow.Metric{{Key: "test/score", Value: 0.25 + 0.5*float64(i), Timestamp: at.UnixMilli()},
				{Key: "val/best_score", Value: 0.5, Timestamp: at.UnixMilli()}}
			for _, m := range scores {
				if err := r.LogMetricAt(m.Key, m.Step, m.Value, at); err != nil {
					t.Fatal(err)
				}
			}
			lm, err := r.LogModel(ctx, ModelOptions{Name: "tiny", ModelType: "test-model", Step: 7, Params: map[string]string{"hidden_size": "8"},
				Tags: map[string]string{"algorithm": "bfs"}, Flavor: "narlab", FlavorFields: map[string]string{"loader": "nn.Load"},
				Signature: sig, Dir: model, DirPrefix: "checkpoint", Register: "narlab-test-tiny", Description: "version " + string(rune('1'+i)),
				Files:   []mlflow.ModelFile{{Name: "reference/model.pkl", Data: []byte("pickle")}},
				Metrics: scores,
				PythonFunction: &mlflow.PyFunc{LoaderModule: "narlab_test.loader", Data: "checkpoint", Requirements: []string{"narlab==0.1.0"},
					PythonVersion: "3.11.7", Fields: map[string]string{"predict_fn": "predict"}}})
			if err != nil {
				t.Fatal(err)
			}
			if lm.Registered != "narlab-test-tiny" || lm.Version != string(rune('1'+i)) {
				t.Errorf("registered %q version %q", lm.Registered, lm.Version)
			}
			end(t, r)
			runs, models = append(runs, r.ID()), append(models, lm.ID)
		}
		got := mlflowtest.ReadRuns(t, srv.URL, runs...)
		for i, id := range runs {
			ds := map[string]mlflowtest.Dataset{}
			for _, d := range got[id].Datasets {
				ds[d.Name] = d
			}
			if d := ds["test/instances"]; d.Digest != hex.EncodeToString(sum[:])[:32] || d.Context != "eval" || d.SourceType != "local" ||
				!strings.Contains(d.Source, data) || !strings.Contains(d.Profile, hex.EncodeToString(sum[:])) {
				t.Errorf("run %d: file dataset %+v", i, d)
			}
			if d := ds["test/generated"]; d.Digest != "abc123" || d.Context != "train" || d.SourceType != "code" {
				t.Errorf("run %d: generated dataset %+v", i, d)
			}
			if o := got[id].ModelOutputs; len(o) != 1 || o[0] != models[i] {
				t.Errorf("run %d: model outputs %v, want [%s]", i, o, models[i])
			}
			for k, v := range map[string]float64{"test/score": 0.25 + 0.5*float64(i), "val/best_score": 0.5} {
				if h := got[id].Metrics[k]; len(h) != 1 || h[0] != (mlflowtest.Point{Step: 0, Value: v}) {
					t.Errorf("run %d: %s history %v; want the one summary point at step 0 (%v), shared with the model", i, k, h, v)
				}
			}
		}
		var m struct {
			Models []struct {
				Status, SourceRunID, Name, ModelType string
				Params, Tags                         map[string]string
				Inputs, Outputs                      [][3]any
				Files                                map[string]string
				Flavors                              map[string]map[string]string
				Metrics                              map[string]float64
				Env                                  map[string]string
			}
			Found    []string
			Versions []struct{ Version, Source, RunID, Description string }
		}
		mlflowtest.Python(t, srv.URL, modelsPy, &m, append([]string{"narlab-test-tiny"}, models...)...)
		for i, lm := range m.Models {
			if lm.Status != "READY" || lm.SourceRunID != runs[i] || lm.Name != "tiny" || lm.ModelType != "test-model" ||
				lm.Params["hidden_size"] != "8" || lm.Tags["algorithm"] != "bfs" {
				t.Errorf("logged model %d: %+v", i, lm)
			}
			if len(lm.Inputs) != 2 || lm.Inputs[0][0] != "pos" || lm.Inputs[0][1] != "float64" || lm.Inputs[1][0] != "lengths" ||
				len(lm.Outputs) != 1 || lm.Outputs[0][0] != "pi" {
				t.Errorf("logged model %d: signature inputs %v outputs %v", i, lm.Inputs, lm.Outputs)
			}
			w := sha256.Sum256([]byte("\x00\x01weights"))
			if lm.Files["checkpoint/weights.bin"] != hex.EncodeToString(w[:]) || lm.Files["MLmodel"] == "" || lm.Files["checkpoint/config.json"] == "" {
				t.Errorf("logged model %d: files %v", i, lm.Files)
			}
			if lm.Flavors["narlab"]["loader"] != "nn.Load" {
				t.Errorf("logged model %d: flavors %v", i, lm.Flavors)
			}
			pf := lm.Flavors["python_function"]
			if pf["loader_module"] != "narlab_test.loader" || pf["data"] != "checkpoint" || pf["python_version"] != "3.11.7" ||
				pf["predict_fn"] != "predict" || pf["env"] != "{'conda': 'conda.yaml', 'virtualenv': 'python_env.yaml'}" {
				t.Errorf("logged model %d: python_function flavor %v", i, pf)
			}
			if lm.Files["reference/model.pkl"] == "" || lm.Env["requirements.txt"] != "narlab==0.1.0\n" ||
				!strings.Contains(lm.Env["conda.yaml"], "  - narlab==0.1.0\n") || !strings.Contains(lm.Env["python_env.yaml"], "python: 3.11.7\n") {
				t.Errorf("logged model %d: files %v, environment %v", i, lm.Files, lm.Env)
			}
			if lm.Metrics["test/score"] != 0.25+0.5*float64(i) || lm.Metrics["val/best_score"] != 0.5 {
				t.Errorf("logged model %d: metrics %v", i, lm.Metrics)
			}
		}
		// search_logged_models finds the model by its metric.
		if len(m.Found) != 1 || m.Found[0] != models[1] {
			t.Errorf("search_logged_models(metrics.`test/score` > 0.5) found %v, want [%s]", m.Found, models[1])
		}
		if len(m.Versions) != 2 {
			t.Fatalf("model versions %+v, want 2", m.Versions)
		}
		for i, v := range m.Versions {
			if v.Version != string(rune('1'+i)) || v.Source != "models:/"+models[i] || v.RunID != runs[i] || v.Description != "version "+v.Version {
				t.Errorf("model version %+v, want version %d of models:/%s from run %s", v, i+1, models[i], runs[i])
			}
		}
	})
}

// modelsPy reads logged models (argv[2:]) and the versions of a registered
// model (argv[1]) with MLflow's Python client: get_logged_model,
// get_model_info (the MLmodel file: signature, flavors), the model's files
// (downloaded, SHA-256) and search_model_versions.
const modelsPy = `
import hashlib, json, os, sys, tempfile
import mlflow
from mlflow import MlflowClient
c = MlflowClient()
out = {"Models": [], "Versions": []}
for mid in sys.argv[2:]:
    m = c.get_logged_model(mid)
    info = mlflow.models.get_model_info("models:/" + mid)
    sig = info.signature
    spec = lambda s: [[x.name, str(x.type), list(x.shape)] for x in s.inputs]
    files, env = {}, {}
    with tempfile.TemporaryDirectory() as d:
        local = mlflow.artifacts.download_artifacts(artifact_uri="models:/" + mid, dst_path=d)
        for root, _, names in os.walk(local):
            for n in names:
                p = os.path.join(root, n)
                files[os.path.relpath(p, local)] = hashlib.sha256(open(p, "rb").read()).hexdigest()
                if n in ("requirements.txt", "conda.yaml", "python_env.yaml"):
                    env[n] = open(p).read()
    out["Models"].append({"Status": str(m.status), "SourceRunID": m.source_run_id, "Name": m.name, "ModelType": m.model_type,
        "Params": m.params, "Tags": {k: v for k, v in m.tags.items() if not k.startswith("mlflow.")},
        "Inputs": spec(sig.inputs), "Outputs": spec(sig.outputs), "Files": files,
        "Flavors": {k: {kk: str(vv) for kk, vv in v.items()} for k, v in info.flavors.items()},
        "Metrics": {x.key: x.value for x in (m.metrics or [])}, "Env": env})
exp = c.get_logged_model(sys.argv[2]).experiment_id
out["Found"] = [x.model_id for x in mlflow.search_logged_models(experiment_ids=[exp],
    filter_string="metrics.` + "`test/score`" + ` > 0.5", output_format="list")]
for v in sorted(c.search_model_versions("name = '%s'" % sys.argv[1]), key=lambda v: int(v.version)):
    out["Versions"].append({"Version": v.version, "Source": v.source, "RunID": v.run_id, "Description": v.description})
print(json.dumps(out))
`
