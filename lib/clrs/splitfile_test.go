package clrs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestSplitFileMatchesTrajectoriesNPZ checks that a SplitFile writes the
// bytes WriteTrajectoriesNPZ writes for the same split (itself checked
// against numpy and the reference's arrays in npz_test.go and
// fixtures_test.go), stored and deflated.
func TestSplitFileMatchesTrajectoriesNPZ(t *testing.T) {
	cases := []struct {
		algo, split string
	}{
		{"bfs", "train"},                         // node hints, 1,000 samples
		{"floyd_warshall", "val"},                // edge hints
		{"insertion_sort", "val"},                // one length for every sample
		{"strongly_connected_components", "val"}, // long trajectories, categorical hints
		{"quickselect", "val"},                   // lengths that vary a lot
		{"naive_string_matcher", "val"},          // the most padding
		{"segments_intersect", "val"},            // graph-level hints only
		{"matrix_chain_order", "val"},            // edge hints of a dynamic programme
	}
	for _, tc := range cases {
		t.Run(tc.algo+"/"+tc.split, func(t *testing.T) {
			s, err := NewSplitSampler(tc.algo, tc.split)
			if err != nil {
				t.Fatal(err)
			}
			for _, compressed := range []bool{false, true} {
				var opts []NPZOption
				if compressed {
					opts = append(opts, Compressed())
				}
				var want bytes.Buffer
				if err := WriteTrajectoriesNPZ(&want, s.Trajectories(), opts...); err != nil {
					t.Fatal(err)
				}
				f, err := SampleSplitFile(tc.algo, tc.split)
				if err != nil {
					t.Fatal(err)
				}
				if f.Len() != len(s.Trajectories()) || f.MaxSteps() != maxLength(s.Trajectories()) {
					t.Errorf("%d samples of at most %d steps, want %d of %d", f.Len(), f.MaxSteps(), len(s.Trajectories()), maxLength(s.Trajectories()))
				}
				var got bytes.Buffer
				if err := f.WriteNPZ(&got, opts...); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), want.Bytes()) {
					t.Errorf("compressed=%v: %d bytes, unlike WriteTrajectoriesNPZ's %d", compressed, got.Len(), want.Len())
				}
			}
		})
	}
}

func maxLength(trajs []*Trajectory) int {
	T := 0
	for _, t := range trajs {
		T = max(T, t.Length)
	}
	return T
}

// TestSplitFileWrittenOnce checks that SaveNPZ writes the archive
// atomically and that a second write is refused rather than writing
// recycled memory.
func TestSplitFileWrittenOnce(t *testing.T) {
	f, err := SampleSplitFile("bfs", "val")
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSplitSampler("bfs", "val")
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := WriteTrajectoriesNPZ(&want, s.Trajectories(), Compressed()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bfs_val.npz")
	if err := f.SaveNPZ(path, Compressed()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("SaveNPZ wrote %d bytes unlike WriteTrajectoriesNPZ's %d", len(got), want.Len())
	}
	if err := f.SaveNPZ(path); !errors.Is(err, ErrSplitFileWritten) {
		t.Errorf("second SaveNPZ: %v, want ErrSplitFileWritten", err)
	}
	if err := f.WriteNPZ(&bytes.Buffer{}); !errors.Is(err, ErrSplitFileWritten) {
		t.Errorf("second WriteNPZ: %v, want ErrSplitFileWritten", err)
	}
}
