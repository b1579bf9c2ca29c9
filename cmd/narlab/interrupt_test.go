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

	"github.com/narlab/narlab/experiments"
	"github.com/narlab/narlab/experiments/mlflow"
	"github.com/narlab/narlab/internal/project"
)

// TestInterruptsAndLocks runs `narlab train` against the embedded MLflow
// server (a real `mlflow server`): while it trains, a second train on the
// same --dir fails at once naming the first one's pid; SIGTERM then ends
// the first promptly, non-zero, and its run is KILLED on the server. Then
// the same for SIGINT and `graphs spectral-eval`, which leaves signals to
// the process-wide handler.
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
		lock, _ := os.ReadFile(filepath.Join(dir, experiments.RunDirLockFile))
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
		if !errors.As(err, &ee) || ee.ExitCode() == 0 {
			t.Errorf("an interrupted train exited with %v, want a non-zero status", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("train still running 30 s after SIGTERM:\n%s", firstErr.String())
	}
	t.Logf("train ended %.1fs after SIGTERM", time.Since(start).Seconds())
	run, err := c.GetRun(ctx, runID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Info.Status != mlflow.StatusKilled {
		t.Errorf("the interrupted run is %s on the server, want KILLED; stderr:\n%s", run.Info.Status, firstErr.String())
	}
	// The directory is free again.
	if l, err := experiments.LockRunDir(dir); err != nil {
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
}
