package clrs

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
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
				if n := arrayBytes(t, want.Bytes()); f.Bytes() != n {
					t.Errorf("Bytes() = %d, the archive's arrays hold %d", f.Bytes(), n)
				}
			}
		})
	}
}

// TestSplitFileEveryAlgorithm checks every CLRS-30 algorithm's val split
// the same way, stored. The algorithms run one after the other, so each
// records its hints into buffers the ones before it recycled, holding
// their values: a hint push that relied on zeros would show here.
func TestSplitFileEveryAlgorithm(t *testing.T) {
	for _, algo := range CLRS30() {
		s, err := NewSplitSampler(algo, "val")
		if err != nil {
			t.Fatal(err)
		}
		var want, got bytes.Buffer
		if err := WriteTrajectoriesNPZ(&want, s.Trajectories()); err != nil {
			t.Fatal(err)
		}
		f, err := SampleSplitFile(algo, "val")
		if err != nil {
			t.Fatal(err)
		}
		if err := f.WriteNPZ(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: the SplitFile's archive differs from WriteTrajectoriesNPZ's (%d and %d bytes)", algo, got.Len(), want.Len())
		}
	}
}

// arrayBytes is the size of an archive's arrays, past each .npy header,
// as archive/zip reads them.
func arrayBytes(t *testing.T, archive []byte) int64 {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		n += int64(len(data) - 10 - int(binary.LittleEndian.Uint16(data[8:10])))
	}
	return n
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
