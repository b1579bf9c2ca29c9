package sweep

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/internal/testenv"
	"github.com/narlab/narlab/tracking/mlflow"
)

// The real services the integration tests run against, each started the
// first time a test needs it, in its own temporary directory, bound to
// localhost, and stopped when the package's tests end:
//
//   - the narlab binary, built from this checkout;
//   - a PostgreSQL server (run as the postgres user, trust authentication
//     on 127.0.0.1) and an MLflow server on it, started with
//     `narlab mlflow serve`;
//   - a single-node SLURM cluster: munged on its own socket and key,
//     slurmctld and slurmd on free ports.
//
// scripts/setup-cluster.sh installs SLURM, MUNGE and PostgreSQL (make test
// runs it); the project's .venv has MLflow and psycopg (scripts/setup.sh).
// Where they are missing the tests that need them are skipped with the
// reason.

var (
	cleanups  []func()
	cleanupMu sync.Mutex
)

func atExit(f func()) {
	cleanupMu.Lock()
	cleanups = append(cleanups, f)
	cleanupMu.Unlock()
}

func TestMain(m *testing.M) {
	testenv.Main(m, func() {
		cleanupMu.Lock()
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
		cleanupMu.Unlock()
	})
}

// once runs start a single time and remembers its result and error.
type once[T any] struct {
	o   sync.Once
	v   T
	err error
}

func (o *once[T]) get(start func() (T, error)) (T, error) {
	o.o.Do(func() { o.v, o.err = start() })
	return o.v, o.err
}

var narlabBin once[string]

// narlab returns the narlab binary built from this checkout.
func narlab(t testing.TB) string {
	t.Helper()
	bin, err := narlabBin.get(func() (string, error) {
		root, err := project.Root()
		if err != nil {
			return "", err
		}
		dir, err := os.MkdirTemp("", "narlab-sweep-bin-")
		if err != nil {
			return "", err
		}
		atExit(func() { os.RemoveAll(dir) })
		bin := filepath.Join(dir, "narlab")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/narlab")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build ./cmd/narlab: %v\n%s", err, out)
		}
		return bin, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// need reports a missing program through testenv.Unavailable (a skip,
// or in CI a failure).
func need(t testing.TB, what string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			testenv.Unavailable(t, what, fmt.Errorf("%s is missing", p), "run scripts/setup-cluster.sh")
		}
	}
}

func needRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Unavailable(t, "SLURM and PostgreSQL", fmt.Errorf("starting slurmd and running PostgreSQL as the postgres user needs root"), "run the tests as root")
	}
}

const pgBin = "/usr/lib/postgresql/15/bin"

var pgServer once[string]

// postgres returns the URI of a fresh database on a PostgreSQL server of
// the tests, named after the test.
func postgres(t testing.TB) string {
	t.Helper()
	return postgresDB(t, "mlflow_"+strings.ToLower(strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, t.Name())))
}

// postgresDB creates the database db on the PostgreSQL server of the tests
// (started on first use) and returns its URI.
func postgresDB(t testing.TB, db string) string {
	t.Helper()
	needPostgres(t)
	port, err := pgServer.get(func() (string, error) {
		dir, err := os.MkdirTemp("", "narlab-pg-")
		if err != nil {
			return "", err
		}
		atExit(func() { os.RemoveAll(dir) })
		if err := exec.Command("chown", "postgres", dir).Run(); err != nil {
			return "", fmt.Errorf("chown postgres %s: %w", dir, err)
		}
		port := strconv.Itoa(freePort(t))
		asPostgres := func(args ...string) error {
			out, err := exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...).CombinedOutput()
			if err != nil {
				return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, out)
			}
			return nil
		}
		if err := asPostgres(pgBin+"/initdb", "-D", dir+"/data", "-A", "trust", "-U", "mlflow"); err != nil {
			return "", err
		}
		if err := asPostgres(pgBin+"/pg_ctl", "-D", dir+"/data", "-w", "-o", "-k "+dir+" -p "+port+" -h 127.0.0.1",
			"-l", dir+"/pg.log", "start"); err != nil {
			return "", err
		}
		atExit(func() { asPostgres(pgBin+"/pg_ctl", "-D", dir+"/data", "-m", "fast", "-w", "stop") })
		return port, nil
	})
	if err != nil {
		t.Fatalf("starting PostgreSQL: %v", err)
	}
	out, err := exec.Command("runuser", "-u", "postgres", "--", pgBin+"/createdb", "-h", "127.0.0.1", "-p", port, "-U", "mlflow", db).CombinedOutput()
	if err != nil {
		t.Fatalf("createdb %s: %v\n%s", db, err, out)
	}
	return "postgresql://mlflow@127.0.0.1:" + port + "/" + db
}

// needPostgres reports a missing PostgreSQL (or a user who cannot run it)
// through testenv.Unavailable.
func needPostgres(t testing.TB) {
	t.Helper()
	needRoot(t)
	need(t, "PostgreSQL 15", pgBin+"/initdb", pgBin+"/pg_ctl")
	if _, err := user.Lookup("postgres"); err != nil {
		testenv.Unavailable(t, "PostgreSQL", fmt.Errorf("no postgres user: %w", err), "run scripts/setup-cluster.sh")
	}
}

// needMLflow reports a missing MLflow (with psycopg) in the project's
// Python through testenv.Unavailable.
func needMLflow(t testing.TB) {
	t.Helper()
	py, err := project.Python()
	if err != nil {
		testenv.Unavailable(t, "MLflow", err, "run scripts/setup.sh")
	}
	if out, err := exec.Command(py, "-c", "import mlflow, psycopg").CombinedOutput(); err != nil {
		testenv.Unavailable(t, "MLflow with psycopg", fmt.Errorf("%v: %s", err, bytes.TrimSpace(out)), "run scripts/setup.sh")
	}
}

// serveMLflowWorkers starts `narlab mlflow serve` on backend (a database
// URI) with that many workers and returns its URL; it is stopped at the end
// of the test.
func serveMLflowWorkers(t testing.TB, backend string, workers int) string {
	t.Helper()
	return startServe(t, backend, t.TempDir(), freePort(t), workers).url
}

var sharedServe once[string]

// sharedMLflow returns the URL of the `narlab mlflow serve` (2 workers, on
// a PostgreSQL database of its own) that the sweep tests share: started by
// the first test that asks, stopped when the package's tests end. Each
// sweep has its own id, and the tests read runs by the sweep's tags and
// run ids, so one server serves them all, as a lab's shared server serves
// several sweeps (one start instead of one per test).
func sharedMLflow(t testing.TB) string {
	t.Helper()
	// What would skip the test is checked outside the once, so that every
	// test that needs the server skips alike.
	needPostgres(t)
	needMLflow(t)
	url, err := sharedServe.get(func() (string, error) {
		backend := postgresDB(t, "mlflow_shared")
		dir, err := os.MkdirTemp("", "narlab-sweep-mlflow-")
		if err != nil {
			return "", err
		}
		atExit(func() { os.RemoveAll(dir) })
		return launchServe(t, backend, dir, freePort(t), 2, atExit).url, nil
	})
	if err != nil || url == "" {
		t.Fatalf("the shared MLflow server did not start (%v; see the first test that asked for it)", err)
	}
	return url
}

// served is a running `narlab mlflow serve`.
type served struct {
	url, dir string
	cmd      *exec.Cmd
	exited   chan error
}

// startServe starts `narlab mlflow serve` with its state in dir (the same
// dir and port start it again on the same stores); it is stopped at the
// end of the test.
func startServe(t testing.TB, backend, dir string, port, workers int) *served {
	t.Helper()
	return launchServe(t, backend, dir, port, workers, t.Cleanup)
}

// launchServe is startServe with the server's stop handed to atEnd.
func launchServe(t testing.TB, backend, dir string, port, workers int, atEnd func(func())) *served {
	t.Helper()
	needMLflow(t)
	cmd := exec.Command(narlab(t), "mlflow", "serve", "--backend-store", backend, "--artifacts", filepath.Join(dir, "artifacts"),
		"--port", strconv.Itoa(port), "--workers", strconv.Itoa(workers), "--dir", filepath.Join(dir, "server"))
	cmd.Env = append(os.Environ(), "NARLAB_DATA="+filepath.Join(dir, "data"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{url: "http://127.0.0.1:" + strconv.Itoa(port), dir: dir, cmd: cmd, exited: make(chan error, 1)}
	go func() { s.exited <- cmd.Wait() }()
	atEnd(s.stop)
	deadline := time.Now().Add(4 * time.Minute)
	for !strings.Contains(out.String(), s.url) {
		select {
		case err := <-s.exited:
			s.exited <- err
			t.Fatalf("narlab mlflow serve exited (%v):\n%s\nserver log:\n%s", err, out.String(), readTail(filepath.Join(dir, "server", "server.log")))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("narlab mlflow serve did not start in 4 minutes:\n%s", out.String())
		}
	}
	return s
}

// stop stops the server the way a service manager does (SIGTERM).
func (s *served) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exited:
		s.exited <- err
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
	}
}

// crash kills the MLflow server process group with SIGKILL (requests in
// flight are cut) and waits for `narlab mlflow serve` to notice and exit.
func (s *served) crash(t testing.TB) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, "server", "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal(b, &st); err != nil || st.PID <= 1 {
		t.Fatalf("server.json: %v %s", err, b)
	}
	if err := syscall.Kill(-st.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.exited:
		s.exited <- err
	case <-time.After(time.Minute):
		t.Fatal("narlab mlflow serve did not notice its server died")
	}
}

func readTail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

var slurmConf once[string]

// slurm starts the single-node cluster and returns its slurm.conf.
func slurm(t testing.TB) string {
	t.Helper()
	needRoot(t)
	need(t, "SLURM and MUNGE", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/sbatch")
	conf, err := slurmConf.get(func() (string, error) {
		dir, err := os.MkdirTemp("", "narlab-slurm-")
		if err != nil {
			return "", err
		}
		atExit(func() { os.RemoveAll(dir) })
		if err := os.Chmod(dir, 0o755); err != nil {
			return "", err
		}
		for _, d := range []string{"state", "spool", "log"} {
			if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
				return "", err
			}
		}
		key := make([]byte, 1024)
		rand.Read(key)
		if err := fsutil.WriteFile(filepath.Join(dir, "munge.key"), key, fsutil.SecretMode); err != nil {
			return "", err
		}
		sock := filepath.Join(dir, "munge.sock")
		munged := exec.Command("/usr/sbin/munged", "--force", "--socket="+sock, "--key-file="+filepath.Join(dir, "munge.key"),
			"--pid-file="+filepath.Join(dir, "munged.pid"), "--log-file="+filepath.Join(dir, "munged.log"),
			"--seed-file="+filepath.Join(dir, "munged.seed"))
		if out, err := munged.CombinedOutput(); err != nil {
			return "", fmt.Errorf("munged: %v\n%s", err, out)
		}
		atExit(func() { killPidFile(filepath.Join(dir, "munged.pid")) })
		nproc := strconv.Itoa(runtimeCPUs())
		conf := fmt.Sprintf(`ClusterName=narlabtest
SlurmctldHost=localhost
SlurmctldPort=%d
SlurmdPort=%d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%s
StateSaveLocation=%s/state
SlurmdSpoolDir=%s/spool
SlurmctldPidFile=%s/slurmctld.pid
SlurmdPidFile=%s/slurmd.pid
SlurmctldLogFile=%s/log/slurmctld.log
SlurmdLogFile=%s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=10
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=localhost CPUs=%s RealMemory=8000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
`, freePort(t), freePort(t), sock, dir, dir, dir, dir, dir, dir, nproc)
		path := filepath.Join(dir, "slurm.conf")
		if err := fsutil.WriteFile(path, []byte(conf), fsutil.DataMode); err != nil {
			return "", err
		}
		for _, d := range []string{"slurmctld", "slurmd"} {
			if out, err := exec.Command("/usr/sbin/"+d, "-f", path).CombinedOutput(); err != nil {
				return "", fmt.Errorf("%s: %v\n%s\n%s", d, err, out, readTail(filepath.Join(dir, "log", d+".log")))
			}
			atExit(func() { killPidFile(filepath.Join(dir, d+".pid")) })
		}
		// Runs after the daemons stopped (cleanups run in reverse order).
		atExit(func() { killStepds(dir) })
		// Wait until the node takes jobs.
		deadline := time.Now().Add(time.Minute)
		for {
			out, _ := slurmCmd(path, "sinfo", "--noheader", "--format=%t").Output()
			if s := strings.TrimSpace(string(out)); s == "idle" || s == "mix" || s == "alloc" {
				return path, nil
			}
			if time.Now().After(deadline) {
				return "", fmt.Errorf("the SLURM node is not up after a minute (sinfo: %q)\n%s", out, readTail(filepath.Join(dir, "log", "slurmctld.log")))
			}
			time.Sleep(300 * time.Millisecond)
		}
	})
	if err != nil {
		t.Fatalf("starting SLURM: %v", err)
	}
	return conf
}

func runtimeCPUs() int {
	out, err := exec.Command("nproc").Output()
	if err != nil {
		return 1
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

func slurmCmd(conf, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+conf)
	return cmd
}

// killStepds kills the slurmstepd processes of the test cluster in dir
// that outlived its slurmd (they keep its log open).
func killStepds(dir string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte("slurmstepd")) {
			continue
		}
		fds, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "fd", "*"))
		for _, fd := range fds {
			if target, err := os.Readlink(fd); err == nil && strings.HasPrefix(target, dir+"/") {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
}

// killPidFile stops the daemon whose pid is in path: SIGTERM, then SIGKILL
// after 10 s.
func killPidFile(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return
	}
	syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 100; i++ {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

// trackingClient returns a client of the server at url.
func trackingClient(t testing.TB, url string) *mlflow.Client {
	t.Helper()
	c, err := mlflow.NewClient(url)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitFor polls cond every 200 ms until it holds or timeout passes.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
