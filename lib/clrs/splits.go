package clrs

import "fmt"

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
