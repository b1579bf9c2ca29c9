package clrs

import (
	"fmt"
	"iter"
)

// Split is the setting of one official CLRS-30 dataset split: how many
// trajectories, at which length, from which seed.
type Split struct {
	Name       string
	NumSamples int
	Length     int
	Seed       int64
}

// SplitNames are the CLRS-30 splits in order.
var SplitNames = []string{"train", "val", "test"}

// CLRS30Split returns the official setting of a split for an algorithm:
// train is 1000 trajectories at length 16 from seed 1; val is 32 × the
// algorithm's SampleMultiplier at length 16 from seed 2; test is 32 × the
// multiplier at length 64 from seed 3. The reference generates them with
// each sampler's default parameters.
func CLRS30Split(algo, split string) (Split, error) {
	if _, err := lookup(algo); err != nil {
		return Split{}, err
	}
	switch split {
	case "train":
		return Split{Name: split, NumSamples: 1000, Length: 16, Seed: 1}, nil
	case "val":
		return Split{Name: split, NumSamples: 32 * SampleMultiplier(algo), Length: 16, Seed: 2}, nil
	case "test":
		return Split{Name: split, NumSamples: 32 * SampleMultiplier(algo), Length: 64, Seed: 3}, nil
	}
	return Split{}, fmt.Errorf("clrs: unknown split %q (want train, val or test)", split)
}

// NewSplitSampler builds the sampler of an official CLRS-30 split; extra
// options (Workers, Progress) may be added, but options that change the
// data would make it unofficial.
func NewSplitSampler(algo, split string, opts ...Option) (*Sampler, error) {
	s, err := CLRS30Split(algo, split)
	if err != nil {
		return nil, err
	}
	base := []Option{Length(s.Length), Seed(s.Seed), NumSamples(s.NumSamples)}
	return NewSampler(algo, append(base, opts...)...)
}

// splitChunk is how many samples SplitTrajectories draws at a time: enough
// to keep every worker busy, few enough to hold (64 of quickselect's n=64
// test samples are about 100 MB).
const splitChunk = 64

// SplitTrajectories yields the samples of an official CLRS-30 split in
// order — the trajectories of NewSplitSampler(algo, split).Trajectories(),
// bit for bit — drawing them a chunk at a time as they are consumed, so
// that a split scored once is never held whole (quickselect's n=64 test
// split is 2,048 trajectories of up to 479 steps, gigabytes of hints).
// limit > 0 stops after the first limit samples; extra options (Workers)
// are as NewSplitSampler's. An error (an unknown algorithm or split, a
// failed sample) is yielded once, with a nil trajectory, and ends the
// sequence.
func SplitTrajectories(algo, split string, limit int, opts ...Option) iter.Seq2[*Trajectory, error] {
	return func(yield func(*Trajectory, error) bool) {
		sp, err := CLRS30Split(algo, split)
		if err != nil {
			yield(nil, err)
			return
		}
		n := sp.NumSamples
		if limit > 0 {
			n = min(n, limit)
		}
		// A sampler that has drawn nothing yet: drawing the split's samples
		// in chunks from its stream draws what NumSamples(n) would have
		// drawn up front, in the same order.
		s, err := newSampler(algo, append([]Option{Length(sp.Length), Seed(sp.Seed)}, opts...))
		if err != nil {
			yield(nil, err)
			return
		}
		for done := 0; done < n; {
			ts, err := s.generate(min(splitChunk, n-done), nil, nil)
			if err != nil {
				yield(nil, fmt.Errorf("%s split, samples from %d: %w", split, done, err))
				return
			}
			for _, t := range ts {
				if !yield(t, nil) {
					return
				}
			}
			done += len(ts)
		}
	}
}

// Each yields a slice's trajectories as a stream of the kind
// SplitTrajectories yields (never an error), for the functions that take
// one (nn.Model.EvaluateTrajectories).
func Each(trajs []*Trajectory) iter.Seq2[*Trajectory, error] {
	return func(yield func(*Trajectory, error) bool) {
		for _, t := range trajs {
			if !yield(t, nil) {
				return
			}
		}
	}
}
