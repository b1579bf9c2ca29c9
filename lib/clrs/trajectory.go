package clrs

import (
	"fmt"
	"math"
)

// DataPoint is the data of one probe.
//
// In a Trajectory, inputs and outputs have the probe's own shape — node
// [N], edge [N, N], graph [] — with a trailing class axis [C] for
// categorical probes, and hints have a leading time axis [T, …]. As in the
// reference, singleton axes of inputs and outputs are squeezed (so N = 1
// gives shape []). In a Feedback every probe gains a batch axis: inputs and
// outputs [B, …], hints [T, B, …].
type DataPoint struct {
	Probe
	Array
}

// Step returns the values of a hint at time step t (a view, not a copy).
// It panics if t is out of range.
func (d DataPoint) Step(t int) []float64 {
	if len(d.Shape) == 0 || t < 0 || t >= d.Shape[0] {
		panic(fmt.Sprintf("clrs: step %d out of range for %s with shape %v", t, d.Name, d.Shape))
	}
	per := shapeSize(d.Shape[1:])
	return d.Data[t*per : (t+1)*per]
}

// Args are the positional arguments an algorithm runs on, exactly as the
// reference passes them: []float64 for arrays of reals, []int for strings
// and integer arrays, Matrix for graphs, int for a node index and float64
// for a scalar such as a search target.
type Args []any

// Trajectory is one run of an algorithm on one input: its inputs, the hints
// observed at every step and its outputs.
type Trajectory struct {
	Algorithm string
	// Args are the arguments the algorithm ran on (for sampled
	// trajectories: what the sampler drew).
	Args    Args
	Inputs  []DataPoint
	Hints   []DataPoint
	Outputs []DataPoint
	// Length is the number of hint steps T, the initial state included.
	Length int
}

// Probe returns the data of the probe with the given name, whatever its stage.
func (t *Trajectory) Probe(name string) (DataPoint, bool) {
	for _, list := range [][]DataPoint{t.Inputs, t.Hints, t.Outputs} {
		for _, d := range list {
			if d.Name == name {
				return d, true
			}
		}
	}
	return DataPoint{}, false
}

// Input, Hint and Output return one probe of the given stage; they panic
// when the algorithm has no such probe (a programming error: consult
// Specs). Use Probe for a checked lookup.
func (t *Trajectory) Input(name string) DataPoint { return mustFind(t.Inputs, name, t.Algorithm) }

// Hint returns the hint probe with the given name ([T, …]).
func (t *Trajectory) Hint(name string) DataPoint { return mustFind(t.Hints, name, t.Algorithm) }

// Output returns the output probe with the given name.
func (t *Trajectory) Output(name string) DataPoint { return mustFind(t.Outputs, name, t.Algorithm) }

func mustFind(list []DataPoint, name, algo string) DataPoint {
	for _, d := range list {
		if d.Name == name {
			return d
		}
	}
	panic(fmt.Sprintf("clrs: %s has no probe %q of this stage", algo, name))
}

// Validate checks the invariants the reference enforces when it splits
// probes into stages: mask, mask_one and categorical values are 0, 1 or -1,
// mask_one and categorical rows are one-hot, every value is finite, and
// every hint has Length steps.
func (t *Trajectory) Validate() error {
	check := func(d DataPoint, hint bool) error {
		if len(d.Data) != shapeSize(d.Shape) {
			return fmt.Errorf("clrs: %s: probe %s has %d values for shape %v", t.Algorithm, d.Name, len(d.Data), d.Shape)
		}
		if hint && (len(d.Shape) == 0 || d.Shape[0] != t.Length) {
			return fmt.Errorf("clrs: %s: hint %s has shape %v, want %d steps", t.Algorithm, d.Name, d.Shape, t.Length)
		}
		for _, v := range d.Data {
			if math.IsNaN(v) {
				return fmt.Errorf("clrs: %s: probe %s holds NaN", t.Algorithm, d.Name)
			}
		}
		switch d.Type {
		case Mask, MaskOne, Categorical:
			for _, v := range d.Data {
				if v != 0 && v != 1 && v != -1 {
					return fmt.Errorf("clrs: %s: probe %s (%s) holds %v; want 0, 1 or -1", t.Algorithm, d.Name, d.Type, v)
				}
			}
		}
		if d.Type == MaskOne || d.Type == Categorical {
			last := 1
			if len(d.Shape) > 0 {
				last = d.Shape[len(d.Shape)-1]
			}
			for i := 0; i+last <= len(d.Data); i += last {
				s := 0.0
				for _, v := range d.Data[i : i+last] {
					s += math.Abs(v)
				}
				if s != 1 {
					return fmt.Errorf("clrs: %s: probe %s (%s) is not one-hot at row %d", t.Algorithm, d.Name, d.Type, i/last)
				}
			}
		}
		return nil
	}
	for _, d := range t.Inputs {
		if err := check(d, false); err != nil {
			return err
		}
	}
	for _, d := range t.Outputs {
		if err := check(d, false); err != nil {
			return err
		}
	}
	for _, d := range t.Hints {
		if err := check(d, true); err != nil {
			return err
		}
	}
	return nil
}
