package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narlab/narlab/internal/smalldisk"
	"github.com/narlab/narlab/sweep"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// TestTrainLostExitStatus trains with NARLAB_DATA on a full filesystem (a
// real tmpfs, full before the run starts) while the tracking server does
// not answer: no value can be kept, and `narlab train` says so, exiting
// with tracking.ExitLost and counting the lost points per metric key, the full
// filesystem named.
func TestTrainLostExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: trains with its run spool on a full filesystem (make test runs it)")
	}
	bin := narlabCLI(t)
	smalldisk.Run(t, 64<<10, func(t *testing.T, disk string) {
		smalldisk.Fill(t, disk)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		nobody := "http://" + l.Addr().String() // nothing answers there
		l.Close()
		cmd := exec.Command(bin, "train", "--algo", "bfs", "--processor", "mpnn", "--backend", "go", "--steps", "40",
			"--eval-every", "20", "--batch", "2", "--hidden", "8", "--train-length", "4", "--val-samples", "4",
			"--test-samples", "4", "--dir", filepath.Join(t.TempDir(), "run"), "--tracking", nobody)
		cmd.Env = append(os.Environ(), "NARLAB_DATA="+disk, tracking.EnvTrackingTimeout+"=1s", mlflow.EnvRunID+"=")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err = cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tracking.ExitLost {
			t.Fatalf("narlab train: %v; want exit status %d; output:\n%s", err, tracking.ExitLost, out.String())
		}
		for _, want := range []string{"were lost", "train/loss: 40", "val/score: 2", "test/score: 1", "tmpfs on " + disk,
			"no space left on device", "the run's creation"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("the output does not say %q:\n%s", want, out.String())
			}
		}
	})
}

// TestSweepCellLostExitStatus runs a sweep's cell whose training loses
// its logged values (the spool's disk full, and the tracking server, a
// real one behind a proxy, dropping the creation of the cell's run while
// it answers the sweep's own requests): `narlab sweep cell` passes the
// training's exit status on (tracking.ExitLost), as a SLURM array task
// must, and says what was lost.
func TestSweepCellLostExitStatus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a real MLflow server and a sweep cell trained with its spool on a full filesystem (make test runs it)")
	}
	bin := narlabCLI(t)
	smalldisk.Run(t, 64<<10, func(t *testing.T, disk string) {
		smalldisk.Fill(t, disk)
		srv := mlflowtest.Server(t)
		proxy := mlflowtest.NewProxy(t, srv.URL)
		proxy.Fail(mlflowtest.Fault{Drop: true, Match: func(r *http.Request, body []byte) bool {
			return strings.HasSuffix(r.URL.Path, "/runs/create") && bytes.Contains(body, []byte(sweep.TagCell))
		}})
		dir := filepath.Join(t.TempDir(), "sweep")
		env := append(os.Environ(), "NARLAB_DATA="+disk, tracking.EnvTrackingTimeout+"=1s", mlflow.EnvRunID+"=",
			mlflow.EnvExperimentName+"=", mlflow.EnvTrackingURI+"="+proxy.URL)
		narlab := func(want int, args ...string) string {
			t.Helper()
			cmd := exec.Command(bin, args...)
			cmd.Env = env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != want {
				t.Fatalf("narlab %s: exit status %d, want %d; output:\n%s", strings.Join(args, " "), code, want, out.String())
			}
			return out.String()
		}
		// The sweep: its parent run is created; its one cell, run by the
		// local executor as `narlab sweep cell` (what a SLURM array task
		// runs), exits with the training's status.
		out := narlab(1, "sweep", "run", "--dir", dir, "--executor", "local", "--algos", "bfs", "--processors", "mpnn", "--seeds", "1",
			"--set", "steps=40", "--set", "eval-every=20", "--set", "batch=2", "--set", "hidden=8", "--set", "train-length=4",
			"--set", "val-samples=4", "--set", "test-samples=4", "--set", "backend=go")
		if want := fmt.Sprintf("cell bfs-mpnn-s1: exit status %d", tracking.ExitLost); !strings.Contains(out, want) {
			t.Errorf("narlab sweep run does not say %q:\n%s", want, out)
		}
		log, err := os.ReadFile(filepath.Join(dir, "logs", "bfs-mpnn-s1.out"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"were lost", "train/loss: 40", "test/score: 1", "tmpfs on " + disk, "some of its logged values were lost"} {
			if !strings.Contains(string(log), want) {
				t.Errorf("the cell's output does not say %q:\n%s", want, log)
			}
		}
		if faulted, _, _ := proxy.Counts(); faulted == 0 {
			t.Errorf("the proxy dropped no cell run's creation; nothing was tested")
		}
		// The server answers again. The cell's directory holds its finished
		// training, whose run never reached the server: the next attempt
		// trains nothing and says what to do; once the directory is
		// deleted, the cell trains again and gets its FINISHED run.
		proxy.Heal()
		out = narlab(1, "sweep", "cell", "--dir", dir, "--index", "0")
		cellDir := filepath.Join(dir, "cells", "bfs-mpnn-s1")
		for _, want := range []string{cellDir + " holds the cell's finished training", "is not on", "delete the directory to train the cell again"} {
			if !strings.Contains(out, want) {
				t.Errorf("the second attempt does not say %q:\n%s", want, out)
			}
		}
		if err := os.RemoveAll(cellDir); err != nil {
			t.Fatal(err)
		}
		if out = narlab(0, "sweep", "cell", "--dir", dir, "--index", "0"); !strings.Contains(out, "cell 0 FINISHED") {
			t.Errorf("the third attempt:\n%s", out)
		}
	})
}
