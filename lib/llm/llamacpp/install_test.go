package llamacpp

import (
	"os"
	"path/filepath"
	"strings"
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
				if err := os.WriteFile(filepath.Join(cache, "llm.env"), []byte(tc.record), 0o644); err != nil {
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
