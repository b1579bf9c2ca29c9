package clrs

import (
	"fmt"
	"slices"
)

// Chunk is a fixed-length time window over a stream of batches, as the
// reference's dataset.chunkify makes them for chunked training: each batch
// slot holds trajectories back to back (the next one starts right after
// the previous one ends), so every probe has a time axis: inputs and
// outputs [C, B, …] (repeated over each trajectory's steps), hints
// [C, B, …]. IsFirst and IsLast, row-major [C, B], mark where a trajectory
// starts and ends; slots drift apart as their trajectories' lengths
// differ.
type Chunk struct {
	Algorithm              string
	Spec                   Spec
	Inputs, Hints, Outputs []DataPoint
	IsFirst, IsLast        []bool
	length, batch          int
}

// Length is the chunk's number of time steps C.
func (c *Chunk) Length() int { return c.length }

// BatchSize is the number of slots B.
func (c *Chunk) BatchSize() int { return c.batch }

// Step returns time step t of the chunk as a feedback of B samples (inputs
// and outputs [B, …], hints [1, B, …], each sample's length 1): what the
// model processes at that step. It copies the data.
func (c *Chunk) Step(t int) (*Feedback, error) {
	if t < 0 || t >= c.length {
		return nil, fmt.Errorf("clrs: %s chunk: step %d of %d", c.Algorithm, t, c.length)
	}
	fb := &Feedback{Algorithm: c.Algorithm, Spec: c.Spec, Lengths: make([]int, c.batch)}
	for i := range fb.Lengths {
		fb.Lengths[i] = 1
	}
	slice := func(d DataPoint, keepTime bool) DataPoint {
		per := len(d.Data) / c.length
		shape := slices.Clone(d.Shape[1:])
		if keepTime {
			shape = append([]int{1}, shape...)
		}
		return DataPoint{Probe: d.Probe, Array: Array{Shape: shape, Data: slices.Clone(d.Data[t*per : (t+1)*per]), DType: d.DType}}
	}
	for _, d := range c.Inputs {
		fb.Inputs = append(fb.Inputs, slice(d, false))
	}
	for _, d := range c.Hints {
		fb.Hints = append(fb.Hints, slice(d, true))
	}
	for _, d := range c.Outputs {
		fb.Outputs = append(fb.Outputs, slice(d, false))
	}
	return fb, nil
}

// A Chunker cuts the batches of a stream into chunks of a fixed length,
// as the reference's dataset.chunkify: it draws a batch from the stream
// whenever a slot has fewer steps left than a chunk needs (so it reads
// ahead of the slowest slot) and drops a batch once every slot has used
// it.
type Chunker struct {
	next    func() (*Feedback, error)
	length  int
	batch   int
	pending []chunkSource
	started bool
}

// chunkSource is a batch of the stream and the steps each slot has left
// of it.
type chunkSource struct {
	fb   *Feedback
	left []int
}

// NewChunker makes chunks of length steps from the batches next yields
// (all of one algorithm, batch size and probes; transformed as the model
// sees them). It draws nothing until the first Next.
func NewChunker(length int, next func() (*Feedback, error)) (*Chunker, error) {
	if length < 1 {
		return nil, fmt.Errorf("clrs: chunk length %d; want at least 1", length)
	}
	return &Chunker{next: next, length: length}, nil
}

// fetch draws the stream's next batch.
func (c *Chunker) fetch() error {
	fb, err := c.next()
	if err != nil {
		return err
	}
	if !c.started {
		c.batch, c.started = fb.BatchSize(), true
	}
	if fb.BatchSize() != c.batch {
		return fmt.Errorf("clrs: chunking: a batch of %d samples in a stream of %d", fb.BatchSize(), c.batch)
	}
	if len(c.pending) > 0 {
		if err := sameProbes(c.pending[0].fb, fb); err != nil {
			return fmt.Errorf("clrs: chunking: %w", err)
		}
	}
	left := slices.Clone(fb.Lengths)
	for i, l := range left {
		if l < 1 || (len(fb.Hints) > 0 && l > fb.Hints[0].Shape[0]) {
			return fmt.Errorf("clrs: chunking: sample %d has length %d (hints hold %d steps)", i, l, fb.MaxSteps())
		}
	}
	c.pending = append(c.pending, chunkSource{fb: fb, left: left})
	return nil
}

// sameProbes checks that two batches have the same probes with the same
// shapes but for the batch and time axes.
func sameProbes(a, b *Feedback) error {
	for _, sec := range []struct {
		a, b    []DataPoint
		skipped int // leading axes that may differ (hints: time)
	}{{a.Inputs, b.Inputs, 0}, {a.Hints, b.Hints, 1}, {a.Outputs, b.Outputs, 0}} {
		if len(sec.a) != len(sec.b) {
			return fmt.Errorf("batches of %d and %d probes", len(sec.a), len(sec.b))
		}
		for i := range sec.a {
			x, y := sec.a[i], sec.b[i]
			if x.Name != y.Name || !slices.Equal(x.Shape[sec.skipped:], y.Shape[sec.skipped:]) {
				return fmt.Errorf("probe %s %v after %s %v: batches of other shapes (another length?) in one stream", y.Name, y.Shape, x.Name, x.Shape)
			}
		}
	}
	return nil
}

// Next returns the stream's next chunk.
func (c *Chunker) Next() (*Chunk, error) {
	if !c.started {
		if err := c.fetch(); err != nil {
			return nil, err
		}
	}
	C, B := c.length, c.batch
	for {
		short := false
		for i := 0; i < B && !short; i++ {
			n := 0
			for _, s := range c.pending {
				n += s.left[i]
			}
			short = n < C
		}
		if !short {
			break
		}
		if err := c.fetch(); err != nil {
			return nil, err
		}
	}
	first := c.pending[0].fb
	ch := &Chunk{Algorithm: first.Algorithm, Spec: first.Spec, IsFirst: make([]bool, C*B), IsLast: make([]bool, C*B), length: C, batch: B}
	empty := func(d DataPoint, hint bool) DataPoint {
		rest := d.Shape[1:]
		if hint {
			rest = d.Shape[2:]
		}
		shape := append([]int{C, B}, rest...)
		return DataPoint{Probe: d.Probe, Array: Array{Shape: shape, Data: make([]float64, shapeSize(shape)), DType: d.DType}}
	}
	for _, d := range first.Inputs {
		ch.Inputs = append(ch.Inputs, empty(d, false))
	}
	for _, d := range first.Hints {
		ch.Hints = append(ch.Hints, empty(d, true))
	}
	for _, d := range first.Outputs {
		ch.Outputs = append(ch.Outputs, empty(d, false))
	}
	for i := 0; i < B; i++ {
		total := 0
		for idx := 0; total < C; idx++ {
			s := &c.pending[idx]
			add := min(s.left[i], C-total)
			if add == 0 {
				continue
			}
			start := s.fb.Lengths[i] - s.left[i]
			for t := total; t < total+add; t++ {
				copySample(ch.Inputs, s.fb.Inputs, t, i, -1)
				copySample(ch.Outputs, s.fb.Outputs, t, i, -1)
				copySample(ch.Hints, s.fb.Hints, t, i, start+t-total)
			}
			if start == 0 {
				ch.IsFirst[total*B+i] = true
			}
			total += add
			s.left[i] -= add
			if s.left[i] == 0 {
				ch.IsLast[(total-1)*B+i] = true
			}
		}
	}
	for len(c.pending) > 0 && !slices.ContainsFunc(c.pending[0].left, func(l int) bool { return l > 0 }) {
		c.pending = c.pending[1:]
	}
	return ch, nil
}

// copySample copies sample i of each source probe into time step t of the
// chunk's: from an input or output [B, …] (srcT < 0) or from a hint's step
// srcT ([T, B, …]).
func copySample(dst, src []DataPoint, t, i, srcT int) {
	for k := range dst {
		d, s := dst[k], src[k]
		B := d.Shape[1]
		per := len(d.Data) / (d.Shape[0] * B)
		from := i * per
		if srcT >= 0 {
			from = (srcT*B + i) * per
		}
		copy(d.Data[(t*B+i)*per:(t*B+i+1)*per], s.Data[from:from+per])
	}
}
