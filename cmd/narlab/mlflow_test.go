package main

import (
	"context"
	"io"
	"net/http"
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

// TestMLflowCommands drives `narlab mlflow ui|stop|sync|runs` against the
// embedded server (a real `mlflow server`): a run logs 2,000 metric points
// while the server is stopped half-way, and `narlab mlflow sync` delivers
// every point exactly once.
func TestMLflowCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and stops a real MLflow server; run without -short")
	}
	if _, err := project.VenvBin("mlflow"); err != nil {
		t.Fatalf("MLflow is not installed (%v): run scripts/setup.sh (make setup)", err)
	}
	bin := narlabCLI(t)
	data := t.TempDir()
	t.Setenv("NARLAB_DATA", data)
	t.Setenv(mlflow.EnvTrackingURI, "")
	narlab := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "NARLAB_DATA="+data, mlflow.EnvTrackingURI+"=")
		out, err := cmd.Output()
		if err != nil {
			msg := ""
			if ee, ok := err.(*exec.ExitError); ok {
				msg = string(ee.Stderr)
			}
			t.Fatalf("narlab %s: %v\n%s", strings.Join(args, " "), err, msg)
		}
		return string(out)
	}
	t.Cleanup(func() { exec.Command(bin, "mlflow", "stop").Run() })

	url := strings.TrimSpace(narlab("mlflow", "ui"))
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("mlflow ui printed %q, want the local UI address", url)
	}
	if again := strings.TrimSpace(narlab("mlflow", "ui")); again != url {
		t.Errorf("second `mlflow ui` gave %q, want the running server %q", again, url)
	}

	ctx := context.Background()
	run, err := tracking.Start(ctx, "narlab-test/cli", map[string]string{"n": "2000"}, tracking.RunName("outage"),
		tracking.Logf(t.Logf))
	if err != nil {
		t.Fatal(err)
	}
	const points = 2000
	for s := range points {
		if s == points/2 {
			if err := run.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if out := narlab("mlflow", "stop"); !strings.Contains(out, "stopped") {
				t.Fatalf("mlflow stop: %q", out)
			}
		}
		if err := run.LogMetric("train/loss", int64(s), float64(s)*0.5); err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 3*time.Second)
	err = run.End(short, mlflow.StatusFinished)
	cancel()
	if err == nil {
		t.Fatal("End reported success with the server down")
	}
	if run.Logger().Pending() == 0 {
		t.Fatal("nothing pending in the spool after an outage")
	}
	if _, err := os.Stat(filepath.Join(data, "mlflow", "spool")); err != nil {
		t.Fatal(err)
	}

	out := narlab("mlflow", "sync", "--dir", filepath.Join(data, "mlflow", "spool"))
	if !strings.Contains(out, "1 spools") || !strings.Contains(out, " 0 pending") {
		t.Fatalf("sync did not deliver the one pending spool:\n%s", out)
	}
	if again := narlab("mlflow", "sync"); !strings.Contains(again, "0 spools, 0 requests sent, 0 pending") {
		t.Errorf("a second sync found work:\n%s", again)
	}
	c, err := tracking.Client(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	hist, err := c.GetMetricHistory(ctx, run.ID(), "train/loss")
	if err != nil {
		t.Fatal(err)
	}
	count := map[int64]int{}
	for _, m := range hist {
		count[m.Step]++
		if m.Value != float64(m.Step)*0.5 {
			t.Fatalf("step %d has value %v", m.Step, m.Value)
		}
	}
	if len(hist) != points || len(count) != points {
		t.Fatalf("after sync the server has %d points over %d steps; want each of %d exactly once", len(hist), len(count), points)
	}
	got, err := c.GetRun(ctx, run.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got.Info.Status != mlflow.StatusFinished {
		t.Errorf("run status after sync %s, want FINISHED", got.Info.Status)
	}
	if runs := narlab("mlflow", "runs", "--experiment", "narlab-test/cli"); !strings.Contains(runs, run.ID()) || !strings.Contains(runs, "outage") {
		t.Errorf("mlflow runs does not list the run:\n%s", runs)
	}
	checkUILinks(t, bin, data, c, "narlab-test/cli")

	// The example run (what scripts/ui-screenshot.sh shows): its link, its
	// metric series, its plot; a filter that matches it and one that does not.
	url = strings.TrimSpace(narlab("mlflow", "ui")) // sync restarted the server, on another port
	link := strings.TrimSpace(narlab("mlflow", "example", "--experiment", "narlab-test/example", "--steps", "40"))
	i := strings.Index(link, "/runs/")
	if !strings.HasPrefix(link, url+"/#/experiments/") || i < 0 {
		t.Fatalf("mlflow example printed %q, want a run link on %s", link, url)
	}
	exID, _, _ := strings.Cut(link[i+len("/runs/"):], "?")
	ex, err := c.GetRun(ctx, exID)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := c.GetMetricHistory(ctx, exID, "train/loss"); err != nil || len(h) != 40 {
		t.Errorf("example run: %d train/loss points (%v), want 40", len(h), err)
	}
	if png, err := c.ReadArtifact(ctx, ex.Info.ArtifactURI, "plots/val_curve.png"); err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Errorf("example run's plot: %d bytes (%v), want a PNG", len(png), err)
	}
	if runs := narlab("mlflow", "runs", "--experiment", "narlab-test/example", "--filter", "params.processor = 'mpnn'"); !strings.Contains(runs, exID) {
		t.Errorf("the filter did not find the example run:\n%s", runs)
	}
	if runs := narlab("mlflow", "runs", "--experiment", "narlab-test/example", "--filter", "params.processor = 'gat'"); strings.Contains(runs, exID) {
		t.Errorf("a filter that does not match listed the example run:\n%s", runs)
	}
}

// TestMLflowCommandErrors checks that bad arguments exit non-zero with a
// message naming the problem, before any server is started.
func TestMLflowCommandErrors(t *testing.T) {
	t.Parallel()
	bin := narlabCLI(t)
	data := t.TempDir()
	file := filepath.Join(data, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mlflow", "runs", "--filter", "params.x = '1'"}, "--filter selects runs of an experiment; give --experiment too"},
		{[]string{"mlflow", "runs", "--experiment"}, "flag needs an argument"},
		{[]string{"mlflow", "sync", "--dir", filepath.Join(data, "missing")}, "no such file or directory"},
		{[]string{"mlflow", "sync", "--dir", file}, "is not a directory"},
		{[]string{"mlflow", "example", "--steps", "1"}, "--steps 1: out of range; accepted 2..1000000"},
		{[]string{"mlflow", "ui", "extra"}, "unexpected arguments: extra"},
		{[]string{"mlflow", "nope"}, `unknown command "mlflow" "nope"`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			cmd := exec.Command(bin, c.args...)
			cmd.Env = append(os.Environ(), "NARLAB_DATA="+data, mlflow.EnvTrackingURI+"=")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if err == nil {
				t.Fatalf("exit status 0, want failure; stdout:\n%s", stdout.String())
			}
			if !strings.Contains(stderr.String(), c.want) {
				t.Errorf("stderr does not say %q:\n%s", c.want, stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("printed on stdout:\n%s", stdout.String())
			}
		})
	}
	if _, err := os.Stat(filepath.Join(data, "mlflow")); err == nil {
		t.Errorf("a bad command created the MLflow directory (started a server?)")
	}
}

// checkUILinks checks what points a user into the MLflow UI: `mlflow runs`
// without --experiment lists the experiments with the link to each one's
// runs table, `mlflow ui` prints the same links on standard error (its
// standard output stays the bare address), and the links follow a route
// of the UI the server serves (MLflow 3's #/experiments/:experimentId/runs,
// whose workflowType query selects the "Model training" view instead of
// the GenAI one).
func checkUILinks(t *testing.T, bin, data string, c *mlflow.Client, experiment string) {
	t.Helper()
	ctx := context.Background()
	e, err := c.GetExperimentByName(ctx, experiment)
	if err != nil {
		t.Fatal(err)
	}
	link := c.RunsURL(e.ID)
	if want := c.URI() + "/#/experiments/" + e.ID + "/runs?workflowType=machine_learning"; link != want {
		t.Errorf("runs link %q, want %q", link, want)
	}
	for _, tc := range []struct {
		args       []string
		wantStdout []string
		wantStderr []string
	}{
		{[]string{"mlflow", "runs"}, []string{"EXPERIMENT", experiment + " ", link}, []string{"--experiment NAME"}},
		{[]string{"mlflow", "ui"}, []string{c.URI() + "\n"}, []string{"the runs of each experiment", experiment + " ", link}},
	} {
		cmd := exec.Command(bin, tc.args...)
		cmd.Env = append(os.Environ(), "NARLAB_DATA="+data, mlflow.EnvTrackingURI+"=")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("narlab %s: %v\n%s", strings.Join(tc.args, " "), err, stderr.String())
		}
		for _, w := range tc.wantStdout {
			if !strings.Contains(stdout.String(), w) {
				t.Errorf("narlab %s: stdout lacks %q:\n%s", strings.Join(tc.args, " "), w, stdout.String())
			}
		}
		for _, w := range tc.wantStderr {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("narlab %s: stderr lacks %q:\n%s", strings.Join(tc.args, " "), w, stderr.String())
			}
		}
		if tc.args[1] == "ui" && strings.TrimSpace(stdout.String()) != c.URI() {
			t.Errorf("mlflow ui's stdout is %q, want the address alone", stdout.String())
		}
	}
	// The route and the query are the served UI's own.
	get := func(u string) string {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s, %v", u, resp.Status, err)
		}
		return string(b)
	}
	index := get(c.URI() + "/")
	m := regexp.MustCompile(`static-files/static/js/main\.[0-9a-f]+\.js|static/js/main\.[0-9a-f]+\.js`).FindString(index)
	if m == "" {
		t.Fatalf("the UI's index.html names no main script:\n%.500s", index)
	}
	bundle := get(c.URI() + "/" + m)
	for _, w := range []string{`experiments/:experimentId/runs`, `get("workflowType")`, `MACHINE_LEARNING="machine_learning"`} {
		if !strings.Contains(bundle, w) {
			t.Errorf("the served UI (%s) has no %q: the runs link may not open the runs table", m, w)
		}
	}
}
