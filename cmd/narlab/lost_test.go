package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narlab/narlab/internal/smalldisk"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// TestTrainLostExitStatus trains with NARLAB_DATA on a full filesystem (a
// real tmpfs, full before the run starts) while the tracking server does
// not answer: no value can be kept, and `narlab train` says so, exiting
// with ExitLost and counting the lost points per metric key, the full
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
		if !errors.As(err, &ee) || ee.ExitCode() != ExitLost {
			t.Fatalf("narlab train: %v; want exit status %d; output:\n%s", err, ExitLost, out.String())
		}
		for _, want := range []string{"were lost", "train/loss: 40", "val/score: 2", "test/score: 1", "tmpfs on " + disk,
			"no space left on device", "the run's creation"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("the output does not say %q:\n%s", want, out.String())
			}
		}
	})
}
