// Package testenv is the harness every test binary of narlab runs under,
// and the one place where a test says that a service it needs is missing.
//
// [Main], called from each package's TestMain, gives the binary:
//
//   - a temporary data directory ($NARLAB_DATA), never the checkout's
//     data/ or the user's own, removed at the end;
//   - no variable that would point a test at the user's own services
//     (MLFLOW_TRACKING_URI, OPENAI_BASE_URL, …);
//   - a mark, $NARLAB_TEST_PROCESS, that every process the tests start
//     inherits, so that the process table tells which ones they started;
//   - a check at the end: a server recorded in the data directory
//     (server.json) or a process carrying the mark that is still running
//     after the tests is a leak. Main names each one, stops it, and fails
//     the binary, also when the tests passed.
//
// `make test` (scripts/test.sh) adds a mark of its own for the whole suite,
// $NARLAB_TEST_SUITE, and checks it in the same way once every package has
// run, with the checkout's `git status`.
//
// [Unavailable] is how a test reports a service it needs and cannot have
// (MLflow, Jupyter, llama.cpp, PostgreSQL, SLURM, XLA, a Python
// environment): in CI ($CI=true) the test fails, elsewhere it is skipped
// with the reason and the command that sets the service up.
package testenv

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/launch"
)

// Environment variables of the harness.
const (
	// EnvProcess marks every process a test binary starts (its value is
	// the binary's own token).
	EnvProcess = "NARLAB_TEST_PROCESS"
	// EnvSuite marks every process `make test` starts (scripts/test.sh).
	EnvSuite = "NARLAB_TEST_SUITE"
	// EnvData is narlab's data directory, replaced by a temporary one.
	EnvData = "NARLAB_DATA"
)

// userServices are the variables that point a program at the user's own
// services or runs; the tests start their own and never inherit these.
var userServices = []string{
	"MLFLOW_TRACKING_URI", "MLFLOW_RUN_ID", "MLFLOW_EXPERIMENT_NAME", "MLFLOW_EXPERIMENT_ID",
	"MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD", "MLFLOW_TRACKING_TOKEN",
	"OPENAI_BASE_URL", "OPENAI_API_KEY",
}

// Runner runs tests and returns the exit code: *testing.M.
type Runner interface{ Run() int }

// Main runs the tests of m under the harness and exits with their code,
// or with 1 when a process they started outlives them. Call it from
// TestMain: func TestMain(m *testing.M) { testenv.Main(m) }. The
// cleanups (stopping a server the package's tests share) run after the
// tests, before the check.
func Main(m *testing.M, cleanups ...func()) { os.Exit(Run(m, cleanups...)) }

// Run is Main without the exit: it returns the code Main exits with.
func Run(m Runner, cleanups ...func()) int {
	data, err := os.MkdirTemp("", "narlab-test-data-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv: a temporary data directory:", err)
		return 1
	}
	defer os.RemoveAll(data)
	token := newToken()
	restore := setenv(map[string]string{EnvData: data, EnvProcess: token})
	defer restore()

	code := m.Run()
	for _, c := range cleanups {
		c()
	}

	if leaks := Cleanup(data, EnvProcess, token); len(leaks) > 0 {
		fmt.Fprintf(os.Stderr, "\ntestenv: FAIL: %d process(es) started by these tests outlived them (stopped now):\n", len(leaks))
		for _, l := range leaks {
			fmt.Fprintln(os.Stderr, "  "+l)
		}
		fmt.Fprintln(os.Stderr, "every test stops what it starts (t.Cleanup), also when it fails")
		if code == 0 {
			code = 1
		}
	}
	return code
}

// newToken returns a mark no other binary has: the pid and random bytes.
func newToken() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b)
}

// setenv sets vars, unsets userServices, and returns what restores the
// environment as it was.
func setenv(vars map[string]string) (restore func()) {
	type old struct {
		val string
		set bool
	}
	saved := map[string]old{}
	save := func(k string) {
		v, ok := os.LookupEnv(k)
		saved[k] = old{v, ok}
	}
	for k, v := range vars {
		save(k)
		os.Setenv(k, v)
	}
	for _, k := range userServices {
		save(k)
		os.Unsetenv(k)
	}
	return func() {
		for k, o := range saved {
			if o.set {
				os.Setenv(k, o.val)
			} else {
				os.Unsetenv(k)
			}
		}
	}
}

// Cleanup stops what outlived a test binary and says what it was: every
// server recorded (server.json) under dir, then every process whose
// environment holds key=token (apart from this one). Each leak is one line
// naming the process. An empty result means nothing was left running.
func Cleanup(dir, key, token string) []string {
	var leaks []string
	if dir != "" {
		stopped, _ := StopServers(dir)
		for _, s := range stopped {
			leaks = append(leaks, "a server recorded in "+s)
		}
	}
	for _, p := range Marked(key, token) {
		leaks = append(leaks, p.String())
		p.Stop(5 * time.Second)
	}
	return leaks
}

// StopServers stops every server recorded (a live server.json of
// internal/launch) in dir or below it, and returns the records' paths with
// their pids. A test that starts narlab's local servers under a data
// directory of its own calls it from t.Cleanup.
func StopServers(dir string) ([]string, error) {
	var stopped []string
	var errs []error
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || d.Name() != launch.StateFile {
			return nil
		}
		srv, err := launch.RecordedServer[launch.Process](filepath.Dir(path))
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		if srv == nil { // a stale record: its process is gone
			return nil
		}
		stopped = append(stopped, fmt.Sprintf("%s (pid %d, %s)", path, srv.PID, srv.URL))
		if err := srv.Stop(10 * time.Second); err != nil {
			errs = append(errs, err)
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return stopped, errors.Join(errs...)
}

// Proc is a process found in the process table.
type Proc struct {
	PID, PGID int
	Cmdline   string
	Cwd       string
}

func (p Proc) String() string {
	return fmt.Sprintf("pid %d (process group %d) in %s: %s", p.PID, p.PGID, p.Cwd, p.Cmdline)
}

// Stop ends the process, and its process group when it leads one (a
// server in a session of its own): SIGTERM, then SIGKILL after grace.
func (p Proc) Stop(grace time.Duration) {
	target := p.PID
	if p.PGID == p.PID {
		target = -p.PID
	}
	_ = syscall.Kill(target, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) && launch.Alive(p.PID) {
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(target, syscall.SIGKILL)
}

// Marked returns the live processes, other than this one, whose
// environment holds key=token. A process that has just been stopped may
// take a moment to leave the table: Marked looks again for up to two
// seconds before it reports one.
func Marked(key, token string) []Proc {
	found := scan(key, token)
	for deadline := time.Now().Add(2 * time.Second); len(found) > 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		found = scan(key, token)
	}
	return found
}

func scan(key, token string) []Proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil // no process table here (not Linux): nothing to check
	}
	want := []byte(key + "=" + token + "\x00")
	self := os.Getpid()
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !hasVar(env, want) || !launch.Alive(pid) {
			continue
		}
		p := Proc{PID: pid, PGID: pid}
		if g, err := syscall.Getpgid(pid); err == nil {
			p.PGID = g
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil {
			p.Cmdline = strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
		}
		p.Cwd, _ = os.Readlink("/proc/" + e.Name() + "/cwd")
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

// hasVar reports whether the NUL-separated environment env holds the
// entry want (which ends in NUL).
func hasVar(env, want []byte) bool {
	if bytes.HasPrefix(env, want) {
		return true
	}
	if len(env) > 0 && env[len(env)-1] != 0 {
		env = append(env, 0) // the last entry may lack its NUL
	}
	return bytes.Contains(env, append([]byte{0}, want...))
}

// InCI reports whether the tests run in CI: $CI is "true" or "1" (as CI
// services set it).
func InCI() bool {
	v := strings.ToLower(strings.TrimSpace(os.Getenv("CI")))
	return v == "true" || v == "1" || v == "yes"
}

// Unavailable reports that the test cannot have a service it needs (its
// name, why, and how to set it up): in CI it fails the test, since a
// service CI should have is missing; elsewhere it skips it, saying so.
func Unavailable(t testing.TB, service string, why error, setup string) {
	t.Helper()
	msg := fmt.Sprintf("%s is unavailable: %v", service, why)
	if setup != "" {
		msg += "; " + setup
	}
	if InCI() {
		t.Fatalf("%s (CI=true: a missing service fails the test)", msg)
	} else {
		t.Skipf("SKIPPED: %s", msg)
	}
}
