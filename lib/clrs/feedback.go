package clrs

import (
	"fmt"
	"slices"
)

// Feedback is a batch of trajectories in the reference's batched layout:
// inputs and outputs [B, …], hints [T, B, …] with T the longest trajectory
// (or a larger minimum) and every trajectory zero-padded after its end, and
// the number of hint steps of each trajectory in Lengths. Hints are float64;
// inputs and outputs keep the reference's dtypes.
type Feedback struct {
	Algorithm string
	// Spec lists the probes in order; after transforms such as PredAsInput
	// or Permutations it differs from Specs[Algorithm].
	Spec    Spec
	Inputs  []DataPoint
	Hints   []DataPoint
	Outputs []DataPoint
	Lengths []int
	// Args are the arguments each trajectory ran on (nil when unknown).
	Args []Args
}

// BatchSize returns B.
func (f *Feedback) BatchSize() int { return len(f.Lengths) }

// MaxSteps returns T, the padded time dimension of the hints.
func (f *Feedback) MaxSteps() int {
	if len(f.Hints) == 0 {
		return 0
	}
	return f.Hints[0].Shape[0]
}

// Probe returns the data of the probe with the given name, whatever its stage.
func (f *Feedback) Probe(name string) (DataPoint, bool) {
	for _, list := range [][]DataPoint{f.Inputs, f.Hints, f.Outputs} {
		for _, d := range list {
			if d.Name == name {
				return d, true
			}
		}
	}
	return DataPoint{}, false
}

// Batch stacks trajectories of one algorithm into a Feedback, padding hints
// with zeros to max(minSteps, longest trajectory) steps, as the reference's
// samplers do.
func Batch(trajs []*Trajectory, minSteps int) (*Feedback, error) {
	if len(trajs) == 0 {
		return nil, fmt.Errorf("clrs: Batch needs at least one trajectory")
	}
	first := trajs[0]
	B := len(trajs)
	T := minSteps
	for _, t := range trajs {
		if t.Algorithm != first.Algorithm {
			return nil, fmt.Errorf("clrs: cannot batch %s with %s", t.Algorithm, first.Algorithm)
		}
		T = max(T, t.Length)
	}
	f := &Feedback{Algorithm: first.Algorithm, Spec: specOf(first), Lengths: make([]int, B), Args: make([]Args, B)}
	for b, t := range trajs {
		f.Lengths[b] = t.Length
		f.Args[b] = t.Args
	}
	var err error
	if f.Inputs, err = batchIO(trajs, func(t *Trajectory) []DataPoint { return t.Inputs }); err != nil {
		return nil, err
	}
	if f.Outputs, err = batchIO(trajs, func(t *Trajectory) []DataPoint { return t.Outputs }); err != nil {
		return nil, err
	}
	f.Hints = make([]DataPoint, len(first.Hints))
	for i, h := range first.Hints {
		inner := h.Shape[1:]
		per := shapeSize(inner)
		data := make([]float64, T*B*per)
		for b, t := range trajs {
			th := t.Hints[i]
			if th.Name != h.Name || !slices.Equal(th.Shape[1:], inner) {
				return nil, fmt.Errorf("clrs: %s: hint %s has shape %v in sample %d but %v in sample 0", f.Algorithm, h.Name, th.Shape, b, h.Shape)
			}
			for s := 0; s < t.Length; s++ {
				copy(data[(s*B+b)*per:(s*B+b+1)*per], th.Data[s*per:(s+1)*per])
			}
		}
		shape := append([]int{T, B}, inner...)
		f.Hints[i] = DataPoint{Probe: h.Probe, Array: Array{Shape: shape, Data: data, DType: Float64}}
	}
	return f, nil
}

func batchIO(trajs []*Trajectory, get func(*Trajectory) []DataPoint) ([]DataPoint, error) {
	first := get(trajs[0])
	B := len(trajs)
	out := make([]DataPoint, len(first))
	for i, d := range first {
		per := len(d.Data)
		data := make([]float64, 0, B*per)
		dt := Int64
		for b, t := range trajs {
			td := get(t)[i]
			if td.Name != d.Name || !slices.Equal(td.Shape, d.Shape) {
				return nil, fmt.Errorf("clrs: %s: probe %s has shape %v in sample %d but %v in sample 0", trajs[0].Algorithm, d.Name, td.Shape, b, d.Shape)
			}
			if td.DType == Float64 {
				dt = Float64
			}
			data = append(data, td.Data...)
		}
		shape := append([]int{B}, d.Shape...)
		out[i] = DataPoint{Probe: d.Probe, Array: Array{Shape: shape, Data: data, DType: dt}}
	}
	return out, nil
}

// specOf returns the spec in the order of a trajectory's data points.
func specOf(t *Trajectory) Spec {
	if s, ok := Specs[t.Algorithm]; ok {
		return s
	}
	var s Spec
	for _, list := range [][]DataPoint{t.Inputs, t.Outputs, t.Hints} {
		for _, d := range list {
			s = append(s, d.Probe)
		}
	}
	return s
}

// Trajectory extracts sample b of the batch as a Trajectory (hints cut to
// its own length). The data is copied.
func (f *Feedback) Trajectory(b int) (*Trajectory, error) {
	B := f.BatchSize()
	if b < 0 || b >= B {
		return nil, fmt.Errorf("clrs: sample %d out of range for a batch of %d", b, B)
	}
	t := &Trajectory{Algorithm: f.Algorithm, Length: f.Lengths[b]}
	if f.Args != nil {
		t.Args = f.Args[b]
	}
	unbatch := func(list []DataPoint) []DataPoint {
		out := make([]DataPoint, len(list))
		for i, d := range list {
			per := shapeSize(d.Shape[1:])
			out[i] = DataPoint{Probe: d.Probe, Array: Array{
				Shape: slices.Clone(d.Shape[1:]),
				Data:  slices.Clone(d.Data[b*per : (b+1)*per]),
				DType: d.DType,
			}}
		}
		return out
	}
	t.Inputs = unbatch(f.Inputs)
	t.Outputs = unbatch(f.Outputs)
	t.Hints = make([]DataPoint, len(f.Hints))
	for i, h := range f.Hints {
		per := shapeSize(h.Shape[2:])
		data := make([]float64, 0, t.Length*per)
		for s := 0; s < t.Length; s++ {
			off := (s*B + b) * per
			data = append(data, h.Data[off:off+per]...)
		}
		shape := append([]int{t.Length}, h.Shape[2:]...)
		t.Hints[i] = DataPoint{Probe: h.Probe, Array: Array{Shape: shape, Data: data, DType: h.DType}}
	}
	return t, nil
}
