package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/internal/testenv"
	"github.com/narlab/narlab/lib/llm/llamacpp"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// TestRunsAsMLflowClientSeesThem runs every kind of run narlab logs — a
// training (its model registered), an evaluation, a sweep (parent and
// cells, one cell rerun, then its report), dsr score, graphs score,
// clrstext score, graphs spectral-eval and llm run against the real
// llama.cpp server — into one real MLflow server, tiny settings each, and
// reads every run back with MLflow's own Python client: status and end
// time, user and description, params, every point of every metric (each
// one listed in docs/mlflow.md, every fraction in [0, 1]), artifacts,
// dataset inputs and models. It also runs a command under
// MLFLOW_EXPERIMENT_NAME and one under MLFLOW_RUN_ID (a run made by
// MLflow's Python client).
func TestRunsAsMLflowClientSeesThem(t *testing.T) {
	srv := mlflowtest.Server(t)
	llmOK := true
	if _, err := llamacpp.FindInstall(); err != nil {
		if os.Getenv("NARLAB_SKIP_LLM") != "1" || testenv.InCI() {
			t.Fatalf("the test needs the real llama.cpp server: %v (run scripts/setup-llm.sh, or NARLAB_SKIP_LLM=1 outside CI to leave llm run out)", err)
		}
		llmOK = false
		t.Logf("NARLAB_SKIP_LLM=1: llm run is left out (%v)", err)
	}
	units := metricUnits(t)
	bin := narlabCLI(t)
	data := t.TempDir()
	work := t.TempDir()
	baseEnv := []string{"NARLAB_DATA=" + data, mlflow.EnvTrackingURI + "=" + srv.URL, mlflow.EnvRunID + "=", mlflow.EnvExperimentName + "="}
	t.Cleanup(func() {
		cmd := exec.Command(bin, "llm", "stop")
		cmd.Env = append(os.Environ(), baseEnv...)
		cmd.Run()
	})
	narlab := func(env []string, args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(append(os.Environ(), baseEnv...), env...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("narlab %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	runIn := func(re, s string) string {
		t.Helper()
		m := regexp.MustCompile(re).FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no match for %s in:\n%s", re, s)
		}
		return m[1]
	}
	const stderrRun = `MLflow run ([0-9a-f]{32}): http`
	tiny := []string{"--steps", "4", "--eval-every", "2", "--hidden", "8", "--batch", "2", "--train-length", "4",
		"--val-samples", "4", "--test-samples", "4", "--backend", "go"}

	// A training, its model registered, and an evaluation of its checkpoint.
	trainDir := filepath.Join(work, "train")
	out, _ := narlab(nil, append([]string{"train", "--algo", "bfs", "--processor", "mpnn", "--dir", trainDir,
		"--experiment", "narlab-client/train", "--register", "narlab-client-bfs"}, tiny...)...)
	trainRun := runIn(`mlflow run: \S+/runs/([0-9a-f]{32})`, out)
	modelID := runIn(`mlflow model: models:/(m-[0-9a-f]+)`, out)
	var result struct {
		Test    float64 `json:"test"`
		ModelID string  `json:"model_id"`
	}
	if raw, err := os.ReadFile(filepath.Join(trainDir, "result.json")); err != nil || json.Unmarshal(raw, &result) != nil || result.ModelID != modelID {
		t.Fatalf("%s/result.json: %v, %+v; want the model %s", trainDir, err, result, modelID)
	}
	testScore := result.Test
	if !strings.Contains(out, "registered: narlab-client-bfs version 1") {
		t.Errorf("train did not say it registered the model:\n%s", out)
	}
	_, stderr := narlab(nil, "eval", "--checkpoint", filepath.Join(trainDir, "best"), "--split", "val", "--count", "4",
		"--backend", "go", "--experiment", "narlab-client/eval")
	evalRun := runIn(stderrRun, stderr)

	// A sweep of two cells; one cell is then run again (its run deleted,
	// as if it had to be redone), and the report is logged.
	sweepDir := filepath.Join(work, "sweep")
	sweepArgs := []string{"sweep", "run", "--dir", sweepDir, "--executor", "local", "--algos", "bfs", "--processors", "mpnn",
		"--seeds", "1,2", "--experiment", "narlab-client/sweep"}
	for i := 0; i < len(tiny); i += 2 {
		sweepArgs = append(sweepArgs, "--set", strings.TrimPrefix(tiny[i], "--")+"="+tiny[i+1])
	}
	_, stderr = narlab(nil, sweepArgs...)
	parent := runIn(`parent run ([0-9a-f]{32}) on`, stderr)
	first := mlflowtest.ReadRuns(t, srv.URL, parent)[parent]
	children := mlflowtest.Children(t, srv.URL, parent)
	if len(children) != 2 {
		t.Fatalf("the sweep's parent has children %v, want 2 cells", children)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := mlflow.NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteRun(ctx, children[0]); err != nil {
		t.Fatal(err)
	}
	narlab(nil, "sweep", "run", "--dir", sweepDir)
	narlab(nil, "sweep", "report", "--dir", sweepDir)
	cells := mlflowtest.Children(t, srv.URL, parent)

	// The score commands; graphs score takes its experiment from
	// MLFLOW_EXPERIMENT_NAME, clrstext score logs into a run that MLflow's
	// Python client created (MLFLOW_RUN_ID).
	insts, dsrDir := dsrWorkspace(t)
	_, stderr = narlab(nil, "dsr", "score", "--input", insts, "--predictions", filepath.Join(dsrDir, "shuffled.jsonl"),
		"--model", "shuffled", "--experiment", "narlab-client/dsr")
	dsrRun := runIn(stderrRun, stderr)
	prompts, preds := graphsWorkspace(t)
	_, stderr = narlab([]string{mlflow.EnvExperimentName + "=narlab-client/from-env"}, "graphs", "score", "--prompts", prompts,
		"--predictions", preds, "--model", "noisy")
	graphsRun := runIn(stderrRun, stderr)
	var pyRun struct{ ID string }
	mlflowtest.Python(t, srv.URL, `
import json
from mlflow import MlflowClient
c = MlflowClient()
e = c.create_experiment("narlab-client/python")
r = c.create_run(e, run_name="made by python", tags={"mlflow.note.content": "created by MLflow's Python client"})
print(json.dumps({"ID": r.info.run_id}))
`, &pyRun)
	textData, textPreds, _ := clrstextData(t)
	narlab([]string{mlflow.EnvRunID + "=" + pyRun.ID}, "clrstext", "score", "--data", textData, "--predictions", textPreds,
		"--model", "half-right", "--experiment", "narlab-client/clrstext")
	specPreds := filepath.Join(work, "llm.jsonl")
	var lines []string
	for i := range 6 {
		lines = append(lines, `{"id": `+string(rune('0'+i))+`, "task": "sum_lambda_squared", "answer_text": "\\boxed{40}"}`)
	}
	os.WriteFile(specPreds, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	_, stderr = narlab(nil, "graphs", "spectral-eval", "--count", "6", "--train-count", "8", "--steps", "2", "--hidden", "4",
		"--layers", "1", "--joint", "--spread", "2", "--predictions", specPreds, "--experiment", "narlab-client/spectral")
	spectralRun := runIn(stderrRun, stderr)
	var llmRuns []string
	if llmOK {
		for _, suite := range [][]string{{"--suite", "dsr", "--structures", "stack", "--strategy", "none"}, {"--suite", "clrstext"}} {
			_, stderr = narlab(nil, append([]string{"llm", "run", "--limit", "2", "--max-tokens", "24", "--quiet",
				"--experiment", "narlab-client/llm"}, suite...)...)
			llmRuns = append(llmRuns, runIn(stderrRun, stderr))
		}
	}

	// Everything, read back by MLflow's Python client.
	ids := append([]string{trainRun, evalRun, parent, dsrRun, graphsRun, pyRun.ID, spectralRun}, cells...)
	runs := mlflowtest.ReadRuns(t, srv.URL, append(slices.Clone(ids), llmRuns...)...)

	type want struct {
		name, experiment, source string
		params, metrics          []string
		artifacts, datasets      []string
		note                     string // in the description
	}
	cases := []want{
		{name: "train", experiment: "narlab-client/train", source: "narlab train",
			params:    []string{"algorithm", "processor", "hidden_size", "seed", "train_steps", "backend"},
			metrics:   []string{"train/loss", "val/score", "test/score", "val/best_score", "train/steps_per_s"},
			artifacts: []string{"results.json", "results.md", "tables/test_outputs.json", "plots/validation_curve.png"},
			datasets:  []string{"clrs30/bfs/train-fixed-n4 train", "clrs30/bfs/val val", "clrs30/bfs/test test"},
			note:      "logged as this run's MLflow model"},
		{name: "eval", experiment: "narlab-client/eval", source: "narlab eval",
			params: []string{"checkpoint", "split", "samples", "algorithm", "processor"}, metrics: []string{"val/score"},
			artifacts: []string{"tables/val_outputs.json"}, datasets: []string{"clrs30/bfs/val val"}, note: "`narlab eval`"},
		{name: "sweep parent", experiment: "narlab-client/sweep", source: "narlab sweep",
			params:    []string{"sweep_id", "cells", "algorithms", "processors", "seeds"},
			metrics:   []string{"sweep/cells_finished", "sweep/mean_test_score"},
			artifacts: []string{"results.json", "results.md", "cells.json", "plots/validation_curves.png"}, note: "narlab sweep"},
		{name: "dsr score", experiment: "narlab-client/dsr", source: "narlab dsr score",
			params:    []string{"model", "instances", "predictions", "scoring"},
			metrics:   []string{"score/overall", "levenshtein/overall", "lenient/score/overall", "scoring/paper_binary", "responses/total"},
			artifacts: []string{"tables/structures.json", "scores.json"},
			datasets:  []string{"dsr/instances eval", "dsr/predictions/shuffled predictions"}, note: "DSR-Bench"},
		{name: "graphs score", experiment: "narlab-client/from-env", source: "narlab graphs score",
			params:    []string{"model", "prompts", "predictions", "scoring"},
			metrics:   []string{"mean_accuracy/E0/erdos/orig", "parse_rate", "syntax_variability", "lenient/mean_accuracy/E0/erdos/orig", "scoring/paper_accuracy"},
			artifacts: []string{"serialization_scores.json", "serialization_configs.json"},
			datasets:  []string{"graphs/prompts eval", "graphs/predictions/noisy predictions"}, note: "`narlab graphs score`"},
		{name: "clrstext score into a run made by Python", experiment: "narlab-client/python", source: "",
			params:    []string{"model", "data", "predictions"},
			metrics:   []string{"accuracy", "macro_accuracy", "ttff", "accuracy/bridges", "accuracy_by_length/minimum"},
			artifacts: []string{}, datasets: []string{"clrstext/questions eval", "clrstext/predictions/half-right predictions"},
			note: "created by MLflow's Python client"},
		{name: "spectral-eval", experiment: "narlab-client/spectral", source: "narlab graphs spectral-eval",
			params:    []string{"data.graphs", "data.seed", "gnn.hidden_size"},
			metrics:   []string{"test/mean/smape", "test/gnn/smape", "test/llm/smape", "test/mean/relmae", "test/mean/wins_smape", "test/gnn/output_spread_max"},
			artifacts: []string{"spectral/table10.json", "spectral/groups.json", "spectral/densities.png"},
			datasets:  []string{"spectral/test-graphs test", "spectral/predictions/llm predictions"}, note: "spectral tasks"},
	}
	for i := range cells {
		cases = append(cases, want{name: "sweep cell " + string(rune('1'+i)), experiment: "narlab-client/sweep", source: "narlab train",
			// (the rerun cell trains again: its finished directory, whose run
			// was deleted, is set aside)
			params: []string{"algorithm", "seed"}, metrics: []string{"val/score", "test/score"}, datasets: []string{"clrs30/bfs/val val"},
			note: "A cell of the grid whose parent run is " + parent})
	}
	for i := range llmRuns {
		suite := []string{"dsr", "clrstext"}[i]
		cases = append(cases, want{name: "llm run " + suite, experiment: "narlab-client/llm", source: "narlab llm run",
			params: []string{"suite", "model", "endpoint", "temperature", "max_tokens"}, metrics: []string{"llm/score", "llm/prompts", "llm/latency/mean_s"},
			artifacts: []string{"responses.jsonl"}, datasets: []string{"llm/" + suite + "/prompts eval"}, note: "`narlab llm run`"})
	}
	all := append(slices.Clone(ids), llmRuns...)
	for i, w := range cases {
		r := runs[all[i]]
		t.Run(w.name, func(t *testing.T) {
			checkRun(t, r, w.experiment, w.source, w.note)
			if w.source == "" && r.Name != "made by python" {
				t.Errorf("the resumed run's name %q; it keeps its own", r.Name)
			}
			for _, p := range w.params {
				if _, ok := r.Params[p]; !ok {
					t.Errorf("no param %s (params: %v)", p, keys(r.Params))
				}
			}
			if w.name == "train" { // the evaluation loop auto picked on this backend
				want := "auto: host"
				if r.Params["backend"] == "xla-cuda" {
					want = "auto: device"
				}
				if got := r.Params["eval_loop"]; got != want {
					t.Errorf("param eval_loop %q on backend %q, want %q", got, r.Params["backend"], want)
				}
			}
			for _, m := range w.metrics {
				if len(r.Metrics[m]) == 0 {
					t.Errorf("no metric %s (metrics: %v)", m, keys(r.Metrics))
				}
			}
			checkMetrics(t, r, units)
			for _, a := range w.artifacts {
				if !slices.Contains(r.Artifacts, a) {
					t.Errorf("no artifact %s (artifacts: %v)", a, r.Artifacts)
				}
			}
			var ds []string
			for _, d := range r.Datasets {
				ds = append(ds, d.Name+" "+d.Context)
				if d.Digest == "" || d.Source == "" || d.SourceType == "" || len(d.Digest) > 36 {
					t.Errorf("dataset %+v: a digest (≤ 36 characters), a source and its type are required", d)
				}
			}
			for _, d := range w.datasets {
				if !slices.Contains(ds, d) {
					t.Errorf("no dataset input %q (inputs: %q)", d, ds)
				}
			}
		})
	}

	// The train run's model, as MLflow's client reads it.
	t.Run("train's logged model", func(t *testing.T) {
		var m struct {
			Status, SourceRunID, Name, ModelType string
			Inputs, Outputs                      [][3]any
			Files                                []string
			Versions                             []struct{ Version, Source, RunID string }
			Metrics                              map[string]float64
			Flavors                              map[string]map[string]string
		}
		mlflowtest.Python(t, srv.URL, `
import json, sys
import mlflow
from mlflow import MlflowClient
c = MlflowClient()
m = c.get_logged_model(sys.argv[1])
sig = mlflow.models.get_model_info("models:/" + sys.argv[1]).signature
spec = lambda s: [[x.name, str(x.type), list(x.shape)] for x in s.inputs]
def walk(path=None):
    out = []
    for f in c.list_logged_model_artifacts(sys.argv[1], path):
        out += walk(f.path) if f.is_dir else [f.path]
    return out
vs = [{"Version": v.version, "Source": v.source, "RunID": v.run_id} for v in c.search_model_versions("name = 'narlab-client-bfs'")]
info = mlflow.models.get_model_info("models:/" + sys.argv[1])
print(json.dumps({"Status": str(m.status), "SourceRunID": m.source_run_id, "Name": m.name, "ModelType": m.model_type,
    "Inputs": spec(sig.inputs), "Outputs": spec(sig.outputs), "Files": walk(), "Versions": vs,
    "Metrics": {x.key: x.value for x in (m.metrics or [])},
    "Flavors": {k: {kk: str(vv) for kk, vv in v.items()} for k, v in info.flavors.items()}}))
`, &m, modelID)
		if m.Status != "READY" || m.SourceRunID != trainRun || m.Name != "bfs-mpnn" || m.ModelType != "clrs-baseline" {
			t.Errorf("logged model %s: %+v", modelID, m)
		}
		var in []string
		for _, x := range m.Inputs {
			in = append(in, x[0].(string))
		}
		if want := []string{"input/pos", "input/s", "input/A", "input/adj", "hint/reach_h", "hint/pi_h", "lengths"}; !slices.Equal(in, want) ||
			len(m.Outputs) != 1 || m.Outputs[0][0] != "output/pi" {
			t.Errorf("signature inputs %v outputs %v; want bfs's features %v and its output output/pi", m.Inputs, m.Outputs, want)
		}
		for _, f := range []string{"MLmodel", "checkpoint/nn_config.json", "reference/model.pkl", "requirements.txt", "python_env.yaml", "conda.yaml"} {
			if !slices.Contains(m.Files, f) {
				t.Errorf("model files %v: no %s", m.Files, f)
			}
		}
		if m.Metrics["test/score"] != testScore || len(m.Flavors["python_function"]) == 0 {
			t.Errorf("the model's metrics %v (want test/score %v) and flavors %v (want python_function)", m.Metrics, testScore, m.Flavors)
		}
		if len(m.Versions) != 1 || m.Versions[0].Source != "models:/"+modelID || m.Versions[0].RunID != trainRun {
			t.Errorf("registered versions %+v", m.Versions)
		}
		if o := runs[trainRun].ModelOutputs; len(o) != 1 || o[0] != modelID {
			t.Errorf("the train run's model outputs %v, want [%s]", o, modelID)
		}
	})

	// The sweep's parent ended with its last cell, the first time and again
	// after the rerun (which reopened it).
	t.Run("sweep parent follows its cells", func(t *testing.T) {
		p := runs[parent]
		var last int64
		for _, cid := range cells {
			if e := runs[cid].EndTime; e != nil {
				last = max(last, *e)
			}
		}
		if first.Status != "FINISHED" || first.EndTime == nil {
			t.Errorf("after sweep run, the parent is %s (end %v); want FINISHED with its last cell", first.Status, first.EndTime)
		}
		if p.Status != "FINISHED" || p.EndTime == nil || *p.EndTime != last || first.EndTime == nil || *p.EndTime <= *first.EndTime {
			t.Errorf("after the rerun, the parent is %s, ends at %v (first end %v); want FINISHED at its last cell's end, %d",
				p.Status, p.EndTime, first.EndTime, last)
		}
		if len(cells) != 2 || slices.Contains(cells, children[0]) {
			t.Errorf("cells after the rerun %v; want two, without the deleted %s", cells, children[0])
		}
	})
}

// checkRun checks what every run has: FINISHED with an end time, the
// user as MLflow's client records it, a description, its source. An
// empty source is a run made elsewhere and resumed: it keeps its own user
// and source.
func checkRun(t *testing.T, r mlflowtest.Run, experiment, source, note string) {
	t.Helper()
	if r.Status != "FINISHED" || r.EndTime == nil || *r.EndTime < r.StartTime || r.StartTime == 0 {
		t.Errorf("status %s, start %d, end %v; want FINISHED with an end time", r.Status, r.StartTime, r.EndTime)
	}
	if r.Experiment != experiment {
		t.Errorf("experiment %q, want %q", r.Experiment, experiment)
	}
	if u := tracking.CurrentUser(); source != "" && (r.UserID != u || r.Tags[mlflow.TagUser] != u) {
		t.Errorf("user_id %q, mlflow.user %q; want %q", r.UserID, r.Tags[mlflow.TagUser], u)
	}
	if d := r.Tags[mlflow.TagNote]; !strings.Contains(d, note) || strings.Contains(d, "the caller gave none") {
		t.Errorf("description %q; want the command's own, mentioning %q", d, note)
	}
	if source != "" && r.Tags[mlflow.TagSourceName] != source {
		t.Errorf("mlflow.source.name %q, want %q", r.Tags[mlflow.TagSourceName], source)
	}
}

// checkMetrics checks that every metric of the run is in docs/mlflow.md's
// table, and that every point of a fraction is in [0, 1].
func checkMetrics(t *testing.T, r mlflowtest.Run, units []metricUnit) {
	t.Helper()
	for key, points := range r.Metrics {
		unit := ""
		for _, u := range units {
			if u.re.MatchString(key) {
				unit = u.unit
				break
			}
		}
		if unit == "" {
			t.Errorf("metric %s is not in docs/mlflow.md's table of metrics", key)
			continue
		}
		if unit != "fraction" {
			continue
		}
		for _, p := range points {
			if !(p.Value >= 0 && p.Value <= 1) {
				t.Errorf("metric %s (a fraction) = %v at step %d; want a value in [0, 1]", key, p.Value, p.Step)
			}
		}
	}
}

type metricUnit struct {
	re   *regexp.Regexp
	unit string
}

// metricUnits reads docs/mlflow.md's table of every metric narlab logs:
// each metric pattern (`<…>` a name, "/" included) and its unit.
func metricUnits(t *testing.T) []metricUnit {
	t.Helper()
	root, err := project.Root()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "docs", "mlflow.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "### Every metric narlab logs")
	if !ok {
		t.Fatal("docs/mlflow.md has no section \"Every metric narlab logs\"")
	}
	var out []metricUnit
	for _, line := range strings.Split(table, "\n") {
		cols := strings.Split(line, " | ")
		if !strings.HasPrefix(line, "| `") || len(cols) < 4 {
			if len(out) > 0 && !strings.HasPrefix(line, "|") {
				break
			}
			continue
		}
		unit := strings.TrimSpace(cols[2])
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cols[0], -1) {
			pat := regexp.QuoteMeta(m[1])
			pat = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(pat, ".+")
			out = append(out, metricUnit{regexp.MustCompile("^" + pat + "$"), unit})
		}
	}
	if len(out) < 20 {
		t.Fatalf("docs/mlflow.md's table of metrics has %d patterns; the parser is wrong", len(out))
	}
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
