package notebooks

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/kernel"
	"github.com/narlab/narlab/tracking/mlflow"
	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// TestNotebookRunIsANotebookRun executes a two-cell notebook in the real
// "Go (narlab)" kernel (GoNB, through nbconvert) whose second cell logs a
// run with tracking.Start, and reads the run back with MLflow's Python
// client: its source type is NOTEBOOK, its source names the notebook, and
// it has a user and the cell's description.
func TestNotebookRunIsANotebookRun(t *testing.T) {
	srv := mlflowtest.Server(t) // skips under -short
	py, err := project.Python()
	if err != nil {
		t.Fatalf("%v (the notebook test needs the project's Jupyter environment)", err)
	}
	jupyterEnv := kernelForThisCheckout(t, py)
	cell := func(src string) map[string]any {
		return map[string]any{"cell_type": "code", "metadata": map[string]any{}, "execution_count": nil, "outputs": []any{},
			"source": []string{src}}
	}
	nb := map[string]any{"nbformat": 4, "nbformat_minor": 5,
		"metadata": map[string]any{"kernelspec": map[string]any{"name": kernel.Name, "display_name": kernel.DisplayName, "language": "go"}},
		"cells": []any{cell("!*narlab kernel prepare"), cell(`import (
	"context"
	"fmt"

	"github.com/narlab/narlab/tracking"
)

%%
ctx := context.Background()
r, err := tracking.Start(ctx, "narlab-test/notebook", map[string]string{"cell": "2"}, tracking.Note("logged from a notebook cell"))
if err != nil {
	panic(err)
}
if err := r.End(ctx, "FINISHED"); err != nil {
	panic(err)
}
fmt.Println("RUN", r.ID())`)}}
	dir := t.TempDir()
	b, _ := json.Marshal(nb)
	src := filepath.Join(dir, "mlflow_run.ipynb")
	if err := os.WriteFile(src, b, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := exec.Command(py, "-m", "nbconvert", "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=600",
		"--ExecutePreprocessor.kernel_name="+kernel.Name, "--output-dir", filepath.Join(dir, "out"), src)
	cmd.Env = append(append(os.Environ(), jupyterEnv...), "NARLAB_ROOT="+rootDir(t), "NARLAB_DATA="+filepath.Join(dir, "data"),
		mlflow.EnvTrackingURI+"="+srv.URL, mlflow.EnvRunID+"=", mlflow.EnvExperimentName+"=")
	if combined, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("executing the notebook: %v\n%s", err, tail(string(combined), 4000))
	}
	t.Logf("executed in %v", time.Since(start).Round(100*time.Millisecond))
	raw, err := os.ReadFile(filepath.Join(dir, "out", "mlflow_run.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	var done notebook
	if err := json.Unmarshal(raw, &done); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range done.Cells {
		for _, o := range c.Outputs {
			text.WriteString(textOf(o.Text))
		}
	}
	m := regexp.MustCompile(`RUN ([0-9a-f]{32})`).FindStringSubmatch(text.String())
	if m == nil {
		t.Fatalf("the cell printed no run id:\n%s", text.String())
	}
	r := mlflowtest.ReadRuns(t, srv.URL, m[1])[m[1]]
	if r.Tags[mlflow.TagSourceType] != mlflow.SourceNotebook {
		t.Errorf("mlflow.source.type %q, want %s", r.Tags[mlflow.TagSourceType], mlflow.SourceNotebook)
	}
	if name := r.Tags[mlflow.TagSourceName]; !strings.Contains(name, "notebook") && !strings.Contains(name, "mlflow_run.ipynb") {
		t.Errorf("mlflow.source.name %q does not name the notebook", name)
	}
	if r.Status != "FINISHED" || r.UserID == "" || r.Tags[mlflow.TagUser] != r.UserID || r.Tags[mlflow.TagNote] != "logged from a notebook cell" {
		t.Errorf("run %s: status %s, user %q (tag %q), description %q", m[1], r.Status, r.UserID, r.Tags[mlflow.TagUser], r.Tags[mlflow.TagNote])
	}
}

// kernelForThisCheckout returns the environment under which Jupyter runs
// the "Go (narlab)" kernel of this checkout: none when the installed
// kernel is this checkout's; otherwise (a second checkout, such as a git
// worktree, beside the one the environment's kernel points at) a kernel
// installed for this checkout into a temporary Jupyter directory, its
// binaries into a temporary bin, named by JUPYTER_PATH.
func kernelForThisCheckout(t *testing.T, py string) []string {
	t.Helper()
	out, err := exec.Command(py, "-m", "jupyter_client.kernelspecapp", "list", "--json").Output()
	if err != nil || !strings.Contains(string(out), `"`+kernel.Name+`"`) {
		t.Fatalf("the %q kernel is not installed (run `make setup` or `bin/narlab kernel install`): %v", kernel.Name, err)
	}
	var list struct {
		Kernelspecs map[string]struct {
			Spec kernel.Spec `json:"spec"`
		} `json:"kernelspecs"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	root := rootDir(t)
	if list.Kernelspecs[kernel.Name].Spec.Env["NARLAB_ROOT"] == root {
		return nil
	}
	p, err := kernel.DefaultPaths()
	if err != nil {
		t.Fatal(err)
	}
	jdir := t.TempDir()
	p = p.WithJupyterDir(jdir)
	p.Bin = filepath.Join(jdir, "bin")
	var log strings.Builder
	if err := kernel.Install(p, &log); err != nil {
		t.Fatalf("installing the kernel for %s: %v\n%s", root, err, log.String())
	}
	t.Logf("the installed kernel runs another checkout; installed one for %s in %s", root, jdir)
	return []string{"JUPYTER_PATH=" + jdir}
}
