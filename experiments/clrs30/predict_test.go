package clrs30

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
)

// TestFeaturesPredictLikeSamples: a batch's features alone (a dataset
// file less its outputs, FeaturesFeedback) give the model's predictions
// on the whole samples, exactly, for algorithms with a permutation output
// (insertion_sort), a pred-as-input hint (binary_search), a categorical
// hint (dfs's colour) and edge inputs (bfs); ReadData tells the two kinds
// of files apart; PredictionArrays lays the predictions out as the
// signature says. (Zeroing the hints fails it: a model reads their first
// step.)
func TestFeaturesPredictLikeSamples(t *testing.T) {
	be, err := nn.Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, algo := range []string{"insertion_sort", "binary_search", "dfs", "bfs"} {
		t.Run(algo, func(t *testing.T) {
			mc := nn.DefaultConfig(algo, "mpnn")
			mc.Hidden = 8
			m, err := nn.New(be, mc)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			s, err := clrs.NewSampler(algo, clrs.Length(7), clrs.Seed(5), clrs.NumSamples(3))
			if err != nil {
				t.Fatal(err)
			}
			fb, err := s.Dataset()
			if err != nil {
				t.Fatal(err)
			}
			fb.Args = nil
			dir := t.TempDir()
			full, features := filepath.Join(dir, "full.npz"), filepath.Join(dir, "features.npz")
			if err := clrs.SaveNPZ(full, fb); err != nil {
				t.Fatal(err)
			}
			noOut := *fb
			noOut.Outputs = nil
			names, _ := FeatureNames(algo)
			var arrays []clrs.NPZArray
			for _, d := range append(slices.Clone(fb.Inputs), fb.Hints...) {
				arrays = append(arrays, clrs.NPZArray{Name: d.Stage.String() + "/" + d.Name, DType: d.DType, Shape: d.Shape,
					Values: func(put func([]float64) error) error { return put(d.Data) }})
			}
			lengths := make([]float64, len(fb.Lengths))
			for i, l := range fb.Lengths {
				lengths[i] = float64(l)
			}
			arrays = append(arrays, clrs.FloatArray("lengths", []int{len(lengths)}, lengths))
			if len(arrays) != len(names) {
				t.Fatalf("%d feature arrays, FeatureNames lists %d", len(arrays), len(names))
			}
			if err := clrs.SaveArraysNPZ(features, arrays); err != nil {
				t.Fatal(err)
			}
			got1, scored1, err := ReadData(full, mc)
			if err != nil || !scored1 {
				t.Fatalf("ReadData(full) scored %v, %v", scored1, err)
			}
			got2, scored2, err := ReadData(features, mc)
			if err != nil || scored2 {
				t.Fatalf("ReadData(features) scored %v, %v", scored2, err)
			}
			if !reflect.DeepEqual(got2.Inputs, fb.Inputs) || !reflect.DeepEqual(got2.Hints, fb.Hints) || !slices.Equal(got2.Lengths, fb.Lengths) {
				t.Error("the features read back differ from the samples'")
			}
			for i, d := range got2.Outputs {
				if !slices.Equal(d.Shape, fb.Outputs[i].Shape) {
					t.Errorf("output %s: zeros of shape %v, the samples' %v", d.Name, d.Shape, fb.Outputs[i].Shape)
				}
			}
			p1, err := m.Predict(got1)
			if err != nil {
				t.Fatal(err)
			}
			p2, err := m.Predict(got2)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p1, p2) {
				t.Errorf("predictions differ: whole samples %v, features %v", p1, p2)
			}
			pa, err := PredictionArrays(mc, got2, p2)
			if err != nil {
				t.Fatal(err)
			}
			sig, err := Signature(mc)
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range pa {
				if a.Name != sig.Outputs[i].Name || len(a.Shape) != len(sig.Outputs[i].Shape) || a.Shape[0] != 3 {
					t.Errorf("prediction %s %v; the signature says %s %v", a.Name, a.Shape, sig.Outputs[i].Name, sig.Outputs[i].Shape)
				}
			}
		})
	}
}

func TestFeaturesErrors(t *testing.T) {
	mc := nn.DefaultConfig("bfs", "mpnn")
	s, _ := clrs.NewSampler("bfs", clrs.Length(5), clrs.Seed(1), clrs.NumSamples(2))
	fb, _ := s.Dataset()
	base := func() map[string]clrs.Array {
		m := map[string]clrs.Array{"lengths": {Shape: []int{2}, Data: []float64{float64(fb.Lengths[0]), float64(fb.Lengths[1])}}}
		for _, d := range append(slices.Clone(fb.Inputs), fb.Hints...) {
			m[d.Stage.String()+"/"+d.Name] = d.Array
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		change func(map[string]clrs.Array)
		want   string
	}{
		{"missing hint", func(m map[string]clrs.Array) { delete(m, "hint/pi_h") }, "missing [hint/pi_h]"},
		{"foreign array", func(m map[string]clrs.Array) { m["input/key"] = clrs.Array{Shape: []int{2, 5}} }, "not features of bfs [input/key]"},
		{"wrong batch", func(m map[string]clrs.Array) { a := m["input/s"]; a.Shape = []int{3, 5}; m["input/s"] = a }, "input/s has shape [3 5]; want [2 5]"},
		{"short hints", func(m map[string]clrs.Array) {
			for _, k := range []string{"hint/pi_h", "hint/reach_h"} {
				a := m[k]
				a.Shape = append([]int{1}, a.Shape[1:]...)
				m[k] = a
			}
		}, "steps but lengths holds"},
		{"fractional length", func(m map[string]clrs.Array) { m["lengths"] = clrs.Array{Shape: []int{2}, Data: []float64{1.5, 2}} }, "lengths[0] is 1.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := base()
			tc.change(m)
			_, err := FeaturesFeedback(mc.Algorithm, m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want one saying %q", err, tc.want)
			}
		})
	}
	if _, _, err := ReadData(filepath.Join(t.TempDir(), "none.npz"), mc); err == nil || !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
}
