package clrs

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// withoutArgs returns a copy of f without its Args, which archives do
// not hold.
func withoutArgs(f *Feedback) *Feedback {
	g := *f
	g.Args = nil
	return &g
}

func trajectoriesWithoutArgs(ts []*Trajectory) []*Trajectory {
	out := make([]*Trajectory, len(ts))
	for i, t := range ts {
		u := *t
		u.Args = nil
		out[i] = &u
	}
	return out
}

// writeSplit writes one official split as `narlab clrs generate` does
// (SampleSplitFile, SaveNPZ) into dir and returns the file's path.
func writeSplit(t testing.TB, dir, algo, split string, opts ...NPZOption) string {
	t.Helper()
	sf, err := SampleSplitFile(algo, split)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, algo+"_"+split+".npz")
	if err := sf.SaveNPZ(path, opts...); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadNPZRoundTrip writes official splits as `narlab clrs generate`
// writes them and reads them back: the Feedback equals the split
// sampler's Dataset() and its trajectories the sampler's, for the val
// split of all 30 algorithms (deflated, the default) and a few train and
// test splits (stored and deflated).
func TestReadNPZRoundTrip(t *testing.T) {
	type tc struct {
		algo, split string
		opts        []NPZOption
	}
	var cases []tc
	for _, a := range CLRS30() {
		cases = append(cases, tc{a, "val", []NPZOption{Compressed()}})
	}
	cases = append(cases,
		tc{"bfs", "train", nil}, tc{"insertion_sort", "train", []NPZOption{Compressed()}},
		tc{"floyd_warshall", "test", []NPZOption{Compressed()}}, tc{"lcs_length", "test", nil})
	if testing.Short() {
		cases = cases[:3]
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.algo+"/"+c.split, func(t *testing.T) {
			path := writeSplit(t, dir, c.algo, c.split, c.opts...)
			defer os.Remove(path)
			got, err := LoadSplit(dir, c.algo, c.split)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewSplitSampler(c.algo, c.split)
			if err != nil {
				t.Fatal(err)
			}
			want, err := s.Dataset()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, withoutArgs(want)) {
				t.Fatalf("read back %s differs from the sampler's Dataset()", path)
			}
			trajs, err := got.Trajectories()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(trajs, trajectoriesWithoutArgs(s.Trajectories())) {
				t.Fatal("trajectories read back differ from the sampler's")
			}
		})
	}
}

// TestFeedbackSelect checks Select against Batch of the same
// trajectories padded to the whole set's steps, which is how a sampler's
// Next(b) makes a batch from its pre-generated set.
func TestFeedbackSelect(t *testing.T) {
	s, err := NewSampler("dfs", Length(6), Seed(4), NumSamples(5))
	if err != nil {
		t.Fatal(err)
	}
	all, err := s.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{3, 0, 3, 4}
	got, err := all.Select(idx...)
	if err != nil {
		t.Fatal(err)
	}
	var picked []*Trajectory
	for _, i := range idx {
		picked = append(picked, s.Trajectories()[i])
	}
	want, err := Batch(picked, all.MaxSteps())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Select(%v) differs from Batch of those trajectories", idx)
	}
	if _, err := all.Select(5); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("Select(5) of 5 samples: %v, want an out-of-range error", err)
	}
}

// npyBytes builds a .npy array by hand.
func npyBytes(header string, data []byte) []byte {
	header += strings.Repeat(" ", (64-(10+len(header)+1)%64)%64) + "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

func f64s(vs ...float64) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, vs)
	return b.Bytes()
}

// rewriteArchive copies a valid archive, letting edit replace (return
// new bytes), drop (return nil) or keep each member; extra members are
// appended.
func rewriteArchive(t *testing.T, src []byte, edit func(name string, data []byte) []byte, extra map[string][]byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(src), int64(len(src)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		var data bytes.Buffer
		data.ReadFrom(rc)
		rc.Close()
		nd := edit(f.Name, data.Bytes())
		if nd == nil {
			continue
		}
		w, _ := zw.Create(f.Name)
		w.Write(nd)
	}
	for name, data := range extra {
		w, _ := zw.Create(name)
		w.Write(data)
	}
	zw.Close()
	return out.Bytes()
}

// TestReadNPZErrors: torn, corrupt and foreign archives are refused with
// an error that says what is wrong.
func TestReadNPZErrors(t *testing.T) {
	s, err := NewSampler("bfs", Length(5), Seed(1), NumSamples(3))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := s.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	var stored, deflated bytes.Buffer
	if err := WriteNPZ(&stored, fb); err != nil {
		t.Fatal(err)
	}
	if err := WriteNPZ(&deflated, fb, Compressed()); err != nil {
		t.Fatal(err)
	}
	for name, raw := range map[string][]byte{"stored": stored.Bytes(), "deflated": deflated.Bytes()} {
		if got, err := ReadNPZ(bytes.NewReader(raw), int64(len(raw)), "bfs"); err != nil || !reflect.DeepEqual(got, withoutArgs(fb)) {
			t.Fatalf("%s: the intact archive does not read back: %v", name, err)
		}
		// A file cut short anywhere (a torn write) is refused.
		for _, frac := range []float64{0, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99} {
			n := int(frac * float64(len(raw)))
			if _, err := ReadNPZ(bytes.NewReader(raw[:n]), int64(n), "bfs"); err == nil || !strings.Contains(err.Error(), "torn") {
				t.Errorf("%s cut to %d of %d bytes: %v, want an error about a torn file", name, n, len(raw), err)
			}
		}
	}

	var hintName string
	for _, d := range fb.Hints {
		hintName = "hint/" + d.Name + ".npy"
	}
	// Bytes of the last hint's data flipped: zip's checksum catches it.
	raw := stored.Bytes()
	zr, _ := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	var off int64
	for _, f := range zr.File {
		if f.Name == hintName {
			off, _ = f.DataOffset()
		}
	}
	flipped := bytes.Clone(raw)
	flipped[off+200] ^= 0xff
	if _, err := ReadNPZ(bytes.NewReader(flipped), int64(len(flipped)), "bfs"); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("flipped byte: %v, want a checksum error", err)
	}

	header := func(descr, shape string) string {
		return fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape)
	}
	for _, c := range []struct {
		name  string
		edit  func(name string, data []byte) []byte
		extra map[string][]byte
		want  string
	}{
		{"missing hint", func(n string, d []byte) []byte {
			if n == "hint/pi_h.npy" {
				return nil
			}
			return d
		}, nil, `no array "hint/pi_h"`},
		{"extra array", func(_ string, d []byte) []byte { return d },
			map[string][]byte{"hint/extra.npy": npyBytes(header("<f8", "1,"), f64s(0))}, "not probes of bfs: hint/extra"},
		{"not npy", func(_ string, d []byte) []byte { return d },
			map[string][]byte{"notes.txt": []byte("hi")}, `"notes.txt" is not a .npy array`},
		{"int32", func(n string, d []byte) []byte {
			if n == "lengths.npy" {
				return npyBytes(header("<i4", "3,"), make([]byte, 12))
			}
			return d
		}, nil, `dtype "<i4" is not one narlab writes`},
		{"fortran", func(n string, d []byte) []byte {
			if n == "lengths.npy" {
				return npyBytes("{'descr': '<f8', 'fortran_order': True, 'shape': (3,), }", f64s(1, 1, 1))
			}
			return d
		}, nil, "Fortran order"},
		{"short data", func(n string, d []byte) []byte {
			if n == "lengths.npy" {
				return npyBytes(header("<f8", "3,"), f64s(1, 1))
			}
			return d
		}, nil, "needs 24 bytes of data but holds 16"},
		{"long data", func(n string, d []byte) []byte {
			if n == "lengths.npy" {
				return npyBytes(header("<f8", "3,"), f64s(1, 1, 1, 1))
			}
			return d
		}, nil, "runs past the size"},
		{"fractional length", func(n string, d []byte) []byte {
			if n == "lengths.npy" {
				return npyBytes(header("<f8", "3,"), f64s(1, 1.5, 1))
			}
			return d
		}, nil, "lengths[1] is 1.5"},
		{"batch mismatch", func(n string, d []byte) []byte {
			if n == "lengths.npy" {
				return npyBytes(header("<f8", "2,"), f64s(1, 1))
			}
			return d
		}, nil, "B = 2"},
		{"bad magic", func(n string, d []byte) []byte {
			if n == "lengths.npy" {
				return []byte("PK not an array at all")
			}
			return d
		}, nil, "bad magic"},
		{"bad header", func(n string, d []byte) []byte {
			if n == "lengths.npy" {
				return npyBytes("{'descr': '<f8', 'shape': (3,), }", f64s(1, 1, 1))
			}
			return d
		}, nil, "want the keys descr, fortran_order and shape"},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw := rewriteArchive(t, stored.Bytes(), c.edit, c.extra)
			_, err := ReadNPZ(bytes.NewReader(raw), int64(len(raw)), "bfs")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}

	// A zip directory that announces more than the file can hold.
	var lying bytes.Buffer
	zw := zip.NewWriter(&lying)
	body := npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", f64s(1, 1, 1))
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "lengths.npy", Method: zip.Deflate,
		CompressedSize64: uint64(len(body)), UncompressedSize64: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(body)
	zw.Close()
	if _, err := ReadNPZ(bytes.NewReader(lying.Bytes()), int64(lying.Len()), "bfs"); err == nil || !strings.Contains(err.Error(), "the file cannot hold") {
		t.Errorf("lying zip directory: %v", err)
	}

	// The archive of another algorithm, or of a transformed feedback.
	if _, err := ReadNPZ(bytes.NewReader(stored.Bytes()), int64(stored.Len()), "dfs"); err == nil || !strings.Contains(err.Error(), "dfs: archive has no array") {
		t.Errorf("bfs archive read as dfs: %v", err)
	}
	if _, err := ReadNPZ(bytes.NewReader(stored.Bytes()), int64(stored.Len()), "no_such_algo"); err == nil || !strings.Contains(err.Error(), "unknown algorithm") {
		t.Errorf("unknown algorithm: %v", err)
	}
	ss, _ := NewSampler("binary_search", Length(5), Seed(1), NumSamples(2))
	sfb, _ := ss.Dataset()
	pfb, err := PredAsInput(sfb)
	if err != nil {
		t.Fatal(err)
	}
	var pbuf bytes.Buffer
	if err := WriteNPZ(&pbuf, pfb); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadNPZ(bytes.NewReader(pbuf.Bytes()), int64(pbuf.Len()), "binary_search"); err == nil || !strings.Contains(err.Error(), "no array") {
		t.Errorf("transformed feedback: %v, want an error", err)
	}
}

// TestLoadSplitManifest: LoadSplit checks the file against the
// directory's manifest and the official split.
func TestLoadSplitManifest(t *testing.T) {
	dir := t.TempDir()
	writeSplit(t, dir, "bfs", "val", Compressed())
	fb, err := LoadSplit(dir, "bfs", "val")
	if err != nil {
		t.Fatal(err)
	}
	manifest := func(entries string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"generator": "narlab clrs generate", "files": [`+entries+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entry := func(file, algo string, n, steps int) string {
		return fmt.Sprintf(`{"file": %q, "algorithm": %q, "split": "val", "num_samples": %d, "length": 16, "seed": 2, "max_steps": %d}`, file, algo, n, steps)
	}
	manifest(entry("bfs_val.npz", "bfs", 32, fb.MaxSteps()))
	if _, err := LoadSplit(dir, "bfs", "val"); err != nil {
		t.Fatalf("with a matching manifest: %v", err)
	}
	for _, c := range []struct{ manifest, want string }{
		{entry("dfs_val.npz", "dfs", 32, 1), "not listed"},
		{entry("bfs_val.npz", "bfs", 32, fb.MaxSteps()+1), "manifest entry says"},
		{entry("bfs_val.npz", "dfs", 32, fb.MaxSteps()), "lists it as dfs/val"},
	} {
		manifest(c.manifest)
		if _, err := LoadSplit(dir, "bfs", "val"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("manifest %s: %v, want an error containing %q", c.manifest, err, c.want)
		}
	}
	os.Remove(filepath.Join(dir, "manifest.json"))
	// A file that is not the official split: the bfs val file renamed.
	if err := os.Rename(filepath.Join(dir, "bfs_val.npz"), filepath.Join(dir, "bfs_train.npz")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSplit(dir, "bfs", "train"); err == nil || !strings.Contains(err.Error(), "holds 32 samples; the official train split of bfs has 1000") {
		t.Errorf("renamed file: %v", err)
	}
	if _, err := LoadSplit(dir, "bfs", "val"); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			return err
		}
		err = u.Unwrap()
	}
}

func TestParseSplitFileName(t *testing.T) {
	for name, want := range map[string][2]string{
		"bfs_train.npz":                         {"bfs", "train"},
		"find_maximum_subarray_kadane_test.npz": {"find_maximum_subarray_kadane", "test"},
		"strongly_connected_components_val.npz": {"strongly_connected_components", "val"},
	} {
		a, s, err := ParseSplitFileName(name)
		if err != nil || a != want[0] || s != want[1] {
			t.Errorf("%s: %q %q %v, want %v", name, a, s, err, want)
		}
	}
	for _, name := range []string{"bfs.npz", "bfs_dev.npz", "nope_train.npz", "bfs_train.npy", "_train.npz"} {
		if _, _, err := ParseSplitFileName(name); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestReadNPY: a stream that ends before the size it was announced with
// is refused when its data runs out; a scalar float32 array reads.
func TestReadNPY(t *testing.T) {
	raw := npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }", f64s(1, 2, 3))
	if _, err := readNPY(bytes.NewReader(raw), int64(len(raw))+8); err == nil || !strings.Contains(err.Error(), "data ends after 3 of its 4 values") {
		t.Errorf("got %v", err)
	}
	huge := npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000,), }", nil)
	if _, err := readNPY(bytes.NewReader(huge), int64(len(huge))); err == nil || !strings.Contains(err.Error(), "needs 800000000000 bytes of data but holds 0") {
		t.Errorf("huge shape: %v", err)
	}
	raw = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", []byte{0, 0, 0x80, 0x3f})
	a, err := readNPY(bytes.NewReader(raw), int64(len(raw)))
	if err != nil || len(a.Shape) != 0 || a.DType != Float32 || len(a.Data) != 1 || a.Data[0] != 1 {
		t.Errorf("float32 scalar: %+v %v", a, err)
	}
}
