package tracking

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/smalldisk"
	"github.com/narlab/narlab/tracking/mlflow"
	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// TestSpoolFaults logs runs through the spooled run logger against the
// faults a shared lab meets, each on a real MLflow server and, for the
// disk, a real filesystem that fills (a small tmpfs: internal/smalldisk),
// and reads every run back with MLflow's Python client: each metric
// history must hold exactly the points logged, none lost, none doubled,
// except where neither the disk nor the server could take them, and then
// exactly the points the run's error counts as lost are missing.
func TestSpoolFaults(t *testing.T) {
	srv := mlflowtest.RestartableServer(t) // one server for every case
	ctx := context.Background()
	var checks []runCheck

	t.Run("disk_full_from_the_start", func(t *testing.T) {
		smalldisk.Run(t, 64<<10, func(t *testing.T, disk string) {
			smalldisk.Fill(t, disk)
			spool := filepath.Join(disk, "spool")
			lg := startFaultRun(t, srv.URL(), spool, t.Name(), 0)
			logged := logSteps(t, lg, 3000, nil)
			if err := lg.End(ctx, mlflow.StatusFinished); err != nil {
				t.Fatalf("End with the spool's disk full and the server up: %v; want nil (nothing lost)", err)
			}
			checkHeldInMemory(t, lg, disk)
			if _, err := os.Lstat(spool); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a spool that could not be created left %s behind (%v)", spool, err)
			}
			checks = append(checks, runCheck{t: t, id: lg.RunID(), want: logged, status: mlflow.StatusFinished, artifacts: allArtifacts})
		})
	})

	t.Run("disk_fills_during_the_run", func(t *testing.T) {
		smalldisk.Run(t, 32<<10, func(t *testing.T, disk string) {
			spool := filepath.Join(disk, "spool")
			lg := startFaultRun(t, srv.URL(), spool, t.Name(), 0)
			logged := logSteps(t, lg, 3000, nil)
			if err := lg.End(ctx, mlflow.StatusFinished); err != nil {
				t.Fatalf("End with the spool's disk full and the server up: %v; want nil (nothing lost)", err)
			}
			checkHeldInMemory(t, lg, disk)
			if st, err := mlflow.InspectSpool(spool); err != nil || !st.Done || st.Pending != 0 {
				t.Errorf("the spool after the run: %+v, %v; want it done", st, err)
			}
			checks = append(checks, runCheck{t: t, id: lg.RunID(), want: logged, status: mlflow.StatusFinished, artifacts: allArtifacts})
		})
	})

	// A scoring run (LogOnce: every score command) with its spool's disk
	// full: its metric, table and dataset input reach the server.
	t.Run("scoring_run_disk_full", func(t *testing.T) {
		smalldisk.Run(t, 64<<10, func(t *testing.T, disk string) {
			smalldisk.Fill(t, disk)
			t.Setenv("NARLAB_DATA", disk)
			t.Setenv(mlflow.EnvRunID, "")
			input := filepath.Join(t.TempDir(), "answers.jsonl")
			if err := os.WriteFile(input, []byte("{\"id\": 1}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			run, err := LogOnce(ctx, Destination{Experiment: "narlab-test/spool-faults", TrackingURI: srv.URL()},
				map[string]string{"seed": "7"}, []Option{RunName(t.Name())}, []FileInput{{"answers", input, "eval"}},
				func(ctx context.Context, run *Run) error {
					if err := run.LogMetric("eval/score", 0, 0.75); err != nil {
						return err
					}
					return run.LogTable("tables/scores.json", []string{"task", "score"}, [][]any{{"a", 0.5}, {"b", 1.0}})
				})
			if err != nil {
				t.Fatalf("LogOnce with the spool's disk full and the server up: %v", err)
			}
			checkHeldInMemory(t, run.Logger(), disk)
			got := mlflowtest.ReadRuns(t, srv.URL(), run.ID())[run.ID()]
			if got.Status != string(mlflow.StatusFinished) || len(got.Metrics["eval/score"]) != 1 || got.Metrics["eval/score"][0].Value != 0.75 ||
				!slices.Contains(got.Artifacts, "tables/scores.json") || len(got.Datasets) != 1 {
				t.Errorf("the scoring run as MLflow's client reads it: %s, eval/score %v, artifacts %v, %d datasets; "+
					"want FINISHED, [0.75], tables/scores.json, 1", got.Status, got.Metrics["eval/score"], got.Artifacts, len(got.Datasets))
			}
		})
	})

	// The disk fills, records go to the server from memory, the disk has
	// room again (requests.jsonl then has a gap: the records delivered
	// from memory), the server becomes unreachable, and the process stops
	// without ending the run: Sync delivers the rest once, over the gap.
	t.Run("disk_full_then_room_again_then_server_down", func(t *testing.T) {
		smalldisk.Run(t, 256<<10, func(t *testing.T, disk string) {
			proxy := mlflowtest.NewProxy(t, srv.URL())
			spool := filepath.Join(disk, "spool")
			lg := startFaultRun(t, proxy.URL, spool, t.Name(), 0)
			logged := logSteps(t, lg, 3000, map[int]func(){
				500: func() { persist(t, lg); smalldisk.Fill(t, disk) },
				1500: func() {
					flush(t, lg) // what memory held is delivered
					smalldisk.Unfill(t, disk)
				},
				2000: func() { flush(t, lg); proxy.Fail(mlflowtest.Fault{Drop: true}) },
			})
			if err := lg.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			checkHeldInMemory(t, lg, disk)
			st, err := mlflow.InspectSpool(spool)
			if err != nil || st.Pending == 0 {
				t.Fatalf("the spool after the server went away: %+v, %v; want requests pending", st, err)
			}
			if !hasGap(t, filepath.Join(spool, "requests.jsonl")) {
				t.Fatal("requests.jsonl has no gap: no record was delivered from memory before the disk took records again; the case was not tested")
			}
			proxy.Heal()
			c := client(t, srv.URL())
			res, err := mlflow.Sync(ctx, c, spool, mlflow.SyncOptions{MarkAbandoned: mlflow.StatusKilled})
			if err != nil || res.Pending != 0 || !res.Ended {
				t.Fatalf("Sync over the gap: %+v, %v", res, err)
			}
			checks = append(checks, runCheck{t: t, id: lg.RunID(), want: logged, status: mlflow.StatusKilled, artifacts: allArtifacts})
		})
	})

	// Neither the disk nor the server takes the end of the run: End says
	// how many points of each key were lost, and those are exactly the
	// ones missing once Sync has delivered what the spool kept.
	t.Run("disk_full_and_server_down", func(t *testing.T) {
		smalldisk.Run(t, 32<<10, func(t *testing.T, disk string) {
			proxy := mlflowtest.NewProxy(t, srv.URL())
			proxy.Fail(mlflowtest.Fault{Drop: true})
			spool := filepath.Join(disk, "spool")
			lg := startFaultRun(t, proxy.URL, spool, t.Name(), time.Second)
			logged := logSteps(t, lg, 3000, nil)
			err := lg.End(ctx, mlflow.StatusFinished)
			var lost *mlflow.LostError
			if !errors.As(err, &lost) || !errors.Is(err, mlflow.ErrLost) || !errors.Is(err, mlflow.ErrPending) {
				t.Fatalf("End with the disk full and the server down: %v; want an error counting what was lost (ErrLost) and saying what waits in the spool (ErrPending)", err)
			}
			t.Logf("End: %v", err)
			for _, want := range []string{"tmpfs on " + disk, "no space left on device", "train/loss: ", "the run's end status"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("End's error does not say %q:\n%v", want, err)
				}
			}
			if lost.Points["train/loss"] == 0 {
				t.Errorf("lost %v; want train/loss points among them (the disk holds %d KiB)", lost.Points, 32)
			}
			proxy.Heal()
			c := client(t, srv.URL())
			res, err := mlflow.Sync(ctx, c, spool, mlflow.SyncOptions{MarkAbandoned: mlflow.StatusKilled})
			if err != nil || res.Pending != 0 {
				t.Fatalf("Sync: %+v, %v", res, err)
			}
			// Records are delivered in order: of each key, the first
			// points reached the server, the last ones were lost.
			want := map[string][]mlflowtest.Point{}
			for k, ps := range logged {
				n := int64(len(ps)) - lost.Points[k]
				if n < 0 {
					t.Fatalf("%s: %d points lost of %d logged", k, lost.Points[k], len(ps))
				}
				if n > 0 {
					want[k] = ps[:n]
				}
			}
			checks = append(checks, runCheck{t: t, id: res.RunID, want: want, status: mlflow.StatusKilled})
		})
	})

	t.Run("disk_full_server_down_for_a_while", func(t *testing.T) {
		smalldisk.Run(t, 32<<10, func(t *testing.T, disk string) {
			proxy := mlflowtest.NewProxy(t, srv.URL())
			proxy.Fail(mlflowtest.Fault{Drop: true})
			spool := filepath.Join(disk, "spool")
			lg := startFaultRun(t, proxy.URL, spool, t.Name(), 0)
			logged := logSteps(t, lg, 3000, map[int]func(){2000: proxy.Heal})
			if err := lg.End(ctx, mlflow.StatusFinished); err != nil {
				t.Fatalf("End once the server answered again: %v; want nil (nothing lost)", err)
			}
			checkHeldInMemory(t, lg, disk)
			checks = append(checks, runCheck{t: t, id: lg.RunID(), want: logged, status: mlflow.StatusFinished, artifacts: allArtifacts})
		})
	})

	// A state.json left behind by records delivered after it (as when the
	// disk took no new state.json and the process died): Sync checks each
	// record against the server until one proves new, and doubles nothing.
	t.Run("stale_state_then_sync", func(t *testing.T) {
		spool := filepath.Join(t.TempDir(), "spool")
		lg := startFaultRun(t, srv.URL(), spool, t.Name(), 0)
		var old []byte
		logged := logSteps(t, lg, 2000, map[int]func(){
			400: func() {
				flush(t, lg)
				var err error
				if old, err = os.ReadFile(filepath.Join(spool, "state.json")); err != nil {
					t.Fatal(err)
				}
			},
			1600: func() { flush(t, lg) },
		})
		if err := lg.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(spool, "state.json"), old, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := mlflow.Sync(ctx, client(t, srv.URL()), spool, mlflow.SyncOptions{MarkAbandoned: mlflow.StatusKilled})
		if err != nil || res.Pending != 0 || !res.Ended {
			t.Fatalf("Sync: %+v, %v", res, err)
		}
		checks = append(checks, runCheck{t: t, id: lg.RunID(), want: logged, status: mlflow.StatusKilled})
	})

	// The server answers 5xx for a while: before applying requests (503,
	// not applied), after applying them (500, 502: in doubt), and cuts
	// connections after applying them.
	t.Run("server_answers_5xx_for_a_while", func(t *testing.T) {
		proxy := mlflowtest.NewProxy(t, srv.URL())
		lg := startFaultRun(t, proxy.URL, filepath.Join(t.TempDir(), "spool"), t.Name(), 0)
		phase := func(f mlflowtest.Fault) func() {
			return func() { proxy.Fail(f); time.Sleep(300 * time.Millisecond) }
		}
		logged := logSteps(t, lg, 3000, map[int]func(){
			300:  phase(mlflowtest.Fault{Status: 500, Applied: true, Every: 2}),
			900:  phase(mlflowtest.Fault{Status: 503}),
			1200: phase(mlflowtest.Fault{Status: 502, Applied: true}),
			1500: phase(mlflowtest.Fault{Drop: true, Applied: true, Every: 3}),
			1800: proxy.Heal,
		})
		if err := lg.End(ctx, mlflow.StatusFinished); err != nil {
			t.Fatalf("End after the server's errors: %v", err)
		}
		faulted, applied, _ := proxy.Counts()
		if faulted == 0 || applied == 0 {
			t.Errorf("the proxy faulted %d requests, %d of them applied; want both > 0 (the faults did not meet the run)", faulted, applied)
		}
		checks = append(checks, runCheck{t: t, id: lg.RunID(), want: logged, status: mlflow.StatusFinished, artifacts: allArtifacts})
	})

	// One Python process reads every run back.
	var ids []string
	for _, c := range checks {
		ids = append(ids, c.id)
	}
	if len(ids) == 0 {
		return
	}
	runs := mlflowtest.ReadRuns(t, srv.URL(), ids...)
	for _, c := range checks {
		got := runs[c.id]
		if got.Status != string(c.status) {
			t.Errorf("%s: run %s is %s; want %s", c.t.Name(), c.id, got.Status, c.status)
		}
		for _, d := range mlflowtest.DiffMetrics(c.want, got.Metrics, nil) {
			t.Errorf("%s: %s", c.t.Name(), d)
		}
		if got.Params["seed"] != "7" {
			t.Errorf("%s: param seed = %q", c.t.Name(), got.Params["seed"])
		}
		for _, a := range c.artifacts {
			if !slices.Contains(got.Artifacts, a) {
				t.Errorf("%s: run %s lacks artifact %s (has %v)", c.t.Name(), c.id, a, got.Artifacts)
			}
		}
	}
}

// allArtifacts are the artifacts logSteps logs in 3000 steps.
var allArtifacts = []string{"plots/step-499.txt", "plots/step-999.txt", "plots/step-1499.txt", "plots/step-1999.txt",
	"plots/step-2499.txt", "plots/step-2999.txt"}

// runCheck is a run to read back: its expected points and status.
type runCheck struct {
	t         *testing.T
	id        string
	want      map[string][]mlflowtest.Point
	status    mlflow.RunStatus
	artifacts []string
}

func client(t *testing.T, uri string) *mlflow.Client {
	t.Helper()
	c, err := mlflow.NewClient(uri)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startFaultRun starts a run with short waits, so that the faults show
// within a test.
func startFaultRun(t *testing.T, uri, spool, name string, endTimeout time.Duration) *mlflow.RunLogger {
	t.Helper()
	if endTimeout == 0 {
		endTimeout = 2 * time.Minute
	}
	lg, err := client(t, uri).StartRun(context.Background(), mlflow.RunOptions{
		Experiment: "narlab-test/spool-faults", RunName: strings.ReplaceAll(name, "/", " "), SpoolDir: spool,
		FlushInterval: 20 * time.Millisecond, FlushSize: 200, MaxBackoff: 300 * time.Millisecond,
		CreateTimeout: time.Second, EndTimeout: endTimeout, Logf: func(f string, a ...any) { t.Logf(f, a...) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := lg.LogParam("seed", "7"); err != nil {
		t.Fatal(err)
	}
	return lg
}

// logSteps logs steps points of train/loss and one val/score every 10
// steps, with an artifact every 500 steps, calling at[s] before step s;
// it returns what it logged.
func logSteps(t *testing.T, lg *mlflow.RunLogger, steps int, at map[int]func()) map[string][]mlflowtest.Point {
	t.Helper()
	logged := map[string][]mlflowtest.Point{}
	log := func(key string, step int, v float64) {
		if err := lg.LogMetric(key, int64(step), v); err != nil {
			t.Fatalf("LogMetric(%s, %d): %v", key, step, err)
		}
		logged[key] = append(logged[key], mlflowtest.Point{Step: int64(step), Value: v})
	}
	for s := 0; s < steps; s++ {
		if f := at[s]; f != nil {
			f()
		}
		log("train/loss", s, 1/float64(s+1))
		if s%10 == 0 {
			log("val/score", s, float64(s)/float64(steps))
		}
		if s%500 == 499 {
			if err := lg.LogArtifactBytes(fmt.Sprintf("plots/step-%d.txt", s), []byte(strings.Repeat("x", 3000))); err != nil {
				t.Fatal(err)
			}
		}
		if s%10 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	return logged
}

func persist(t *testing.T, lg *mlflow.RunLogger) {
	t.Helper()
	if err := lg.Persist(); err != nil {
		t.Fatal(err)
	}
}

func flush(t *testing.T, lg *mlflow.RunLogger) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := lg.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// checkHeldInMemory checks that the run met the full disk: some of its
// requests were held in memory, and the disk's failure names the
// filesystem.
func checkHeldInMemory(t *testing.T, lg *mlflow.RunLogger, disk string) {
	t.Helper()
	n, err := lg.HeldInMemory()
	if n == 0 || err == nil {
		t.Fatalf("held in memory: %d requests (%v); want some: the disk never filled, nothing was tested", n, err)
	}
	if !strings.Contains(err.Error(), "tmpfs on "+disk) {
		t.Errorf("the disk's failure does not name the filesystem (tmpfs on %s): %v", disk, err)
	}
}

// hasGap reports whether the sequence numbers of a spool's records skip
// some (the records delivered from memory).
func hasGap(t *testing.T, requests string) bool {
	t.Helper()
	f, err := os.Open(requests)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var last int64
	gap := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var rec struct {
			Seq int64 `json:"seq"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s: %v", requests, err)
		}
		if last != 0 && rec.Seq > last+1 {
			gap = true
		}
		last = rec.Seq
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return gap
}
