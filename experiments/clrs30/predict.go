package clrs30

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
)

// Predictions on files: what `narlab eval --data FILE --predictions OUT`
// runs, and through it the python_function flavor of the logged models
// (python/narlab/pyfunc.py), which hands the binary a batch's features.
//
// A data file is either a whole dataset of one algorithm, as `narlab clrs
// generate` and `narlab clrs sample --format npz` write them (scored and
// predicted), or a batch's features alone: the same file without its
// outputs (input/NAME, hint/NAME and lengths; predicted, not scored). The
// features are what dm-clrs's BaselineModel.predict takes (inputs, hints,
// lengths): a model reads the inputs, the hints' first step (the state the
// algorithm starts from, which its first processor step encodes) and the
// lengths, never the outputs.

// ReadData reads an .npz data file for a model of configuration mc: a
// whole dataset file of mc's algorithm (scored is true), or its features
// alone (FeaturesFeedback; scored is false).
func ReadData(path string, mc nn.Config) (fb *clrs.Feedback, scored bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	arrays, err := clrs.ReadArraysNPZ(f, st.Size())
	if err != nil {
		return nil, false, fmt.Errorf("%w (file %s)", err, path)
	}
	for name := range arrays {
		if strings.HasPrefix(name, "output/") {
			fb, err := clrs.ReadNPZ(f, st.Size(), mc.Algorithm)
			if err != nil {
				return nil, false, fmt.Errorf("%w (file %s: want a dataset file of the model's algorithm, %s, or its features alone)", err, path, mc.Algorithm)
			}
			return fb, true, nil
		}
	}
	fb, err = FeaturesFeedback(mc.Algorithm, arrays)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return fb, false, nil
}

// FeatureNames are the arrays of a batch's features for algo, in spec
// order: input/NAME and hint/NAME of every input and hint probe, then
// lengths (a dataset file's arrays less its outputs).
func FeatureNames(algo string) ([]string, error) {
	spec, ok := clrs.Specs[algo]
	if !ok {
		return nil, fmt.Errorf("clrs30: unknown algorithm %q", algo)
	}
	var out []string
	for _, p := range spec {
		if p.Stage != clrs.Output {
			out = append(out, p.Stage.String()+"/"+p.Name)
		}
	}
	return append(out, "lengths"), nil
}

// FeaturesFeedback builds a batch from its features alone (arrays named
// as FeatureNames says, shaped as a dataset file's): the outputs, which a
// model never reads, are zeros of their shapes, so the model predicts the
// batch exactly as it predicts the whole samples the features come from.
func FeaturesFeedback(algo string, arrays map[string]clrs.Array) (*clrs.Feedback, error) {
	names, err := FeatureNames(algo)
	if err != nil {
		return nil, err
	}
	var missing, extra []string
	for _, n := range names {
		if _, ok := arrays[n]; !ok {
			missing = append(missing, n)
		}
	}
	for n := range arrays {
		if !slices.Contains(names, n) {
			extra = append(extra, n)
		}
	}
	slices.Sort(extra)
	if len(missing) > 0 || len(extra) > 0 {
		return nil, fmt.Errorf("clrs30: the features of %s are %s; missing %v, not features of %s %v",
			algo, strings.Join(names, ", "), missing, algo, extra)
	}
	la := arrays["lengths"]
	if len(la.Shape) != 1 || la.Shape[0] < 1 {
		return nil, fmt.Errorf("clrs30: lengths has shape %v; want [B] with B >= 1", la.Shape)
	}
	B := la.Shape[0]
	lengths := make([]int, B)
	longest := 0
	for b, v := range la.Data {
		if v != math.Trunc(v) || v < 1 || v > math.MaxInt32 {
			return nil, fmt.Errorf("clrs30: lengths[%d] is %v; want a whole number of steps >= 1", b, v)
		}
		lengths[b] = int(v)
		longest = max(longest, int(v))
	}
	pos, ok := arrays["input/pos"]
	if !ok || len(pos.Shape) != 2 || pos.Shape[0] != B {
		return nil, fmt.Errorf("clrs30: input/pos has shape %v; want [B, N] with B = %d (the length of lengths)", pos.Shape, B)
	}
	N := pos.Shape[1]
	tmpl, err := templateShapes(algo)
	if err != nil {
		return nil, err
	}
	fb := &clrs.Feedback{Algorithm: algo, Spec: clrs.Specs[algo], Lengths: lengths}
	T := -1
	for _, p := range clrs.Specs[algo] {
		key := p.Stage.String() + "/" + p.Name
		var want []int
		switch p.Stage {
		case clrs.Hint:
			a := arrays[key]
			if T < 0 && len(a.Shape) > 0 {
				T = a.Shape[0]
			}
			want = []int{T}
		}
		want = append(want, B)
		for range locationDims(p.Location) {
			want = append(want, N)
		}
		want = append(want, tmpl[key]...)
		d := clrs.DataPoint{Probe: p}
		if p.Stage == clrs.Output {
			d.Array = clrs.Array{Shape: want, Data: make([]float64, sizeOf(want)), DType: clrs.Float64}
			fb.Outputs = append(fb.Outputs, d)
			continue
		}
		a := arrays[key]
		if !slices.Equal(a.Shape, want) {
			return nil, fmt.Errorf("clrs30: %s has shape %v; want %v (B = %d samples from lengths, N = %d nodes from input/pos%s)",
				key, a.Shape, want, B, N, map[bool]string{true: ", T steps from the first hint", false: ""}[p.Stage == clrs.Hint])
		}
		if p.Stage == clrs.Hint && T < longest {
			return nil, fmt.Errorf("clrs30: %s has %d steps but lengths holds %d", key, T, longest)
		}
		d.Array = a
		if p.Stage == clrs.Input {
			fb.Inputs = append(fb.Inputs, d)
		} else {
			fb.Hints = append(fb.Hints, d)
		}
	}
	return fb, nil
}

// templateShapes gives, per probe ("stage/name"), the dimensions of a
// sample's array after its location's node dimensions (a categorical's
// classes), read off one small sample of the algorithm.
func templateShapes(algo string) (map[string][]int, error) {
	s, err := clrs.NewSampler(algo, clrs.Length(5), clrs.Seed(0), clrs.NumSamples(1))
	if err != nil {
		return nil, err
	}
	fb, err := s.Dataset()
	if err != nil {
		return nil, err
	}
	out := map[string][]int{}
	for _, list := range [][]clrs.DataPoint{fb.Inputs, fb.Hints, fb.Outputs} {
		for _, d := range list {
			lead := 1 // the batch axis
			if d.Stage == clrs.Hint {
				lead = 2
			}
			out[d.Stage.String()+"/"+d.Name] = slices.Clone(d.Shape[lead+locationDims(d.Location):])
		}
	}
	return out, nil
}

func locationDims(l clrs.Location) int {
	switch l {
	case clrs.Node:
		return 1
	case clrs.Edge:
		return 2
	}
	return 0
}

func sizeOf(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// PredictionArrays lays a model's predictions on fb out as arrays
// output/NAME of shape [B, …] (float64, Model.Predict's encoding: node
// indices for pointers and permutations, probabilities for masks, class
// scores for mask_one and categorical outputs, values for scalars), in
// the order of the model's outputs.
func PredictionArrays(mc nn.Config, fb *clrs.Feedback, p nn.Predictions) ([]clrs.NPZArray, error) {
	tf, err := mc.Transform(fb)
	if err != nil {
		return nil, err
	}
	var out []clrs.NPZArray
	for _, d := range tf.Outputs {
		shape := slices.Clone(d.Shape)
		if d.Type == clrs.PermutationPointer {
			shape = shape[:len(shape)-1]
		}
		v, ok := p[d.Name]
		if !ok || len(v) != sizeOf(shape) {
			return nil, fmt.Errorf("clrs30: prediction %s holds %d values; want %d for shape %v", d.Name, len(v), sizeOf(shape), shape)
		}
		out = append(out, clrs.FloatArray("output/"+d.Name, shape, v))
	}
	return out, nil
}
