package clrs

import (
	"slices"
	"testing"
)

// TestChunker cuts batches into chunks as the reference's chunkify does
// (its docstring's example: chunks of 6 steps, a first batch of samples of
// lengths 3 and 5, the next batch's samples following each slot's): the
// start and end marks, the hints copied step by step, the inputs and
// outputs repeated over each sample's steps; a batch is drawn only when a
// slot runs short, and dropped once used up.
func TestChunker(t *testing.T) {
	// batch b's sample i: pos and output b*10+i; hint value b*100+i*10+t at step t.
	mk := func(b int, lengths ...int) *Feedback {
		B, T := len(lengths), slices.Max(lengths)
		fb := &Feedback{Algorithm: "x", Lengths: lengths}
		pos := DataPoint{Probe: Probe{Name: "pos", Stage: Input, Location: Graph, Type: Scalar}, Array: Array{Shape: []int{B}}}
		out := DataPoint{Probe: Probe{Name: "y", Stage: Output, Location: Graph, Type: Scalar}, Array: Array{Shape: []int{B}}}
		h := DataPoint{Probe: Probe{Name: "h", Stage: Hint, Location: Graph, Type: Scalar}, Array: Array{Shape: []int{T, B}, Data: make([]float64, T*B)}}
		for i := range lengths {
			pos.Data = append(pos.Data, float64(b*10+i))
			out.Data = append(out.Data, float64(b*10+i))
			for tt := 0; tt < lengths[i]; tt++ {
				h.Data[tt*B+i] = float64(b*100 + i*10 + tt)
			}
		}
		fb.Inputs, fb.Hints, fb.Outputs = []DataPoint{pos}, []DataPoint{h}, []DataPoint{out}
		return fb
	}
	batches := []*Feedback{mk(0, 3, 5), mk(1, 4, 2), mk(2, 9, 9)}
	drawn := 0
	c, err := NewChunker(6, func() (*Feedback, error) { drawn++; return batches[drawn-1], nil })
	if err != nil {
		t.Fatal(err)
	}
	ch, err := c.Next()
	if err != nil {
		t.Fatal(err)
	}
	marks := func(m []bool) []int {
		out := make([]int, len(m))
		for i, v := range m {
			if v {
				out[i] = 1
			}
		}
		return out
	}
	if got, want := marks(ch.IsFirst), []int{1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("is_first %v, want %v", got, want)
	}
	if got, want := marks(ch.IsLast), []int{0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("is_last %v, want %v", got, want)
	}
	// [C,B]: slot 0 holds sample (0,0) then (1,0); slot 1 (0,1) then (1,1).
	if got, want := ch.Hints[0].Data, []float64{0, 10, 1, 11, 2, 12, 100, 13, 101, 14, 102, 110}; !slices.Equal(got, want) {
		t.Errorf("hints %v, want %v", got, want)
	}
	if got, want := ch.Inputs[0].Data, []float64{0, 1, 0, 1, 0, 1, 10, 1, 10, 1, 10, 11}; !slices.Equal(got, want) {
		t.Errorf("inputs %v, want %v", got, want)
	}
	if drawn != 2 || !slices.Equal(ch.Outputs[0].Shape, []int{6, 2}) || !slices.Equal(ch.Hints[0].Shape, []int{6, 2}) {
		t.Errorf("drew %d batches; shapes %v %v", drawn, ch.Outputs[0].Shape, ch.Hints[0].Shape)
	}
	ch, err = c.Next() // slot 0: 1 step of (1,0), then (2,0); slot 1: 1 step of (1,1), then (2,1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ch.Hints[0].Data, []float64{103, 111, 200, 210, 201, 211, 202, 212, 203, 213, 204, 214}; !slices.Equal(got, want) {
		t.Errorf("second chunk's hints %v, want %v", got, want)
	}
	if drawn != 3 || len(c.pending) != 1 {
		t.Errorf("drew %d batches, %d pending; want 3 and the last", drawn, len(c.pending))
	}
	step, err := ch.Step(2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(step.Hints[0].Data, []float64{201, 211}) || !slices.Equal(step.Hints[0].Shape, []int{1, 2}) || !slices.Equal(step.Inputs[0].Data, []float64{20, 21}) {
		t.Errorf("step 2: hints %v %v, inputs %v", step.Hints[0].Shape, step.Hints[0].Data, step.Inputs[0].Data)
	}
	if _, err := NewChunker(0, nil); err == nil {
		t.Error("a chunk of 0 steps")
	}
}
