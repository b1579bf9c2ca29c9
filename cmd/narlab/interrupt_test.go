package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// TestInterruptsAndLocks runs `narlab train` against the embedded MLflow
// server (a real `mlflow server`): while it trains, a second train on the
// same --dir fails at once naming the first one's pid; SIGTERM then ends
// the first promptly, with status 130, and its run is KILLED on the server.
// Then the same for SIGINT and `graphs spectral-eval`, which leaves signals
// to the process-wide handler, and for SIGTERM to a local `sweep run`, which
// passes it on to its cell's training.
func TestInterruptsAndLocks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a real MLflow server and trains against it (make test runs it)")
	}
	if _, err := project.VenvBin("mlflow"); err != nil {
		t.Fatalf("MLflow is not installed (%v): run scripts/setup.sh (make setup)", err)
	}
	bin := narlabCLI(t)
	data := t.TempDir()
	env := append(os.Environ(), "NARLAB_DATA="+data, mlflow.EnvTrackingURI+"=")
	t.Cleanup(func() {
		c := exec.Command(bin, "mlflow", "stop")
		c.Env = env
		c.Run()
	})
	ui := exec.Command(bin, "mlflow", "ui")
	ui.Env = env
	out, err := ui.Output()
	if err != nil {
		t.Fatalf("mlflow ui: %v", err)
	}
	url := strings.TrimSpace(string(out))

	dir := filepath.Join(data, "run")
	exp := "narlab-test/interrupt"
	args := []string{"train", "--algo", "insertion_sort", "--steps", "100000", "--batch", "2", "--hidden", "4",
		"--train-length", "4", "--eval-every", "100000", "--val-samples", "2", "--test-samples", "2",
		"--dir", dir, "--experiment", exp, "--tracking", url, "--processor", "mpnn",
		"--backend", "go"} // pure Go: a signal is not held up behind an XLA compilation
	first := exec.Command(bin, args...)
	first.Env = env
	var firstErr bytes.Buffer
	first.Stderr = &firstErr
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- first.Wait() }()
	defer first.Process.Kill()

	// Wait until the first process holds the directory and its run exists.
	c, err := mlflow.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var runID string
	deadline := time.Now().Add(90 * time.Second)
	for runID == "" {
		if time.Now().After(deadline) {
			t.Fatalf("the first train did not start a run within 90 s; stderr:\n%s", firstErr.String())
		}
		select {
		case err := <-exited:
			t.Fatalf("the first train exited early (%v):\n%s", err, firstErr.String())
		case <-time.After(500 * time.Millisecond):
		}
		lock, _ := os.ReadFile(filepath.Join(dir, tracking.RunDirLockFile))
		if !strings.Contains(string(lock), "pid "+strconv.Itoa(first.Process.Pid)) {
			continue
		}
		if e, err := c.GetExperimentByName(ctx, exp); err == nil {
			if runs, err := c.SearchRuns(ctx, []string{e.ID}, mlflow.SearchOptions{}); err == nil && len(runs) == 1 {
				runID = runs[0].Info.RunID
			}
		}
	}

	second := exec.Command(bin, args...)
	second.Env = env
	msg, err := second.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("a second train on the same --dir: %v, want a non-zero exit:\n%s", err, msg)
	}
	if want := "pid " + strconv.Itoa(first.Process.Pid); !strings.Contains(string(msg), want) || !strings.Contains(string(msg), dir) {
		t.Errorf("the second train's message does not name the directory and %q:\n%s", want, msg)
	}

	start := time.Now()
	first.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("an interrupted train exited with %v, want status 130", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("train still running 30 s after SIGTERM:\n%s", firstErr.String())
	}
	t.Logf("train ended %.1fs after SIGTERM", time.Since(start).Seconds())
	// Its progress (stderr is no terminal here) ends saying so, not "done".
	if e := firstErr.String(); !strings.Contains(e, "interrupted after") || strings.Contains(e, "done in") {
		t.Errorf("the interrupted train's progress does not end with \"interrupted after …\":\n%s", e)
	}
	run, err := c.GetRun(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Info.Status != mlflow.StatusKilled {
		t.Errorf("the interrupted run is %s on the server, want KILLED; stderr:\n%s", run.Info.Status, firstErr.String())
	}
	// The directory is free again.
	if l, err := tracking.LockRunDir(dir); err != nil {
		t.Errorf("after the first train ended: %v", err)
	} else {
		l.Release()
	}

	// A command that leaves signals to the process-wide handler
	// (spectral-eval trains its GNN, then logs): SIGINT stops it promptly,
	// non-zero, and leaves no RUNNING run behind.
	exp2 := "narlab-test/interrupt-eval"
	ev := exec.Command(bin, "graphs", "spectral-eval", "--count", "20", "--train-count", "200", "--steps", "1000000",
		"--hidden", "8", "--experiment", exp2, "--tracking", url)
	ev.Env = env
	var evErr bytes.Buffer
	ev.Stderr = &evErr
	if err := ev.Start(); err != nil {
		t.Fatal(err)
	}
	evExited := make(chan error, 1)
	go func() { evExited <- ev.Wait() }()
	defer ev.Process.Kill()
	select {
	case err := <-evExited:
		t.Fatalf("spectral-eval exited early (%v):\n%s", err, evErr.String())
	case <-time.After(3 * time.Second):
	}
	ev.Process.Signal(os.Interrupt)
	select {
	case err := <-evExited:
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("an interrupted spectral-eval exited with %v, want status 130:\n%s", err, evErr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("spectral-eval still running 30 s after SIGINT:\n%s", evErr.String())
	}
	if e, err := c.GetExperimentByName(ctx, exp2); err == nil {
		runs, err := c.SearchRuns(ctx, []string{e.ID}, mlflow.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.Info.Status == mlflow.StatusRunning {
				t.Errorf("run %s left RUNNING after SIGINT", r.Info.RunID)
			}
		}
	}

	// A local sweep: SIGTERM to `narlab sweep run` reaches the training
	// of its cell through `narlab sweep cell`, which ends its run KILLED
	// (resumable) before the sweep exits with status 130; nothing is left
	// RUNNING and no training outlives the sweep.
	exp3 := "narlab-test/interrupt-sweep"
	sw := exec.Command(bin, "sweep", "run", "--dir", filepath.Join(data, "sweep"), "--executor", "local",
		"--algos", "insertion_sort", "--processors", "mpnn", "--seeds", "1", "--experiment", exp3, "--tracking", url,
		"--set", "steps=100000", "--set", "batch=2", "--set", "hidden=4", "--set", "train-length=4",
		"--set", "eval-every=100000", "--set", "val-samples=2", "--set", "test-samples=2", "--set", "backend=go")
	sw.Env = env
	var swErr bytes.Buffer
	sw.Stderr, sw.Stdout = &swErr, &swErr
	if err := sw.Start(); err != nil {
		t.Fatal(err)
	}
	swExited := make(chan error, 1)
	go func() { swExited <- sw.Wait() }()
	defer sw.Process.Kill()
	var cellRun string
	deadline = time.Now().Add(2 * time.Minute)
	for cellRun == "" {
		if time.Now().After(deadline) {
			t.Fatalf("the sweep's cell did not start a training run within 2 minutes:\n%s", swErr.String())
		}
		select {
		case err := <-swExited:
			t.Fatalf("sweep run exited early (%v):\n%s", err, swErr.String())
		case <-time.After(time.Second):
		}
		e, err := c.GetExperimentByName(ctx, exp3)
		if err != nil {
			continue
		}
		runs, err := c.SearchRuns(ctx, []string{e.ID}, mlflow.SearchOptions{})
		if err != nil {
			continue
		}
		for _, r := range runs {
			if _, child := r.Data.Tag(mlflow.TagParentRunID); child && r.Info.Status == mlflow.StatusRunning {
				cellRun = r.Info.RunID
			}
		}
	}
	time.Sleep(2 * time.Second) // the training is past its set-up
	sw.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-swExited:
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("an interrupted sweep run exited with %v, want status 130:\n%s", err, swErr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("sweep run still running 60 s after SIGTERM:\n%s", swErr.String())
	}
	if run, err := c.GetRun(ctx, cellRun); err != nil {
		t.Fatal(err)
	} else if run.Info.Status != mlflow.StatusKilled {
		t.Errorf("the interrupted cell's training run is %s, want KILLED (the training did not get to stop cleanly); sweep output:\n%s",
			run.Info.Status, swErr.String())
	}
	// Neither `narlab sweep cell` nor its training outlives the sweep.
	for deadline := time.Now().Add(10 * time.Second); ; {
		left := processesWith(filepath.Join(data, "sweep"))
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("processes of the interrupted sweep still running 10 s after it exited: %q", left)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// processesWith returns the command lines (arguments joined by spaces) of
// the running processes whose command line contains s.
func processesWith(s string) []string {
	var found []string
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil || len(b) == 0 {
			continue
		}
		line := strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " ")
		if strings.Contains(line, s) {
			found = append(found, line)
		}
	}
	return found
}
