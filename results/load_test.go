package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyResults copies the committed files into a temporary folder, with
// the named file's content replaced.
func copyResults(t *testing.T, name, content string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range FileNames() {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if name != "" {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// sameInit is a same_init.jsonl row of three steps whose losses part at
// step 2 (and the control's at step 3), with the given agreement fields.
func sameInit(agree, control string) string {
	return `{"date": "2026-12-05", "machine": "m", "algo": "bfs", "processor": "mpnn", "seed": 42, "hidden": 32, ` +
		`"batch": 16, "steps": 3, ` + agree + `, ` + control + `, "max_rel_diff": 0, "backend": "xla-cpu", ` +
		`"ref_losses": [10, 10, 10], "narlab_losses": [10, 10.5, 11], "ulp_losses": [10, 10.5, 12], ` +
		`"ref_seconds": 1, "narlab_seconds": 1}`
}

// TestLoadRejects checks that a row that does not fit its file's schema,
// or a file without one, is an error naming the file, the line and what
// was wrong.
func TestLoadRejects(t *testing.T) {
	row := `{"date": "2026-12-05", "machine": "m", "topic": "setup", "what": "x", "value": 1, "unit": "s"}`
	for _, c := range []struct {
		name, file, content string
		want                []string
	}{
		{"unknown field", "figures.jsonl", strings.Replace(row, `"unit"`, `"units"`, 1), []string{"figures.jsonl:1", `unknown field "units"`}},
		{"free text where a number goes", "figures.jsonl", strings.Replace(row, `"value": 1`, `"value": "1 s"`, 1), []string{"figures.jsonl:1", "value"}},
		{"bad date", "figures.jsonl", row + "\n" + strings.Replace(row, "2026-12-05", "5 Dec", 1), []string{"figures.jsonl:2", `date "5 Dec"`}},
		{"no machine", "figures.jsonl", strings.Replace(row, `"machine": "m"`, `"machine": ""`, 1), []string{"no machine"}},
		{"side as a string", "protocol_rows.jsonl",
			`{"date": "2026-12-05", "machine": "m", "algo": "bfs", "processor": "mpnn", "reference": null, "narlab": "6.7 first_step_s"}`,
			[]string{"protocol_rows.jsonl:1", "narlab"}},
		{"both memories of a sparse row", "sparse.jsonl",
			`{"date": "2026-12-05", "machine": "m", "device": "cpu", "backend": "x", "algo": "bfs", "graphs": 4, "hidden": 64, "n": 16, "path": "sparse", "first_s": 1, "again_s": 1, "peak_mb": 1, "gpu_mb": 1}`,
			[]string{"sparse.jsonl:1", "exactly one of peak_mb"}},
		{"same-init steps miscounted", "same_init.jsonl", sameInit(`"agrees_to_step": 2`, `"ulp_agrees_to_step": 1`),
			[]string{"same_init.jsonl:1", "agrees_to_step 2, but the losses agree within 0.1 % to step 1"}},
		{"same-init parting without its control", "same_init.jsonl", sameInit(`"agrees_to_step": 1`, `"note": ""`),
			[]string{"same_init.jsonl:1", "without the one-ulp control"}},
		{"same-init control miscounted", "same_init.jsonl", sameInit(`"agrees_to_step": 1`, `"ulp_agrees_to_step": 3`),
			[]string{"same_init.jsonl:1", "ulp_agrees_to_step 3, but the control's losses agree within 0.1 % to step 2"}},
		{"a file without a schema", "extra.jsonl", "{}", []string{"extra.jsonl has no schema"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(copyResults(t, c.file, c.content))
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestLoadCommitted reads every committed file: each row fits its schema.
func TestLoadCommitted(t *testing.T) {
	s, err := Load(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Protocol) != 60 || len(s.Parity) == 0 || len(s.Sweep) != 30 {
		t.Errorf("%d protocol rows (want 60), %d parity rows, %d sweep rows (want 30)", len(s.Protocol), len(s.Parity), len(s.Sweep))
	}
}
