package clrs

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// sharedDir finds ../shared (the reference material beside the checkout),
// or $NARLAB_SHARED.
func sharedDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("NARLAB_SHARED"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; filepath.Dir(d) != d; d = filepath.Dir(d) {
		cand := filepath.Join(filepath.Dir(d), "shared")
		if st, err := os.Stat(filepath.Join(cand, "fixtures")); err == nil && st.IsDir() {
			return cand
		}
	}
	t.Fatalf("cannot find the shared reference material (../shared/fixtures beside the checkout); set NARLAB_SHARED")
	return ""
}

var fixtureName = regexp.MustCompile(`^(.+)_n(\d+)_s(\d+)\.json(\.gz)?$`)

// readFixture reads a (possibly gzipped) reference-JSON file.
func readFixture(t testing.TB, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(path) == ".gz" {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		raw, err = io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
	}
	return raw
}

// compareWithReference checks our sampled feedback against a reference
// document probe by probe (for a readable failure), then byte for byte.
func compareWithReference(t *testing.T, want []byte, got *Feedback, h ReferenceHeader) {
	t.Helper()
	doc, err := ReadReferenceJSON(bytes.NewReader(want))
	if err != nil {
		t.Fatalf("parsing reference: %v", err)
	}
	if !slices.Equal(doc.Spec, got.Spec) {
		t.Fatalf("spec:\n got %v\nwant %v", got.Spec, doc.Spec)
	}
	var gotArgs bytes.Buffer
	for i, a := range got.Args {
		if i >= len(doc.SampledArgs) {
			break
		}
		gotArgs.Reset()
		writeArgs(&gotArgs, a)
		if !bytes.Equal(gotArgs.Bytes(), doc.SampledArgs[i]) {
			t.Fatalf("sampled_args[%d]:\n got %.400s\nwant %.400s", i, gotArgs.String(), doc.SampledArgs[i])
		}
	}
	gotLengths := make([]float64, len(got.Lengths))
	for i, l := range got.Lengths {
		gotLengths[i] = float64(l)
	}
	if !slices.Equal(gotLengths, doc.Lengths) {
		t.Fatalf("lengths: got %v, want %v", gotLengths, doc.Lengths)
	}
	for _, sec := range []struct {
		name      string
		got, want []DataPoint
	}{{"inputs", got.Inputs, doc.Inputs}, {"hints", got.Hints, doc.Hints}, {"outputs", got.Outputs, doc.Outputs}} {
		if len(sec.got) != len(sec.want) {
			t.Fatalf("%s: got %d probes, want %d", sec.name, len(sec.got), len(sec.want))
		}
		for i, w := range sec.want {
			g := sec.got[i]
			if g.Probe != w.Probe {
				t.Fatalf("%s[%d]: got probe %v, want %v", sec.name, i, g.Probe, w.Probe)
			}
			if !slices.Equal(g.Shape, w.Shape) {
				t.Fatalf("%s: shape got %v, want %v", w.Name, g.Shape, w.Shape)
			}
			if g.DType != w.DType {
				t.Errorf("%s: dtype got %v, want %v", w.Name, g.DType, w.DType)
			}
			for k := range w.Data {
				if g.Data[k] != w.Data[k] {
					t.Fatalf("%s: first difference at flat index %d (of shape %v): got %v, want %v",
						w.Name, k, w.Shape, g.Data[k], w.Data[k])
				}
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteReferenceJSON(&buf, h, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(buf.Bytes()), bytes.TrimSpace(want)) {
		a, b := buf.Bytes(), want
		k := 0
		for k < len(a) && k < len(b) && a[k] == b[k] {
			k++
		}
		t.Fatalf("reference JSON differs at byte %d:\n got ...%s\nwant ...%s", k, clip(a, k), clip(b, k))
	}
}

func clip(b []byte, k int) string {
	lo, hi := max(0, k-80), min(len(b), k+80)
	return string(b[lo:hi])
}

// TestSharedFixtures compares every reference fixture in
// ../shared/fixtures/clrs with narlab's sampler built the same way.
func TestSharedFixtures(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(sharedDir(t), "fixtures", "clrs", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures found: %v", err)
	}
	for _, f := range files {
		m := fixtureName.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			t.Fatalf("unexpected fixture name %s", f)
		}
		algo := m[1]
		n, _ := strconv.Atoi(m[2])
		seed, _ := strconv.ParseInt(m[3], 10, 64)
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := NewSampler(algo, Length(n), Seed(seed), NumSamples(2))
			if err != nil {
				t.Fatal(err)
			}
			fb, err := s.Dataset()
			if err != nil {
				t.Fatal(err)
			}
			compareWithReference(t, readFixture(t, f), fb, ReferenceHeader{Algorithm: algo, Length: n, Seed: seed, NumSamples: 2})
		})
	}
	_ = fmt.Sprint
}
