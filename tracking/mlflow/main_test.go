package mlflow

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/internal/testenv"
)

// The integration tests share one real `mlflow server`, started from the
// project's Python environment the first time a test needs it and stopped
// when the package's tests end. They are skipped only when MLflow is not
// installed (scripts/setup.sh installs it; CI runs that first).

var (
	srvOnce   sync.Once
	srv       *Server
	srvErr    error
	srvDir    string
	mlflowBin string
	binErr    error
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	mlflowBin, binErr = project.VenvBin("mlflow")
	if binErr != nil {
		fmt.Fprintf(os.Stderr, "\n%s\n!!! MLflow is not installed (%v).\n!!! The integration tests against a real MLflow server are SKIPPED (in CI, CI=true: they FAIL).\n!!! Run scripts/setup.sh to install it.\n%s\n\n",
			strings.Repeat("!", 78), binErr, strings.Repeat("!", 78))
	}
	testenv.Main(m, func() {
		if srv != nil {
			if err := srv.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, "stopping the test server:", err)
			}
		}
		if srvDir != "" {
			os.RemoveAll(srvDir)
		}
	})
}

// testServer returns the shared server, starting it on first use.
func testServer(t testing.TB) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: this test needs a real MLflow server (make test runs it)")
	}
	if binErr != nil {
		testenv.Unavailable(t, "MLflow", binErr, "run scripts/setup.sh")
	}
	srvOnce.Do(func() {
		srvDir, srvErr = os.MkdirTemp("", "narlab-mlflow-test-")
		if srvErr != nil {
			return
		}
		start := time.Now()
		srv, srvErr = StartServer(context.Background(), ServerConfig{Dir: srvDir, MLflow: mlflowBin})
		if srvErr == nil {
			fmt.Fprintf(os.Stderr, "test mlflow server at %s (started in %.1fs)\n", srv.URL, time.Since(start).Seconds())
		}
	})
	if srvErr != nil {
		t.Fatalf("starting the test MLflow server: %v", srvErr)
	}
	return srv
}

// testClient returns a client of the shared server.
func testClient(t testing.TB) *Client {
	t.Helper()
	c, err := testServer(t).Client()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// restartTestServer stops the shared server and starts it again on the
// same port with the same stores.
func restartTestServer(t *testing.T, stopped func()) {
	t.Helper()
	s := testServer(t)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if stopped != nil {
		stopped()
	}
	srv, srvErr = StartServer(context.Background(), ServerConfig{Dir: srvDir, MLflow: mlflowBin, Port: s.Port})
	if srvErr != nil {
		t.Fatalf("restarting the test MLflow server: %v", srvErr)
	}
}

// stopTestServer stops the shared server; startTestServer starts it again
// on the same port.
func stopTestServer(t *testing.T) (port int) {
	t.Helper()
	s := testServer(t)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	return s.Port
}

func startTestServer(t *testing.T, port int) {
	t.Helper()
	srv, srvErr = StartServer(context.Background(), ServerConfig{Dir: srvDir, MLflow: mlflowBin, Port: port})
	if srvErr != nil {
		t.Fatalf("restarting the test MLflow server: %v", srvErr)
	}
}

// python runs a script with the project's Python (which has the mlflow
// package) and decodes its JSON output into out.
func python(t *testing.T, script string, out any, args ...string) {
	t.Helper()
	py, err := project.Python()
	if err != nil {
		testenv.Unavailable(t, "the project's Python (with mlflow)", err, "run scripts/setup.sh")
	}
	cmd := exec.Command(py, append([]string{"-c", script}, args...)...)
	cmd.Env = append(os.Environ(), "MLFLOW_TRACKING_URI="+testServer(t).URL, "PYTHONWARNINGS=ignore")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("python output: %v\n%s\nstderr: %s", err, b, stderr.String())
	}
}

// newSpoolDir returns a fresh spool directory for a test.
func newSpoolDir(t testing.TB) string {
	return filepath.Join(t.TempDir(), "spool")
}

// quietLogf collects a logger's notices in the test log.
func quietLogf(t testing.TB) func(string, ...any) {
	return func(format string, args ...any) { t.Logf(format, args...) }
}
