// Package llmtest holds what narlab's LLM tests share: the real local
// llama.cpp server (Gemma 3 270M, installed by scripts/setup-llm.sh),
// started once per test process, and a pass-through HTTP proxy that counts
// the requests reaching the server and can inject faults (429 with
// Retry-After, 5xx, slow answers, truncated bodies) in front of it,
// answer max_tokens as OpenAI's API does for its reasoning models
// ([Proxy.RejectMaxTokens]), or refuse the completion API as a chat-only
// endpoint does ([Proxy.ChatOnly]).
//
// When the server is not installed the tests that need it fail, saying how
// to install it; setting NARLAB_SKIP_LLM=1 turns those failures into loudly
// reported skips instead, except in CI (CI=true), where they still fail.
package llmtest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/launch"
	"github.com/narlab/narlab/internal/testenv"
	"github.com/narlab/narlab/lib/llm/llamacpp"
)

var (
	once   sync.Once
	srv    *llamacpp.Server
	srvErr error
	dir    string
	inst   llamacpp.Install
	mu     sync.Mutex
)

// Model is the model name the test server answers to.
const Model = llamacpp.DefaultAlias

// Server returns the shared test server, starting it on first use in a
// temporary folder on a free port; with -short it skips the test instead.
// Call Shutdown from TestMain.
func Server(t testing.TB) *llamacpp.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: this test needs the real llama.cpp server (make test runs it)")
	}
	once.Do(func() {
		if inst, srvErr = llamacpp.FindInstall(); srvErr != nil {
			return
		}
		port, err := launch.FreePort()
		if err != nil {
			srvErr = err
			return
		}
		if dir, srvErr = os.MkdirTemp("", "narlab-llama-test-"); srvErr != nil {
			return
		}
		start := time.Now()
		srv, srvErr = llamacpp.StartServer(context.Background(), llamacpp.Config{Dir: dir, Install: inst, Port: port})
		if srvErr == nil {
			fmt.Fprintf(os.Stderr, "test llama.cpp server at %s (started in %.1fs)\n", srv.URL, time.Since(start).Seconds())
		}
	})
	mu.Lock()
	s, err := srv, srvErr
	mu.Unlock()
	if err != nil {
		Unavailable(t, err)
	}
	return s
}

// Unavailable reports that the real llama.cpp server cannot be had: the
// test fails, saying how to install it, unless NARLAB_SKIP_LLM=1 asks for a
// skip; in CI (CI=true) it fails all the same (testenv.Unavailable).
func Unavailable(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("NARLAB_SKIP_LLM") == "1" {
		testenv.Unavailable(t, "the real llama.cpp server", err, "run scripts/setup-llm.sh (NARLAB_SKIP_LLM=1 set: skipped knowingly)")
		return
	}
	t.Fatalf("the tests need the real llama.cpp server: %v\n(run scripts/setup-llm.sh, or set NARLAB_SKIP_LLM=1 to skip these tests knowingly)", err)
}

// KillServer kills the shared server (SIGKILL, as a crash) without
// starting another; it may be called from any goroutine.
func KillServer() error {
	mu.Lock()
	s := srv
	mu.Unlock()
	if s == nil {
		return fmt.Errorf("llmtest: no server was started")
	}
	return s.Kill()
}

// RestartTimeout bounds StartServer's retries.
const RestartTimeout = 3 * time.Minute

// StartServer starts the shared server again after KillServer, on the same
// port (so its URL does not change); it may be called from any goroutine.
func StartServer() error {
	mu.Lock()
	defer mu.Unlock()
	if srv == nil {
		return fmt.Errorf("llmtest: no server was started")
	}
	// The port may take a moment to be free again: retry for at most
	// RestartTimeout in all.
	ctx, cancel := context.WithTimeout(context.Background(), RestartTimeout)
	defer cancel()
	var err error
	for ctx.Err() == nil {
		var s *llamacpp.Server
		s, err = llamacpp.StartServer(ctx, llamacpp.Config{Dir: dir, Install: inst, Port: srv.Port})
		if err == nil {
			srv = s
			return nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
	return fmt.Errorf("llmtest: restarting the server (for %v): %w", RestartTimeout, err)
}

// Shutdown stops the shared server, if one was started, and removes its
// folder.
func Shutdown() {
	mu.Lock()
	defer mu.Unlock()
	if srv != nil {
		if err := srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the test llama.cpp server:", err)
		}
	}
	if dir != "" {
		os.RemoveAll(dir)
	}
}
