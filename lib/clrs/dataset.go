package clrs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/narlab/narlab/internal/flock"
	"github.com/narlab/narlab/internal/fsutil"
)

// DatasetOptions say what WriteDataset writes. The zero value writes the
// three CLRS-30 splits of the 30 algorithms, compressed, on every CPU.
type DatasetOptions struct {
	// Splits are the splits to write, in manifest order (default
	// SplitNames: train, val, test).
	Splits []string
	// Algorithms are the algorithms to write, in manifest order (default
	// CLRS30()); any algorithm of Algorithms() is accepted.
	Algorithms []string
	// Workers is how many goroutines run the algorithms (0: GOMAXPROCS).
	// The files do not depend on it.
	Workers int
	// Uncompressed stores the arrays as numpy.savez does (zip method 0);
	// by default they are deflated, as numpy.savez_compressed's files are
	// (method 8: the train split is 14× smaller, and written faster).
	Uncompressed bool
	// Settings, when set, replace the official splits (Splits must then
	// be empty): each algorithm is sampled at each setting, with its
	// Length, Seed and NumSamples, as dm-clrs's build_sampler(algo,
	// num_samples, length=…, seed=…) samples, into ALGO_NAME.npz where
	// NAME is the setting's Name (SettingName's "nLENGTH_sSEED" when
	// empty; a name is letters, digits, '-' and '_'). The files have the
	// layout of the splits' and the manifest lists them the same way, with
	// the setting's name as their split.
	Settings []Split
	// Kwargs are sampler parameters (dm-clrs's **kwargs, e.g. p for the
	// graph samplers) given to every sampler of Settings, and recorded in
	// the manifest.
	Kwargs []Param
	// Progress, when set, is called as samples are drawn: done of total
	// samples over every file, label the file being sampled
	// ("bfs/train"). It is called from one goroutine at a time.
	Progress func(done, total int, label string)
}

// DatasetGenerator is the generator recorded in the manifests WriteDataset
// writes.
const DatasetGenerator = "narlab clrs generate"

// WriteDataset writes the official CLRS-30 splits of some algorithms into
// dir as numpy .npz archives, one per algorithm and split
// (ALGO_SPLIT.npz), with a manifest.json listing them (ReadManifest,
// LoadSplit read them back). It is what `narlab clrs generate` runs.
//
// The files appear together: they are written as hidden temporary files
// and renamed into place at the end, with the manifest, so that a failed
// or cancelled run (ctx) leaves none of them, and the directory only if it
// existed before. Temporary files that a killed run (SIGKILL, a power cut)
// left in dir are removed first, unless another WriteDataset is writing
// into dir at the time.
//
// One goroutine samples the files, the largest first by a small estimate
// (its samplers use every CPU), while one writer per CPU writes them
// (deflating costs about as much as sampling), taking the sampled file
// with the most bytes first: the last files written are small, and every
// CPU stays busy to the end. The bytes of each file do not depend on this
// order or on Workers.
func WriteDataset(ctx context.Context, dir string, opts DatasetOptions) (*Manifest, error) {
	splits := opts.Splits
	if len(splits) == 0 && len(opts.Settings) == 0 {
		splits = SplitNames
	}
	if len(splits) > 0 && len(opts.Settings) > 0 {
		return nil, errors.New("clrs: WriteDataset: both official splits and settings of one's own; give one or the other")
	}
	if len(opts.Kwargs) > 0 && len(opts.Settings) == 0 {
		return nil, errors.New("clrs: WriteDataset: sampler kwargs apply to settings of one's own, not to the official splits")
	}
	for _, sp := range splits {
		if !slices.Contains(SplitNames, sp) {
			return nil, fmt.Errorf("unknown split %q (want train, val, test or all)", sp)
		}
	}
	settings := make([]Split, len(opts.Settings))
	seenName := map[string]bool{}
	for i, set := range opts.Settings {
		if set.Name == "" {
			set.Name = SettingName(set.Length, set.Seed)
		}
		if err := checkSettingName(set.Name); err != nil {
			return nil, err
		}
		if seenName[set.Name] {
			return nil, fmt.Errorf("clrs: two settings named %q: each file needs its own name", set.Name)
		}
		seenName[set.Name] = true
		if set.NumSamples < 1 || set.Length < 1 || set.Seed < 0 || set.Seed > 1<<32-1 {
			return nil, fmt.Errorf("clrs: setting %s: %d samples of length %d from seed %d; want at least 1 sample, length at least 1, seed in [0, 2**32-1]",
				set.Name, set.NumSamples, set.Length, set.Seed)
		}
		settings[i] = set
	}
	var kwOpts []Option
	for _, p := range opts.Kwargs {
		kwOpts = append(kwOpts, Kwarg(p.Name, p.Value))
	}
	names := opts.Algorithms
	if len(names) == 0 {
		names = CLRS30()
	}
	known := Algorithms()
	for _, n := range names {
		if !slices.Contains(known, n) {
			return nil, fmt.Errorf("unknown algorithm %q (known: %s)", n, strings.Join(known, ", "))
		}
	}
	if dir == "" {
		return nil, errors.New("clrs: WriteDataset: no directory")
	}
	// The files are committed together at the end (fsutil.Batch): one
	// journal commit for all of them instead of two per file, which cost
	// 5 % of the time here. Until then the paths keep what they held.
	_, statErr := os.Stat(dir)
	dirExisted := statErr == nil
	fail := func(err error) (*Manifest, error) {
		if !dirExisted {
			os.Remove(dir) // the directory this run made, if nothing else is in it
		}
		return nil, err
	}
	if err := os.MkdirAll(dir, fsutil.DirMode); err != nil {
		return nil, fmt.Errorf("clrs: %w", err)
	}
	unlock, err := lockDatasetDir(dir)
	if err != nil {
		return fail(err)
	}
	defer unlock()

	var batch fsutil.Batch
	npzOpts := []NPZOption{SaveWith(func(path string, write func(io.Writer) error) error {
		return batch.Write(path, fsutil.DataMode, write)
	})}
	if !opts.Uncompressed {
		npzOpts = append(npzOpts, Compressed())
	}
	type file struct {
		name string
		set  Split
	}
	var files []file
	totalSamples := 0 // one report for the whole dataset: samples over every file
	for _, sp := range splits {
		for _, name := range names {
			set, err := CLRS30Split(name, sp)
			if err != nil {
				return fail(err)
			}
			files = append(files, file{name, set})
			totalSamples += set.NumSamples
		}
	}
	for _, set := range settings {
		for _, name := range names {
			files = append(files, file{name, set})
			totalSamples += set.NumSamples
		}
	}
	m := &Manifest{Generator: DatasetGenerator, Compressed: !opts.Uncompressed, Files: []ManifestFile{}}
	start := time.Now()
	order, err := largestFirst(len(files), func(i int) (int64, error) {
		return estimateFileBytes(files[i].name, files[i].set, kwOpts)
	})
	if err != nil {
		return fail(err)
	}
	q := newWriteQueue(max(4, 2*runtime.GOMAXPROCS(0)))
	var sampleErr error
	sampling := make(chan struct{}) // closed when the sampler is done
	go func() {
		defer close(sampling)
		defer q.close()
		sampled := 0 // samples of the files before the current one
		for _, i := range order {
			if ctx.Err() != nil {
				sampleErr = context.Cause(ctx) // cancelled: the batch is aborted below
				return
			}
			f := files[i]
			var sopts []Option
			if opts.Progress != nil {
				label, base := f.name+"/"+f.set.Name, sampled
				sopts = append(sopts, Progress(func(done, total int) { opts.Progress(base+done, totalSamples, label) }))
			}
			if opts.Workers > 0 {
				sopts = append(sopts, Workers(opts.Workers))
			}
			sf, err := SampleFile(f.name, f.set, append(slices.Clone(kwOpts), sopts...)...)
			if err != nil {
				sampleErr = err
				return
			}
			sampled += sf.Len()
			if !q.push(i, sf) {
				return
			}
		}
	}()
	written := make([]*ManifestFile, len(files))
	errs := make([]error, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, sf, ok := q.pop()
				if !ok || ctx.Err() != nil {
					return
				}
				name := fmt.Sprintf("%s_%s.npz", files[i].name, files[i].set.Name)
				if err := sf.SaveNPZ(filepath.Join(dir, name), npzOpts...); err != nil {
					errs[w] = err
					q.fail()
					return
				}
				written[i] = &ManifestFile{File: name, Algorithm: sf.Algorithm, Split: sf.Split.Name, NumSamples: sf.Split.NumSamples,
					Length: sf.Split.Length, Seed: sf.Split.Seed, MaxSteps: sf.MaxSteps(), Kwargs: paramsMap(opts.Kwargs)}
			}
		}()
	}
	wg.Wait()
	<-sampling // after a failed write, it stops at the end of its file
	if err := errors.Join(sampleErr, errors.Join(errs...)); err != nil {
		batch.Abort()
		return fail(err)
	}
	if err := ctx.Err(); err != nil { // cancelled while the last files were written
		batch.Abort()
		return fail(context.Cause(ctx))
	}
	for _, f := range written {
		if f != nil {
			m.Files = append(m.Files, *f)
		}
	}
	m.Seconds = time.Since(start).Seconds()
	// The manifest is committed with the files: all appear together.
	data, err := json.MarshalIndent(m, "", "  ")
	if err == nil {
		err = batch.Write(filepath.Join(dir, "manifest.json"), fsutil.DataMode, func(w io.Writer) error {
			_, err := w.Write(append(data, '\n'))
			return err
		})
	}
	if err != nil {
		batch.Abort()
		return fail(err)
	}
	if err := batch.Commit(); err != nil {
		return nil, err
	}
	return m, nil
}

// lockDatasetDir takes a shared lock on dir (flock on the directory
// itself: nothing is added to it) for as long as a WriteDataset writes
// there. A run that gets the lock exclusively first knows that no other
// run is writing there, and removes the temporary files killed runs left
// (RemoveStaleTemps). Where directories cannot be locked (some network
// file systems), nothing is removed and nothing is locked.
func lockDatasetDir(dir string) (unlock func(), err error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("clrs: %w", err)
	}
	alone, lerr := flock.TryLock(d)
	if lerr != nil {
		d.Close()
		return func() {}, nil
	}
	if alone {
		if err := RemoveStaleTemps(dir); err != nil {
			d.Close()
			return nil, err
		}
	}
	// Shared from here on: other runs into dir may write too (the last
	// to commit wins, file by file), but none removes this run's files.
	if err := flock.Share(d); err != nil {
		d.Close()
		return func() {}, nil
	}
	return func() { d.Close() }, nil
}

// RemoveStaleTemps removes from dir the temporary files of WriteDataset
// (.ALGO_SPLIT.npz.tmp-* or .ALGO_NAME.npz.tmp-* for a setting's NAME, and
// .manifest.json.tmp-*), which a run killed
// before it could clean up (SIGKILL, a power cut) leaves behind. It must
// not run while a WriteDataset writes into dir; WriteDataset calls it
// when it knows none does.
func RemoveStaleTemps(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("clrs: %w", err)
	}
	var errs []error
	for _, e := range ents {
		if e.Type().IsRegular() && isDatasetTemp(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("clrs: removing the temporary files of an earlier run: %w", err)
	}
	return nil
}

// isDatasetTemp reports whether name is a temporary file of WriteDataset:
// fsutil's ".NAME.tmp-RANDOM" for NAME an ALGO_SPLIT.npz or manifest.json.
func isDatasetTemp(name string) bool {
	base, _, ok := strings.Cut(strings.TrimPrefix(name, "."), ".tmp-")
	if !ok || !strings.HasPrefix(name, ".") {
		return false
	}
	if base == "manifest.json" {
		return true
	}
	stem, ok := strings.CutSuffix(base, ".npz")
	if !ok {
		return false
	}
	// ALGO_NAME: a known algorithm, then an official split or a setting's
	// name (checkSettingName's alphabet).
	for algo := range Specs {
		if name, ok := strings.CutPrefix(stem, algo+"_"); ok {
			if slices.Contains(SplitNames, name) || checkSettingName(name) == nil {
				return true
			}
		}
	}
	return false
}

// largestFirst orders n items by decreasing size (the first among
// equals first), computing the sizes on every CPU.
func largestFirst(n int, size func(i int) (int64, error)) ([]int, error) {
	sizes := make([]int64, n)
	errs := make([]error, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				sizes[i], errs[i] = size(i)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[b], sizes[a]) })
	return order, nil
}

// SettingName is the name WriteDataset gives a setting of one's own that
// has none: "n16_s1" for length 16, seed 1.
func SettingName(length int, seed int64) string { return fmt.Sprintf("n%d_s%d", length, seed) }

// checkSettingName accepts names that make a plain file name ALGO_NAME.npz
// and cannot be mistaken for an official split.
func checkSettingName(name string) error {
	ok := name != "" && len(name) <= 64
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("clrs: setting name %q: want 1 to 64 letters, digits, '-' or '_'", name)
	}
	if slices.Contains(SplitNames, name) {
		return fmt.Errorf("clrs: setting name %q is an official split's; a file of another setting needs another name", name)
	}
	return nil
}

// paramsMap is kwargs as the manifest records them (nil when none).
func paramsMap(kw []Param) map[string]any {
	if len(kw) == 0 {
		return nil
	}
	m := make(map[string]any, len(kw))
	for _, p := range kw {
		m[p.Name] = p.Value
	}
	return m
}

// estimateFileBytes guesses the size of an algorithm's file at a setting
// from four samples drawn apart from it (another seed), the longest
// standing for every sample: the files are sampled largest first, so that
// the last ones to be written are small and every CPU stays busy to the
// end.
func estimateFileBytes(algo string, set Split, kw []Option) (int64, error) {
	seed := set.Seed + 1000
	if seed > 1<<32-1 {
		seed = set.Seed - 1000
	}
	s, err := NewSampler(algo, append(slices.Clone(kw), Length(set.Length), Seed(seed), NumSamples(4), Workers(1))...)
	if err != nil {
		return 0, err
	}
	var per int64
	for _, t := range s.Trajectories() {
		per = max(per, trajectoryValues(t))
	}
	return 8 * per * int64(set.NumSamples), nil
}

// trajectoryValues counts the values of a trajectory's inputs, hints and
// outputs.
func trajectoryValues(t *Trajectory) int64 {
	var n int64
	for _, list := range [][]DataPoint{t.Inputs, t.Hints, t.Outputs} {
		for _, d := range list {
			n += int64(len(d.Data))
		}
	}
	return n
}

// SampleBytes returns the bytes of one sample of algo at length, as
// float64 arrays: its inputs, hints and outputs, drawn with opts and seed.
// Up to length 32 one sample is measured; above, samples of lengths 16 and
// 32 are measured and the size extrapolated with their growth exponent (n³
// for floyd_warshall), so that sizing a large request never allocates it.
// Callers multiply it by a sample count to check a request against the
// memory they are willing to use before drawing anything.
func SampleBytes(algo string, length int, seed int64, opts ...Option) (float64, error) {
	measure := func(n int) (float64, error) {
		s, err := NewSampler(algo, append(opts, Length(n), Seed(seed), NumSamples(1))...)
		if err != nil {
			return 0, err
		}
		fb, err := s.Dataset()
		if err != nil {
			return 0, err
		}
		total := 0
		for _, list := range [][]DataPoint{fb.Inputs, fb.Hints, fb.Outputs} {
			for _, d := range list {
				total += len(d.Data)
			}
		}
		return float64(8 * total), nil
	}
	const lo, hi = 16, 32
	if length <= hi {
		return measure(length)
	}
	b1, err := measure(lo)
	if err != nil {
		return 0, err
	}
	b2, err := measure(hi)
	if err != nil {
		return 0, err
	}
	k := math.Log(b2/b1) / math.Log(float64(hi)/lo)
	k = max(1, min(4, k))
	return b2 * math.Pow(float64(length)/hi, k), nil
}

// writeQueue hands sampled files to writers, the one with the most bytes
// first. push waits while limit files are waiting.
type writeQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	limit   int
	waiting map[int]*SplitFile
	closed  bool // nothing more will be pushed
	failed  bool // a writer failed: nothing more is written
}

func newWriteQueue(limit int) *writeQueue {
	q := &writeQueue{limit: limit, waiting: map[int]*SplitFile{}}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// push queues file i; it reports false if writing has failed.
func (q *writeQueue) push(i int, f *SplitFile) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.waiting) >= q.limit && !q.failed {
		q.cond.Wait()
	}
	if q.failed {
		return false
	}
	q.waiting[i] = f
	q.cond.Broadcast()
	return true
}

// pop takes the waiting file with the most bytes (the lowest index among
// equals), waiting for one; ok is false when there is none left to write.
func (q *writeQueue) pop() (i int, f *SplitFile, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.waiting) == 0 && !q.closed && !q.failed {
		q.cond.Wait()
	}
	if q.failed || len(q.waiting) == 0 {
		return 0, nil, false
	}
	i = -1
	for j, g := range q.waiting {
		if i < 0 || g.Bytes() > f.Bytes() || (g.Bytes() == f.Bytes() && j < i) {
			i, f = j, g
		}
	}
	delete(q.waiting, i)
	q.cond.Broadcast()
	return i, f, true
}

func (q *writeQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}

func (q *writeQueue) fail() {
	q.mu.Lock()
	q.failed = true
	q.cond.Broadcast()
	q.mu.Unlock()
}
