// Package llamacpp starts, finds and stops a local llama.cpp server
// (llama-cpp-python's OpenAI-compatible server) serving the packaged Gemma 3
// 270M model, the real model narlab's LLM evaluation is tested against.
//
// scripts/setup-llm.sh installs the server and the model into a cached
// Python environment and records where they are in llm.env under narlab's
// cache directory; [FindInstall] reads that record (or the environment
// variables NARLAB_LLM_PYTHON and NARLAB_LLM_MODEL, which take precedence).
//
// A server started by [EnsureServer] runs in its own session, outlives the
// process that started it, and is recorded (pid, port, model) in
// DATA/llm/server.json, so that `narlab llm serve` reuses it and `narlab llm
// stop` stops it, as `narlab mlflow ui` does for MLflow.
package llamacpp

import (
	"bufio"
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

// DefaultPort is the port a server binds when it is free (a stable
// endpoint keeps the response cache valid across restarts, since the
// endpoint is part of the cache key); another free port otherwise.
const DefaultPort = 18080

// DefaultAlias is the model name the server answers to.
const DefaultAlias = "gemma-3-270m"

// Environment variables that locate the installation.
const (
	EnvPython = "NARLAB_LLM_PYTHON"
	EnvModel  = "NARLAB_LLM_MODEL"
	EnvCache  = "NARLAB_CACHE"
)

// Install is an installed server and model.
type Install struct {
	// Python is the interpreter of the environment holding llama_cpp.
	Python string
	// Model is the GGUF file.
	Model string
}

// RecordPath is the file scripts/setup-llm.sh writes:
// $NARLAB_CACHE/llm.env, default ${XDG_CACHE_HOME:-$HOME/.cache}/narlab/llm.env.
func RecordPath() (string, error) {
	if d := os.Getenv(EnvCache); d != "" {
		return filepath.Join(d, "llm.env"), nil
	}
	d := os.Getenv("XDG_CACHE_HOME")
	if d == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("llamacpp: no cache directory: %w", err)
		}
		d = filepath.Join(home, ".cache")
	}
	return filepath.Join(d, "narlab", "llm.env"), nil
}

// FindInstall locates the server's Python and the model: the environment
// variables first, then the record of scripts/setup-llm.sh. Both files must
// exist.
func FindInstall() (Install, error) {
	in := Install{Python: os.Getenv(EnvPython), Model: os.Getenv(EnvModel)}
	if in.Python == "" || in.Model == "" {
		rec, err := RecordPath()
		if err != nil {
			return in, err
		}
		vals, err := readRecord(rec)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return in, fmt.Errorf("llamacpp: the local LLM server is not installed (no %s): run scripts/setup-llm.sh (about 10 minutes the first time), or set %s and %s", rec, EnvPython, EnvModel)
			}
			return in, err
		}
		if in.Python == "" {
			in.Python = vals[EnvPython]
		}
		if in.Model == "" {
			in.Model = vals[EnvModel]
		}
	}
	if in.Python == "" || in.Model == "" {
		return in, fmt.Errorf("llamacpp: %s and %s must both be known; run scripts/setup-llm.sh", EnvPython, EnvModel)
	}
	for _, p := range []string{in.Python, in.Model} {
		if _, err := os.Stat(p); err != nil {
			return in, fmt.Errorf("llamacpp: %v; run scripts/setup-llm.sh to reinstall", err)
		}
	}
	return in, nil
}

func readRecord(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("llamacpp: %s: line %q is not KEY=value", path, line)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, sc.Err()
}

// Config describes a server to start.
type Config struct {
	// Dir holds server.json, server.log and server.lock (default DATA/llm).
	Dir string
	// Install is the server and model (default: FindInstall).
	Install Install
	// Port to bind on 127.0.0.1; 0: DefaultPort if free, else any free one.
	Port int
	// Alias is the model name the server answers to (default DefaultAlias).
	Alias string
	// ChatFormat is llama-cpp-python's chat template for the chat API
	// (default "gemma": the packaged GGUF carries no template of its own,
	// and the server's fallback, llama-2's, makes Gemma answer nothing).
	ChatFormat string
	// Context is the context length in tokens (default 4096).
	Context int
	// Threads is the number of CPU threads (default: the server's choice).
	Threads int
	// StartTimeout bounds the wait for GET /v1/models (default 3 min).
	StartTimeout time.Duration
}

// Server is a running server.
type Server struct {
	URL     string    `json:"url"` // http://127.0.0.1:PORT
	Port    int       `json:"port"`
	PID     int       `json:"pid"`
	Dir     string    `json:"dir"`
	Model   string    `json:"model"`
	Alias   string    `json:"alias"`
	Started time.Time `json:"started"`

	exited chan struct{}
}

// Endpoint is the OpenAI API root, URL + "/v1".
func (s *Server) Endpoint() string { return s.URL + "/v1" }

// LogPath is the server's log (its access log names every request).
func (s *Server) LogPath() string { return filepath.Join(s.Dir, logFile) }

const (
	stateFile = "server.json"
	logFile   = "server.log"
	lockFile  = "server.lock"
)

// DefaultDir is DATA/llm.
func DefaultDir() (string, error) {
	d, err := project.DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "llm"), nil
}

func (cfg *Config) defaults() error {
	if cfg.Dir == "" {
		d, err := DefaultDir()
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
	if cfg.Install.Python == "" || cfg.Install.Model == "" {
		in, err := FindInstall()
		if err != nil {
			return err
		}
		cfg.Install = in
	}
	if cfg.Alias == "" {
		cfg.Alias = DefaultAlias
	}
	if cfg.Context == 0 {
		cfg.Context = 4096
	}
	if cfg.ChatFormat == "" {
		cfg.ChatFormat = "gemma"
	}
	if cfg.Context < 256 || cfg.Threads < 0 || cfg.Port < 0 || cfg.Port > 65535 {
		return fmt.Errorf("llamacpp: context %d, threads %d, port %d: want context ≥ 256, threads ≥ 0, port 0..65535", cfg.Context, cfg.Threads, cfg.Port)
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 3 * time.Minute
	}
	return os.MkdirAll(cfg.Dir, fsutil.DirMode)
}

// EnsureServer returns the server recorded in cfg.Dir if it runs and
// answers, and otherwise starts one; reused says which. Concurrent callers
// share one server.
func EnsureServer(ctx context.Context, cfg Config) (srv *Server, reused bool, err error) {
	if err := cfg.defaults(); err != nil {
		return nil, false, err
	}
	lf, err := os.OpenFile(filepath.Join(cfg.Dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, false, fmt.Errorf("llamacpp: %w", err)
	}
	defer lf.Close()
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		return nil, false, fmt.Errorf("llamacpp: locking %s: %w", lf.Name(), err)
	}
	defer syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)
	if s, err := FindServer(ctx, cfg.Dir); err == nil && s != nil {
		return s, true, nil
	}
	s, err := StartServer(ctx, cfg)
	return s, false, err
}

// FindServer returns the server recorded in dir if its process is alive
// and answers GET /v1/models, and nil otherwise (removing a stale record).
func FindServer(ctx context.Context, dir string) (*Server, error) {
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s Server
	if json.Unmarshal(b, &s) != nil || s.PID <= 0 || s.URL == "" || !alive(s.PID) || !Healthy(ctx, s.URL) {
		_ = os.Remove(filepath.Join(dir, stateFile))
		return nil, nil
	}
	return &s, nil
}

// StartServer starts a server and records it in cfg.Dir. It returns once GET
// /v1/models answers and fails, quoting the end of the log, if the process
// exits or the timeout passes first.
func StartServer(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	port := cfg.Port
	if port == 0 {
		port = DefaultPort
		if !portFree(port) {
			p, err := freePort()
			if err != nil {
				return nil, err
			}
			port = p
		}
	}
	logPath := filepath.Join(cfg.Dir, logFile)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("llamacpp: %w", err)
	}
	defer logf.Close()
	from, _ := logf.Seek(0, io.SeekEnd)
	fmt.Fprintf(logf, "\n=== narlab: starting llama.cpp server on 127.0.0.1:%d at %s\n", port, time.Now().Format(time.RFC3339))
	args := []string{"-m", "llama_cpp.server", "--model", cfg.Install.Model, "--model_alias", cfg.Alias,
		"--host", "127.0.0.1", "--port", strconv.Itoa(port), "--n_ctx", strconv.Itoa(cfg.Context),
		"--chat_format", cfg.ChatFormat,
		// Queue concurrent requests instead of cutting a running one short.
		"--interrupt_requests", "False"}
	if cfg.Threads > 0 {
		args = append(args, "--n_threads", strconv.Itoa(cfg.Threads))
	}
	cmd := exec.Command(cfg.Install.Python, args...)
	cmd.Dir = cfg.Dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("llamacpp: starting %s: %w", cfg.Install.Python, err)
	}
	s := &Server{URL: fmt.Sprintf("http://127.0.0.1:%d", port), Port: port, PID: cmd.Process.Pid, Dir: cfg.Dir,
		Model: cfg.Install.Model, Alias: cfg.Alias, Started: time.Now().UTC(), exited: make(chan struct{})}
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(s.exited)
	}()
	deadline := time.Now().Add(cfg.StartTimeout)
	for !Healthy(ctx, s.URL) {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("llamacpp: the server exited during start-up (%v); the end of %s:\n%s", waitErr, logPath, tail(logPath, from, 20))
		case <-ctx.Done():
			_ = s.Stop()
			return nil, fmt.Errorf("llamacpp: starting the server: %w", ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = s.Stop()
			return nil, fmt.Errorf("llamacpp: the server did not answer GET %s/v1/models within %v; the end of %s:\n%s", s.URL, cfg.StartTimeout, logPath, tail(logPath, from, 20))
		}
	}
	b, _ := json.MarshalIndent(s, "", "  ")
	if err := fsutil.WriteFile(filepath.Join(cfg.Dir, stateFile), append(b, '\n'), fsutil.DataMode); err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("llamacpp: recording the server: %w", err)
	}
	return s, nil
}

// Kill stops the server at once (SIGKILL to its process group) without
// removing its record: what a crash looks like.
func (s *Server) Kill() error {
	if err := syscall.Kill(-s.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("llamacpp: killing pid %d: %w", s.PID, err)
	}
	s.wait(10 * time.Second)
	return nil
}

// Stop stops the server (SIGTERM to its process group, SIGKILL after 10 s)
// and removes its record.
func (s *Server) Stop() error {
	if s.PID <= 0 {
		return nil
	}
	if err := syscall.Kill(-s.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("llamacpp: stopping pid %d: %w", s.PID, err)
	}
	if !s.wait(10 * time.Second) {
		_ = syscall.Kill(-s.PID, syscall.SIGKILL)
		s.wait(5 * time.Second)
	}
	st := filepath.Join(s.Dir, stateFile)
	if b, err := os.ReadFile(st); err == nil {
		var rec Server
		if json.Unmarshal(b, &rec) == nil && rec.PID == s.PID {
			_ = os.Remove(st)
		}
	}
	return nil
}

// wait reports whether the process went away within d.
func (s *Server) wait(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if s.exited != nil {
			select {
			case <-s.exited:
				return true
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		if !alive(s.PID) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// StopServer stops the server recorded in dir; stopped says whether one
// was running.
func StopServer(ctx context.Context, dir string) (stopped bool, err error) {
	s, err := FindServer(ctx, dir)
	if err != nil || s == nil {
		return false, err
	}
	return true, s.Stop()
}

// Healthy reports whether an OpenAI-compatible server at base (without
// /v1) answers GET /v1/models.
func Healthy(ctx context.Context, base string) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/models", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode == http.StatusOK && bytes.Contains(b, []byte(`"data"`))
}

func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return false
		}
	}
	return true
}

func portFree(port int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("llamacpp: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(name string, from int64, n int) string {
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
