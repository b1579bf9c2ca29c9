package llamacpp

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func TestFindInstall(t *testing.T) {
	dir := t.TempDir()
	py := filepath.Join(dir, "python")
	model := filepath.Join(dir, "m.gguf")
	for _, f := range []string{py, model} {
		if err := os.WriteFile(f, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	record := "# comment\nNARLAB_LLM_PYTHON=" + py + "\nNARLAB_LLM_MODEL=" + model + "\n"
	for _, tc := range []struct {
		name          string
		record        string // "" : no record file
		envPy, envMod string
		want          Install
		err           string
	}{
		{"no record", "", "", "", Install{}, "scripts/setup-llm.sh"},
		{"record", record, "", "", Install{Python: py, Model: model}, ""},
		{"environment wins", record, py, filepath.Join(dir, "other.gguf"), Install{}, "other.gguf"},
		{"environment only", "", py, model, Install{Python: py, Model: model}, ""},
		{"bad record line", "NARLAB_LLM_PYTHON\n", "", "", Install{}, "not KEY=value"},
		{"record without model", "NARLAB_LLM_PYTHON=" + py + "\n", "", "", Install{}, "must both be known"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			t.Setenv(EnvCache, cache)
			t.Setenv(EnvPython, tc.envPy)
			t.Setenv(EnvModel, tc.envMod)
			if tc.record != "" {
				if err := os.WriteFile(filepath.Join(cache, RecordFile), []byte(tc.record), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := FindInstall()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent writes and reads.
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

// TestEnsureInstallBuildsOnFirstUse runs the real installer into an empty
// cache, twice at once: one call builds and reports its progress, the other
// waits for it; a third call finds the installation at once and says
// nothing; the server then starts from it. (pip keeps the downloaded
// wheels in its own cache, so after the first installation on a machine
// this downloads nothing.)
func TestEnsureInstallBuildsOnFirstUse(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the LLM server's environment (make test runs it)")
	}
	t.Setenv(EnvCache, t.TempDir())
	t.Setenv(EnvPython, "")
	t.Setenv(EnvModel, "")
	if _, err := FindInstall(); !errors.Is(err, ErrNotInstalled) {
		t.Fatalf("FindInstall in an empty cache: %v, want ErrNotInstalled", err)
	}
	ctx := context.Background()
	var (
		logs [2]lockedBuffer
		ins  [2]Install
		errs [2]error
		wg   sync.WaitGroup
	)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ins[i], errs[i] = EnsureInstall(ctx, &logs[i])
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("EnsureInstall %d: %v\n%s", i, errs[i], logs[i].String())
		}
	}
	if ins[0] != ins[1] {
		t.Fatalf("two installations: %+v and %+v", ins[0], ins[1])
	}
	for _, f := range []string{ins[0].Python, ins[0].Model} {
		if _, err := os.Stat(f); err != nil {
			t.Fatal(err)
		}
	}
	all := logs[0].String() + logs[1].String()
	for _, want := range []string{
		"is not installed yet: building it now with scripts/setup-llm.sh", // the notice, from each caller
		"[setup-llm] building the local LLM server in",                    // the builder
		"another process is building",                                     // the one that waited
		"[setup-llm] record:",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("the output does not say %q:\n%s", want, all)
		}
	}
	if !regexp.MustCompile(`\[setup-llm\] (downloading the packages|installing the packages), [0-9]+m[0-9]{2}s`).MatchString(all) {
		t.Errorf("no progress line in the output:\n%s", all)
	}
	var quiet bytes.Buffer
	in, err := EnsureInstall(ctx, &quiet)
	if err != nil || in != ins[0] || quiet.Len() != 0 {
		t.Fatalf("EnsureInstall once installed: %+v, %v, output %q: want the same installation, silently", in, err, quiet.String())
	}
	srv, err := StartServer(ctx, Config{Dir: t.TempDir(), Port: 0, NoInstall: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	if !Healthy(ctx, srv.URL) {
		t.Error("the server built on first use does not answer")
	}
}

// TestInstallPhase reads excerpts of a real installation's log (pip -v
// installing xllamacpp and the model) with the installer's own parser.
func TestInstallPhase(t *testing.T) {
	for _, tc := range []struct{ log, want string }{
		{"install-downloading.log", "downloading the packages"},
		{"install-installing.log", "installing the packages"},
	} {
		out, err := exec.Command("bash", filepath.Join("..", "..", "..", SetupScript), "--phase", filepath.Join("testdata", tc.log)).Output()
		if err != nil {
			t.Fatalf("%s: %v", tc.log, err)
		}
		if got := strings.TrimSpace(string(out)); got != tc.want {
			t.Errorf("%s: phase %q, want %q", tc.log, got, tc.want)
		}
	}
}
