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
	"time"
)

// TestBoundedWaits: a dead tracking server (a closed port) or one that
// accepts connections and never answers must not hold a command longer
// than its documented timeout (--timeout, NARLAB_MLFLOW_TIMEOUT); logging
// commands then exit non-zero and say how much waits in the spool and how
// to deliver it.
func TestBoundedWaits(t *testing.T) {
	bin := narlabCLI(t)
	// A black hole: connections are accepted and never answered.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() }) // after the parallel subtests
	held := make(chan net.Conn, 1000)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held <- c
		}
	}()
	t.Cleanup(func() {
		for {
			select {
			case c := <-held:
				c.Close()
			default:
				return
			}
		}
	})
	dead := "http://127.0.0.1:1"
	hole := "http://" + ln.Addr().String()
	spoolWant := []string{"metric points", "wait in the spool", "narlab mlflow sync"}
	tests := []struct {
		name  string
		args  []string
		uri   string
		limit time.Duration // the documented bound plus slack for start-up
		want  []string
	}{
		{"runs, dead server", []string{"mlflow", "runs", "--experiment", "x", "--timeout", "2s"}, dead, 10 * time.Second, []string{"did not answer within 2s (--timeout)"}},
		{"runs, silent server", []string{"mlflow", "runs", "--experiment", "x", "--timeout", "2s"}, hole, 10 * time.Second, []string{"did not answer within 2s (--timeout)"}},
		{"example, dead server", []string{"mlflow", "example", "--steps", "20"}, dead, 20 * time.Second, spoolWant},
		{"example, silent server", []string{"mlflow", "example", "--steps", "20"}, hole, 20 * time.Second, spoolWant},
		{"train, dead server", []string{"train", "--algo", "insertion_sort", "--steps", "3", "--batch", "2", "--hidden", "4",
			"--train-length", "4", "--eval-every", "3", "--val-samples", "2", "--test-samples", "2", "--processor", "mpnn",
			"--backend", "go"}, dead, 60 * time.Second, spoolWant}, // pure Go: no compilation time in the bound
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each waits on its own: the waits overlap
			data := t.TempDir()
			args := tc.args
			if tc.args[0] == "train" {
				args = append(args, "--dir", filepath.Join(data, "run"))
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "NARLAB_DATA="+data, "MLFLOW_TRACKING_URI="+tc.uri, "NARLAB_MLFLOW_TIMEOUT=3s")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(tc.limit):
				cmd.Process.Kill()
				t.Fatalf("narlab %s still waiting after %v:\n%s", strings.Join(args, " "), tc.limit, stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatalf("narlab %s: %v, want a non-zero exit:\n%s", strings.Join(args, " "), err, stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr.String())
				}
			}
			t.Logf("%.1fs", time.Since(start).Seconds())
		})
	}
}
