package nn

import (
	"fmt"

	"github.com/narlab/narlab/lib/clrs"
)

// probeLayout says how one probe is laid out as a dense float32 tensor (its
// "truth layout", also the layout of its decoded logits) and where it is
// encoded:
//
//	node scalar/mask/mask_one [B,N]   categorical [B,N,C]   pointer [B,N,N]
//	edge scalar/mask/mask_one [B,N,N] categorical [B,N,N,C]
//	graph scalar/mask [B]             categorical [B,C]     pointer [B,N]
//
// Hints have a leading [T] axis. Pointers become one-hot rows.
type probeLayout struct {
	clrs.Probe
	classes int           // C for categorical
	enc     clrs.Location // where the encoder adds it: node [N,F], edge [N,N,F] or graph [F]
	feat    int           // F: trailing feature size of the encoder input
}

// kind returns the probe's type with permutation-related types folded into
// their base (should_be_permutation is a pointer).
func kind(t clrs.Type) clrs.Type {
	if t == clrs.ShouldBePermutation {
		return clrs.Pointer
	}
	return t
}

func layoutOf(p clrs.Probe, d clrs.DataPoint, stageAxes int) (probeLayout, error) {
	l := probeLayout{Probe: p, enc: p.Location, feat: 1}
	switch kind(p.Type) {
	case clrs.Scalar, clrs.Mask, clrs.MaskOne:
	case clrs.PermutationPointer: // node only; its data already holds one-hot rows [N,N]
		l.enc = clrs.Edge
	case clrs.Categorical:
		l.classes = d.Shape[len(d.Shape)-1]
		l.feat = l.classes
	case clrs.Pointer:
		switch p.Location {
		case clrs.Node:
			l.enc = clrs.Edge
		case clrs.Graph:
			l.enc = clrs.Node
		case clrs.Edge:
			l.enc = clrs.Edge // one-hot [N,N,N], encoded by two means (see model.go)
		}
	default:
		return l, fmt.Errorf("nn: %s: probe type %s is not supported ", p.Name, p.Type)
	}
	_ = stageAxes
	return l, nil
}

// dense converts a batched data point ([B,…] or [T,B,…]) into its layout's
// float32 values and shape.
func (l probeLayout) dense(d clrs.DataPoint, n int) ([]float32, []int) {
	if kind(l.Type) != clrs.Pointer {
		out := make([]float32, len(d.Data))
		for i, v := range d.Data {
			out[i] = float32(v)
		}
		return out, append([]int(nil), d.Shape...)
	}
	out := make([]float32, len(d.Data)*n)
	for i, v := range d.Data {
		j := int(v)
		if j >= 0 && j < n {
			out[i*n+j] = 1
		}
	}
	return out, append(append([]int(nil), d.Shape...), n)
}

// modelSpec is the part of a feedback's layout that shapes the model: the
// probes in a fixed order (inputs, hints, outputs) and the node count.
type modelSpec struct {
	inputs, hints, outputs []probeLayout
}

func specOf(fb *clrs.Feedback) (modelSpec, error) {
	var s modelSpec
	for _, sec := range []struct {
		list []clrs.DataPoint
		dst  *[]probeLayout
	}{{fb.Inputs, &s.inputs}, {fb.Hints, &s.hints}, {fb.Outputs, &s.outputs}} {
		for _, d := range sec.list {
			l, err := layoutOf(d.Probe, d, 0)
			if err != nil {
				return s, err
			}
			*sec.dst = append(*sec.dst, l)
		}
	}
	if len(s.outputs) == 0 {
		return s, fmt.Errorf("nn: %s has no outputs", fb.Algorithm)
	}
	return s, nil
}

// nodes returns N, read from the pos input (every CLRS algorithm has it).
func nodes(fb *clrs.Feedback) (int, error) {
	pos, ok := fb.Probe("pos")
	if !ok || len(pos.Shape) != 2 {
		return 0, fmt.Errorf("nn: %s: no pos input of shape [B, N]", fb.Algorithm)
	}
	return pos.Shape[1], nil
}
