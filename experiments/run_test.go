package experiments

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/experiments/mlflow"
	"github.com/narlab/narlab/internal/project"
)

// TestEmbeddedServerRun uses the embedded default: with no
// MLFLOW_TRACKING_URI, Start launches a local `mlflow server` (the real
// one, from the project's environment) under the data directory, a second
// Start reuses it, and everything a run logs reads back from the server.
func TestEmbeddedServerRun(t *testing.T) {
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
		"processor": "mpnn", mlflow.TagSourceType: mlflow.SourceLocal} {
		if tags[k] != want {
			t.Errorf("tag %s = %q, want %q", k, tags[k], want)
		}
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

	// A second run reuses the server; a failed run records its error.
	run2, err := Start(ctx, "narlab-test/experiments", nil)
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
	if srv2, _ := mlflow.FindServer(ctx, filepath.Join(data, "mlflow")); srv2 == nil || srv2.PID != srv.PID {
		t.Errorf("the second run did not reuse the embedded server")
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
