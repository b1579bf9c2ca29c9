package mlflow

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/launch"
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

// Server is a local tracking server started by narlab: its record in the
// server directory (url, port, pid, dir, started, mlflow).
type Server struct {
	launch.Process
	MLflow string `json:"mlflow"`
}

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
	return launch.Ensure(ctx, cfg.Dir, "mlflow: local server", healthy, func() (*Server, error) { return StartServer(ctx, cfg) })
}

// FindServer returns the server recorded in dir's state file if its process
// is alive and answers GET /health, and nil otherwise (removing a stale
// state file); a busy server is waited for (see launch.Find).
func FindServer(ctx context.Context, dir string) (*Server, error) {
	return launch.Found[Server](ctx, dir, healthy)
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
		var ee *launch.ExitError
		if cfg.Port != 0 || !errors.As(err, &ee) || !(strings.Contains(ee.Tail, "in use") || strings.Contains(ee.Tail, "Errno 98")) {
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

func startServer(ctx context.Context, cfg ServerConfig) (*Server, error) {
	port := cfg.Port
	if port == 0 {
		p, err := launch.KeptPort(cfg.Dir) // the same port as last time when it is free
		if err != nil {
			return nil, fmt.Errorf("mlflow: %w", err)
		}
		port = p
	}
	args := []string{"server",
		"--backend-store-uri", cfg.BackendStore,
		"--artifacts-destination", cfg.Artifacts,
		"--serve-artifacts",
		"--host", cfg.Host, "--port", strconv.Itoa(port),
		"--workers", strconv.Itoa(cfg.Workers),
	}
	cmd := exec.Command(cfg.MLflow, args...)
	cmd.Dir = cfg.Dir
	cmd.Env = serverEnv(os.Environ())
	if os.Getenv("MLFLOW_SERVER_ENABLE_JOB_EXECUTION") == "" {
		// The GenAI job runner spawns four worker processes that narlab
		// never uses.
		cmd.Env = append(cmd.Env, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION=false")
	}
	host := cfg.Host
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1" // bound to every interface: reach it on loopback
	}
	s := &Server{MLflow: cfg.MLflow}
	err := launch.Start(ctx, launch.Spec{Prefix: "mlflow", Name: "the local server", Program: "mlflow server",
		Dir: cfg.Dir, Cmd: cmd, Host: cfg.Host, Port: port, URL: "http://" + net.JoinHostPort(host, strconv.Itoa(port)),
		Healthy: healthy, HealthPath: "/health", Timeout: cfg.StartTimeout}, s)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Stop stops the server (SIGTERM to its process group, SIGKILL after 15 s)
// and removes its state file.
func (s *Server) Stop() error {
	if err := s.Process.Stop(15 * time.Second); err != nil {
		return fmt.Errorf("mlflow: local server: %w", err)
	}
	return nil
}

// StopServer stops the server recorded in dir, if any; stopped says
// whether one was running.
func StopServer(ctx context.Context, dir string) (stopped bool, err error) {
	// A busy or hung server is stopped too: only its record is needed.
	s, err := launch.RecordedServer[Server](dir)
	if err != nil || s == nil {
		return false, err
	}
	return true, s.Stop()
}

// Client returns a client of the server.
func (s *Server) Client(opts ...Option) (*Client, error) { return NewClient(s.URL, opts...) }

// LogPath returns the server's log file.
func (s *Server) LogPath() string { return filepath.Join(s.Dir, launch.LogFile) }

func healthy(ctx context.Context, base string) bool {
	return launch.Answers(ctx, base+"/health", 2*time.Second, "OK")
}
