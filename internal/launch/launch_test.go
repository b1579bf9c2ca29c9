package launch

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// record is a caller's record: Process and a field of its own.
type record struct {
	Process
	Extra string `json:"extra"`
}

func serverCmd(t *testing.T, mode string, port int) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "LAUNCH_TEST_MODE="+mode, "LAUNCH_TEST_PORT="+strconv.Itoa(port))
	return cmd
}

func healthy(ctx context.Context, url string) bool {
	return Answers(ctx, url+"/health", time.Second, "OK")
}

func TestStart(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode    string
		timeout time.Duration
		wantErr string // "" : starts
		exitErr bool   // the error is an *ExitError quoting the log
	}{
		{mode: "serve", timeout: time.Minute},
		{mode: "exit", timeout: time.Minute, wantErr: "test: the server exited during start-up", exitErr: true},
		{mode: "mute", timeout: 600 * time.Millisecond, wantErr: "test: the server did not answer GET http://"},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			port, err := FreePort()
			if err != nil {
				t.Fatal(err)
			}
			rec := &record{Extra: "x"}
			err = Start(context.Background(), Spec{Prefix: "test", Name: "the server", Program: "test server", Dir: dir,
				Cmd: serverCmd(t, c.mode, port), Host: "127.0.0.1", Port: port, URL: "http://127.0.0.1:" + strconv.Itoa(port),
				Healthy: healthy, HealthPath: "/health", Timeout: c.timeout}, rec)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, c.wantErr)
				}
				var ee *ExitError
				if errors.As(err, &ee) != c.exitErr || (c.exitErr && !strings.Contains(ee.Tail, "Errno 98")) {
					t.Errorf("error %#v: exit error %v, want %v with the log's end", err, errors.As(err, &ee), c.exitErr)
				}
				if rec.PID > 0 && Alive(rec.PID) {
					t.Errorf("the failed server (pid %d) still runs", rec.PID)
				}
				if _, err := os.Stat(filepath.Join(dir, StateFile)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("a failed start left a record (%v)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			log, _ := os.ReadFile(filepath.Join(dir, LogFile))
			if !strings.Contains(string(log), "=== narlab: starting test server on 127.0.0.1:"+strconv.Itoa(port)) ||
				!strings.Contains(string(log), "serving") {
				t.Errorf("log:\n%s", log)
			}
			var found record
			ok, err := Find(context.Background(), dir, &found, healthy)
			if err != nil || !ok || found.PID != rec.PID || found.Port != port || found.Extra != "x" || found.Dir != dir {
				t.Fatalf("Find = %v, %v, %+v; want the started %+v", ok, err, found, rec)
			}
			// The found record stops the server it names, as `stop` commands do.
			if err := found.Stop(5 * time.Second); err != nil {
				t.Fatal(err)
			}
			select {
			case <-rec.Exited():
			case <-time.After(10 * time.Second):
				t.Fatal("the server did not exit")
			}
			if ok, err := Find(context.Background(), dir, &found, healthy); ok || err != nil {
				t.Errorf("Find after Stop = %v, %v", ok, err)
			}
			if _, err := os.Stat(filepath.Join(dir, StateFile)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Stop left the record (%v)", err)
			}
		})
	}
}

// TestFindStale checks that records naming no live, answering server are
// removed.
func TestFindStale(t *testing.T) {
	t.Parallel()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	free, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	freeURL := "http://127.0.0.1:" + strconv.Itoa(free)
	// A live pid whose recorded port nobody holds: the pid was reused.
	reused, _ := json.Marshal(record{Process: Process{URL: freeURL, Port: free, PID: os.Getpid()}})
	gone, _ := json.Marshal(record{Process: Process{URL: freeURL, Port: free, PID: dead.Process.Pid}})
	for name, content := range map[string]string{
		"damaged":                 "{",
		"no pid":                  `{"url": "http://127.0.0.1:1"}`,
		"dead process":            string(gone),
		"alive but its port free": string(reused),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, StateFile)
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			var rec record
			if ok, err := Find(context.Background(), dir, &rec, healthy); ok || err != nil {
				t.Fatalf("Find = %v, %v; want none", ok, err)
			}
			if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the stale record is still there (%v)", err)
			}
		})
	}
	var rec record
	if ok, err := Find(context.Background(), t.TempDir(), &rec, healthy); ok || err != nil {
		t.Errorf("Find without a record = %v, %v", ok, err)
	}
}

func TestPort(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().(*net.TCPAddr).Port
	if PortFree(taken) {
		t.Errorf("PortFree(%d) with a listener on it", taken)
	}
	if p, err := Port(taken); err != nil || p == taken || !PortFree(p) {
		t.Errorf("Port(%d taken) = %d, %v; want another, free port", taken, p, err)
	}
	free, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	if p, err := Port(free); err != nil || p != free {
		t.Errorf("Port(%d free) = %d, %v; want it", free, p, err)
	}
}

func TestLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	unlock, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan struct{})
	go func() {
		u, err := Lock(dir)
		if err == nil {
			u()
		}
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("a second Lock did not wait for the first")
	case <-time.After(200 * time.Millisecond):
	}
	unlock()
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the second Lock was not granted after the first was released")
	}
}

// TestEnsure starts a server through Ensure, finds it on the second call
// (start is not called again), and starts a new one once it is stopped.
func TestEnsure(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	starts := 0
	start := func() (*record, error) {
		starts++
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		rec := &record{Extra: strconv.Itoa(starts)}
		err = Start(context.Background(), Spec{Prefix: "test", Name: "the server", Program: "test server", Dir: dir,
			Cmd: serverCmd(t, "serve", port), Host: "127.0.0.1", Port: port, URL: "http://127.0.0.1:" + strconv.Itoa(port),
			Healthy: healthy, HealthPath: "/health", Timeout: time.Minute}, rec)
		return rec, err
	}
	ensure := func() (*record, bool) {
		t.Helper()
		s, reused, err := Ensure(context.Background(), dir, "test", healthy, start)
		if err != nil {
			t.Fatal(err)
		}
		return s, reused
	}
	a, reused := ensure()
	if reused || starts != 1 {
		t.Fatalf("first Ensure: reused %v after %d starts", reused, starts)
	}
	b, reused := ensure()
	if !reused || starts != 1 || b.PID != a.PID || b.Extra != "1" {
		t.Fatalf("second Ensure: %+v reused %v after %d starts; want the first server %+v", b, reused, starts, a)
	}
	if err := a.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	c, reused := ensure()
	defer c.Stop(5 * time.Second)
	if reused || starts != 2 || c.PID == a.PID {
		t.Errorf("Ensure after Stop: %+v reused %v after %d starts; want a new server", c, reused, starts)
	}
}

// A server that is alive and holds its port but is slow to answer (busy
// with a long request) is waited for, not forgotten: Find returns it once
// it answers; one that stays silent past BusyWait is an
// *UnresponsiveError whose record is kept, and Recorded still finds it so
// that it can be stopped.
func TestFindBusy(t *testing.T) {
	defer func(w time.Duration) { BusyWait = w }(BusyWait)
	BusyWait = 4 * time.Second
	for _, tc := range []struct {
		name     string
		busy     time.Duration // how long the server keeps its health check waiting
		wantLive bool
	}{
		{"answers after 2.5 s", 2500 * time.Millisecond, true},
		{"silent past BusyWait", time.Minute, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port, err := FreePort()
			if err != nil {
				t.Fatal(err)
			}
			cmd := serverCmd(t, "busy", port)
			cmd.Env = append(cmd.Env, "LAUNCH_TEST_BUSY="+tc.busy.String())
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			defer cmd.Process.Kill()
			url := "http://127.0.0.1:" + strconv.Itoa(port)
			for deadline := time.Now().Add(10 * time.Second); PortFree(port); {
				if time.Now().After(deadline) {
					t.Fatal("the busy server did not listen within 10 s")
				}
				time.Sleep(50 * time.Millisecond)
			}
			dir := t.TempDir()
			b, _ := json.Marshal(record{Process: Process{URL: url, Port: port, PID: cmd.Process.Pid, Dir: dir}})
			path := filepath.Join(dir, StateFile)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			var rec record
			start := time.Now()
			ok, err := Find(context.Background(), dir, &rec, healthy)
			waited := time.Since(start)
			var unresponsive *UnresponsiveError
			switch {
			case tc.wantLive && (!ok || err != nil):
				t.Fatalf("Find = %v, %v after %s; want the busy server once it answers", ok, err, waited)
			case tc.wantLive && waited < tc.busy-time.Second:
				t.Errorf("Find returned after %s, before the server could answer (%s)", waited, tc.busy)
			case !tc.wantLive && (ok || !errors.As(err, &unresponsive) || unresponsive.PID != cmd.Process.Pid):
				t.Fatalf("Find = %v, %v; want an *UnresponsiveError naming pid %d", ok, err, cmd.Process.Pid)
			case !tc.wantLive && !strings.Contains(err.Error(), path):
				t.Errorf("the error does not name the record %s: %v", path, err)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("the record of a live server was removed (%v)", err)
			}
			if ok, err := Recorded(dir, &rec); !ok || err != nil || rec.PID != cmd.Process.Pid {
				t.Errorf("Recorded = %v, %v, pid %d; want the live server, pid %d", ok, err, rec.PID, cmd.Process.Pid)
			}
		})
	}
}
