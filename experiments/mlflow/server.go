package mlflow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/project"
)

// ServerConfig describes a local `mlflow server`.
type ServerConfig struct {
	// Dir holds the server's files: mlflow.db (the SQLite backend store),
	// artifacts/ (the artifact store behind the server's proxy),
	// server.json (the running server's pid and port), server.log.
	Dir string
	// MLflow is the mlflow executable (default: the project's
	// .venv/bin/mlflow).
	MLflow string
	// Port to bind on 127.0.0.1; 0 picks a free one.
	Port int
	// Workers is the number of server worker processes (default 1).
	Workers int
	// StartTimeout bounds the wait for GET /health to answer (default 2 min).
	StartTimeout time.Duration
	// BackendStore is the backend store's URI (default: the SQLite file
	// Dir/mlflow.db), e.g. postgresql://mlflow@db.lab:5432/mlflow for a
	// server a team shares. Keep passwords out of it (PGPASSWORD or
	// ~/.pgpass): it shows in the process list.
	BackendStore string
	// Artifacts is the root of the artifact store behind the server's proxy
	// (default Dir/artifacts).
	Artifacts string
	// Host is the address to bind (default 127.0.0.1; 0.0.0.0 serves every
	// interface, for a shared server).
	Host string
}

// Server is a local tracking server started by narlab.
type Server struct {
	URL     string    `json:"url"`
	Port    int       `json:"port"`
	PID     int       `json:"pid"`
	Dir     string    `json:"dir"`
	Started time.Time `json:"started"`
	MLflow  string    `json:"mlflow"`

	exited chan struct{} // closed when a process started here exits
}

const (
	serverStateFile = "server.json"
	serverLogFile   = "server.log"
	serverLockFile  = "server.lock"
)

// DefaultServerDir is DATA/mlflow, where DATA is the project's data
// directory (NARLAB_DATA, default ROOT/data).
func DefaultServerDir() (string, error) {
	d, err := project.DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "mlflow"), nil
}

func (cfg *ServerConfig) defaults() error {
	if cfg.Dir == "" {
		d, err := DefaultServerDir()
		if err != nil {
			return err
		}
		cfg.Dir = d
	}
	abs, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return err
	}
	cfg.Dir = abs
	if cfg.MLflow == "" {
		p, err := project.VenvBin("mlflow")
		if err != nil {
			return fmt.Errorf("mlflow: the local tracking server needs MLflow: %w (or set MLFLOW_TRACKING_URI to a running server)", err)
		}
		cfg.MLflow = p
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 2 * time.Minute
	}
	if cfg.BackendStore == "" {
		cfg.BackendStore = "sqlite:///" + filepath.Join(cfg.Dir, "mlflow.db")
	}
	if cfg.Artifacts == "" {
		cfg.Artifacts = filepath.Join(cfg.Dir, "artifacts")
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if err := os.MkdirAll(cfg.Dir, fsutil.DirMode); err != nil {
		return err
	}
	return os.MkdirAll(cfg.Artifacts, fsutil.DirMode)
}

// EnsureServer returns the local server recorded in cfg.Dir if it is
// running and healthy, and otherwise starts one. reused says which.
// Concurrent callers (several processes) share one server.
func EnsureServer(ctx context.Context, cfg ServerConfig) (srv *Server, reused bool, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, false, err
	}
	lf, err := os.OpenFile(filepath.Join(cfg.Dir, serverLockFile), os.O_CREATE|os.O_RDWR, fsutil.DataMode)
	if err != nil {
		return nil, false, fmt.Errorf("mlflow: local server: %w", err)
	}
	defer lf.Close()
	if err := lockWait(lf); err != nil {
		return nil, false, fmt.Errorf("mlflow: local server: locking %s: %w", lf.Name(), err)
	}
	defer unlock(lf)
	if s, err := FindServer(ctx, cfg.Dir); err == nil && s != nil {
		return s, true, nil
	}
	s, err := StartServer(ctx, cfg)
	return s, false, err
}

// FindServer returns the server recorded in dir's state file if its process
// is alive and answers GET /health, and nil otherwise (removing a stale
// state file).
func FindServer(ctx context.Context, dir string) (*Server, error) {
	b, err := os.ReadFile(filepath.Join(dir, serverStateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s Server
	if err := json.Unmarshal(b, &s); err != nil || s.PID <= 0 || s.URL == "" {
		_ = os.Remove(filepath.Join(dir, serverStateFile))
		return nil, nil
	}
	if !processAlive(s.PID) || !healthy(ctx, s.URL) {
		_ = os.Remove(filepath.Join(dir, serverStateFile))
		return nil, nil
	}
	return &s, nil
}

// StartServer starts a new local server (and records it in cfg.Dir's state
// file): `mlflow server` with the backend store cfg.BackendStore (default:
// the SQLite store cfg.Dir/mlflow.db) and the artifact store cfg.Artifacts
// (default cfg.Dir/artifacts) behind its artifact proxy, bound to cfg.Host
// (default 127.0.0.1). It returns once GET /health answers, and fails (with the tail
// of the server's log) if the server exits or the timeout passes first. The
// server runs in its own session and outlives the calling process; stop it
// with [Server.Stop] or [StopServer].
func StartServer(ctx context.Context, cfg ServerConfig) (*Server, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	var last error
	for try := 0; try < 3; try++ {
		s, err := startServer(ctx, cfg)
		if err == nil {
			return s, nil
		}
		last = err
		var ee *earlyExit
		if cfg.Port != 0 || !errors.As(err, &ee) || !ee.addrInUse {
			break // only a race for a free port is worth another try
		}
	}
	return nil, last
}

// serverEnv is the environment of the embedded server: only what a local
// `mlflow server` needs to run (PATH, HOME, locale, temporary directory,
// Python's own settings) and MLflow's server settings, never narlab's
// credentials or anything else in its environment (tokens, passwords,
// cloud keys). MLFLOW_TRACKING_* are the client's settings (the token and
// password among them) and are left out too.
func serverEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch {
		case k == "PATH", k == "HOME", k == "USER", k == "LOGNAME", k == "LANG", k == "TZ",
			k == "TMPDIR", k == "TEMP", k == "TMP", k == "VIRTUAL_ENV", k == "SYSTEMROOT",
			strings.HasPrefix(k, "LC_"),
			k == "PYTHONPATH", k == "PYTHONHOME", k == "PYTHONUNBUFFERED", k == "PYTHONDONTWRITEBYTECODE":
			out = append(out, kv)
		case strings.HasPrefix(k, "MLFLOW_") && !strings.HasPrefix(k, "MLFLOW_TRACKING_") &&
			!strings.Contains(k, "TOKEN") && !strings.Contains(k, "PASSWORD") && !strings.Contains(k, "SECRET") && !strings.Contains(k, "KEY"):
			out = append(out, kv)
		}
	}
	return out
}

type earlyExit struct {
	msg       string
	addrInUse bool
}

func (e *earlyExit) Error() string { return e.msg }

func startServer(ctx context.Context, cfg ServerConfig) (*Server, error) {
	port := cfg.Port
	if port == 0 {
		p, err := keptPort(cfg.Dir) // the same port as last time when it is free
		if err != nil {
			return nil, err
		}
		port = p
	}
	logPath := filepath.Join(cfg.Dir, serverLogFile)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, fsutil.DataMode)
	if err != nil {
		return nil, fmt.Errorf("mlflow: local server: %w", err)
	}
	defer logf.Close()
	logStart, _ := logf.Seek(0, io.SeekEnd)
	fmt.Fprintf(logf, "\n=== narlab: starting mlflow server on %s:%d at %s\n", cfg.Host, port, time.Now().Format(time.RFC3339))
	args := []string{"server",
		"--backend-store-uri", cfg.BackendStore,
		"--artifacts-destination", cfg.Artifacts,
		"--serve-artifacts",
		"--host", cfg.Host, "--port", strconv.Itoa(port),
		"--workers", strconv.Itoa(cfg.Workers),
	}
	cmd := exec.Command(cfg.MLflow, args...)
	cmd.Dir = cfg.Dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = serverEnv(os.Environ())
	if os.Getenv("MLFLOW_SERVER_ENABLE_JOB_EXECUTION") == "" {
		// The GenAI job runner spawns four worker processes that narlab
		// never uses.
		cmd.Env = append(cmd.Env, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION=false")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("mlflow: starting %s: %w", cfg.MLflow, err)
	}
	host := cfg.Host
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1" // bound to every interface: reach it on loopback
	}
	s := &Server{URL: "http://" + net.JoinHostPort(host, strconv.Itoa(port)), Port: port, PID: cmd.Process.Pid, Dir: cfg.Dir,
		Started: time.Now().UTC(), MLflow: cfg.MLflow, exited: make(chan struct{})}
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(s.exited)
	}()
	deadline := time.Now().Add(cfg.StartTimeout)
	for {
		if healthy(ctx, s.URL) {
			break
		}
		select {
		case <-s.exited:
			tail := logTail(logPath, logStart, 25)
			return nil, &earlyExit{
				msg: fmt.Sprintf("mlflow: the local server exited during start-up (%v); the end of %s:\n%s",
					waitErr, logPath, tail),
				addrInUse: strings.Contains(tail, "in use") || strings.Contains(tail, "Errno 98"),
			}
		case <-ctx.Done():
			_ = s.kill()
			return nil, fmt.Errorf("mlflow: starting the local server: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = s.kill()
			return nil, fmt.Errorf("mlflow: the local server did not answer GET %s/health within %v; the end of %s:\n%s",
				s.URL, cfg.StartTimeout, logPath, logTail(logPath, logStart, 25))
		}
	}
	b, _ := json.MarshalIndent(s, "", "  ")
	if err := writeFileAtomic(filepath.Join(cfg.Dir, serverStateFile), append(b, '\n')); err != nil {
		_ = s.kill()
		return nil, fmt.Errorf("mlflow: recording the local server: %w", err)
	}
	return s, nil
}

// Stop stops the server (SIGTERM to its process group, SIGKILL after 15 s)
// and removes its state file.
func (s *Server) Stop() error {
	err := s.kill()
	st := filepath.Join(s.Dir, serverStateFile)
	if b, rerr := os.ReadFile(st); rerr == nil {
		var rec Server
		if json.Unmarshal(b, &rec) == nil && rec.PID == s.PID {
			_ = os.Remove(st)
		}
	}
	return err
}

func (s *Server) kill() error {
	if s.PID <= 0 {
		return nil
	}
	pgid := s.PID // started with Setsid: the leader's pid is the group id
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("mlflow: stopping the local server (pid %d): %w", s.PID, err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if s.exited != nil {
			select {
			case <-s.exited:
				_ = syscall.Kill(-pgid, syscall.SIGKILL) // stragglers of the group
				return nil
			case <-time.After(100 * time.Millisecond):
			}
		} else {
			if !processAlive(s.PID) {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return nil
}

// StopServer stops the server recorded in dir, if any; stopped says
// whether one was running.
func StopServer(ctx context.Context, dir string) (stopped bool, err error) {
	s, err := FindServer(ctx, dir)
	if err != nil || s == nil {
		return false, err
	}
	return true, s.Stop()
}

// Client returns a client of the server.
func (s *Server) Client(opts ...Option) (*Client, error) { return NewClient(s.URL, opts...) }

// LogPath returns the server's log file.
func (s *Server) LogPath() string { return filepath.Join(s.Dir, serverLogFile) }

func healthy(ctx context.Context, base string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/health", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64))
	return resp.StatusCode == http.StatusOK && bytes.Contains(b, []byte("OK"))
}

func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	// A zombie (exited, not yet reaped) is not alive.
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return false
		}
	}
	return true
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("mlflow: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// logTail returns the last n lines written to the log after offset from.
func logTail(name string, from int64, n int) string {
	b, err := os.ReadFile(name)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	if from > 0 && from <= int64(len(b)) {
		b = b[from:]
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "    " + strings.Join(lines, "\n    ")
}
