package testenv

import (
	"context"
	"fmt"
	"net/http"
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
)

// childEnv makes this test binary play a role for TestRunFindsLeftovers:
// a test binary under Run that leaves something behind (or not), or the
// server such a binary starts.
const childEnv = "TESTENV_CHILD"

func TestMain(m *testing.M) {
	switch mode := os.Getenv(childEnv); mode {
	case "":
		Main(m)
	case "serve": // a server answering GET /health on TESTENV_PORT
		http.HandleFunc("/health", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "OK") })
		fmt.Println(http.ListenAndServe("127.0.0.1:"+os.Getenv("TESTENV_PORT"), nil))
		os.Exit(1)
	default:
		os.Exit(Run(runner(func() int { return child(mode) })))
	}
}

type runner func() int

func (r runner) Run() int { return r() }

// child is what the "tests" of a child binary do in each mode; it prints
// "pid N" for each process it starts and "data D" for its data directory.
func child(mode string) int {
	data := os.Getenv(EnvData)
	fmt.Printf("data %s\n", data)
	fmt.Printf("env MLFLOW_TRACKING_URI=%q\n", os.Getenv("MLFLOW_TRACKING_URI"))
	switch mode {
	case "server", "server-stopped": // narlab's way: a server recorded in DATA/srv
		dir := filepath.Join(data, "srv")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fmt.Println(err)
			return 2
		}
		port, err := launch.FreePort()
		if err != nil {
			fmt.Println(err)
			return 2
		}
		exe, _ := os.Executable()
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), childEnv+"=serve", "TESTENV_PORT="+strconv.Itoa(port))
		url := "http://127.0.0.1:" + strconv.Itoa(port)
		var rec launch.Process
		err = launch.Start(context.Background(), launch.Spec{Prefix: "test", Name: "the server", Program: "test server",
			Dir: dir, Cmd: cmd, Host: "127.0.0.1", Port: port, URL: url, Timeout: time.Minute, HealthPath: "/health",
			Healthy: func(ctx context.Context, url string) bool {
				return launch.Answers(ctx, url+"/health", time.Second, "OK")
			},
		}, &rec)
		if err != nil {
			fmt.Println(err)
			return 2
		}
		fmt.Printf("pid %d\n", rec.PID)
		if mode == "server-stopped" {
			if err := rec.Stop(10 * time.Second); err != nil {
				fmt.Println(err)
				return 2
			}
		}
		return 0
	case "orphan": // a process whose parent is gone: only the mark names it
		out, err := exec.Command("sh", "-c", "sleep 600 >/dev/null 2>&1 & echo $!").Output()
		if err != nil {
			fmt.Println(err)
			return 2
		}
		fmt.Printf("pid %s\n", strings.TrimSpace(string(out)))
		return 0
	case "session": // a process in a session of its own, still a child
		cmd := exec.Command("sleep", "600")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Println(err)
			return 2
		}
		fmt.Printf("pid %d\n", cmd.Process.Pid)
		return 0
	case "stopped": // a process started and stopped: nothing left
		cmd := exec.Command("sleep", "600")
		if err := cmd.Start(); err != nil {
			fmt.Println(err)
			return 2
		}
		fmt.Printf("pid %d\n", cmd.Process.Pid)
		cmd.Process.Kill()
		cmd.Wait()
		return 0
	case "failing": // failing tests that leave nothing: their own code
		return 3
	}
	fmt.Println("unknown mode", mode)
	return 2
}

// TestRunFindsLeftovers runs a test binary under Run that starts a server
// or a process and leaves it running, or stops it: Run must fail the
// binary exactly when something outlived its tests, name it, and stop it;
// the binary's data directory is a temporary one, removed at the end, and
// the user's MLflow server is not inherited.
func TestRunFindsLeftovers(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	userData := t.TempDir()
	pidRE := regexp.MustCompile(`(?m)^pid (\d+)$`)
	dataRE := regexp.MustCompile(`(?m)^data (.*)$`)
	for _, c := range []struct {
		mode     string
		wantCode int
		want     []string // in the output when it leaks
	}{
		{"server", 1, []string{"testenv: FAIL: 1 process(es)", "a server recorded in", "srv/server.json"}},
		{"orphan", 1, []string{"testenv: FAIL: 1 process(es)", "sleep 600"}},
		{"session", 1, []string{"testenv: FAIL: 1 process(es)", "sleep 600"}},
		{"server-stopped", 0, nil},
		{"stopped", 0, nil},
		{"failing", 3, nil},
	} {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), childEnv+"="+c.mode, EnvData+"="+userData,
				"MLFLOW_TRACKING_URI=http://127.0.0.1:1")
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.wantCode {
				t.Errorf("exit code %d, want %d; output:\n%s", code, c.wantCode, out)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if c.want == nil && strings.Contains(string(out), "testenv: FAIL") {
				t.Errorf("a leak reported where there is none:\n%s", out)
			}
			for _, m := range pidRE.FindAllStringSubmatch(string(out), -1) {
				pid, _ := strconv.Atoi(m[1])
				if launch.Alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("process %d still runs after the binary ended", pid)
				}
			}
			if c.mode != "failing" && len(pidRE.FindAllString(string(out), -1)) == 0 {
				t.Errorf("the child started nothing:\n%s", out)
			}
			m := dataRE.FindStringSubmatch(string(out))
			if m == nil {
				t.Fatalf("no data directory in the output:\n%s", out)
			}
			if m[1] == userData || m[1] == "" {
				t.Errorf("the tests ran in data directory %q, want a temporary one", m[1])
			}
			if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
				t.Errorf("the temporary data directory %s was not removed (%v)", m[1], err)
			}
			if !strings.Contains(string(out), `env MLFLOW_TRACKING_URI=""`) {
				t.Errorf("the user's MLFLOW_TRACKING_URI reached the tests:\n%s", out)
			}
		})
	}
}

// fakeT records what Unavailable does with a test.
type fakeT struct {
	testing.TB
	fatal, skip string
}

func (f *fakeT) Helper()                        {}
func (f *fakeT) Fatalf(format string, a ...any) { f.fatal = fmt.Sprintf(format, a...) }
func (f *fakeT) Skipf(format string, a ...any)  { f.skip = fmt.Sprintf(format, a...) }

func TestUnavailable(t *testing.T) {
	for _, c := range []struct {
		ci       string
		wantFail bool
	}{
		{"true", true}, {"1", true}, {"TRUE", true}, {"", false}, {"false", false}, {"0", false},
	} {
		t.Run("CI="+c.ci, func(t *testing.T) {
			t.Setenv("CI", c.ci)
			f := &fakeT{}
			Unavailable(f, "PostgreSQL", fmt.Errorf("no initdb"), "run scripts/setup-cluster.sh")
			got := f.fatal
			if !c.wantFail {
				got = f.skip
			}
			if (f.fatal != "") != c.wantFail || (f.skip != "") == c.wantFail {
				t.Fatalf("CI=%q: fatal %q, skip %q; want a failure: %v", c.ci, f.fatal, f.skip, c.wantFail)
			}
			for _, w := range []string{"PostgreSQL is unavailable: no initdb", "run scripts/setup-cluster.sh"} {
				if !strings.Contains(got, w) {
					t.Errorf("message %q lacks %q", got, w)
				}
			}
		})
	}
}

func TestHasVar(t *testing.T) {
	t.Parallel()
	want := []byte("K=v\x00")
	for _, c := range []struct {
		env  string
		want bool
	}{
		{"K=v\x00A=b\x00", true},
		{"A=b\x00K=v\x00", true},
		{"A=b\x00K=v", true},
		{"A=b\x00XK=v\x00", false},
		{"A=b\x00K=vv\x00", false},
		{"", false},
	} {
		if got := hasVar([]byte(c.env), want); got != c.want {
			t.Errorf("hasVar(%q) = %v, want %v", c.env, got, c.want)
		}
	}
}
