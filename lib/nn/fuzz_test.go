package nn

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzCheckpointConfig feeds checkpoint configurations (nn_config.json) to
// Load: any file is a model or an error, never a panic.
func FuzzCheckpointConfig(f *testing.F) {
	for _, s := range []string{
		`{"algorithm": "insertion_sort", "processor": "mpnn", "hidden": 8, "hint_mode": "encoded_decoded", "teacher_forcing": 0.5, "learning_rate": 0.001, "seed": 1}`,
		`{"algorithm": "bfs", "processor": "nosuch", "hidden": 8, "hint_mode": "none", "learning_rate": 0.001}`,
		`{"algorithm": "bfs", "processor": "mpnn", "hidden": -1, "hint_mode": "none", "learning_rate": 0.001}`,
		`{"algorithm": "nosuch", "processor": "mpnn", "hidden": 8, "hint_mode": "none", "learning_rate": 0.001}`,
		`{"algorithm": "bfs", "processor": "mpnn", "hidden": 8, "hint_mode": "none", "learning_rate": 0}`,
		`{"hidden": 1e400}`,
		`{`,
		`null`,
	} {
		f.Add([]byte(s))
	}
	be, err := Backend("go")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, configFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(be, dir)
		if err == nil && m == nil {
			t.Fatal("Load returned neither a model nor an error")
		}
	})
}
