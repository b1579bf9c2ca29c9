package sweep

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/narlab/narlab/tracking/mlflow"
	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// TestTwoSweepsOneServer runs two sweeps of the same grid (same seeds, so
// the same trainings) at once, logging to one PostgreSQL-backed MLflow
// server, kills one cell's training of the first sweep in the middle of
// its run and submits that sweep again. Every cell of both sweeps must end
// with one FINISHED run under its sweep's FINISHED parent, and, read back
// with MLflow's Python client, each cell's metric histories must equal
// its twin's in the other sweep point for point (no point lost or doubled
// by the concurrent writers); the resubmitted cell, which resumed from its
// checkpoint, must hold its twin's whole validation curve and its losses
// from the step it resumed at.
func TestTwoSweepsOneServer(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts PostgreSQL, an MLflow server and eight trainings (make test runs it)")
	}
	url := sharedMLflow(t)
	c := trackingClient(t, url)
	grid := append([]string{"--executor", "local", "--parallel", "1", "--algos", "bfs", "--processors", "mpnn", "--seeds", "1,2"}, tinyFlags...)
	type sweepRun struct {
		dir  string
		env  []string
		cmd  *exec.Cmd
		out  bytes.Buffer
		done chan error
	}
	start := func(name string) *sweepRun {
		s := &sweepRun{dir: filepath.Join(t.TempDir(), name), env: sweepEnv(t, url), done: make(chan error, 1)}
		s.cmd = exec.Command(narlab(t), append([]string{"sweep", "run", "--dir", s.dir, "--name", name}, grid...)...)
		s.cmd.Env = s.env
		s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
		if err := s.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { s.done <- s.cmd.Wait() }()
		return s
	}
	a, b := start("twin-a"), start("twin-b")
	var swA, swB *Sweep
	waitFor(t, time.Minute, "both sweeps' sweep.json", func() bool {
		swA, _ = Load(a.dir)
		swB, _ = Load(b.dir)
		return swA != nil && swB != nil
	})

	// Kill sweep a's second cell once it has saved a checkpoint.
	victim := swA.Cells[1]
	var pid int
	waitFor(t, 3*time.Minute, "sweep a's cell 1 to save its first checkpoint", func() bool {
		if lastCheckpoint(swA, victim) < 100 {
			return false
		}
		pid = trainingPID(swA.CellDir(victim))
		return pid > 0
	})
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed sweep a's training of cell %s (pid %d) after step %d", victim.Key, pid, lastCheckpoint(swA, victim))
	wait := func(s *sweepRun, want int) {
		t.Helper()
		select {
		case err := <-s.done:
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != want {
				logs, _ := filepath.Glob(filepath.Join(s.dir, "logs", "*"))
				for _, l := range logs {
					t.Logf("%s:\n%s", l, readTail(l))
				}
				t.Fatalf("sweep %s: exit status %d, want %d; output:\n%s", s.dir, code, want, s.out.String())
			}
		case <-time.After(5 * time.Minute):
			s.cmd.Process.Kill()
			t.Fatalf("sweep %s did not end:\n%s", s.dir, s.out.String())
		}
	}
	wait(a, 1) // a cell failed
	wait(b, 0)
	if lastCheckpoint(swA, victim) >= 1500 {
		t.Fatalf("cell %s trained to the end before it was killed; nothing was resumed", victim.Key)
	}
	if out := runNarlab(t, a.env, 0, "sweep", "run", "--dir", a.dir); !strings.Contains(out, "1 cells to run, 1 already FINISHED") {
		t.Errorf("sweep a's resubmission:\n%s", out)
	}

	finA, finB := checkExactlyOnce(t, c, swA), checkExactlyOnce(t, c, swB)
	if t.Failed() {
		t.FailNow()
	}
	for _, sw := range []*Sweep{swA, swB} {
		p, err := c.GetRun(context.Background(), sw.ParentRunID)
		if err != nil || p.Info.Status != mlflow.StatusFinished || p.Info.EndTime == 0 {
			t.Errorf("sweep %s's parent: %v (end %v), %v; want FINISHED with an end time", sw.ID, p.Info.Status, p.Info.EndTime, err)
		}
	}
	var ids []string
	for _, sw := range []map[string]mlflow.Run{finA, finB} {
		for _, r := range sw {
			ids = append(ids, r.Info.RunID)
		}
	}
	runs := mlflowtest.ReadRuns(t, url, ids...)
	ignore := func(k string) bool {
		return strings.HasPrefix(k, "system/") || k == "train/steps_per_s" || k == "train/first_step_s"
	}
	for _, cell := range swA.Cells {
		ra, rb := runs[finA[cell.Key].Info.RunID], runs[finB[cell.Key].Info.RunID]
		if n, v := len(rb.Metrics["train/loss"]), len(rb.Metrics["val/score"]); n != 1500 || v != 15 {
			t.Errorf("cell %s of sweep b: %d train/loss and %d val/score points; want 1500 and 15", cell.Key, n, v)
		}
		want := rb.Metrics
		if cell.Key == victim.Key {
			at, err := strconv.ParseInt(ra.Params["resumed_at_step"], 10, 64)
			if err != nil || at <= 0 {
				t.Fatalf("cell %s of sweep a: resumed_at_step %q; want the killed attempt's checkpoint", cell.Key, ra.Params["resumed_at_step"])
			}
			want = map[string][]mlflowtest.Point{}
			for k, ps := range rb.Metrics {
				want[k] = ps
			}
			var losses []mlflowtest.Point
			for _, p := range rb.Metrics["train/loss"] {
				if p.Step > at {
					losses = append(losses, p)
				}
			}
			want["train/loss"] = losses
			// This session's steps: those after the checkpoint.
			delete(want, "train/looped_steps")
			delete(want, "train/unrolled_steps")
			var steps float64
			for _, k := range []string{"train/looped_steps", "train/unrolled_steps"} {
				for _, p := range ra.Metrics[k] {
					steps += p.Value
				}
				if len(ra.Metrics[k]) != 1 {
					t.Errorf("cell %s of sweep a: %d points of %s; want 1", cell.Key, len(ra.Metrics[k]), k)
				}
				ra.Metrics[k] = nil
			}
			if steps != float64(1500-at) {
				t.Errorf("cell %s of sweep a: %v steps trained after resuming at %d; want %d", cell.Key, steps, at, 1500-at)
			}
		}
		for _, d := range mlflowtest.DiffMetrics(want, ra.Metrics, ignore) {
			t.Errorf("cell %s, sweep a against sweep b: %s", cell.Key, d)
		}
	}
}
