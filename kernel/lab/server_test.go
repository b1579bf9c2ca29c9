package lab

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/narlab/narlab/experiments/clrs30"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/internal/testenv"
	"github.com/narlab/narlab/tracking/mlflow"
)

// The tests in this file read and write a real `mlflow server`, started
// from the project's Python environment once and stopped when the
// package's tests end.

var (
	srvOnce sync.Once
	srv     *mlflow.Server
	srvErr  error
	srvDir  string
)

func TestMain(m *testing.M) {
	testenv.Main(m, func() {
		if srv != nil {
			srv.Stop()
		}
		if srvDir != "" {
			os.RemoveAll(srvDir)
		}
	})
}

// server starts the shared test server and points MLFLOW_TRACKING_URI at
// it for the test.
func server(t *testing.T) *mlflow.Client {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs a real MLflow server")
	}
	srvOnce.Do(func() {
		bin, err := project.VenvBin("mlflow")
		if err != nil {
			srvErr = err
			return
		}
		if srvDir, srvErr = os.MkdirTemp("", "narlab-lab-mlflow-"); srvErr != nil {
			return
		}
		srv, srvErr = mlflow.StartServer(context.Background(), mlflow.ServerConfig{Dir: srvDir, MLflow: bin})
	})
	if srvErr != nil {
		t.Fatalf("the test needs a real MLflow server: %v (run scripts/setup.sh)", srvErr)
	}
	t.Setenv(mlflow.EnvTrackingURI, srv.URL)
	c, err := srv.Client()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// logRun creates a run in experiment expID with params, a val/score
// history and summary metrics, and ends it with status.
func logRun(t *testing.T, c *mlflow.Client, expID string, start time.Time, status mlflow.RunStatus,
	params map[string]string, scores []float64, best float64) string {
	t.Helper()
	ctx := context.Background()
	r, err := c.CreateRun(ctx, mlflow.CreateRunOptions{ExperimentID: expID, StartTime: start,
		RunName: params["algorithm"] + "/" + params["processor"]})
	if err != nil {
		t.Fatal(err)
	}
	var b mlflow.Batch
	for k, v := range params {
		b.Params = append(b.Params, mlflow.Param{Key: k, Value: v})
	}
	for i, s := range scores {
		b.Metrics = append(b.Metrics, mlflow.Metric{Key: "val/score", Step: int64(10 * i), Value: s, Timestamp: start.UnixMilli()})
	}
	b.Metrics = append(b.Metrics, mlflow.Metric{Key: clrs30.MetricBestVal, Value: best, Timestamp: start.UnixMilli()})
	if err := c.LogBatch(ctx, r.Info.RunID, b); err != nil {
		t.Fatal(err)
	}
	if status != mlflow.StatusRunning {
		if err := c.EndRun(ctx, r.Info.RunID, status); err != nil {
			t.Fatal(err)
		}
	}
	return r.Info.RunID
}

func TestSearchAgainstMLflow(t *testing.T) {
	c := server(t)
	ctx := context.Background()
	name := fmt.Sprintf("lab-search-%d", time.Now().UnixNano())
	exp, err := c.GetOrCreateExperiment(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(-time.Hour)
	p := func(algo, proc, hidden string) map[string]string {
		return map[string]string{"algorithm": algo, "processor": proc, "hidden_size": hidden}
	}
	oldMPNN := logRun(t, c, exp.ID, t0, mlflow.StatusFinished, p("bfs", "mpnn", "16"), []float64{0.1, 0.3}, 0.3)
	pgn := logRun(t, c, exp.ID, t0.Add(time.Minute), mlflow.StatusFinished, p("bfs", "pgn", "16"), []float64{0.2, 0.6, 0.8}, 0.8)
	newMPNN := logRun(t, c, exp.ID, t0.Add(2*time.Minute), mlflow.StatusFinished, p("bfs", "mpnn", "128"), []float64{0.4, 0.5}, 0.5)
	logRun(t, c, exp.ID, t0.Add(3*time.Minute), mlflow.StatusRunning, p("bfs", "mpnn", "16"), []float64{0.9}, 0.9)
	logRun(t, c, exp.ID, t0.Add(4*time.Minute), mlflow.StatusFailed, p("bfs", "pgn", "16"), []float64{0.9}, 0.9)
	dfs := logRun(t, c, exp.ID, t0.Add(5*time.Minute), mlflow.StatusFinished, p("dfs", "mpnn", "16"), []float64{0.1}, 0.1)
	quoted := logRun(t, c, exp.ID, t0.Add(6*time.Minute), mlflow.StatusFinished, p("it's", "mpnn", "16"), []float64{0.1}, 0.1)

	ids := func(rs Runs) string {
		var s []string
		for _, r := range rs {
			s = append(s, r.ID)
		}
		return strings.Join(s, ",")
	}
	join := func(s ...string) string { return strings.Join(s, ",") }
	tests := []struct {
		name    string
		filters []Filter
		latest  []string
		want    string
	}{
		{"finished runs, newest first", nil, nil, join(quoted, dfs, newMPNN, pgn, oldMPNN)},
		{"where", []Filter{Where("algorithm", "bfs")}, nil, join(newMPNN, pgn, oldMPNN)},
		{"where, latest per processor", []Filter{Where("algorithm", "bfs")}, []string{"processor"}, join(newMPNN, pgn)},
		{"two wheres", []Filter{Where("algorithm", "bfs"), Where("hidden_size", "16")}, nil, join(pgn, oldMPNN)},
		{"a quote in a value", []Filter{Where("algorithm", "it's")}, nil, quoted},
		{"keep", []Filter{Keep(func(r Run) bool { return r.Metrics[clrs30.MetricBestVal] >= 0.5 })}, nil, join(newMPNN, pgn)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := Search(ctx, name, tc.filters...)
			if err != nil {
				t.Fatal(err)
			}
			if tc.latest != nil {
				rs = rs.Latest(tc.latest...)
			}
			if got := ids(rs); got != tc.want {
				t.Errorf("got runs %s, want %s", got, tc.want)
			}
		})
	}

	rs, err := Search(ctx, name, Where("algorithm", "bfs"))
	if err != nil {
		t.Fatal(err)
	}
	r := rs[0]
	if r.Params["hidden_size"] != "128" || r.Metrics[clrs30.MetricBestVal] != 0.5 || r.Status != "FINISHED" ||
		!r.Start.Equal(t0.Add(2*time.Minute).Truncate(time.Millisecond)) || r.Name != "bfs/mpnn" {
		t.Errorf("the newest run reads back as %+v", r)
	}
	if want := c.RunURL(exp.ID, newMPNN); r.URL != want {
		t.Errorf("URL %q, want %q", r.URL, want)
	}

	fig, err := rs.Latest("processor").Curves(ctx, "val/score")
	if err != nil {
		t.Fatal(err)
	}
	if fig.Title != "val/score, from MLflow" || len(fig.Panels) != 1 {
		t.Errorf("curves: title %q, %d panel rows", fig.Title, len(fig.Panels))
	}
	if _, err := fig.PNG(); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.Curves(ctx, "train/loss"); err == nil || !strings.Contains(err.Error(), "none of the 3 runs") {
		t.Errorf("curves of a metric no run has: %v, want an error saying so", err)
	}

	none, err := Search(ctx, name+"-missing")
	if err != nil || len(none) != 0 {
		t.Errorf("an experiment that does not exist: %d runs, %v; want none and no error", len(none), err)
	}
	if _, err := Search(ctx, name, Where("algorithm", `it's "x"`)); err == nil {
		t.Error("a value with both quotes was searched for")
	}
}

// TestTrain trains a tiny model through Train into the test server: the
// progress line, the summary and the run link are printed, the scratch
// directory is gone, and the run reads back with its validation curve.
func TestTrain(t *testing.T) {
	server(t)
	out := capture(t)
	ctx := context.Background()
	name := fmt.Sprintf("lab-train-%d", time.Now().UnixNano())
	res, err := Train(ctx, clrs30.Config{Algo: "bfs", Processor: "mpnn", Steps: 4, Batch: 2, Hidden: 8, TrainLength: 4,
		EvalEvery: 2, ValSamples: 2, TestSamples: 2, Experiment: name, Backend: "go"})
	if err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{"bfs/mpnn: 4/4 (100%", "bfs/mpnn: best validation ", "test ", "steps/s on go",
		"MLflow run " + res.RunID[:8] + ": " + res.RunURL} {
		if !strings.Contains(text, want) {
			t.Errorf("Train printed no %q:\n%s", want, text)
		}
	}
	if _, err := os.Stat(res.Checkpoint); !os.IsNotExist(err) {
		t.Errorf("the scratch checkpoint %s is still there (%v)", res.Checkpoint, err)
	}
	rs, err := Search(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].ID != res.RunID {
		t.Fatalf("the experiment holds %d runs, want the one Train made (%s)", len(rs), res.RunID)
	}
	if _, err := rs.Curves(ctx, "val/score"); err != nil {
		t.Errorf("the trained run's curve: %v", err)
	}
	tab, err := rs[0].Table(ctx, "results.json")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(tab.Columns, ",") != strings.Join(clrs30.ResultColumns, ",") || len(tab.Rows) != 1 ||
		tab.Rows[0]["algorithm"] != "bfs" || tab.Rows[0]["train_steps"] != 4.0 {
		t.Errorf("the run's results.json reads back as %+v", tab)
	}
	if _, err := rs[0].Table(ctx, "no/such/table.json"); err == nil {
		t.Error("a table the run did not log was read")
	}
	out.Reset()
	rs.BesidePaper()
	t.Logf("Train printed:\n%s", text)
	t.Logf("BesidePaper printed:\n%s", out)
	if !strings.Contains(out.String(), "bfs        MPNN       4      8") {
		t.Errorf("BesidePaper printed\n%s", out)
	}
}
