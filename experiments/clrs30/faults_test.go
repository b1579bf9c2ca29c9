package clrs30

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/smalldisk"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// faultTraining is a training of 400 steps small enough for a second of
// the pure-Go backend, validated 20 times: what the lab ran.
func faultTraining(t *testing.T, uri, experiment string) Config {
	return Config{Algo: "bfs", Processor: "mpnn", Steps: 400, EvalEvery: 20, Batch: 2, Hidden: 8, TrainLength: 4,
		ValSamples: 4, TestSamples: 4, Seed: 3, Backend: "go", Dir: filepath.Join(t.TempDir(), "run"),
		Experiment: experiment, TrackingURI: uri}
}

// timingMetrics differ from run to run (they time the machine): a faulty
// run has them once each, as a quiet one, whatever their values.
var timingMetrics = map[string]bool{MetricStepsPerS: true, MetricFirstStep: true}

// comparable says which metrics a faulty run must log exactly as the quiet
// run: all but the machine's (system/…) and the timings.
func comparable(key string) bool { return !strings.HasPrefix(key, "system/") && !timingMetrics[key] }

// TestTrainingFaults trains the same seeded model in runs that meet a
// shared lab's faults: the spool's disk full from the start or filling
// during the run, the tracking server killed and restarted in the middle
// of the training, answering 5xx for a while, and down while the disk is
// full. Each run is read back with MLflow's Python client from a real
// server, and its metric histories are compared point for point with
// those of a quiet run of the same seed: equal, or, where neither the disk
// nor the server could take some points, short of exactly the points the
// run's error counts as lost (of each key, the last ones).
func TestTrainingFaults(t *testing.T) {
	srv := mlflowtest.RestartableServer(t)
	ctx := context.Background()
	t.Setenv(tracking.EnvTrackingTimeout, "2m")
	t.Setenv(mlflow.EnvTrackingURI, "")
	t.Setenv(mlflow.EnvExperimentName, "")
	t.Setenv(mlflow.EnvRunID, "")

	type result struct {
		t        *testing.T
		id       string
		lost     *mlflow.LostError // nil: nothing may be missing
		finished bool              // FINISHED, else KILLED (ended by sync)
	}
	var results []result
	train := func(t *testing.T, cfg Config) *Result {
		t.Helper()
		res, err := Run(ctx, cfg)
		if err != nil {
			t.Fatalf("training: %v", err)
		}
		return res
	}

	t.Setenv("NARLAB_DATA", t.TempDir())
	quiet := train(t, faultTraining(t, srv.URL(), "narlab-test/faults-quiet"))

	t.Run("spool_disk_full_from_the_start", func(t *testing.T) {
		smalldisk.Run(t, 64<<10, func(t *testing.T, disk string) {
			smalldisk.Fill(t, disk)
			t.Setenv("NARLAB_DATA", disk)
			res := train(t, faultTraining(t, srv.URL(), "narlab-test/faults"))
			checkMetDisk(t, res, disk)
			results = append(results, result{t: t, id: res.RunID, finished: true})
		})
	})

	t.Run("spool_disk_fills_during_the_run", func(t *testing.T) {
		smalldisk.Run(t, 24<<10, func(t *testing.T, disk string) {
			t.Setenv("NARLAB_DATA", disk)
			res := train(t, faultTraining(t, srv.URL(), "narlab-test/faults"))
			checkMetDisk(t, res, disk)
			results = append(results, result{t: t, id: res.RunID, finished: true})
		})
	})

	t.Run("server_killed_and_restarted_mid_run", func(t *testing.T) {
		t.Setenv("NARLAB_DATA", t.TempDir())
		cfg := faultTraining(t, srv.URL(), "narlab-test/faults")
		cfg.AfterStep = func(step int, _ float64) {
			switch step {
			case 100:
				time.Sleep(1500 * time.Millisecond) // a flush reaches the server, then the crash cuts the next
				srv.Kill()
			case 250:
				srv.Start() // the training waits meanwhile; what it logged waits in the spool
			}
		}
		res := train(t, cfg)
		results = append(results, result{t: t, id: res.RunID, finished: true})
	})

	t.Run("server_answers_5xx_for_a_while", func(t *testing.T) {
		t.Setenv("NARLAB_DATA", t.TempDir())
		proxy := mlflowtest.NewProxy(t, srv.URL())
		cfg := faultTraining(t, proxy.URL, "narlab-test/faults")
		cfg.AfterStep = func(step int, _ float64) {
			// Each phase lasts beyond a flush of the run's logger (1 s).
			switch step {
			case 50:
				proxy.Fail(mlflowtest.Fault{Status: 500, Applied: true, Every: 2})
				time.Sleep(2500 * time.Millisecond)
			case 200:
				proxy.Fail(mlflowtest.Fault{Status: 503})
				time.Sleep(1500 * time.Millisecond)
			case 250:
				proxy.Fail(mlflowtest.Fault{Status: 502, Applied: true})
				time.Sleep(1500 * time.Millisecond)
			case 300:
				proxy.Heal()
			}
		}
		res := train(t, cfg)
		if faulted, applied, _ := proxy.Counts(); faulted == 0 || applied == 0 {
			t.Errorf("the proxy faulted %d requests (%d after the server applied them); want both > 0", faulted, applied)
		}
		results = append(results, result{t: t, id: res.RunID, finished: true})
	})

	t.Run("spool_disk_full_and_server_down_then_sync", func(t *testing.T) {
		smalldisk.Run(t, 24<<10, func(t *testing.T, disk string) {
			t.Setenv("NARLAB_DATA", disk)
			t.Setenv(tracking.EnvTrackingTimeout, "2s")
			proxy := mlflowtest.NewProxy(t, srv.URL())
			proxy.Fail(mlflowtest.Fault{Drop: true})
			res, err := Run(ctx, faultTraining(t, proxy.URL, "narlab-test/faults"))
			var lost *mlflow.LostError
			if !errors.As(err, &lost) || !errors.Is(err, ErrNotDelivered) || res == nil {
				t.Fatalf("training with the disk full and the server down: %v; want ErrNotDelivered with the losses counted", err)
			}
			t.Logf("the training's error: %v", err)
			for _, want := range []string{"tmpfs on " + disk, "no space left on device", "metric points (", "were lost"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error does not say %q:\n%v", want, err)
				}
			}
			if lost.Points["train/loss"] == 0 {
				t.Errorf("losses %v; want train/loss points among them", lost.Points)
			}
			proxy.Heal()
			synced, err := tracking.SyncSpools(ctx, disk)
			if err != nil || len(synced) != 1 || synced[0].Pending != 0 {
				t.Fatalf("sync: %+v, %v; want one spool delivered", synced, err)
			}
			results = append(results, result{t: t, id: synced[0].RunID, lost: lost})
		})
	})

	if len(results) == 0 {
		return
	}
	ids := []string{quiet.RunID}
	for _, r := range results {
		ids = append(ids, r.id)
	}
	runs := mlflowtest.ReadRuns(t, srv.URL(), ids...)
	want := runs[quiet.RunID]
	if want.Status != string(mlflow.StatusFinished) || len(want.Metrics["train/loss"]) != 400 || len(want.Metrics["val/score"]) != 20 {
		t.Fatalf("the quiet run: %s, %d train/loss and %d val/score points; want FINISHED, 400 and 20",
			want.Status, len(want.Metrics["train/loss"]), len(want.Metrics["val/score"]))
	}
	// Its logged model shares the summary points: one each, at step 0.
	for k, v := range map[string]float64{MetricTestScore: quiet.Test["score"], MetricBestVal: quiet.BestVal} {
		if h := want.Metrics[k]; quiet.ModelID == "" || len(h) != 1 || h[0] != (mlflowtest.Point{Step: 0, Value: v}) {
			t.Errorf("the quiet run (model %q): %s history %v; want one summary point at step 0 (%v)", quiet.ModelID, k, h, v)
		}
	}
	for _, r := range results {
		got := runs[r.id]
		wantStatus := mlflow.StatusFinished
		if !r.finished {
			wantStatus = mlflow.StatusKilled // its end was lost; sync marked it
		}
		if got.Status != string(wantStatus) {
			t.Errorf("%s: run %s is %s; want %s", r.t.Name(), r.id, got.Status, wantStatus)
		}
		expect := map[string][]mlflowtest.Point{}
		for k, ps := range want.Metrics {
			n := int64(len(ps))
			if r.lost != nil {
				n -= r.lost.Points[k]
			}
			if n < 0 {
				t.Errorf("%s: %d points of %s counted lost, of %d", r.t.Name(), r.lost.Points[k], k, len(ps))
				continue
			}
			if n > 0 {
				expect[k] = ps[:n]
			}
		}
		for _, d := range mlflowtest.DiffMetrics(expect, got.Metrics, func(k string) bool { return !comparable(k) }) {
			t.Errorf("%s: %s", r.t.Name(), d)
		}
		for k := range timingMetrics {
			wantN := 1
			if r.lost != nil && r.lost.Points[k] > 0 {
				wantN = 0
			}
			if len(got.Metrics[k]) != wantN {
				t.Errorf("%s: %d points of %s; want %d", r.t.Name(), len(got.Metrics[k]), k, wantN)
			}
		}
		if r.lost == nil {
			for _, a := range []string{"results.json", "results.md", "plots/validation_curve.png"} {
				if !slices.Contains(got.Artifacts, a) {
					t.Errorf("%s: run %s lacks artifact %s (has %v)", r.t.Name(), r.id, a, got.Artifacts)
				}
			}
		}
	}
}

// checkMetDisk checks that a run met the full disk: some of its requests
// were held in memory, for a reason naming the filesystem.
func checkMetDisk(t *testing.T, res *Result, disk string) {
	t.Helper()
	n, err := res.Run.Logger().HeldInMemory()
	if n == 0 || err == nil {
		t.Fatalf("held in memory: %d requests (%v); want some: the disk never filled, nothing was tested", n, err)
	}
	if !strings.Contains(err.Error(), "tmpfs on "+disk) {
		t.Errorf("the disk's failure does not name the filesystem (tmpfs on %s): %v", disk, err)
	}
}
