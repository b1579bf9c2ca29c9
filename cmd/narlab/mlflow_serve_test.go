package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/launch"
	"github.com/narlab/narlab/internal/project"
)

// TestMLflowServeStopsItsServerOnSIGTERM starts `narlab mlflow serve` (a
// real `mlflow server` on SQLite) and stops it the way a service manager
// or a test's cleanup does, with SIGTERM: the command must stop the server
// it started and exit 0. The process-wide interrupt handler used to exit
// first, leaving the server running without a parent.
func TestMLflowServeStopsItsServerOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a real MLflow server (make test runs it)")
	}
	if _, err := project.VenvBin("mlflow"); err != nil {
		t.Fatalf("MLflow is not installed (%v): run scripts/setup.sh (make setup)", err)
	}
	dir := t.TempDir()
	port, err := launch.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(narlabCLI(t), "mlflow", "serve", "--backend-store", "sqlite:///"+filepath.Join(dir, "db.sqlite"),
		"--artifacts", filepath.Join(dir, "artifacts"), "--port", strconv.Itoa(port), "--workers", "1",
		"--dir", filepath.Join(dir, "server"))
	cmd.Env = append(os.Environ(), "NARLAB_DATA="+filepath.Join(dir, "data"))
	var stdout, stderr lockedBuffer // read while the command writes
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(stdout.String(), url) {
		select {
		case err := <-exited:
			t.Fatalf("mlflow serve exited before serving (%v):\n%s", err, stderr.String())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("mlflow serve did not start in 3 minutes:\n%s", stderr.String())
		}
	}
	// The pid line is written to stderr before the URL to stdout, but the
	// two pipes are copied by two goroutines: wait a little for it.
	pidLine := regexp.MustCompile(`MLflow tracking server \(pid (\d+)\)`)
	m := pidLine.FindStringSubmatch(stderr.String())
	for wait := time.Now().Add(10 * time.Second); m == nil && time.Now().Before(wait); m = pidLine.FindStringSubmatch(stderr.String()) {
		time.Sleep(50 * time.Millisecond)
	}
	if m == nil {
		cmd.Process.Kill()
		t.Fatalf("mlflow serve did not name its server's pid:\n%s", stderr.String())
	}
	serverPID, _ := strconv.Atoi(m[1])
	t.Cleanup(func() { syscall.Kill(-serverPID, syscall.SIGKILL) }) // whatever the outcome

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("mlflow serve after SIGTERM: %v, want exit 0:\n%s", err, stderr.String())
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("mlflow serve did not exit within a minute of SIGTERM:\n%s", stderr.String())
	}
	if launch.Alive(serverPID) {
		t.Errorf("the MLflow server (pid %d) outlived `narlab mlflow serve`:\n%s", serverPID, stderr.String())
	}
}
