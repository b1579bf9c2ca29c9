package jaxrand

import (
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// refDraw is one random draw the reference model made in a training step,
// as lib/nn/testdata/refoptions records it (scripts/ref_options.py).
type refDraw struct {
	Use   string
	Key   Key
	Shape []int
	Rate  float64
	Kept  int
	P     float64
	Mask  []int
}

// refStep is a training step's key and draws, in a model case (steps) or a
// run.py case (calls).
type refStep struct {
	Key Key
	RNG []refDraw
}

// TestReferenceModelDraws replays, for every training step of the
// reference-model fixtures (dm-clrs 2.0.3 under JAX 0.4.38), haiku's key
// stream from the key the step was given and requires the keys the model
// drew, in order, and what it drew with them: how many elements each
// dropout mask kept and each teacher-forcing mask.
func TestReferenceModelDraws(t *testing.T) {
	files, err := filepath.Glob("../nn/testdata/refoptions/*.json.gz")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in ../nn/testdata/refoptions (%v)", err)
	}
	counts := map[string]int{}
	for _, f := range files {
		var fx struct {
			Steps, Calls []refStep
		}
		readGzipJSON(t, f, &fx)
		for i, st := range append(fx.Steps, fx.Calls...) {
			s := NewSequence(st.Key)
			for j, d := range st.RNG {
				k := s.Next()
				if k != d.Key {
					t.Fatalf("%s: step %d, draw %d (%s): key %v, the reference's %v", filepath.Base(f), i+1, j+1,
						d.Use, k, d.Key)
				}
				counts[d.Use]++
				switch d.Use {
				case "dropout":
					kept := 0
					for _, keep := range Bernoulli(k, float32(1-d.Rate), d.Shape...) {
						if keep {
							kept++
						}
					}
					if d.Rate == 0 {
						kept = size(d.Shape) // no mask: haiku returns its input
					}
					if kept != d.Kept {
						t.Errorf("%s: step %d, draw %d: dropout keeps %d, the reference %d", filepath.Base(f), i+1,
							j+1, kept, d.Kept)
					}
				case "teacher_forcing":
					got := Bernoulli(k, float32(d.P), len(d.Mask))
					want := make([]bool, len(d.Mask))
					for m, v := range d.Mask {
						want[m] = v != 0
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s: step %d, draw %d: teacher-forcing mask %v, the reference's %v",
							filepath.Base(f), i+1, j+1, got, d.Mask)
					}
				case "gumbel":
				default:
					t.Fatalf("%s: unknown draw %q", filepath.Base(f), d.Use)
				}
			}
		}
	}
	// The fixtures must hold dropout draws with real masks and
	// teacher-forcing draws, or this test checks less than it says. (Gumbel
	// keys are checked where a fixture has them: gumbel-mpnn-insertion_sort
	// is in scripts/ref_options.py's list but not generated yet.)
	for _, use := range []string{"dropout", "teacher_forcing"} {
		if counts[use] == 0 {
			t.Errorf("no %s draws in the fixtures", use)
		}
	}
	t.Logf("draws checked: %v", counts)
}

func readGzipJSON(t *testing.T, path string, v any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := json.NewDecoder(zr).Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
