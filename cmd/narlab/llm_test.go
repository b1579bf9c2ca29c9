package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/narlab/narlab/lib/llm/llamacpp"
	"github.com/narlab/narlab/lib/llm/llmtest"
)

// llmCLI runs the narlab binary with a private data directory (and no
// OPENAI_BASE_URL from the environment).
func llmCLI(t *testing.T, data string, args ...string) (string, string, error) {
	t.Helper()
	return llmCLIEnv(t, data, nil, args...)
}

// llmCLIEnv is llmCLI with more environment variables (KEY=value).
func llmCLIEnv(t *testing.T, data string, env []string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(narlabCLI(t), args...)
	cmd.Env = append(append(os.Environ(), "NARLAB_DATA="+data, "MLFLOW_TRACKING_URI=", "OPENAI_BASE_URL="), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

func TestLLMRunHelpDocumentsEveryOption(t *testing.T) {
	_, stderr, err := llmCLI(t, t.TempDir(), "llm", "run", "-h")
	if err != nil {
		t.Fatalf("llm run -h: %v\n%s", err, stderr)
	}
	for _, name := range []string{"suite", "endpoint", "model", "limit", "concurrency", "experiment", "tracking", "no-mlflow", "out",
		"api", "temperature", "max-tokens", "seed", "stop", "top-p", "top-k", "sampling", "token-param", "OPENAI_BASE_URL", "OPENAI_API_KEY",
		"timeout", "retries", "schema-format", "cache", "no-cache",
		"count", "data-seed", "algorithms", "lengths", "format", "hints", "tasks", "encodings", "syntaxes", "relabelings",
		"shuffle-seeds", "structures", "categories", "levels", "strategy", "option", "NARLAB_LLM_API_KEY"} {
		if !strings.Contains(stderr, "-"+name) && !strings.Contains(stderr, name) {
			t.Errorf("llm run -h does not mention %s", name)
		}
	}
	// Every flag line is followed by its description.
	lines := strings.Split(stderr, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  -") && (i+1 == len(lines) || strings.TrimSpace(lines[i+1]) == "") {
			t.Errorf("flag %q has no description", l)
		}
	}
}

func TestLLMRunBadInput(t *testing.T) {
	data := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"llm", "run"}, "--suite is required"},
		{[]string{"llm", "run", "--suite", "mmlu"}, `--suite "mmlu"`},
		{[]string{"llm", "run", "--suite", "graphs", "--lengths", "4"}, "--lengths is a clrstext option"},
		{[]string{"llm", "run", "--suite", "clrstext", "--structures", "stack"}, "--structures is a dsr option"},
		{[]string{"llm", "run", "--suite", "clrstext", "--scoring", "lenient"}, "--scoring is a graphs and dsr option"},
		{[]string{"llm", "run", "--suite", "dsr", "--scoring", "loose"}, "-scoring: \"loose\" is not accepted"},
		{[]string{"llm", "run", "--suite", "dsr", "--structures", "splay_tree"}, "unknown structure"},
		{[]string{"llm", "run", "--suite", "dsr", "--strategy", "CodeOnly"}, "code-probe mode"},
		{[]string{"llm", "run", "--suite", "clrstext", "--algorithms", "quick_sort", "--lengths", "4"}, "quick_sort"},
		{[]string{"llm", "run", "--suite", "clrstext", "--algorithms", "nope"}, `unknown algorithm "nope" (CLRS-Text has: activity_selector, articulation_points`},
		{[]string{"llm", "run", "--suite", "graphs", "--tasks", "nope"}, "`narlab graphs tasks` lists them all"},
		{[]string{"llm", "run", "--suite", "graphs", "--encodings", "E9"}, "E9"},
		{[]string{"llm", "run", "--suite", "spectral", "--tasks", "diameter"}, "unknown task"},
		{[]string{"llm", "run", "--suite", "clrstext", "--endpoint", "ftp://example.org/v1", "--model", "m"}, "http(s) URL"},
		{[]string{"llm", "run", "--suite", "clrstext", "--endpoint", "http://127.0.0.1:1/v1"}, "--model is required"},
		{[]string{"llm", "run", "--suite", "dsr", "--temperature", "5"}, "temperature"},
		{[]string{"llm", "run", "--suite", "dsr", "--concurrency", "0"}, "--concurrency 0"},
		{[]string{"llm", "run", "--suite", "dsr", "--limit", "-2"}, "limit -2"},
		{[]string{"llm", "run", "--suite", "dsr", "--stop", "none", "--stop", "x"}, "--stop none (no stop sequence) and other --stop values contradict"},
		{[]string{"llm", "run", "--suite", "clrstext", "--lengths", "100000"}, `--lengths: "100000"; accepted: integers 1..256`},
		{[]string{"llm", "run", "--suite", "dsr", "--no-mlflow", "--tracking", "http://127.0.0.1:1"}, "--no-mlflow and --tracking http://127.0.0.1:1 contradict"},
		{[]string{"llm", "run", "--suite", "dsr", "--sampling", "vllm"}, `--sampling "vllm": want one of paper, g1`},
		{[]string{"llm", "run", "--suite", "dsr", "--token-param", "max_new_tokens"}, "want auto, max_tokens or max_completion_tokens"},
		{[]string{"llm", "run", "--suite", "dsr", "--top-k", "-1"}, "--top-k -1"},
		// OPENAI_BASE_URL is the endpoint when --endpoint is not given
		// (set for this case below).
		{[]string{"llm", "run", "--suite", "dsr", "OPENAI_BASE_URL=http://127.0.0.1:1/v1"}, "--model is required with an endpoint other than local (here $OPENAI_BASE_URL: http://127.0.0.1:1/v1)"},
		{[]string{"llm", "run", "--suite", "dsr", "--model", "m", "OPENAI_BASE_URL=localhost:1"}, `OPENAI_BASE_URL "localhost:1": want an http(s) URL`},
	} {
		t.Run(strings.Join(tc.args[2:], " "), func(t *testing.T) {
			var env []string
			if last := tc.args[len(tc.args)-1]; strings.HasPrefix(last, "OPENAI_BASE_URL=") {
				env, tc.args = []string{last}, tc.args[:len(tc.args)-1]
			}
			_, stderr, err := llmCLIEnv(t, data, env, tc.args...)
			if err == nil {
				t.Fatal("exit status 0")
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not say %q", stderr, tc.want)
			}
		})
	}
	// Nothing was started or written for any of them.
	if _, err := os.Stat(filepath.Join(data, "llm", "server.json")); err == nil {
		t.Error("a bad command started the llama.cpp server")
	}
	if _, err := os.Stat(filepath.Join(data, "llm", "cache")); err == nil {
		t.Error("a bad command created the cache")
	}
}

// TestMissingFlagIsOneLine: a command run without a required flag prints
// one line naming it, with where the rest is, and not the usage text whose
// length would bury it.
func TestMissingFlagIsOneLine(t *testing.T) {
	data := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"llm", "run"}, "llm run: --suite is required"},
		{[]string{"llm", "run", "--suite", "clrstext", "--endpoint", "http://127.0.0.1:1/v1", "--limit", "1"}, "llm run: --model is required with --endpoint URL"},
		{[]string{"sweep", "run"}, "sweep run: --dir is required"},
		{[]string{"dsr", "score"}, "dsr score: --input and --predictions are required"},
		{[]string{"graphs", "truth"}, "graphs truth: --task and --graph are required"},
		{[]string{"mlflow", "serve"}, "mlflow serve: --backend-store and --artifacts are required"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, err := llmCLI(t, data, tc.args...)
			if err == nil {
				t.Fatal("exit status 0")
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tc.want) || !strings.Contains(lines[0], "-h lists every flag") {
				t.Errorf("stderr (%d lines):\n%s\nwant one line with %q and where the flags are listed", len(lines), stderr, tc.want)
			}
		})
	}
}

// TestLLMServeRunStop is what a user does: serve, run twice (the second
// from the cache), stop, and run once more with no server at all.
func TestLLMServeRunStop(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts the real llama.cpp server (make test runs it)")
	}
	if _, err := llamacpp.FindInstall(); err != nil {
		llmtest.Unavailable(t, err)
	}
	data := t.TempDir()
	t.Cleanup(func() { llmCLI(t, data, "llm", "stop") })
	endpoint, stderr, err := llmCLI(t, data, "llm", "serve")
	if err != nil {
		t.Fatalf("llm serve: %v\n%s", err, stderr)
	}
	endpoint = strings.TrimSpace(endpoint)
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") || !strings.HasSuffix(endpoint, "/v1") {
		t.Fatalf("llm serve printed %q", endpoint)
	}
	again, stderr, err := llmCLI(t, data, "llm", "serve")
	if err != nil || strings.TrimSpace(again) != endpoint || !strings.Contains(stderr, "already running") {
		t.Fatalf("second llm serve: %v, %q, %q", err, again, stderr)
	}
	out := t.TempDir()
	run := []string{"llm", "run", "--suite", "dsr", "--structures", "stack", "--count", "2", "--strategy", "none",
		"--max-tokens", "32", "--tracking", "none", "--out", out, "--quiet"}
	stdout, stderr, err := llmCLI(t, data, run...)
	if err != nil {
		t.Fatalf("llm run: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "dsr, gemma-3-270m: binary") || !strings.Contains(stdout, "over 2 prompts (0 from the cache") {
		t.Errorf("llm run printed:\n%s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, "responses.jsonl"))
	if err != nil || bytes.Count(b, []byte("\n")) != 2 {
		t.Fatalf("responses.jsonl: %v\n%s", err, b)
	}
	stdout, stderr, err = llmCLI(t, data, run...)
	if err != nil || !strings.Contains(stderr, "2 already answered in the cache") || !strings.Contains(stdout, "(2 from the cache") || !strings.Contains(stdout, "0 HTTP requests") {
		t.Fatalf("rerun: %v\n%s\n%s", err, stdout, stderr)
	}
	// Without --endpoint, OPENAI_BASE_URL names the endpoint (here the
	// same server under its address: new cache keys, so two requests).
	viaEnv := []string{"llm", "run", "--suite", "dsr", "--structures", "stack", "--count", "2", "--strategy", "none",
		"--max-tokens", "32", "--tracking", "none", "--quiet", "--model", "gemma-3-270m"}
	stdout, stderr, err = llmCLIEnv(t, data, []string{"OPENAI_BASE_URL=" + endpoint}, viaEnv...)
	if err != nil || !strings.Contains(stderr, "llm run: endpoint "+endpoint+" (from $OPENAI_BASE_URL") || !strings.Contains(stdout, "over 2 prompts (0 from the cache") {
		t.Fatalf("run with OPENAI_BASE_URL: %v\n%s\n%s", err, stdout, stderr)
	}
	// SIGINT in the middle of a run stops it promptly with status 130,
	// keeps the answers it got in the cache and says how to resume; the
	// same command then starts from those answers.
	long := []string{"llm", "run", "--suite", "dsr", "--structures", "queue", "--count", "300", "--strategy", "none",
		"--max-tokens", "32", "--no-mlflow", "--out", t.TempDir(), "--concurrency", "1"}
	answered := interruptLLMRun(t, data, long, regexp.MustCompile(`llm run: ([0-9]+)/300 prompts`), 2)
	cached := interruptLLMRun(t, data, long, regexp.MustCompile(`300 prompts, ([0-9]+) already answered in the cache`), 0)
	if cached < answered {
		t.Errorf("after an interrupted run that had answered %d prompts, the rerun finds %d in the cache", answered, cached)
	}
	stdout, _, err = llmCLI(t, data, "llm", "stop")
	if err != nil || !strings.Contains(stdout, "stopped the local llama.cpp server") {
		t.Fatalf("llm stop: %v, %q", err, stdout)
	}
	stdout, _, _ = llmCLI(t, data, "llm", "stop")
	if !strings.Contains(stdout, "no local llama.cpp server was running") {
		t.Errorf("second llm stop: %q", stdout)
	}
	// Everything is cached: no server is needed, none is started.
	_, stderr, err = llmCLI(t, data, run...)
	if err != nil || strings.Contains(stderr, "llama.cpp server") {
		t.Fatalf("run after stop: %v\n%s", err, stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "llm", "server.json")); err == nil {
		t.Error("a run answered from the cache started a server")
	}
}

// interruptLLMRun starts `narlab args...`, waits until its standard error
// matches re with a first group of at least atLeast, sends SIGINT and
// checks that the command stops within 30 s with status 130 and, if it had
// begun asking, with a message saying how to resume. It returns the number
// the pattern matched.
func interruptLLMRun(t *testing.T, data string, args []string, re *regexp.Regexp, atLeast int) int {
	t.Helper()
	cmd := exec.Command(narlabCLI(t), args...)
	cmd.Env = append(os.Environ(), "NARLAB_DATA="+data, "MLFLOW_TRACKING_URI=")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()
	seen := -1
	for deadline := time.Now().Add(3 * time.Minute); seen < atLeast; {
		select {
		case err := <-exited:
			t.Fatalf("llm run exited (%v) before it was interrupted:\n%s", err, stderr.String())
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("llm run did not reach %q ≥ %d within 3 minutes:\n%s", re, atLeast, stderr.String())
		}
		for _, m := range re.FindAllStringSubmatch(stderr.String(), -1) {
			n, _ := strconv.Atoi(m[1])
			seen = max(seen, n)
		}
	}
	cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("an interrupted llm run exited with %v, want status 130:\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("llm run still running 30 s after SIGINT:\n%s", stderr.String())
	}
	if atLeast > 0 && !strings.Contains(stderr.String(), "run the same command again to resume") {
		t.Errorf("an interrupted llm run does not say how to resume:\n%s", stderr.String())
	}
	return seen
}

// lockedBuffer is a bytes.Buffer safe for a writer and a reader at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLLMServeBuildsOnFirstUse runs `narlab llm serve` where the server was
// never installed (an empty cache): it says so, shows the build's progress,
// then serves.
func TestLLMServeBuildsOnFirstUse(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the LLM server's environment and starts it (make test runs it)")
	}
	data, cache := t.TempDir(), t.TempDir()
	env := []string{"NARLAB_CACHE=" + cache, "NARLAB_LLM_PYTHON=", "NARLAB_LLM_MODEL="}
	t.Cleanup(func() { llmCLIEnv(t, data, env, "llm", "stop") })
	endpoint, stderr, err := llmCLIEnv(t, data, env, "llm", "serve")
	if err != nil {
		t.Fatalf("llm serve: %v\n%s", err, stderr)
	}
	for _, want := range []string{"is not installed yet: building it now with scripts/setup-llm.sh", "[setup-llm] building the local LLM server in " + cache,
		"The local LLM server is installed", "llama.cpp server started"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("llm serve does not say %q:\n%s", want, stderr)
		}
	}
	if !regexp.MustCompile(`\[setup-llm\] [a-z .:/0-9()%]+, [0-9]+m[0-9]{2}s`).MatchString(stderr) {
		t.Errorf("llm serve shows no progress:\n%s", stderr)
	}
	if !strings.HasPrefix(strings.TrimSpace(endpoint), "http://127.0.0.1:") {
		t.Errorf("llm serve printed %q", endpoint)
	}
	if _, err := os.Stat(filepath.Join(cache, llamacpp.RecordFile)); err != nil {
		t.Errorf("no record in the cache: %v", err)
	}
}
