package clrs

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestArraysNPZ writes arrays of every dtype, streamed in pieces, and
// reads them back with numpy; and checks the errors for values that do
// not fill a shape, and for bad names and shapes.
func TestArraysNPZ(t *testing.T) {
	py := pythonWithNumpy(t)
	arrays := []NPZArray{
		{Name: "edge_index", DType: Int64, Shape: []int{2, 3}, Values: func(put func([]float64) error) error {
			if err := put([]float64{0, 1}); err != nil {
				return err
			}
			return put([]float64{2, 1, 2, 0})
		}},
		FloatArray("w", []int{3}, []float64{0.5, -1.25, 3}),
		{Name: "f32", DType: Float32, Shape: []int{}, Values: func(put func([]float64) error) error { return put([]float64{0.25}) }},
		FloatArray("empty", []int{0, 4}, nil),
	}
	for _, opts := range [][]NPZOption{nil, {Compressed()}} {
		path := filepath.Join(t.TempDir(), "a.npz")
		if err := SaveArraysNPZ(path, arrays, opts...); err != nil {
			t.Fatal(err)
		}
		script := `
import json, sys, numpy as np
z = np.load(sys.argv[1])
print(json.dumps([[k, str(z[k].dtype), list(z[k].shape), z[k].ravel().tolist()] for k in z.files]))
`
		out, err := exec.Command(py, "-c", script, path).Output()
		if err != nil {
			t.Fatalf("numpy could not load the archive: %v", err)
		}
		var got [][]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		want := `[["edge_index","int64",[2,3],[0,1,2,1,2,0]],["w","float64",[3],[0.5,-1.25,3]],["f32","float32",[],[0.25]],["empty","float64",[0,4],[]]]`
		if b, _ := json.Marshal(got); string(b) != want {
			t.Errorf("numpy read %s\nwant %s", b, want)
		}
	}
	for _, tc := range []struct {
		name   string
		arrays []NPZArray
		want   string
	}{
		{"short", []NPZArray{FloatArray("x", []int{2, 2}, []float64{1, 2, 3})}, "writing x: 3 values for shape [2 2]; want 4"},
		{"long", []NPZArray{FloatArray("x", []int{2}, []float64{1, 2, 3})}, "writing x: more than the 2 values of shape [2]"},
		{"repeated", []NPZArray{FloatArray("x", []int{1}, []float64{1}), FloatArray("x", []int{1}, []float64{1})}, `name "x" is empty or repeated`},
		{"negative", []NPZArray{FloatArray("x", []int{-1}, nil)}, "negative dimension"},
	} {
		var buf bytes.Buffer
		err := WriteArraysNPZ(&buf, tc.arrays)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
