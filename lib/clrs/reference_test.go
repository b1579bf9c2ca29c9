package clrs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/nprand"
)

// referenceCase is one entry of testdata/reference/manifest.json, written
// by testdata/gen_reference.py from the reference implementation.
type referenceCase struct {
	Name         string                     `json:"name"`
	Algo         string                     `json:"algo"`
	Length       int                        `json:"length"`
	Seed         int64                      `json:"seed"`
	NumSamples   int                        `json:"num_samples"`
	Split        string                     `json:"split"`
	Kwargs       orderedParams              `json:"kwargs"`
	Batch        int                        `json:"batch"`
	RandomPos    *int64                     `json:"random_pos"`
	PredAsInput  bool                       `json:"pred_as_input"`
	Permutations bool                       `json:"permutations"`
	SHA256       string                     `json:"sha256"`
	Bytes        int                        `json:"bytes"`
	File         string                     `json:"file"`
	Error        string                     `json:"error"`
	Extra        map[string]json.RawMessage `json:"-"`
}

// orderedParams decodes a JSON object keeping key order and telling
// integers from reals, as Python wrote them.
type orderedParams []Param

func (o *orderedParams) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		*o = append(*o, Param{Name: k.(string), Value: fromJSONNumber(v)})
	}
	return nil
}

func fromJSONNumber(v any) any {
	switch x := v.(type) {
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			i, _ := x.Int64()
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case []any:
		out := make([]float64, len(x))
		for i, e := range x {
			f, _ := e.(json.Number).Float64()
			out[i] = f
		}
		return out
	}
	return v
}

// buildReferenceCase reproduces one case with narlab, mirroring what the
// reference dump tool does.
func buildReferenceCase(t *testing.T, c referenceCase) (*Feedback, ReferenceHeader) {
	t.Helper()
	// The manifest is written with sorted keys, but the reference's header
	// lists the kwargs as they were given: in the sampler class's
	// signature order in every case of gen_reference.py.
	if d, ok := registry[c.Algo]; ok {
		rank := func(name string) int {
			return slices.IndexFunc(d.sampler.params, func(p param) bool { return p.name == name })
		}
		slices.SortStableFunc(c.Kwargs, func(a, b Param) int { return rank(a.Name) - rank(b.Name) })
	}
	var opts []Option
	for _, p := range c.Kwargs {
		opts = append(opts, Kwarg(p.Name, p.Value))
	}
	h := ReferenceHeader{Algorithm: c.Algo, Length: c.Length, Seed: c.Seed, NumSamples: c.NumSamples, Kwargs: c.Kwargs}
	var s *Sampler
	var err error
	if c.Split != "" {
		sp, err := CLRS30Split(c.Algo, c.Split)
		if err != nil {
			t.Fatal(err)
		}
		h.Length, h.Seed, h.NumSamples = sp.Length, sp.Seed, sp.NumSamples
		s, err = NewSplitSampler(c.Algo, c.Split, opts...)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		s, err = NewSampler(c.Algo, append(opts, Length(c.Length), Seed(c.Seed), NumSamples(c.NumSamples))...)
		if err != nil {
			t.Fatal(err)
		}
	}
	var fb *Feedback
	if c.Batch > 0 {
		fb, err = s.Next(c.Batch)
		if err == nil {
			// The dump lists every generated sample's arguments, not the batch's.
			fb.Args = nil
			for _, tr := range s.Trajectories() {
				fb.Args = append(fb.Args, tr.Args)
			}
		}
	} else {
		fb, err = s.Dataset()
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.RandomPos != nil {
		if fb, err = RandomPos(fb, nprand.New(*c.RandomPos)); err != nil {
			t.Fatal(err)
		}
	}
	if c.PredAsInput && slices.Contains(PredAsInputAlgorithms, c.Algo) {
		if fb, err = PredAsInput(fb); err != nil {
			t.Fatal(err)
		}
	}
	if c.Permutations {
		if fb, err = Permutations(fb, true); err != nil {
			t.Fatal(err)
		}
	}
	return fb, h
}

// buildReferenceError builds the sampler of a case the reference rejects
// and returns narlab's error.
func buildReferenceError(c referenceCase) error {
	var opts []Option
	for _, p := range c.Kwargs {
		opts = append(opts, Kwarg(p.Name, p.Value))
	}
	s, err := NewSampler(c.Algo, append(opts, Length(c.Length), Seed(c.Seed), NumSamples(c.NumSamples))...)
	if err != nil {
		return err
	}
	_, err = s.Dataset()
	return err
}

// shortCaseBytes is the largest reference output TestReferenceCases checks
// in -short mode (161 of the 224 cases; all of them without -short).
const shortCaseBytes = 4 << 20

// withoutFinalNewline passes everything written to it to a hash except a
// final newline, and counts the bytes it passed on.
type withoutFinalNewline struct {
	w       hash.Hash
	pending []byte // the last byte written, held back
	n       int
}

func (h *withoutFinalNewline) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	h.w.Write(h.pending)
	h.n += len(h.pending)
	h.w.Write(p[:len(p)-1])
	h.n += len(p) - 1
	h.pending = append(h.pending[:0], p[len(p)-1])
	return len(p), nil
}

// sum is the hash of what was written, less a final newline.
func (h *withoutFinalNewline) sum() []byte {
	if len(h.pending) == 1 && h.pending[0] != '\n' {
		h.w.Write(h.pending)
		h.n++
	}
	h.pending = nil
	return h.w.Sum(nil)
}

// TestReferenceCases checks narlab against reference outputs generated
// with dm-clrs at other seeds, sizes (n = 2 … 64), official splits,
// sampler parameters, batching and the training transforms: byte-identical
// reference JSON (by SHA-256), and probe-by-probe for the cases stored
// whole.
func TestReferenceCases(t *testing.T) {
	dir := filepath.Join("testdata", "reference")
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []referenceCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if c.Error != "" {
				// The reference rejects this setting; so must narlab.
				if err := buildReferenceError(c); err == nil {
					t.Fatalf("narlab accepted a setting the reference rejects with: %s", c.Error)
				} else {
					t.Logf("reference: %s; narlab: %v", c.Error, err)
				}
				return
			}
			if testing.Short() && c.Bytes > shortCaseBytes {
				t.Skipf("a %d MiB case: skipped in -short mode (cases up to %d MiB run)", c.Bytes>>20, shortCaseBytes>>20)
			}
			t.Parallel()
			fb, h := buildReferenceCase(t, c)
			if c.File != "" {
				compareWithReference(t, readFixture(t, filepath.Join(dir, c.File)), fb, h)
				return
			}
			// The reference output has no trailing newline; ours ends with
			// one, which the hash leaves out.
			w := &withoutFinalNewline{w: sha256.New()}
			if err := WriteReferenceJSON(w, h, fb); err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(w.sum()); got != c.SHA256 {
				t.Fatalf("reference JSON differs: sha256 %s, want %s (%d bytes, want %d)", got, c.SHA256, w.n, c.Bytes)
			}
		})
	}
}
