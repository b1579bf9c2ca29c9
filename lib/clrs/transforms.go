package clrs

import (
	"fmt"
	"slices"
	"sort"

	"github.com/narlab/narlab/lib/nprand"
)

// The transforms below are the reference's feedback post-processing used
// for training (examples/run.py): random node positions, moving a constant
// pred_h hint to an input, and permutation pointers for sorting outputs.
// Each returns a new Feedback and leaves its argument unchanged.

// PredAsInputAlgorithms lists the algorithms whose pred_h hint is constant
// over time, for which the reference's training script applies PredAsInput.
var PredAsInputAlgorithms = []string{
	"binary_search", "minimum", "find_maximum_subarray",
	"find_maximum_subarray_kadane", "matrix_chain_order", "lcs_length",
	"optimal_bst", "activity_selector", "task_scheduling",
	"naive_string_matcher", "kmp_matcher", "jarvis_march",
}

// clone returns a copy of the feedback that shares the probe data but not
// the slices holding them, so a transform can replace probes.
func (f *Feedback) clone() *Feedback {
	g := *f
	g.Spec = f.Spec.Clone()
	g.Inputs = slices.Clone(f.Inputs)
	g.Hints = slices.Clone(f.Hints)
	g.Outputs = slices.Clone(f.Outputs)
	return &g
}

// RandomPos replaces the `pos` input by sorted random positions, as the
// reference's process_random_pos: it draws uniform(size=(B, N)) from rng,
// splits each example's positions where `pos` is 0 (string algorithms have
// one segment per string) and sorts the draws within each segment.
func RandomPos(f *Feedback, rng *nprand.State) (*Feedback, error) {
	idx := slices.IndexFunc(f.Inputs, func(d DataPoint) bool { return d.Name == "pos" })
	if idx < 0 {
		return nil, fmt.Errorf("clrs: %s: RandomPos needs a pos input", f.Algorithm)
	}
	pos := f.Inputs[idx]
	if len(pos.Shape) != 2 {
		return nil, fmt.Errorf("clrs: %s: pos has shape %v, want [B, N]", f.Algorithm, pos.Shape)
	}
	B, N := pos.Shape[0], pos.Shape[1]
	unsorted := rng.UniformN(0, 1, B*N)
	data := make([]float64, B*N)
	for b := 0; b < B; b++ {
		row := pos.Data[b*N : (b+1)*N]
		var cuts []int
		for i, v := range row {
			if v == 0 {
				cuts = append(cuts, i)
			}
		}
		cuts = append(cuts, N)
		out := data[b*N : b*N]
		for j := 0; j+1 < len(cuts); j++ {
			seg := slices.Clone(unsorted[b*N+cuts[j] : b*N+cuts[j+1]])
			sort.Float64s(seg)
			out = append(out, seg...)
		}
		if len(out) != N {
			return nil, fmt.Errorf("clrs: %s: pos of example %d does not start with 0", f.Algorithm, b)
		}
	}
	g := f.clone()
	g.Inputs[idx] = DataPoint{Probe: pos.Probe, Array: Array{Shape: []int{B, N}, Data: data, DType: Float64}}
	return g, nil
}

// PredAsInput moves the pred_h hint to an input named pred (appended after
// the other inputs; in the spec it takes pred_h's place), as the
// reference's process_pred_as_input. pred_h must be constant over each
// trajectory. Feedback without pred_h is returned unchanged.
func PredAsInput(f *Feedback) (*Feedback, error) {
	idx := slices.IndexFunc(f.Hints, func(d DataPoint) bool { return d.Name == "pred_h" })
	if idx < 0 {
		return f, nil
	}
	h := f.Hints[idx]
	if h.Location != Node || h.Type != Pointer {
		return nil, fmt.Errorf("clrs: %s: pred_h is %s/%s, want node/pointer", f.Algorithm, h.Location, h.Type)
	}
	B := f.BatchSize()
	per := shapeSize(h.Shape[2:])
	first := slices.Clone(h.Data[:B*per])
	for b := 0; b < B; b++ {
		for t := 1; t < f.Lengths[b]; t++ {
			step := h.Data[(t*B+b)*per : (t*B+b+1)*per]
			if !slices.Equal(step, first[b*per:(b+1)*per]) {
				return nil, fmt.Errorf("clrs: %s: pred_h changes at step %d of example %d; PredAsInput needs a constant pred_h", f.Algorithm, t, b)
			}
		}
	}
	g := f.clone()
	g.Hints = slices.Delete(g.Hints, idx, idx+1)
	pred := Probe{Name: "pred", Stage: Input, Location: Node, Type: Pointer}
	g.Inputs = append(g.Inputs, DataPoint{Probe: pred, Array: Array{Shape: slices.Clone(h.Shape[1:]), Data: first, DType: Float64}})
	for i, p := range g.Spec {
		if p.Name == "pred_h" {
			g.Spec[i] = pred
		}
	}
	return g, nil
}

// Permutations rewrites should_be_permutation probes, as the reference's
// process_permutations. With enforce, each becomes a permutation_pointer
// [B, N, N] (one-hot rows of predecessor pointers in which the first
// element points to the last, closing the cycle) followed by a new mask_one
// probe NAME_mask marking the first element; without, it becomes a plain
// pointer.
func Permutations(f *Feedback, enforce bool) (*Feedback, error) {
	g := f.clone()
	rewrite := func(list []DataPoint) []DataPoint {
		var out []DataPoint
		for _, d := range list {
			if d.Type != ShouldBePermutation {
				out = append(out, d)
				continue
			}
			if !enforce {
				d.Type = Pointer
				out = append(out, d)
				continue
			}
			pp, mask := cyclicPredecessors(d)
			out = append(out, pp, mask)
		}
		return out
	}
	g.Inputs = rewrite(g.Inputs)
	g.Hints = rewrite(g.Hints)
	g.Outputs = rewrite(g.Outputs)
	var spec Spec
	for _, p := range g.Spec {
		if p.Location != Node || p.Type != ShouldBePermutation {
			spec = append(spec, p)
			continue
		}
		if !enforce {
			p.Type = Pointer
			spec = append(spec, p)
			continue
		}
		spec = append(spec,
			Probe{Name: p.Name, Stage: p.Stage, Location: p.Location, Type: PermutationPointer},
			Probe{Name: p.Name + "_mask", Stage: p.Stage, Location: p.Location, Type: MaskOne})
	}
	g.Spec = spec
	return g, nil
}

// cyclicPredecessors converts predecessor pointers [..., N] into one-hot
// cyclic pointers [..., N, N] and a first-element mask [..., N].
func cyclicPredecessors(d DataPoint) (DataPoint, DataPoint) {
	N := d.Shape[len(d.Shape)-1]
	rows := len(d.Data) / N
	onehot := make([]float64, rows*N*N)
	mask := make([]float64, rows*N)
	count := make([]int, N)
	for r := 0; r < rows; r++ {
		ptr := d.Data[r*N : (r+1)*N]
		P := onehot[r*N*N : (r+1)*N*N]
		clear(count)
		for i, p := range ptr {
			P[i*N+int(p)] = 1
			count[int(p)]++
		}
		last := 0 // argmin of column sums: the node no one points to
		for j := 1; j < N; j++ {
			if count[j] < count[last] {
				last = j
			}
		}
		first := 0 // argmax of the diagonal: the node pointing to itself
		for j := 0; j < N; j++ {
			if int(ptr[j]) == j {
				first = j
				break
			}
		}
		mask[r*N+first] = 1
		P[first*N+last]++
		P[first*N+first]--
	}
	pp := DataPoint{Probe: Probe{Name: d.Name, Stage: d.Stage, Location: d.Location, Type: PermutationPointer},
		Array: Array{Shape: append(slices.Clone(d.Shape), N), Data: onehot, DType: Float32}}
	m := DataPoint{Probe: Probe{Name: d.Name + "_mask", Stage: d.Stage, Location: d.Location, Type: MaskOne},
		Array: Array{Shape: slices.Clone(d.Shape), Data: mask, DType: Float32}}
	return pp, m
}
