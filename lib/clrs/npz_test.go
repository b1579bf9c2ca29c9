package clrs

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/project"
)

// pythonWithNumpy returns an interpreter that can import numpy: the
// project's environment (scripts/setup.sh), else python3 on PATH.
func pythonWithNumpy(t *testing.T) string {
	t.Helper()
	var candidates []string
	if p, err := project.Python(); err == nil {
		candidates = append(candidates, p)
	}
	candidates = append(candidates, "python3")
	for _, c := range candidates {
		if exec.Command(c, "-c", "import numpy").Run() == nil {
			return c
		}
	}
	t.Fatal("no Python with numpy: run scripts/setup.sh (make setup) to create the project's environment")
	return ""
}

// TestNPZReadByNumpy writes feedback with WriteNPZ, stored and
// compressed, and reads it back with numpy.load, checking names, dtypes,
// shapes and every value, and that the file's mode honours the umask.
func TestNPZReadByNumpy(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []NPZOption
	}{{"stored", nil}, {"compressed", []NPZOption{Compressed()}}} {
		t.Run(tc.name, func(t *testing.T) { testNPZReadByNumpy(t, tc.opts) })
	}
}

func testNPZReadByNumpy(t *testing.T, opts []NPZOption) {
	py := pythonWithNumpy(t)
	s, err := NewSampler("insertion_sort", Length(6), Seed(3), NumSamples(3))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := s.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	fb, err = Permutations(fb, true) // adds float32 arrays
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "insertion_sort_test.npz")
	if err := SaveNPZ(path, fb, opts...); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != fsutil.DataMode&^fsutil.Umask() {
		t.Errorf("file mode %v (%v), want %v", st.Mode().Perm(), err, fsutil.DataMode&^fsutil.Umask())
	}
	script := `
import json, sys, numpy as np
z = np.load(sys.argv[1])
print(json.dumps({k: {"dtype": str(z[k].dtype), "shape": list(z[k].shape), "data": z[k].ravel().tolist()} for k in z.files}))
`
	out, err := exec.Command(py, "-c", script, path).Output()
	if err != nil {
		t.Fatalf("numpy could not load the archive: %v", err)
	}
	var got map[string]struct {
		DType string    `json:"dtype"`
		Shape []int     `json:"shape"`
		Data  []float64 `json:"data"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]DataPoint{}
	for _, d := range fb.Inputs {
		want["input/"+d.Name] = d
	}
	for _, d := range fb.Hints {
		want["hint/"+d.Name] = d
	}
	for _, d := range fb.Outputs {
		want["output/"+d.Name] = d
	}
	lengths := make([]float64, len(fb.Lengths))
	for i, l := range fb.Lengths {
		lengths[i] = float64(l)
	}
	want["lengths"] = DataPoint{Array: Array{Shape: []int{3}, Data: lengths, DType: Float64}}
	if len(got) != len(want) {
		t.Fatalf("numpy sees %d arrays, want %d: %v", len(got), len(want), got)
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Fatalf("array %q missing", name)
		}
		if g.DType != w.DType.String() || !slices.Equal(g.Shape, w.Shape) || !slices.Equal(g.Data, w.Data) {
			t.Errorf("%s: numpy read dtype %s shape %v, want %s %v (values equal: %v)",
				name, g.DType, g.Shape, w.DType, w.Shape, slices.Equal(g.Data, w.Data))
		}
	}
}

// TestTrajectoriesNPZMatchesBatch checks that streaming trajectories into
// an archive (no padded arrays in memory) writes exactly the bytes of
// WriteNPZ on their batched feedback, for algorithms whose trajectories
// have different lengths (so the padding is exercised) and for int64,
// float64 and graph-level probes.
func TestTrajectoriesNPZMatchesBatch(t *testing.T) {
	for _, algo := range []string{"quickselect", "bfs", "kmp_matcher", "matrix_chain_order", "graham_scan", "task_scheduling"} {
		t.Run(algo, func(t *testing.T) {
			s, err := NewSampler(algo, Length(9), Seed(7), NumSamples(11))
			if err != nil {
				t.Fatal(err)
			}
			lengths := map[int]bool{}
			for _, tr := range s.Trajectories() {
				lengths[tr.Length] = true
			}
			fb, err := s.Dataset()
			if err != nil {
				t.Fatal(err)
			}
			for _, opts := range [][]NPZOption{nil, {Compressed()}} {
				var batched, streamed bytes.Buffer
				if err := WriteNPZ(&batched, fb, opts...); err != nil {
					t.Fatal(err)
				}
				if err := WriteTrajectoriesNPZ(&streamed, s.Trajectories(), opts...); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(batched.Bytes(), streamed.Bytes()) {
					t.Fatalf("compressed=%v: streamed archive (%d bytes) differs from the batched one (%d bytes)",
						len(opts) > 0, streamed.Len(), batched.Len())
				}
				t.Logf("compressed=%v: %d distinct trajectory lengths, %d bytes", len(opts) > 0, len(lengths), batched.Len())
			}
		})
	}
	if err := WriteTrajectoriesNPZ(io.Discard, nil); err == nil {
		t.Error("no error for an empty trajectory list")
	}
}

// TestLargeNPZReadByNumpy writes archives big enough that the deflate
// encoder slides its window many times (hints of several MB, zero padding
// after trajectories of different lengths) and checks with numpy that
// every array holds exactly the values of the batched feedback: numpy
// prints a SHA-256 of each array as little-endian float64, Go hashes its
// own values the same way.
func TestLargeNPZReadByNumpy(t *testing.T) {
	py := pythonWithNumpy(t)
	for _, algo := range []string{"floyd_warshall", "quicksort", "strongly_connected_components"} {
		s, err := NewSampler(algo, Length(16), Seed(5), NumSamples(48))
		if err != nil {
			t.Fatal(err)
		}
		fb, err := s.Dataset()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for prefix, list := range map[string][]DataPoint{"input/": fb.Inputs, "hint/": fb.Hints, "output/": fb.Outputs} {
			for _, d := range list {
				want[prefix+d.Name] = float64SHA(d.Data)
			}
		}
		lengths := make([]float64, len(fb.Lengths))
		for i, l := range fb.Lengths {
			lengths[i] = float64(l)
		}
		want["lengths"] = float64SHA(lengths)
		for _, tc := range []struct {
			name string
			opts []NPZOption
		}{{"stored", nil}, {"compressed", []NPZOption{Compressed()}}} {
			t.Run(algo+"/"+tc.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), algo+".npz")
				if err := SaveTrajectoriesNPZ(path, s.Trajectories(), tc.opts...); err != nil {
					t.Fatal(err)
				}
				script := `
import hashlib, json, sys, zipfile, numpy as np
z = np.load(sys.argv[1])
methods = sorted({i.compress_type for i in zipfile.ZipFile(sys.argv[1]).infolist()})
print(json.dumps({"methods": methods, "arrays": {k: hashlib.sha256(np.ascontiguousarray(z[k], dtype='<f8').tobytes()).hexdigest() for k in z.files}}))
`
				out, err := exec.Command(py, "-c", script, path).Output()
				if err != nil {
					t.Fatalf("numpy could not load the archive: %v", err)
				}
				var got struct {
					Methods []int             `json:"methods"`
					Arrays  map[string]string `json:"arrays"`
				}
				if err := json.Unmarshal(out, &got); err != nil {
					t.Fatal(err)
				}
				wantMethod := 0 // stored
				if len(tc.opts) > 0 {
					wantMethod = 8 // deflated
				}
				if !slices.Equal(got.Methods, []int{wantMethod}) {
					t.Errorf("zip methods %v, want [%d]", got.Methods, wantMethod)
				}
				if len(got.Arrays) != len(want) {
					t.Fatalf("numpy sees %d arrays, want %d", len(got.Arrays), len(want))
				}
				for name, h := range want {
					if got.Arrays[name] != h {
						t.Errorf("%s: numpy's values differ from the feedback's", name)
					}
				}
			})
		}
	}
}

// float64SHA is the hex SHA-256 of vals as little-endian float64 bytes.
func float64SHA(vals []float64) string {
	h := sha256.New()
	var b [8]byte
	for _, v := range vals {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestStagerBytes checks the bytes a stager hands on against a plain
// encoding of the same values, around its buffer's size: hint arrays
// transposed several steps at a time and row by row (a step bigger than
// the buffer), with padding steps, and int64, float32 and float64 arrays
// that cross flushes or go straight through.
func TestStagerBytes(t *testing.T) {
	// samples makes B samples of per values a step, sample b running
	// steps(b) steps, with values that differ everywhere.
	samples := func(B, per int, steps func(b int) int) [][]float64 {
		out := make([][]float64, B)
		for b := range out {
			out[b] = make([]float64, steps(b)*per)
			for i := range out[b] {
				out[b][i] = float64(b*1_000_003+i) + 0.25
			}
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		B, per int
		steps  func(b int) int
	}{
		{"blocks of steps, padding", 7, 5, func(b int) int { return 3 + 11*b }},
		{"one step fills half the buffer", 2, stagingWords / 4, func(b int) int { return 2 + b }},
		{"step bigger than the buffer", 3, stagingWords/2 + 1, func(b int) int { return 1 + b }},
		{"single sample, single step", 1, 1, func(int) int { return 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := samples(tc.B, tc.per, tc.steps)
			T := 0
			for b := range data {
				T = max(T, tc.steps(b))
			}
			var want bytes.Buffer
			for s := range T {
				for b := range data {
					for j := range tc.per {
						v := 0.0
						if s < tc.steps(b) {
							v = data[b][s*tc.per+j]
						}
						binary.Write(&want, binary.LittleEndian, v)
					}
				}
			}
			var got bytes.Buffer
			st := newStager()
			defer st.release()
			st.start(&got, Float64)
			err := st.putSteps(T, tc.B, tc.per, func(b int) ([]float64, int) { return data[b], tc.steps(b) })
			if err := errors.Join(err, st.flush()); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%d bytes staged, want %d; equal: %v", got.Len(), want.Len(), bytes.Equal(got.Bytes(), want.Bytes()))
			}
		})
	}
	for _, tc := range []struct {
		dtype DType
		n     int
	}{
		{Int64, stagingWords - 1}, {Int64, 2*stagingWords + 3},
		{Float32, 2*stagingWords + 5}, {Float32, 7},
		{Float64, stagingWords - 1}, {Float64, stagingWords}, {Float64, 3*stagingWords + 1},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.dtype, tc.n), func(t *testing.T) {
			vals := make([]float64, tc.n)
			for i := range vals {
				vals[i] = float64(i%9973 - 4000)
			}
			var want bytes.Buffer
			for _, v := range vals {
				switch tc.dtype {
				case Int64:
					binary.Write(&want, binary.LittleEndian, int64(v))
				case Float32:
					binary.Write(&want, binary.LittleEndian, float32(v))
				default:
					binary.Write(&want, binary.LittleEndian, v)
				}
			}
			var got bytes.Buffer
			st := newStager()
			defer st.release()
			st.start(&got, tc.dtype)
			// In three puts of uneven sizes, as rows of several samples come.
			a, b := tc.n/3, tc.n/3+tc.n/5
			for _, part := range [][]float64{vals[:a], vals[a:b], vals[b:]} {
				if err := st.put(part); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.flush(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Fatalf("%d bytes staged, want %d", got.Len(), want.Len())
			}
		})
	}
}
