package mlflow

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/narlab/narlab/internal/testenv"
)

// TestServerEnvironment starts a real server with secrets in narlab's
// environment and reads the server process's environment back from /proc:
// the secrets must not be there, what MLflow needs must.
func TestServerEnvironment(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a real MLflow server (make test runs it)")
	}
	if binErr != nil {
		testenv.Unavailable(t, "MLflow", binErr, "run scripts/setup.sh")
	}
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("SKIPPED: no /proc on this system")
	}
	secrets := map[string]string{
		"MLFLOW_TRACKING_TOKEN":    "tok-5ecret",
		"MLFLOW_TRACKING_PASSWORD": "pw-5ecret",
		"AWS_SECRET_ACCESS_KEY":    "aws-5ecret",
		"GITHUB_TOKEN":             "gh-5ecret",
		"NARLAB_TEST_PASSWORD":     "n-5ecret",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	t.Setenv("LC_ALL", "C.UTF-8")
	srv, err := StartServer(context.Background(), ServerConfig{Dir: t.TempDir(), MLflow: mlflowBin})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(srv.PID) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range bytes.Split(raw, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok {
			env[k] = v
		}
	}
	for k, v := range secrets {
		if _, ok := env[k]; ok {
			t.Errorf("the server inherited %s", k)
		}
		for ek, ev := range env {
			if strings.Contains(ev, v) {
				t.Errorf("the server's %s holds the value of %s", ek, k)
			}
		}
	}
	for _, k := range []string{"PATH", "LC_ALL"} {
		if env[k] == "" {
			t.Errorf("the server did not get %s", k)
		}
	}
}

func TestServerEnvFilter(t *testing.T) {
	in := []string{"PATH=/bin", "HOME=/h", "LC_CTYPE=C", "TMPDIR=/t", "MLFLOW_SERVER_ENABLE_JOB_EXECUTION=false",
		"MLFLOW_TRACKING_URI=http://x", "MLFLOW_TRACKING_TOKEN=t", "MLFLOW_S3_SECRET=s", "AWS_ACCESS_KEY_ID=a", "SSH_AUTH_SOCK=/s", "noequals"}
	want := "PATH=/bin HOME=/h LC_CTYPE=C TMPDIR=/t MLFLOW_SERVER_ENABLE_JOB_EXECUTION=false"
	if got := strings.Join(serverEnv(in), " "); got != want {
		t.Errorf("serverEnv = %q, want %q", got, want)
	}
}
