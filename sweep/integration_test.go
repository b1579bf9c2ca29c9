package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/narlab/narlab/tracking/mlflow"
)

// tinyFlags make each cell a training of a few seconds that is still long
// enough to be killed after its first checkpoint.
var tinyFlags = []string{"--set", "steps=1500", "--set", "eval-every=100", "--set", "hidden=8", "--set", "batch=2",
	"--set", "train-length=4", "--set", "backend=go", "--set", "val-samples=4", "--set", "test-samples=4"}

// sweepEnv is the environment of the narlab commands of a test: its own
// data directory (run spools, datasets) and tracking server.
func sweepEnv(t *testing.T, tracking string, extra ...string) []string {
	return append(append(os.Environ(), "NARLAB_DATA="+filepath.Join(t.TempDir(), "data"),
		mlflow.EnvTrackingURI+"="+tracking), extra...)
}

// runNarlab runs the narlab binary and returns its output; it fails the
// test when the exit status is not want (0: success, 1: failure).
func runNarlab(t *testing.T, env []string, want int, args ...string) string {
	t.Helper()
	cmd := exec.Command(narlab(t), args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("narlab %s: %v", strings.Join(args, " "), err)
	}
	if code != want {
		t.Fatalf("narlab %s: exit status %d, want %d; output:\n%s", strings.Join(args, " "), code, want, out.String())
	}
	return out.String()
}

// cellRuns returns every run (active and deleted) of a sweep's cells by
// cell key, and the sweep's parent runs.
func cellRuns(t *testing.T, c *mlflow.Client, sw *Sweep) (cells map[string][]mlflow.Run, parents []mlflow.Run) {
	t.Helper()
	runs, err := c.SearchRuns(context.Background(), []string{sw.ExperimentID}, mlflow.SearchOptions{
		Filter: fmt.Sprintf(`tags."%s" = '%s'`, TagSweep, sw.ID), ViewType: mlflow.AllViews})
	if err != nil {
		t.Fatal(err)
	}
	cells = map[string][]mlflow.Run{}
	for _, r := range runs {
		role, _ := r.Data.Tag(TagRole)
		switch role {
		case "parent":
			parents = append(parents, r)
		case "cell":
			key, _ := r.Data.Tag(TagCell)
			cells[key] = append(cells[key], r)
		default:
			t.Errorf("run %s of the sweep has role %q", r.Info.RunID, role)
		}
	}
	return cells, parents
}

// checkExactlyOnce checks that every cell of the sweep has exactly one
// active run, FINISHED, nested under the one parent run, and no other
// FINISHED run; it returns the finished runs by key.
func checkExactlyOnce(t *testing.T, c *mlflow.Client, sw *Sweep) map[string]mlflow.Run {
	t.Helper()
	cells, parents := cellRuns(t, c, sw)
	if len(parents) != 1 || parents[0].Info.RunID != sw.ParentRunID {
		t.Fatalf("parent runs %v; want exactly the one in sweep.json, %s", runIDs(parents), sw.ParentRunID)
	}
	finished := map[string]mlflow.Run{}
	for _, cell := range sw.Cells {
		var active, fin []mlflow.Run
		for _, r := range cells[cell.Key] {
			if r.Info.LifecycleStage == "active" {
				active = append(active, r)
			}
			if r.Info.Status == mlflow.StatusFinished {
				fin = append(fin, r)
			}
		}
		if len(fin) != 1 || len(active) != 1 || active[0].Info.RunID != fin[0].Info.RunID {
			t.Errorf("cell %s: %d FINISHED runs and %d active runs (%s); want one run, FINISHED and active",
				cell.Key, len(fin), len(active), describe(cells[cell.Key]))
			continue
		}
		r := fin[0]
		if p, _ := r.Data.Tag(mlflow.TagParentRunID); p != sw.ParentRunID {
			t.Errorf("cell %s: run %s has parent %q; want %s", cell.Key, r.Info.RunID, p, sw.ParentRunID)
		}
		if _, ok := r.Data.Metric("test/score"); !ok {
			t.Errorf("cell %s: run %s has no test/score", cell.Key, r.Info.RunID)
		}
		finished[cell.Key] = r
	}
	return finished
}

func runIDs(rs []mlflow.Run) []string {
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.Info.RunID)
	}
	return ids
}

func describe(rs []mlflow.Run) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s %s %s", r.Info.RunID, r.Info.Status, r.Info.LifecycleStage))
	}
	return strings.Join(parts, "; ")
}

// lastCheckpoint returns the step of the cell's saved state (0 if none).
func lastCheckpoint(sw *Sweep, cell Cell) int {
	b, err := os.ReadFile(filepath.Join(sw.CellDir(cell), "state.json"))
	if err != nil {
		return 0
	}
	var st struct {
		History []struct {
			Step int `json:"step"`
		} `json:"history"`
	}
	if json.Unmarshal(b, &st) != nil || len(st.History) == 0 {
		return 0
	}
	return st.History[len(st.History)-1].Step
}

// checkSuperseded checks the killed cell: its finished run resumed from a
// checkpoint, and the killed attempt is deleted, not FINISHED, and points
// at the finished run.
func checkSuperseded(t *testing.T, c *mlflow.Client, sw *Sweep, key string, fin mlflow.Run, killedRun string) {
	t.Helper()
	cells, _ := cellRuns(t, c, sw)
	if n := len(cells[key]); n != 2 {
		t.Errorf("cell %s: %d runs (%s); want the killed attempt and the finished one", key, n, describe(cells[key]))
	}
	if at, _ := fin.Data.Tag("resumed_at_step"); at == "" || at == "0" {
		t.Errorf("cell %s: the finished run %s has resumed_at_step %q; want the killed attempt's checkpoint step", key, fin.Info.RunID, at)
	}
	old, err := c.GetRun(context.Background(), killedRun)
	if err != nil {
		t.Fatal(err)
	}
	if old.Info.LifecycleStage != "deleted" || old.Info.Status == mlflow.StatusFinished || old.Info.Status == mlflow.StatusRunning {
		t.Errorf("killed attempt %s: %s, %s; want deleted, FAILED or KILLED", killedRun, old.Info.LifecycleStage, old.Info.Status)
	}
	if by, _ := old.Data.Tag(TagSupersededBy); by != fin.Info.RunID {
		t.Errorf("killed attempt %s: %s = %q; want %s", killedRun, TagSupersededBy, by, fin.Info.RunID)
	}
}

// checkReport runs narlab sweep report and checks it covers every cell,
// with the curve of the resumed cell stitched from both attempts, and that
// the parent run got the table and ended FINISHED.
func checkReport(t *testing.T, c *mlflow.Client, env []string, sw *Sweep, finished map[string]mlflow.Run, resumed string) {
	t.Helper()
	out := runNarlab(t, env, 0, "sweep", "report", "--dir", sw.Dir, "--out", filepath.Join(sw.Dir, "report"))
	if !strings.Contains(out, fmt.Sprintf("%d of %d cells finished", len(sw.Cells), len(sw.Cells))) {
		t.Errorf("report does not say every cell finished:\n%s", out)
	}
	steps := 1500 / 100 // validation points of a whole training
	for _, cell := range sw.Cells {
		r := finished[cell.Key]
		line := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, cell.Key+" ") {
				line = l
			}
		}
		if line == "" || !strings.Contains(line, r.Info.RunID) {
			t.Errorf("report has no line for cell %s with run %s:\n%s", cell.Key, r.Info.RunID, out)
			continue
		}
		m, _ := r.Data.Metric("test/score")
		if want := fmt.Sprintf("%.2f%%", 100*m.Value); !strings.Contains(line, want) {
			t.Errorf("report line %q: want the run's test score %s", line, want)
		}
		f := strings.Fields(line)
		if f[len(f)-1] != strconv.Itoa(steps) {
			t.Errorf("cell %s: %s validation points in the report; want %d (resumed: %v)", cell.Key, f[len(f)-1], steps, cell.Key == resumed)
		}
	}
	for _, p := range sw.Spec.Processors {
		if !strings.Contains(out, "| "+p+" ") {
			t.Errorf("report table has no column %s:\n%s", p, out)
		}
	}
	if _, err := os.Stat(filepath.Join(sw.Dir, "report", "validation_curves.png")); err != nil {
		t.Error(err)
	}
	parent, err := c.GetRun(context.Background(), sw.ParentRunID)
	if err != nil {
		t.Fatal(err)
	}
	if parent.Info.Status != mlflow.StatusFinished {
		t.Errorf("parent run %s is %s after the report of a complete sweep; want FINISHED", sw.ParentRunID, parent.Info.Status)
	}
	data, err := c.ReadArtifact(context.Background(), parent.Info.ArtifactURI, "cells.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Data [][]any `json:"data"`
	}
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	if len(table.Data) != len(sw.Cells) {
		t.Errorf("the parent run's cells.json has %d rows; want %d", len(table.Data), len(sw.Cells))
	}
	if _, err := c.ReadArtifact(context.Background(), parent.Info.ArtifactURI, "plots/validation_curves.png"); err != nil {
		t.Errorf("the parent run has no validation curves: %v", err)
	}
}

// TestSlurmSweepKillResubmit is the test: a 6-cell sweep through
// sbatch on a single-node SLURM cluster, logging to an MLflow server on
// PostgreSQL; one array task is cancelled mid-training, the sweep is
// submitted again, and every cell ends FINISHED exactly once.
func TestSlurmSweepKillResubmit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a SLURM cluster, PostgreSQL, an MLflow server and six training runs (make test runs it)")
	}
	conf := slurm(t)
	t.Setenv("SLURM_CONF", conf) // for Sweep.Queue in this process
	url := sharedMLflow(t)
	c := trackingClient(t, url)
	env := sweepEnv(t, url, "SLURM_CONF="+conf)
	dir := filepath.Join(t.TempDir(), "sweep")
	args := append([]string{"sweep", "run", "--dir", dir, "--name", "slurm-test", "--algos", "bfs", "--processors", "mpnn,pgn",
		"--seeds", "1,2,3", "--throttle", "2", "--mem", "500M", "--time", "00:10:00"}, tinyFlags...)
	out := runNarlab(t, env, 0, args...)
	if !strings.Contains(out, "submitted job array") || !strings.Contains(out, "6 cells") {
		t.Fatalf("first submission:\n%s", out)
	}
	sw, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Cells) != 6 {
		t.Fatalf("%d cells; want 6", len(sw.Cells))
	}
	script, _ := os.ReadFile(filepath.Join(dir, scriptFile))
	for _, want := range []string{"#SBATCH --array=0-5%2\n", "#SBATCH --mem=500M\n", "#SBATCH --time=00:10:00\n"} {
		if !bytes.Contains(script, []byte(want)) {
			t.Errorf("job script lacks %q:\n%s", want, script)
		}
	}

	// Cancel cell 0's task once it has saved a checkpoint and logged it.
	victim := sw.Cells[0]
	var task QueuedTask
	waitFor(t, 3*time.Minute, "cell 0 to save its first checkpoint while its task runs", func() bool {
		q, err := sw.Queue(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var ok bool
		task, ok = q[victim.Index]
		return ok && task.State == "RUNNING" && lastCheckpoint(sw, victim) >= 100
	})
	var killedRun string
	waitFor(t, time.Minute, "cell 0's run in MLflow", func() bool {
		cells, _ := cellRuns(t, c, sw)
		if rs := cells[victim.Key]; len(rs) == 1 {
			killedRun = rs[0].Info.RunID
		}
		return killedRun != ""
	})
	if out, err := slurmCmd(conf, "scancel", task.JobID).CombinedOutput(); err != nil {
		t.Fatalf("scancel %s: %v\n%s", task.JobID, err, out)
	}
	t.Logf("cancelled task %s (cell %s, run %s) after step %d", task.JobID, victim.Key, killedRun, lastCheckpoint(sw, victim))
	waitFor(t, 5*time.Minute, "the first job array to leave the queue", func() bool {
		q, err := sw.Queue(context.Background())
		return err == nil && len(q) == 0
	})
	if lastCheckpoint(sw, victim) >= 1500 {
		t.Fatalf("cell %s trained to the end before it was cancelled; nothing was resumed", victim.Key)
	}
	out = runNarlab(t, env, 0, "sweep", "status", "--dir", dir)
	if !strings.Contains(out, "5 FINISHED") {
		t.Errorf("status after the cancel: want 5 FINISHED cells:\n%s", out)
	}
	cells, _ := cellRuns(t, c, sw)
	if rs := cells[victim.Key]; len(rs) != 1 || rs[0].Info.Status == mlflow.StatusFinished {
		t.Fatalf("cell %s after the cancel: %s; want one unfinished run", victim.Key, describe(rs))
	}

	// Submit again: only the cancelled cell runs, and resumes.
	out = runNarlab(t, env, 0, "sweep", "run", "--dir", dir)
	if !strings.Contains(out, "1 cells to run, 5 already FINISHED") {
		t.Errorf("resubmission:\n%s", out)
	}
	script, _ = os.ReadFile(filepath.Join(dir, scriptFile))
	if !bytes.Contains(script, []byte("#SBATCH --array=0%2\n")) {
		t.Errorf("the resubmitted array is not just cell 0:\n%s", script)
	}
	waitFor(t, 5*time.Minute, "the second job array to finish", func() bool {
		q, err := sw.Queue(context.Background())
		return err == nil && len(q) == 0
	})
	finished := checkExactlyOnce(t, c, sw)
	if t.Failed() {
		logs, _ := filepath.Glob(filepath.Join(dir, "logs", "*"))
		for _, l := range logs {
			t.Logf("%s:\n%s", l, readTail(l))
		}
		t.FailNow()
	}
	checkSuperseded(t, c, sw, victim.Key, finished[victim.Key], killedRun)
	checkReport(t, c, env, sw, finished, victim.Key)

	// A third submission has nothing to do.
	if out := runNarlab(t, env, 0, "sweep", "run", "--dir", dir); !strings.Contains(out, "nothing to submit") {
		t.Errorf("third submission:\n%s", out)
	}
}

// TestLocalSweepKilledTraining runs a sweep with the local executor, kills
// one cell's training process with SIGKILL (it cannot end its run and
// saves nothing more), checks the sweep fails with that cell named and
// ends the abandoned run and the parent KILLED, runs it again and checks
// every cell ends FINISHED exactly once, and the parent with them.
func TestLocalSweepKilledTraining(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts an MLflow server and several training runs (make test runs it)")
	}
	url := sharedMLflow(t)
	c := trackingClient(t, url)
	env := sweepEnv(t, url)
	dir := filepath.Join(t.TempDir(), "sweep")
	args := append([]string{"sweep", "run", "--dir", dir, "--name", "local-test", "--executor", "local", "--parallel", "2",
		"--algos", "bfs", "--processors", "mpnn", "--seeds", "1,2"}, tinyFlags...)
	cmd := exec.Command(narlab(t), args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var sw *Sweep
	waitFor(t, time.Minute, "sweep.json", func() bool {
		sw, _ = Load(dir)
		return sw != nil
	})
	victim := sw.Cells[1]
	var pid int
	waitFor(t, 3*time.Minute, "cell 1's training to save its first checkpoint", func() bool {
		if lastCheckpoint(sw, victim) < 100 {
			return false
		}
		pid = trainingPID(sw.CellDir(victim))
		return pid > 0
	})
	var killedRun string
	waitFor(t, time.Minute, "cell 1's run in MLflow", func() bool {
		cells, _ := cellRuns(t, c, sw)
		if rs := cells[victim.Key]; len(rs) == 1 {
			killedRun = rs[0].Info.RunID
		}
		return killedRun != ""
	})
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed the training of cell %s (pid %d, run %s) after step %d", victim.Key, pid, killedRun, lastCheckpoint(sw, victim))
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("the first run: %v; want exit status 1 (a cell failed); output:\n%s", err, out.String())
		}
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("the first run did not end:\n%s", out.String())
	}
	if s := out.String(); !strings.Contains(s, "1 of 2 cells failed") || !strings.Contains(s, victim.Key) {
		t.Errorf("the first run's output does not name the failed cell:\n%s", s)
	}
	// The killed training could not end its run; the sweep, which knows
	// that nothing runs the cell any more (its lock is free), ended it
	// KILLED, and the parent run with it (KILLED: a cell was killed).
	if r, err := c.GetRun(context.Background(), killedRun); err != nil || r.Info.Status != mlflow.StatusKilled {
		t.Fatalf("the killed training's run: %v %v; want it ended KILLED by the sweep", r.Info.Status, err)
	}
	if p, err := c.GetRun(context.Background(), sw.ParentRunID); err != nil || p.Info.Status != mlflow.StatusKilled || p.Info.EndTime == 0 {
		t.Fatalf("the parent run after the first invocation: %v (end %v), %v; want KILLED with an end time", p.Info.Status, p.Info.EndTime, err)
	}

	out2 := runNarlab(t, env, 0, "sweep", "run", "--dir", dir)
	if !strings.Contains(out2, "1 cells to run, 1 already FINISHED") {
		t.Errorf("second run:\n%s", out2)
	}
	finished := checkExactlyOnce(t, c, sw)
	if t.Failed() {
		t.FailNow()
	}
	// The rerun reopened the parent, which ended FINISHED with its last
	// cell (before any report).
	if p, err := c.GetRun(context.Background(), sw.ParentRunID); err != nil || p.Info.Status != mlflow.StatusFinished ||
		p.Info.EndTime != finished[victim.Key].Info.EndTime {
		t.Errorf("the parent after the rerun: %v, end %v (the rerun cell ended at %v), %v; want FINISHED with its last cell",
			p.Info.Status, p.Info.EndTime, finished[victim.Key].Info.EndTime, err)
	}
	checkSuperseded(t, c, sw, victim.Key, finished[victim.Key], killedRun)
	if r, _ := c.GetRun(context.Background(), killedRun); r != nil && r.Info.Status != mlflow.StatusKilled {
		t.Errorf("the killed training's run is %s; want KILLED", r.Info.Status)
	}
	checkReport(t, c, env, sw, finished, victim.Key)

	// A task stopped after its training finished but before it cleaned up
	// leaves an ended earlier attempt beside the FINISHED run: the next
	// submission supersedes it and runs nothing.
	cell0 := sw.Cells[0]
	stale, err := c.CreateRun(context.Background(), mlflow.CreateRunOptions{ExperimentID: sw.ExperimentID, Tags: []mlflow.Tag{
		{Key: TagSweep, Value: sw.ID}, {Key: TagRole, Value: "cell"}, {Key: TagCell, Value: cell0.Key},
		{Key: mlflow.TagParentRunID, Value: sw.ParentRunID}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.EndRun(context.Background(), stale.Info.RunID, mlflow.StatusFailed); err != nil {
		t.Fatal(err)
	}
	if out := runNarlab(t, env, 0, "sweep", "run", "--dir", dir); !strings.Contains(out, "0 cells to run, 2 already FINISHED") {
		t.Errorf("third run:\n%s", out)
	}
	r, err := c.GetRun(context.Background(), stale.Info.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if by, _ := r.Data.Tag(TagSupersededBy); r.Info.LifecycleStage != "deleted" || by != finished[cell0.Key].Info.RunID {
		t.Errorf("the stale attempt of a finished cell: %s, superseded by %q; want deleted, superseded by %s",
			r.Info.LifecycleStage, by, finished[cell0.Key].Info.RunID)
	}
	checkExactlyOnce(t, c, sw)
}

// trainingPID finds the `narlab train` process training in dir (started
// by this test's sweep), or 0.
func trainingPID(dir string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) < 2 || args[1] != "train" {
			continue
		}
		for i, a := range args {
			if a == "--dir" && i+1 < len(args) && args[i+1] == dir {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
				return pid
			}
		}
	}
	return 0
}

// TestSpoolExactlyOnceOnPostgres: a run logging through its spool to a
// PostgreSQL-backed server that crashes (SIGKILL) half-way and comes back
// delivers every point exactly once and ends FINISHED, as against the
// SQLite-backed one (tracking/mlflow's fault tests).
func TestSpoolExactlyOnceOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts PostgreSQL and an MLflow server (make test runs it)")
	}
	backend := postgres(t)
	dir, port := t.TempDir(), freePort(t)
	srv := startServe(t, backend, dir, port, 2)
	c := trackingClient(t, srv.url)
	ctx := context.Background()
	lg, err := c.StartRun(ctx, mlflow.RunOptions{Experiment: "spool-on-postgres", RunName: "through-a-crash",
		SpoolDir: filepath.Join(t.TempDir(), "spool"), FlushInterval: 20 * time.Millisecond, FlushSize: 200,
		MaxBackoff: 300 * time.Millisecond, EndTimeout: 3 * time.Minute, Logf: func(f string, a ...any) { t.Logf(f, a...) }})
	if err != nil {
		t.Fatal(err)
	}
	const steps = 3000
	for s := int64(0); s < steps; s++ {
		if err := lg.LogMetric("train/loss", s, 1/float64(s+1)); err != nil {
			t.Fatal(err)
		}
		if s == steps/3 {
			srv.crash(t)
			t.Logf("server killed at step %d (%d requests pending)", s, lg.Pending())
		}
		if s == 2*steps/3 {
			srv = startServe(t, backend, dir, port, 2)
		}
		if s%10 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	if err := lg.End(ctx, mlflow.StatusFinished); err != nil {
		t.Fatal(err)
	}
	r, err := c.GetRun(ctx, lg.RunID())
	if err != nil {
		t.Fatal(err)
	}
	if r.Info.Status != mlflow.StatusFinished {
		t.Errorf("run %s is %s; want FINISHED", lg.RunID(), r.Info.Status)
	}
	hist, err := c.GetMetricHistory(ctx, lg.RunID(), "train/loss")
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, steps)
	for _, m := range hist {
		if m.Step < 0 || m.Step >= steps || m.Value != 1/float64(m.Step+1) {
			t.Fatalf("unexpected point %+v", m)
		}
		seen[m.Step]++
	}
	for s, n := range seen {
		if n != 1 {
			t.Errorf("step %d arrived %d times; want once", s, n)
		}
	}
}
