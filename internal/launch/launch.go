// Package launch starts, finds and stops the local servers narlab runs as
// child processes (the MLflow tracking server of tracking/mlflow, the
// llama.cpp server of lib/llm/llamacpp), one way for both:
//
//   - a server keeps its files in one directory: server.json (the record
//     of the running server: address, port, pid, start time and what the
//     caller adds), server.log (its output, appended to at each start) and
//     server.lock (held while a process looks for or starts the server);
//   - it runs in its own session, outlives the process that started it,
//     and is stopped as a process group (SIGTERM, SIGKILL after a grace
//     period);
//   - Start returns once the server answers its health check, and fails,
//     quoting the end of the log, if it exits or the time runs out first;
//   - Find returns the recorded server only if its process is alive and it
//     answers, removing a stale record; a live server that holds its port
//     but is busy is waited for, never forgotten while it runs.
package launch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/narlab/narlab/internal/flock"
	"github.com/narlab/narlab/internal/fsutil"
)

// The files of a server directory.
const (
	StateFile = "server.json"
	LogFile   = "server.log"
	LockFile  = "server.lock"
)

// Process is a started server as its record keeps it; a caller's record
// type embeds it (its JSON fields are flattened into the record's).
type Process struct {
	URL     string    `json:"url"`
	Port    int       `json:"port"`
	PID     int       `json:"pid"`
	Dir     string    `json:"dir"`
	Started time.Time `json:"started"`

	exited chan struct{} // closed when a process started here exits
}

// Proc returns p: a record embedding a Process satisfies Record.
func (p *Process) Proc() *Process { return p }

// Record is a server's record: a struct embedding Process.
type Record interface{ Proc() *Process }

// Exited is closed when a process this program started exits (nil for a
// process found through its record).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Lock takes the server directory's lock, waiting for it, so that one
// process at a time finds or starts the server; call the returned
// function to release it.
func Lock(dir string) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_CREATE|os.O_RDWR, fsutil.DataMode)
	if err != nil {
		return nil, err
	}
	if err := flock.Lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
	}
	return func() {
		_ = flock.Unlock(f)
		f.Close()
	}, nil
}

// BusyWait bounds how long Find waits for a server that is alive and
// holds its port but does not answer its health check: a single-threaded
// server still working on a long request (an LLM generation whose client
// went away) answers once it is done.
var BusyWait = 2 * time.Minute

// UnresponsiveError is Find's error for a server that is alive and holds
// its port but has not answered its health check for BusyWait. Its record
// is kept, so that it can still be stopped.
type UnresponsiveError struct {
	PID    int
	URL    string
	Dir    string
	Waited time.Duration
}

func (e *UnresponsiveError) Error() string {
	return fmt.Sprintf("the server recorded in %s (pid %d, %s) is running but has not answered its health check for %s; "+
		"stop it (its stop command, or kill %d) or wait for it", filepath.Join(e.Dir, StateFile), e.PID, e.URL, e.Waited.Round(time.Second), e.PID)
}

// Find reads dir's record into rec and reports whether it describes a
// live process that answers healthy. A record whose process is gone, or
// is alive but no longer holds the recorded port (its pid reused), is
// stale: Find removes it and reports false. A live server that holds its
// port but does not answer is busy, not stale: Find waits up to BusyWait
// for it to answer, and then fails with an *UnresponsiveError, keeping the
// record (removing it would leave the server running with nothing that
// knows about it, and a second one would be started beside it).
func Find(ctx context.Context, dir string, rec Record, healthy func(ctx context.Context, url string) bool) (bool, error) {
	live, err := Recorded(dir, rec)
	if !live || err != nil {
		return false, err
	}
	p := rec.Proc()
	if healthy(ctx, p.URL) {
		return true, nil
	}
	start := time.Now()
	for time.Since(start) < BusyWait {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(time.Second):
		}
		if !Alive(p.PID) {
			removeRecord(dir, p.PID)
			return false, nil
		}
		if healthy(ctx, p.URL) {
			return true, nil
		}
	}
	return false, &UnresponsiveError{PID: p.PID, URL: p.URL, Dir: dir, Waited: time.Since(start)}
}

// Recorded reads dir's record into rec and reports whether its process is
// alive and holds the recorded port, whether or not it answers: what a stop
// command needs (a busy or hung server must still be stoppable). A stale
// record is removed.
func Recorded(dir string, rec Record) (bool, error) {
	path := filepath.Join(dir, StateFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	p := rec.Proc()
	if json.Unmarshal(b, rec) != nil || p.PID <= 0 || p.URL == "" || !Alive(p.PID) || !p.holdsPort() {
		_ = os.Remove(path)
		return false, nil
	}
	return true, nil
}

// holdsPort reports whether the recorded port is taken on the recorded
// host: nothing can listen there now. An address that cannot be tried (a
// name, no port) counts as taken, so a record is never dropped on doubt.
func (p *Process) holdsPort() bool {
	u, err := url.Parse(p.URL)
	if err != nil || p.Port <= 0 {
		return true
	}
	host := u.Hostname()
	if host == "" || host == "localhost" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p.Port)))
	if err != nil {
		return true
	}
	l.Close()
	return false
}

// removeRecord removes dir's record if it still names pid.
func removeRecord(dir string, pid int) {
	path := filepath.Join(dir, StateFile)
	if b, err := os.ReadFile(path); err == nil {
		var rec Process
		if json.Unmarshal(b, &rec) == nil && rec.PID == pid {
			_ = os.Remove(path)
		}
	}
}

// Found returns dir's record as a *T when it describes a live server that
// answers healthy, and nil otherwise (see Find).
func Found[T any, P interface {
	*T
	Record
}](ctx context.Context, dir string, healthy func(ctx context.Context, url string) bool) (P, error) {
	rec := P(new(T))
	if ok, err := Find(ctx, dir, rec, healthy); !ok || err != nil {
		return nil, err
	}
	return rec, nil
}

// RecordedServer returns dir's record as a *T when its process is alive
// and holds its port, answering or not (see Recorded), and nil otherwise.
func RecordedServer[T any, P interface {
	*T
	Record
}](dir string) (P, error) {
	rec := P(new(T))
	if ok, err := Recorded(dir, rec); !ok || err != nil {
		return nil, err
	}
	return rec, nil
}

// Ensure returns dir's server when it runs and answers healthy, and
// otherwise the one start starts; reused says which. It holds the
// directory's lock meanwhile, so that concurrent callers (several
// processes) share one server. prefix starts the lock's errors.
func Ensure[T any, P interface {
	*T
	Record
}](ctx context.Context, dir, prefix string, healthy func(ctx context.Context, url string) bool,
	start func() (P, error)) (srv P, reused bool, err error) {
	unlock, err := Lock(dir)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", prefix, err)
	}
	defer unlock()
	if s, err := Found[T, P](ctx, dir, healthy); err == nil && s != nil {
		return s, true, nil
	}
	s, err := start()
	return s, false, err
}

// Spec is a server to start.
type Spec struct {
	// Prefix starts every error ("mlflow"); Name is the server in them
	// ("the local server") and Program in the log ("mlflow server").
	Prefix, Name, Program string
	// Dir is the server directory (it must exist).
	Dir string
	// Cmd is the command to run (its Dir, Env and arguments set); Start
	// sets its output to the log and runs it in a session of its own.
	Cmd *exec.Cmd
	// Host and Port are where it listens (for the log); URL where it
	// answers.
	Host string
	Port int
	URL  string
	// Healthy is the health check; HealthPath names it in errors
	// ("/health").
	Healthy    func(ctx context.Context, url string) bool
	HealthPath string
	// Timeout bounds the wait for the health check.
	Timeout time.Duration
}

// ExitError is the error of a server that exited during start-up; Tail is
// the end of what it wrote to its log.
type ExitError struct {
	Msg, Tail string
}

func (e *ExitError) Error() string { return e.Msg }

// tailLines is how much of the log an error quotes.
const tailLines = 25

// Start starts s.Cmd, waits until it answers s.Healthy, fills rec's
// Process and writes rec to the directory's record. A server that exits
// first gives an *ExitError; one that does not answer in time, or whose
// context ends first, is stopped.
func Start(ctx context.Context, s Spec, rec Record) error {
	logPath := filepath.Join(s.Dir, LogFile)
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, fsutil.DataMode)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Prefix, err)
	}
	defer logf.Close()
	from, _ := logf.Seek(0, io.SeekEnd)
	fmt.Fprintf(logf, "\n=== narlab: starting %s on %s at %s\n", s.Program,
		net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), time.Now().Format(time.RFC3339))
	cmd := s.Cmd
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: starting %s: %w", s.Prefix, cmd.Path, err)
	}
	p := rec.Proc()
	*p = Process{URL: s.URL, Port: s.Port, PID: cmd.Process.Pid, Dir: s.Dir, Started: time.Now().UTC(),
		exited: make(chan struct{})}
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(p.exited)
	}()
	deadline := time.Now().Add(s.Timeout)
	for !s.Healthy(ctx, s.URL) {
		select {
		case <-p.exited:
			tail := Tail(logPath, from, tailLines)
			return &ExitError{Tail: tail, Msg: fmt.Sprintf("%s: %s exited during start-up (%v); the end of %s:\n%s",
				s.Prefix, s.Name, waitErr, logPath, tail)}
		case <-ctx.Done():
			_ = p.Stop(10 * time.Second)
			return fmt.Errorf("%s: starting %s: %w", s.Prefix, s.Name, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = p.Stop(10 * time.Second)
			return fmt.Errorf("%s: %s did not answer GET %s%s within %v; the end of %s:\n%s", s.Prefix, s.Name,
				s.URL, s.HealthPath, s.Timeout, logPath, Tail(logPath, from, tailLines))
		}
	}
	b, _ := json.MarshalIndent(rec, "", "  ")
	if err := fsutil.WriteFile(filepath.Join(s.Dir, StateFile), append(b, '\n'), fsutil.DataMode); err != nil {
		_ = p.Stop(10 * time.Second)
		return fmt.Errorf("%s: recording %s: %w", s.Prefix, s.Name, err)
	}
	return nil
}

// Stop stops the server's process group (SIGTERM, then SIGKILL after
// grace, or at once when it exits, for stragglers of the group) and
// removes the directory's record if it names this process.
func (p *Process) Stop(grace time.Duration) error {
	if p.PID <= 0 {
		return nil
	}
	if err := syscall.Kill(-p.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stopping the server (pid %d): %w", p.PID, err)
	}
	p.wait(grace)
	_ = syscall.Kill(-p.PID, syscall.SIGKILL)
	p.wait(5 * time.Second)
	removeRecord(p.Dir, p.PID)
	return nil
}

// Kill kills the server's process group at once (SIGKILL) and waits for
// it, keeping its record: what a crash looks like.
func (p *Process) Kill() error {
	if p.PID <= 0 {
		return nil
	}
	if err := syscall.Kill(-p.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("killing the server (pid %d): %w", p.PID, err)
	}
	p.wait(10 * time.Second)
	return nil
}

// wait reports whether the process went away within d.
func (p *Process) wait(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if p.exited != nil {
			select {
			case <-p.exited:
				return true
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		if !Alive(p.PID) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// Alive reports whether process pid exists and is not a zombie.
func Alive(pid int) bool {
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

// Answers reports whether GET url answers 200 within timeout with a body
// whose first 64 KiB contain want: a health check.
func Answers(ctx context.Context, url string, timeout time.Duration, want string) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode == http.StatusOK && bytes.Contains(b, []byte(want))
}

// PortFree reports whether 127.0.0.1:port can be bound now.
func PortFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// FreePort returns a port free on 127.0.0.1 now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Port returns preferred when it is free, else a free port.
func Port(preferred int) (int, error) {
	if preferred > 0 && PortFree(preferred) {
		return preferred, nil
	}
	return FreePort()
}

// portFile, in a server directory, keeps the port the server was first
// given.
const portFile = "port"

// KeptPort returns the port kept in dir's port file when it is free to
// bind on 127.0.0.1; otherwise (no file yet, or the port taken by another
// program) a free port, which it keeps in the file for next time. A server
// that comes back on the same address keeps the links printed earlier
// working.
func KeptPort(dir string) (int, error) {
	path := filepath.Join(dir, portFile)
	if b, err := os.ReadFile(path); err == nil {
		if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && p > 0 && p < 65536 && PortFree(p) {
			return p, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("reading the kept port: %w", err)
	}
	p, err := FreePort()
	if err != nil {
		return 0, err
	}
	if err := fsutil.WriteFile(path, []byte(strconv.Itoa(p)+"\n"), fsutil.DataMode); err != nil {
		return 0, fmt.Errorf("keeping the server's port: %w", err)
	}
	return p, nil
}

// Tail returns the last n lines written to the log name after offset
// from, indented.
func Tail(name string, from int64, n int) string {
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
