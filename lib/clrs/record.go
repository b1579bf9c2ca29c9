package clrs

import "fmt"

// recorder collects the probes of one algorithm run, in the layout of the
// reference's probing module. Algorithms look up probe indices once by name
// and then push values by index, which keeps the per-step cost to copying
// the values.
//
// Misuse (an unknown probe name, a hint step that leaves a probe unset, a
// size that changes between steps) is a programming error in narlab and
// panics with a message naming the algorithm and probe.
type recorder struct {
	algo    string
	n       int // number of nodes
	inputs  []DataPoint
	outputs []DataPoint
	hints   []hintBuffer
	steps   int
	// expect is the number of steps to reserve room for (a guess; buffers
	// grow past it when needed).
	expect int
}

type hintBuffer struct {
	probe Probe
	data  []float64
	size  int // values per step, fixed by the first step
}

func newRecorder(algo string, n int) *recorder {
	spec, ok := Specs[algo]
	if !ok {
		panic("clrs: no spec for " + algo)
	}
	r := &recorder{algo: algo, n: n, expect: n + 1}
	var counts [Hint + 1]int
	for _, p := range spec {
		counts[p.Stage]++
	}
	// Inputs and outputs share one allocation (the three-index slices keep
	// their appends apart).
	io := make([]DataPoint, 0, counts[Input]+counts[Output])
	r.inputs = io[0:0:counts[Input]]
	r.outputs = io[counts[Input]:counts[Input]:cap(io)]
	r.hints = make([]hintBuffer, 0, counts[Hint])
	for _, p := range spec {
		switch p.Stage {
		case Input:
			r.inputs = append(r.inputs, DataPoint{Probe: p})
		case Output:
			r.outputs = append(r.outputs, DataPoint{Probe: p})
		case Hint:
			r.hints = append(r.hints, hintBuffer{probe: p, size: -1})
		}
	}
	return r
}

// appendShape appends to dst the per-sample shape of a probe holding size
// values: n for a node probe, n, n for an edge probe, then the number of
// values per node or edge (categories) when there is more than one.
func (r *recorder) appendShape(dst []int, p Probe, size int) []int {
	start := len(dst)
	switch p.Location {
	case Node:
		dst = append(dst, r.n)
	case Edge:
		dst = append(dst, r.n, r.n)
	}
	per := shapeSize(dst[start:])
	if size != per {
		if per == 0 || size%per != 0 {
			panic(fmt.Sprintf("clrs: %s: probe %s got %d values, not a multiple of %d", r.algo, p.Name, size, per))
		}
		dst = append(dst, size/per)
	}
	return dst
}

// squeeze drops every axis of length 1, as numpy.squeeze does for the
// reference's inputs and outputs, into a new slice of the exact length.
func squeeze(shape []int) []int {
	n := 0
	for _, d := range shape {
		if d != 1 {
			n++
		}
	}
	out := make([]int, 0, n)
	for _, d := range shape {
		if d != 1 {
			out = append(out, d)
		}
	}
	return out
}

func (r *recorder) io(stage Stage, name string) *DataPoint {
	list := r.inputs
	if stage == Output {
		list = r.outputs
	}
	for i := range list {
		if list[i].Name == name {
			return &list[i]
		}
	}
	panic(fmt.Sprintf("clrs: %s has no %s probe %q", r.algo, stage, name))
}

func (r *recorder) setIO(stage Stage, name string, vals []float64, dt DType) {
	d := r.io(stage, name)
	if d.Data != nil {
		panic(fmt.Sprintf("clrs: %s: %s probe %s pushed twice", r.algo, stage, name))
	}
	d.Data = vals
	var dims [3]int
	d.Shape = squeeze(r.appendShape(dims[:0], d.Probe, len(vals)))
	d.DType = dt
}

// input and output record float64 values (copied).
func (r *recorder) input(name string, vals []float64) {
	r.setIO(Input, name, append([]float64(nil), vals...), Float64)
}
func (r *recorder) output(name string, vals []float64) {
	r.setIO(Output, name, append([]float64(nil), vals...), Float64)
}

// inputInts and outputInts record integer values with dtype int64.
func (r *recorder) inputInts(name string, vals []int) {
	r.setIO(Input, name, intsToFloats(vals), Int64)
}
func (r *recorder) outputInts(name string, vals []int) {
	r.setIO(Output, name, intsToFloats(vals), Int64)
}

// inputMatrix records a matrix with its dtype.
func (r *recorder) inputMatrix(name string, m Matrix) {
	dt := Float64
	if m.Int {
		dt = Int64
	}
	r.setIO(Input, name, append([]float64(nil), m.Data...), dt)
}

// inputScalar and outputScalar record a graph-level value.
func (r *recorder) inputScalar(name string, v float64) {
	r.setIO(Input, name, []float64{v}, Float64)
}
func (r *recorder) outputScalar(name string, v float64, dt DType) {
	r.setIO(Output, name, []float64{v}, dt)
}

// inputOneHot and outputOneHot record mask_one probes (one-hot over n).
func (r *recorder) inputOneHot(name string, i, n int) { r.setIO(Input, name, oneHot(i, n), Float64) }
func (r *recorder) outputOneHot(name string, i, n int) {
	r.setIO(Output, name, oneHot(i, n), Float64)
}

// expectSteps tells the recorder how many hint steps to reserve room for,
// when the algorithm knows it (the default is n+1).
func (r *recorder) expectSteps(t int) { r.expect = t }

// hint returns the index of a hint probe, for the push methods.
func (r *recorder) hint(name string) int {
	for i := range r.hints {
		if r.hints[i].probe.Name == name {
			return i
		}
	}
	panic(fmt.Sprintf("clrs: %s has no hint %q", r.algo, name))
}

// step starts a new hint step; every hint must then be pushed exactly once.
func (r *recorder) step() {
	if r.steps > 0 {
		r.checkStep()
	}
	r.steps++
}

func (r *recorder) checkStep() {
	for i := range r.hints {
		h := &r.hints[i]
		if h.size < 0 || len(h.data) != r.steps*h.size {
			panic(fmt.Sprintf("clrs: %s: hint %s not pushed exactly once in step %d", r.algo, h.probe.Name, r.steps-1))
		}
	}
}

// slot extends hint idx by size values and returns them for filling: the
// caller writes every one (zeroSlot is for callers that set only some).
// While a SplitFile is being sampled, buffers come from the pools of
// floatpool.go, holding old values, and an outgrown one goes back
// (SplitFile recycles the rest); otherwise they are left to the
// allocator, which is cheaper when nothing is recycled.
func (r *recorder) slot(idx, size int) []float64 {
	h := &r.hints[idx]
	if h.size < 0 {
		h.size = size
	} else if h.size != size {
		panic(fmt.Sprintf("clrs: %s: hint %s changed size from %d to %d", r.algo, h.probe.Name, h.size, size))
	}
	start := len(h.data)
	if cap(h.data)-start < size {
		n := 2*cap(h.data) + max(r.expect, 8)*size
		pooled := recycling.Load() > 0
		var grown []float64
		if pooled {
			grown = pooledFloats(n)[:start]
		} else {
			grown = make([]float64, start, n)
		}
		copy(grown, h.data)
		if pooled {
			recycleFloats(h.data)
		}
		h.data = grown
	}
	h.data = h.data[:start+size]
	return h.data[start:]
}

// zeroSlot is slot with the values cleared, for filling only some.
func (r *recorder) zeroSlot(idx, size int) []float64 {
	s := r.slot(idx, size)
	clear(s)
	return s
}

// pushVals pushes float values to hint idx.
func (r *recorder) pushVals(idx int, vals []float64) { copy(r.slot(idx, len(vals)), vals) }

// pushInts pushes integer values (pointers) to hint idx.
func (r *recorder) pushInts(idx int, vals []int) {
	s := r.slot(idx, len(vals))
	for i, v := range vals {
		s[i] = float64(v)
	}
}

// pushOneHot pushes a one-hot vector of size n with a 1 at position i.
func (r *recorder) pushOneHot(idx, i, n int) { r.zeroSlot(idx, n)[i] = 1 }

// pushScalar pushes a single value (graph scalar or mask).
func (r *recorder) pushScalar(idx int, v float64) { r.slot(idx, 1)[0] = v }

// pushBool pushes 1 or 0.
func (r *recorder) pushBool(idx int, b bool) {
	if b {
		r.pushScalar(idx, 1)
	} else {
		r.pushScalar(idx, 0)
	}
}

// finish checks completeness and returns the trajectory.
func (r *recorder) finish(args Args) *Trajectory {
	if r.steps == 0 && len(r.hints) > 0 {
		panic(fmt.Sprintf("clrs: %s recorded no hint step", r.algo))
	}
	r.checkStep()
	for _, list := range [][]DataPoint{r.inputs, r.outputs} {
		for _, d := range list {
			if d.Data == nil {
				panic(fmt.Sprintf("clrs: %s: %s probe %s never pushed", r.algo, d.Stage, d.Name))
			}
		}
	}
	t := &Trajectory{Algorithm: r.algo, Args: args, Inputs: r.inputs, Outputs: r.outputs, Length: r.steps}
	t.Hints = make([]DataPoint, len(r.hints))
	dims := make([]int, 0, 4*len(r.hints)) // every hint's shape: T and at most three per-sample axes
	for i, h := range r.hints {
		start := len(dims)
		dims = r.appendShape(append(dims, r.steps), h.probe, h.size)
		shape := dims[start:len(dims):len(dims)]
		t.Hints[i] = DataPoint{Probe: h.probe, Array: Array{Shape: shape, Data: h.data, DType: Float64}}
	}
	return t
}

func intsToFloats(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func oneHot(i, n int) []float64 {
	out := make([]float64, n)
	out[i] = 1
	return out
}

// boolsToFloats converts a mask to 0/1 values.
func boolsToFloats(v []bool) []float64 {
	out := make([]float64, len(v))
	for i, b := range v {
		if b {
			out[i] = 1
		}
	}
	return out
}
