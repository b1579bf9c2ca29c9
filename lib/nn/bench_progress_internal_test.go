package nn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProtocolProgress(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "quickselect-mpnn.json")

	// A fresh row: nothing to resume; saving writes the file whole.
	p, err := loadProtocolProgress(path, "quickselect/mpnn", "box A")
	if err != nil {
		t.Fatal(err)
	}
	if p.Batches != 0 || p.TestS != 0 || p.Processes != 1 {
		t.Fatalf("fresh progress = %+v, want nothing done in run 1", p)
	}
	if err := p.save(3, 12.5, 900); err != nil {
		t.Fatal(err)
	}
	if err := p.save(5, 20, 700); err != nil { // the peak so far is kept
		t.Fatal(err)
	}
	if files, _ := os.ReadDir(filepath.Join(dir, "sub")); len(files) != 1 || files[0].Name() != filepath.Base(path) {
		t.Errorf("files written: %v, want only %s", files, path)
	}

	tests := []struct {
		name, row, machine                string
		batches, processes, runs64, runs5 int
		testS, peak                       float64
	}{
		{"same row and machine resumes", "quickselect/mpnn", "box A", 5, 2, 2, 1, 20, 900},
		{"another machine starts over", "quickselect/mpnn", "box B", 0, 1, 1, 1, 0, 0},
		{"another row starts over", "quickselect/triplet_gmpnn", "box A", 0, 1, 1, 1, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := loadProtocolProgress(path, tc.row, tc.machine)
			if err != nil {
				t.Fatal(err)
			}
			if q.Batches != tc.batches || q.Processes != tc.processes || q.TestS != tc.testS || q.PeakRSSMB != tc.peak {
				t.Errorf("loaded %+v, want %d batches, run %d, %.1f s, peak %.0f MB",
					q, tc.batches, tc.processes, tc.testS, tc.peak)
			}
			// 64 batches: this run has some left, so it counts; 5: all were
			// done before, so it does not.
			if got := q.runs(64); got != tc.runs64 {
				t.Errorf("runs(64) = %d, want %d", got, tc.runs64)
			}
			if got := q.runs(5); got != tc.runs5 {
				t.Errorf("runs(5) = %d, want %d", got, tc.runs5)
			}
		})
	}

	// No file named: nothing read, nothing written.
	q, err := loadProtocolProgress("", "quickselect/mpnn", "box A")
	if err != nil || q.save(1, 1, 1) != nil {
		t.Fatalf("without a progress file: %v", err)
	}

	// A torn file is an error that names it.
	if err := os.WriteFile(path, []byte(`{"row": "quickselect/mp`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadProtocolProgress(path, "quickselect/mpnn", "box A"); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("torn progress file: err = %v, want one naming %s", err, path)
	}
}
