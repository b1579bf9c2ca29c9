package tracking

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/tracking/mlflow"
)

// TestEmbeddedServerRun uses the embedded default: with no
// MLFLOW_TRACKING_URI, Start launches a local `mlflow server` (the real
// one, from the project's environment) under the data directory, a second
// Start reuses it, and everything a run logs reads back from the server.
func TestEmbeddedServerRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real MLflow server; run without -short")
	}
	if _, err := project.VenvBin("mlflow"); err != nil {
		t.Fatalf("MLflow is not installed (%v): run scripts/setup.sh (make setup)", err)
	}
	data := t.TempDir()
	t.Setenv("NARLAB_DATA", data)
	t.Setenv(mlflow.EnvTrackingURI, "")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		if _, err := mlflow.StopServer(context.Background(), filepath.Join(data, "mlflow")); err != nil {
			t.Errorf("stopping the embedded server: %v", err)
		}
	})

	params := map[string]string{"algo": "insertion_sort", "seed": "7", "hidden": "32"}
	run, err := Start(ctx, "narlab-test/experiments", params, RunName("embedded"), Note("a **test** run"),
		Tags(map[string]string{"processor": "mpnn"}))
	if err != nil {
		t.Fatal(err)
	}
	const steps = 250
	for s := range steps {
		if err := run.LogMetric("train/loss", int64(s), 1/float64(s+1)); err != nil {
			t.Fatal(err)
		}
		if s%50 == 0 {
			if err := run.LogMetric("val/score", int64(s), float64(s)/steps); err != nil {
				t.Fatal(err)
			}
		}
	}
	png := []byte("\x89PNG\r\n\x1a\nnot really an image")
	if err := run.LogArtifact("plots/curve.png", png); err != nil {
		t.Fatal(err)
	}
	if err := run.LogTable("results.json", []string{"algorithm", "score"}, [][]any{{"insertion_sort", 0.5}}); err != nil {
		t.Fatal(err)
	}
	if err := run.EndWith(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(run.URL(), "/#/experiments/") || run.ID() == "" {
		t.Errorf("run URL %q, id %q", run.URL(), run.ID())
	}

	srv, err := mlflow.FindServer(ctx, filepath.Join(data, "mlflow"))
	if err != nil || srv == nil {
		t.Fatalf("no embedded server recorded under the data directory: %v", err)
	}
	c, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetRun(ctx, run.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got.Info.Status != mlflow.StatusFinished {
		t.Errorf("status %s, want FINISHED", got.Info.Status)
	}
	for k, v := range params {
		if p, ok := got.Data.Param(k); !ok || p != v {
			t.Errorf("param %s = %q, want %q", k, p, v)
		}
	}
	tags := map[string]string{}
	for _, tg := range got.Data.Tags {
		tags[tg.Key] = tg.Value
	}
	for k, want := range map[string]string{mlflow.TagRunName: "embedded", mlflow.TagNote: "a **test** run",
		"processor": "mpnn", mlflow.TagSourceType: mlflow.SourceLocal, mlflow.TagSourceName: "tracking.test",
		mlflow.TagGitCommit: gitCommit(), mlflow.TagUser: CurrentUser()} {
		if tags[k] != want {
			t.Errorf("tag %s = %q, want %q", k, tags[k], want)
		}
	}
	if got.Info.UserID != CurrentUser() {
		t.Errorf("user_id %q, want %q (what MLflow's client records)", got.Info.UserID, CurrentUser())
	}
	if len(tags[mlflow.TagGitCommit]) != 40 {
		t.Errorf("tag %s = %q, want the checkout's 40-hex HEAD commit", mlflow.TagGitCommit, tags[mlflow.TagGitCommit])
	}
	if !strings.HasSuffix(run.URL(), "/runs/"+run.ID()+"?workflowType=machine_learning") {
		t.Errorf("run URL %q does not open the run in the UI's model-training layout", run.URL())
	}
	hist, err := c.GetMetricHistory(ctx, run.ID(), "train/loss")
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != steps {
		t.Fatalf("train/loss has %d points, want %d", len(hist), steps)
	}
	seen := map[int64]float64{}
	for _, m := range hist {
		seen[m.Step] = m.Value
	}
	for s := range steps {
		if seen[int64(s)] != 1/float64(s+1) {
			t.Fatalf("train/loss at step %d = %v, want %v", s, seen[int64(s)], 1/float64(s+1))
		}
	}
	var buf strings.Builder
	if err := c.DownloadArtifact(ctx, got.Info.ArtifactURI, "plots/curve.png", &buf); err != nil {
		t.Fatal(err)
	}
	if buf.String() != string(png) {
		t.Errorf("artifact came back as %q", buf.String())
	}

	// A second run reuses the server, nested under the first (a sweep's
	// child); a failed run records its error.
	run2, err := Start(ctx, "narlab-test/experiments", nil, Parent(run.ID()))
	if err != nil {
		t.Fatal(err)
	}
	if err := run2.EndWith(ctx, errors.New("diverged at step 12")); err != nil {
		t.Fatal(err)
	}
	got2, err := c.GetRun(ctx, run2.ID())
	if err != nil {
		t.Fatal(err)
	}
	if got2.Info.Status != mlflow.StatusFailed {
		t.Errorf("failed run has status %s", got2.Info.Status)
	}
	tags2 := map[string]string{}
	for _, tg := range got2.Data.Tags {
		tags2[tg.Key] = tg.Value
	}
	if tags2["narlab.error"] != "diverged at step 12" {
		t.Errorf("failed run's narlab.error tag = %q", tags2["narlab.error"])
	}
	if tags2[mlflow.TagParentRunID] != run.ID() {
		t.Errorf("nested run's %s = %q, want %q", mlflow.TagParentRunID, tags2[mlflow.TagParentRunID], run.ID())
	}
	children, err := c.SearchRuns(ctx, []string{got.Info.ExperimentID},
		mlflow.SearchOptions{Filter: fmt.Sprintf("tags.`mlflow.parentRunId` = '%s'", run.ID())})
	if err != nil {
		t.Fatal(err)
	}
	if len(children) != 1 || children[0].Info.RunID != run2.ID() {
		t.Errorf("searching the parent's children found %d runs, want just %s", len(children), run2.ID())
	}
	if srv2, _ := mlflow.FindServer(ctx, filepath.Join(data, "mlflow")); srv2 == nil || srv2.PID != srv.PID {
		t.Errorf("the second run did not reuse the embedded server")
	}

	// Interruptions: a run ended with a cancelled context's error is
	// KILLED; EndLiveRuns (what a signal does) kills the runs still live
	// and leaves ended ones alone.
	cut, err := Start(ctx, "narlab-test/experiments", nil, RunName("cancelled"))
	if err != nil {
		t.Fatal(err)
	}
	live1, err := Start(ctx, "narlab-test/experiments", nil, RunName("live1"))
	if err != nil {
		t.Fatal(err)
	}
	live2, err := Start(ctx, "narlab-test/experiments", nil, RunName("live2"))
	if err != nil {
		t.Fatal(err)
	}
	cctx, ccancel := context.WithCancel(ctx)
	ccancel()
	if err := cut.EndWith(ctx, fmt.Errorf("train: interrupted at step 3: %w", cctx.Err())); err != nil {
		t.Fatal(err)
	}
	if err := EndLiveRuns(mlflow.StatusKilled, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Run{cut, live1, live2} {
		got, err := c.GetRun(ctx, r.ID())
		if err != nil {
			t.Fatal(err)
		}
		if got.Info.Status != mlflow.StatusKilled {
			t.Errorf("run %s is %s, want KILLED", got.Info.RunName, got.Info.Status)
		}
	}
	if err := live1.End(ctx, mlflow.StatusFinished); !errors.Is(err, mlflow.ErrEnded) {
		t.Errorf("End after EndLiveRuns: %v, want ErrEnded", err)
	}

	// Credentials and spools from elsewhere: a spool names its server; the
	// token in the environment goes there only when MLFLOW_TRACKING_URI
	// names the same server. A recording proxy stands before the real one.
	target, _ := url.Parse(srv.URL)
	var mu sync.Mutex
	var auths []string
	down := true
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		refuse := down
		mu.Unlock()
		if refuse {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	pc, err := mlflow.NewClient(proxy.URL, mlflow.WithRetry(mlflow.NoRetry))
	if err != nil {
		t.Fatal(err)
	}
	spoolFor := func(name string) string {
		dir := filepath.Join(t.TempDir(), name)
		lg, err := pc.StartRun(ctx, mlflow.RunOptions{Experiment: "narlab-test/creds", RunName: name, SpoolDir: dir,
			CreateTimeout: 100 * time.Millisecond, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		lg.LogMetric("m", 0, 1)
		if err := lg.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	foreign, ours := spoolFor("foreign"), spoolFor("ours")
	mu.Lock()
	down, auths = false, nil
	mu.Unlock()
	t.Setenv(mlflow.EnvTrackingToken, "t0ken-for-our-server")
	t.Setenv(mlflow.EnvTrackingURI, "http://127.0.0.1:1") // another server
	if res, err := SyncSpools(ctx, foreign); err != nil || len(res) != 1 || res[0].Pending != 0 {
		t.Fatalf("sync of a spool naming another server: %+v, %v", res, err)
	}
	mu.Lock()
	for _, a := range auths {
		if a != "" {
			t.Errorf("the token went to a server named only by a spool: %q", a)
		}
	}
	sent := len(auths)
	auths = nil
	mu.Unlock()
	if sent == 0 {
		t.Fatal("nothing reached the spool's server")
	}
	t.Setenv(mlflow.EnvTrackingURI, proxy.URL) // now it is our server
	if _, err := SyncSpools(ctx, ours); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(auths) == 0 || auths[0] != "Bearer t0ken-for-our-server" {
		t.Errorf("the token did not go to MLFLOW_TRACKING_URI's server: %q", auths)
	}
	mu.Unlock()
}

// TestSourceName checks the default mlflow.source.name: the program and
// its subcommand, without flags or arguments that are paths or values.
func TestSourceName(t *testing.T) {
	saved := os.Args
	t.Cleanup(func() { os.Args = saved })
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"/work/bin/narlab", "train", "--algo", "bfs"}, "narlab train"},
		{[]string{"narlab", "dsr", "run", "--n", "3"}, "narlab dsr run"},
		{[]string{"narlab", "clrs", "generate", "extra"}, "narlab clrs generate"},
		{[]string{"narlab", "-v"}, "narlab"},
		{[]string{"narlab", "train", "data/x.json"}, "narlab train"},
		{[]string{"narlab", "train", "seed=3"}, "narlab train"},
		{[]string{"./mytool"}, "mytool"},
	} {
		os.Args = c.args
		if got := sourceName(""); got != c.want {
			t.Errorf("sourceName with args %q = %q, want %q", c.args, got, c.want)
		}
	}
	if got := sourceName("notebook 02_train.ipynb"); got != "notebook 02_train.ipynb" {
		t.Errorf("an explicit Source gave %q", got)
	}
}

// TestStartErrors checks the errors Start gives before any server is
// involved.
func TestStartErrors(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name, experiment, uri, want string
	}{
		{"empty experiment", " ", "http://127.0.0.1:1", "empty experiment name"},
		{"not a server address", "x", "file:///tmp/mlruns", "expected an http:// or https:// server address"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("NARLAB_DATA", t.TempDir())
			_, err := Start(ctx, c.experiment, nil, TrackingURI(c.uri))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestSyncSpoolsErrors checks SyncSpools' answer to a directory that is
// not there or not a directory, and to one without spools.
func TestSyncSpoolsErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, dir, want string }{
		{"missing", filepath.Join(dir, "nope"), "no such file or directory"},
		{"a file", file, "is not a directory; expected a run spool or a directory of spools"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := SyncSpools(context.Background(), c.dir)
			if err == nil || !strings.Contains(err.Error(), c.want) || res != nil {
				t.Errorf("got %v, %v; want an error containing %q", res, err, c.want)
			}
		})
	}
	if res, err := SyncSpools(context.Background(), dir); err != nil || len(res) != 0 {
		t.Errorf("a directory without spools gave %v, %v; want nothing to do", res, err)
	}
}

func ExampleStart() {
	ctx := context.Background()
	run, err := Start(ctx, "clrs/insertion_sort", map[string]string{"processor": "mpnn", "seed": "1"},
		RunName("mpnn-seed1"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	for step := int64(0); step < 100; step++ {
		run.LogMetric("train/loss", step, 1/float64(step+1))
	}
	run.LogMetric("val/score", 100, 0.93)
	fmt.Println("see", run.URL())
	run.EndWith(ctx, nil)
}
