package clrs

import (
	"errors"
	"fmt"
	"io"
)

// SplitFile is the CLRS-30 split of one algorithm, sampled to be written
// once as an .npz archive: the same arrays, byte for byte, as
// SaveTrajectoriesNPZ of NewSplitSampler(algo, split).Trajectories(), made
// with less work. Each sample's hints are kept as the values that change
// from step to step (a tenth of their dense size in the CLRS-30 train
// split) and rebuilt, one step of the whole batch at a time, in the
// layout of the archive. `narlab clrs generate` writes every file this
// way.
type SplitFile struct {
	Algorithm string
	Split     Split
	trajs     []*Trajectory // inputs and outputs; their hints are in deltas
	deltas    *hintDeltas
	samples   int
	maxSteps  int
	bytes     int64
	written   bool
}

// SampleSplitFile samples an official CLRS-30 split of one algorithm for
// writing. Options are those of NewSplitSampler (Workers, Progress).
func SampleSplitFile(algo, split string, opts ...Option) (*SplitFile, error) {
	set, err := CLRS30Split(algo, split)
	if err != nil {
		return nil, err
	}
	return SampleFile(algo, set, opts...)
}

// SampleFile samples one algorithm at any setting for writing, as
// SampleSplitFile samples an official split: the sampler of
// NewSampler(algo, Length(set.Length), Seed(set.Seed),
// NumSamples(set.NumSamples), opts...), which is dm-clrs's
// build_sampler(algo, num_samples, length=…, seed=…, **kwargs) when opts
// carry the kwargs (Kwarg, P). set.Name labels the file (the split of
// Split, the name WriteDataset gives it).
func SampleFile(algo string, set Split, opts ...Option) (*SplitFile, error) {
	if set.NumSamples < 1 {
		return nil, fmt.Errorf("clrs: %s: %d samples; want at least 1", algo, set.NumSamples)
	}
	base := []Option{Length(set.Length), Seed(set.Seed), NumSamples(set.NumSamples)}
	s, err := newSampler(algo, append(base, opts...))
	if err != nil {
		return nil, err
	}
	deltas := newHintDeltas(set.NumSamples)
	recycling.Add(1)
	trajs, err := s.generate(set.NumSamples, s.progress, deltas)
	recycling.Add(-1)
	if err != nil {
		return nil, err
	}
	f := &SplitFile{Algorithm: algo, Split: set, trajs: trajs, deltas: deltas, samples: len(trajs)}
	for _, t := range trajs {
		f.maxSteps = max(f.maxSteps, t.Length)
	}
	f.bytes = f.arrayBytes()
	return f, nil
}

// Len is the number of samples.
func (f *SplitFile) Len() int { return f.samples }

// MaxSteps is the number of hint steps of the longest sample (T of the
// hint arrays).
func (f *SplitFile) MaxSteps() int { return f.maxSteps }

// Bytes is the size of the file's arrays, as .npy data (what writing it
// checksums and deflates; the hints are most of it).
func (f *SplitFile) Bytes() int64 { return f.bytes }

func (f *SplitFile) arrayBytes() int64 {
	var n int64
	T := int64(f.maxSteps)
	for i, t := range f.trajs {
		for _, d := range t.Inputs {
			n += int64(shapeSize(d.Shape))
		}
		for _, d := range t.Outputs {
			n += int64(shapeSize(d.Shape))
		}
		if i == 0 {
			for _, h := range t.Hints {
				n += T * int64(len(f.trajs)) * int64(shapeSize(h.Shape[1:]))
			}
		}
		n++ // its length
	}
	return 8 * n
}

// ErrSplitFileWritten is returned when a SplitFile is written a second
// time: writing releases its hints.
var ErrSplitFileWritten = errors.New("clrs: a SplitFile is written once (writing releases its hints); sample it again")

// WriteNPZ writes the split as an .npz archive (see WriteNPZ for the
// arrays and options). It can be called once.
func (f *SplitFile) WriteNPZ(w io.Writer, opts ...NPZOption) error {
	if f.written {
		return ErrSplitFileWritten
	}
	f.written = true
	members, err := trajectoryMembers(f.trajs, f.deltas)
	if err != nil {
		return fmt.Errorf("clrs: %s %s split: %w", f.Algorithm, f.Split.Name, err)
	}
	err = writeMembers(w, members, npzConfigOf(opts))
	f.deltas.release()
	f.trajs, f.deltas = nil, nil
	return err
}

// SaveNPZ is WriteNPZ into a file, written atomically like SaveNPZ's.
func (f *SplitFile) SaveNPZ(path string, opts ...NPZOption) error {
	if f.written {
		return ErrSplitFileWritten
	}
	return saveAtomic(path, opts, func(w io.Writer) error { return f.WriteNPZ(w, opts...) })
}
