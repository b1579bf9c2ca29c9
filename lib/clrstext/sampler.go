package clrstext

import (
	"fmt"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nprand"
)

// Options configure how samples are drawn and rendered.
type Options struct {
	// Format is the text format version (Legacy or Current).
	Format Format
	// Hints adds the hint trace (the reference's use_hints).
	Hints bool
	// Decimals, for the Current format, truncates every real input to that
	// many decimals toward zero before the algorithm runs (the reference's
	// num_decimals_in_float / truncate_decimals); 0 keeps full precision.
	// The Legacy format has no truncation: Decimals must be 0.
	Decimals int
	// Shift selects a narlab-only distribution shift (zero value: none).
	Shift Shift
}

func (o Options) validate() error {
	if o.Format != Legacy && o.Format != Current {
		return fmt.Errorf("clrstext: unknown format %d (want Legacy or Current)", o.Format)
	}
	if o.Decimals < 0 {
		return fmt.Errorf("clrstext: decimals must be 0 (no truncation) or positive, got %d", o.Decimals)
	}
	if o.Format == Legacy && o.Decimals != 0 {
		return fmt.Errorf("clrstext: the legacy format never truncates inputs (it rounds with %%.3g when printing); decimals must be 0, got %d", o.Decimals)
	}
	return o.Shift.validate()
}

// A Sampler draws CLRS-Text examples for one algorithm and length exactly
// as the reference generator does: a CLRS sampler built with the seed, the
// length, unlimited samples and track_max_steps=False, from which every
// example is one next(batch_size=1).
type Sampler struct {
	algo  string
	opts  Options
	clrs  *clrs.Sampler
	tree  *treeSampler
	r     renderer
	count int
}

// NewSampler builds a sampler.
func NewSampler(algo string, length int, seed int64, o Options) (*Sampler, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if _, ok := clrs.Specs[algo]; !ok {
		return nil, fmt.Errorf("clrstext: unknown algorithm %q (want one of the CLRS-30 names, e.g. insertion_sort)", algo)
	}
	s := &Sampler{algo: algo, opts: o}
	if o.Shift.Trees && isGraphAlgorithm(algo) {
		t, err := newTreeSampler(algo, length, seed, o)
		if err != nil {
			return nil, err
		}
		s.tree = t
		return s, nil
	}
	copts := []clrs.Option{clrs.Length(length), clrs.Seed(seed), clrs.NumSamples(-1),
		clrs.TrackMaxSteps(false), clrs.Workers(1)}
	if o.Decimals > 0 {
		copts = append(copts, clrs.TruncateDecimals(o.Decimals))
	}
	extra, err := o.Shift.samplerOptions(algo)
	if err != nil {
		return nil, err
	}
	copts = append(copts, extra...)
	cs, err := clrs.NewSampler(algo, copts...)
	if err != nil {
		return nil, fmt.Errorf("clrstext: %w", err)
	}
	s.clrs = cs
	return s, nil
}

// Algorithm returns the sampled algorithm.
func (s *Sampler) Algorithm() string { return s.algo }

// Trajectory draws the next trajectory without rendering it.
func (s *Sampler) Trajectory() (*clrs.Trajectory, error) {
	if s.tree != nil {
		return s.tree.sample()
	}
	return s.clrs.Sample()
}

// Next draws and renders the next example.
func (s *Sampler) Next() (Example, error) {
	t, err := s.Trajectory()
	if err != nil {
		return Example{}, err
	}
	s.count++
	ex, err := s.r.render(t, s.opts.Format, s.opts.Hints)
	if err != nil {
		return Example{}, fmt.Errorf("%w (sample %d)", err, s.count)
	}
	return ex, nil
}

// Sample returns the first count examples of a fresh sampler, as
// `narlab clrstext sample` prints them.
func Sample(algo string, length int, seed int64, count int, o Options) ([]Example, error) {
	if count < 0 {
		return nil, fmt.Errorf("clrstext: count must be non-negative, got %d", count)
	}
	s, err := NewSampler(algo, length, seed, o)
	if err != nil {
		return nil, err
	}
	out := make([]Example, count)
	for i := range out {
		if out[i], err = s.Next(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// newRNG is the numpy RandomState a narlab-only sampler draws from.
func newRNG(seed int64) (*nprand.State, error) {
	r, err := nprand.NewChecked(seed)
	if err != nil {
		return nil, fmt.Errorf("clrstext: %w", err)
	}
	return r, nil
}
