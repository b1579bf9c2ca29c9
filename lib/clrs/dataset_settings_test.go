package clrs

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestWriteDatasetSettings: files of settings of one's own hold what the
// sampler of that setting draws (NewSampler(algo, Length, Seed,
// NumSamples, kwargs).Dataset(), the port of dm-clrs's build_sampler),
// under ALGO_NAME.npz, listed in the manifest with their setting.
func TestWriteDatasetSettings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	kw := []Param{{Name: "p", Value: []float64{0.3}}}
	opts := DatasetOptions{Algorithms: []string{"bfs", "dfs"}, Workers: 2, Kwargs: kw,
		Settings: []Split{{Length: 7, Seed: 3, NumSamples: 5}, {Name: "long", Length: 20, Seed: 4, NumSamples: 2}}}
	m, err := WriteDataset(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 4 {
		t.Fatalf("manifest lists %d files, want 4: %+v", len(m.Files), m.Files)
	}
	back, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range back.Files {
		want := map[string]Split{"n7_s3": {Length: 7, Seed: 3, NumSamples: 5}, "long": {Length: 20, Seed: 4, NumSamples: 2}}[f.Split]
		if want.Length == 0 || f.File != f.Algorithm+"_"+f.Split+".npz" || f.Length != want.Length || f.Seed != want.Seed || f.NumSamples != want.NumSamples {
			t.Errorf("manifest entry %+v does not describe its setting %+v", f, want)
		}
		if !reflect.DeepEqual(f.Kwargs, map[string]any{"p": []any{0.3}}) {
			t.Errorf("%s: manifest kwargs %v, want p [0.3]", f.File, f.Kwargs)
		}
		s, err := NewSampler(f.Algorithm, Length(f.Length), Seed(f.Seed), NumSamples(f.NumSamples), P(0.3))
		if err != nil {
			t.Fatal(err)
		}
		want2, err := s.Dataset()
		if err != nil {
			t.Fatal(err)
		}
		got, err := LoadNPZ(filepath.Join(dir, f.File), f.Algorithm)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, withoutArgs(want2)) {
			t.Errorf("%s differs from the sampler's dataset at its setting", f.File)
		}
		if f.MaxSteps != want2.MaxSteps() {
			t.Errorf("%s: manifest max_steps %d, want %d", f.File, f.MaxSteps, want2.MaxSteps())
		}
	}
	// The kwargs change the data: p 0.3 is not the default graph density.
	def, _ := NewSampler("bfs", Length(7), Seed(3), NumSamples(5))
	dfb, _ := def.Dataset()
	got, _ := LoadNPZ(filepath.Join(dir, "bfs_n7_s3.npz"), "bfs")
	if reflect.DeepEqual(got, withoutArgs(dfb)) {
		t.Error("the file drawn with p=0.3 equals the default sampler's")
	}
}

func TestWriteDatasetSettingsErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts DatasetOptions
		want string
	}{
		{"splits and settings", DatasetOptions{Splits: []string{"val"}, Settings: []Split{{Length: 4, NumSamples: 1}}}, "one or the other"},
		{"kwargs on splits", DatasetOptions{Splits: []string{"val"}, Kwargs: []Param{{"p", []float64{0.5}}}}, "settings of one's own"},
		{"bad name", DatasetOptions{Settings: []Split{{Name: "a/b", Length: 4, NumSamples: 1}}}, `setting name "a/b"`},
		{"official name", DatasetOptions{Settings: []Split{{Name: "train", Length: 4, NumSamples: 1}}}, "official split"},
		{"same name twice", DatasetOptions{Settings: []Split{{Length: 4, Seed: 1, NumSamples: 1}, {Length: 4, Seed: 1, NumSamples: 2}}}, `two settings named "n4_s1"`},
		{"no samples", DatasetOptions{Settings: []Split{{Length: 4, NumSamples: 0}}}, "want at least 1 sample"},
		{"seed too large", DatasetOptions{Settings: []Split{{Length: 4, Seed: 1 << 33, NumSamples: 1}}}, "seed in [0, 2**32-1]"},
		{"unknown kwarg", DatasetOptions{Algorithms: []string{"bfs"}, Settings: []Split{{Length: 4, NumSamples: 1}}, Kwargs: []Param{{"nosuch", 1.0}}}, "nosuch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			_, err := WriteDataset(context.Background(), dir, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
			if _, serr := os.Stat(dir); serr == nil {
				t.Errorf("a failed run left %s", dir)
			}
		})
	}
}

// TestReadArraysNPZ: every array of any archive comes back by name, as
// ReadNPZ reads them; damage is reported as ReadNPZ reports it.
func TestReadArraysNPZ(t *testing.T) {
	s, err := NewSampler("insertion_sort", Length(6), Seed(2), NumSamples(3))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := s.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "x.npz")
	if err := SaveNPZ(path, fb, Compressed()); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadArraysNPZ(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(fb.Inputs)+len(fb.Hints)+len(fb.Outputs)+1 {
		t.Fatalf("%d arrays, want %d", len(got), len(fb.Inputs)+len(fb.Hints)+len(fb.Outputs)+1)
	}
	for _, list := range [][]DataPoint{fb.Inputs, fb.Hints, fb.Outputs} {
		for _, d := range list {
			a, ok := got[d.Stage.String()+"/"+d.Name]
			if !ok || !reflect.DeepEqual(a, d.Array) {
				t.Errorf("%s/%s: got %+v, want %+v", d.Stage, d.Name, a.Shape, d.Shape)
			}
		}
	}
	if l := got["lengths"]; len(l.Data) != 3 || l.Data[0] != float64(fb.Lengths[0]) {
		t.Errorf("lengths = %v, want %v", l.Data, fb.Lengths)
	}
	if _, err := ReadArraysNPZ(bytes.NewReader(raw[:len(raw)/2]), int64(len(raw)/2)); err == nil || !strings.Contains(err.Error(), "torn") {
		t.Errorf("half a file: %v, want an error about a torn file", err)
	}
}
