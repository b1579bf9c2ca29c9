package clrs

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/narlab/narlab/lib/clrs/internal/refmath"
	"github.com/narlab/narlab/lib/nprand"
)

// A Sampler draws random inputs for one algorithm from a seeded numpy
// RandomState, exactly as the reference sampler of the same class, seed and
// parameters, and runs the algorithm on them.
//
// Like the reference, a sampler built with NumSamples(k), k >= 0,
// generates all k trajectories up front (Dataset returns them in order;
// Next(b) draws b of them with replacement from the same random stream),
// and one built with a negative NumSamples generates fresh samples on
// every call to Next (after burning 1000 samples to estimate the longest
// trajectory when TrackMaxSteps is on, as the reference does).
type Sampler struct {
	def      *algorithmDef
	length   int
	seed     int64
	kw       map[string]any
	decimals int
	num      int
	track    bool
	workers  int
	progress func(done, total int)

	rng      *nprand.State
	data     []*Trajectory
	maxSteps int
}

type samplerConfig struct {
	length   int
	seed     int64
	kw       map[string]any
	decimals int
	num      int
	track    bool
	workers  int
	progress func(done, total int)
}

// Option configures a Sampler.
type Option func(*samplerConfig) error

// Length sets the reference's `length` argument: the number of nodes for
// most algorithms (optimal_bst has length+1 nodes; segments_intersect always
// has 4; string algorithms count both strings). Default 16.
func Length(n int) Option {
	return func(c *samplerConfig) error {
		if n < 1 {
			return fmt.Errorf("length must be at least 1, got %d", n)
		}
		c.length = n
		return nil
	}
}

// Seed sets the RandomState seed, an integer in [0, 2**32-1]. Default 0.
func Seed(seed int64) Option {
	return func(c *samplerConfig) error {
		if seed < 0 || seed > 1<<32-1 {
			return fmt.Errorf("seed must be in [0, 2**32-1], got %d", seed)
		}
		c.seed = seed
		return nil
	}
}

// NumSamples sets how many trajectories are generated up front; a negative
// value (the default, -1) samples on the fly.
func NumSamples(n int) Option {
	return func(c *samplerConfig) error { c.num = n; return nil }
}

// TrackMaxSteps, for on-the-fly samplers, pads every batch to the longest
// trajectory seen so far, starting from an estimate over 1000 burned
// samples. Default true, as in the reference.
func TrackMaxSteps(on bool) Option {
	return func(c *samplerConfig) error { c.track = on; return nil }
}

// TruncateDecimals truncates every real-valued input to k decimals before
// the algorithm runs (the reference's truncate_decimals). Default: off.
func TruncateDecimals(k int) Option {
	return func(c *samplerConfig) error {
		if k < 1 {
			return fmt.Errorf("truncate decimals must be at least 1, got %d", k)
		}
		c.decimals = k
		return nil
	}
}

// P sets the edge probabilities of graph samplers; one is chosen at random
// per sample when several are given (a single value draws nothing).
func P(ps ...float64) Option { return Kwarg("p", ps) }

// Kwarg sets a sampler parameter by its reference name (for example "low",
// "high", "length_needle", "k", "eps", "radius"). SamplerParams lists
// each algorithm's parameters and defaults.
func Kwarg(name string, value any) Option {
	return func(c *samplerConfig) error {
		if c.kw == nil {
			c.kw = map[string]any{}
		}
		c.kw[name] = value
		return nil
	}
}

// Workers sets how many goroutines run the algorithm on drawn inputs while
// generating (default GOMAXPROCS). Drawing stays sequential, so the result
// does not depend on it.
func Workers(n int) Option {
	return func(c *samplerConfig) error {
		if n < 1 {
			return fmt.Errorf("workers must be at least 1, got %d", n)
		}
		c.workers = n
		return nil
	}
}

// Progress registers a callback called as pre-generated trajectories
// complete (done of total).
func Progress(fn func(done, total int)) Option {
	return func(c *samplerConfig) error { c.progress = fn; return nil }
}

// NewSampler builds a sampler for an algorithm.
func NewSampler(algo string, opts ...Option) (*Sampler, error) {
	s, err := newSampler(algo, opts)
	if err != nil {
		return nil, err
	}
	if s.num >= 0 {
		s.data, err = s.generate(s.num, s.progress, nil)
		if err != nil {
			return nil, err
		}
	} else if s.track {
		burn, err := s.generate(1000, nil, nil)
		if err != nil {
			return nil, err
		}
		for _, t := range burn {
			s.maxSteps = max(s.maxSteps, t.Length)
		}
	}
	return s, nil
}

// newSampler builds a sampler that has generated nothing yet.
func newSampler(algo string, opts []Option) (*Sampler, error) {
	def, err := lookup(algo)
	if err != nil {
		return nil, err
	}
	cfg := samplerConfig{length: 16, num: -1, track: true, workers: runtime.GOMAXPROCS(0)}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, fmt.Errorf("clrs: %s sampler: %w", algo, err)
		}
	}
	kw, err := def.sampler.resolve(cfg.kw)
	if err != nil {
		return nil, fmt.Errorf("clrs: %s sampler: %w", algo, err)
	}
	s := &Sampler{
		def: def, length: cfg.length, seed: cfg.seed, kw: kw, decimals: cfg.decimals,
		num: cfg.num, track: cfg.track, workers: cfg.workers, progress: cfg.progress,
		rng: nprand.New(cfg.seed),
	}
	return s, nil
}

// Algorithm returns the sampled algorithm's name.
func (s *Sampler) Algorithm() string { return s.def.name }

// Spec returns the algorithm's spec.
func (s *Sampler) Spec() Spec { return Specs[s.def.name] }

// Params returns the sampler parameters in effect (defaults included),
// keyed by their reference names, plus "length", "seed", "num_samples"
// and, when set, "truncate_decimals": everything needed to rebuild the
// same sampler.
func (s *Sampler) Params() map[string]any {
	out := map[string]any{"length": s.length, "seed": s.seed, "num_samples": s.num}
	if s.decimals > 0 {
		out["truncate_decimals"] = s.decimals
	}
	for k, v := range s.kw {
		out[k] = v
	}
	return out
}

// Sample draws one fresh input from the random stream and runs the
// algorithm on it.
func (s *Sampler) Sample() (*Trajectory, error) {
	ts, err := s.generate(1, nil, nil)
	if err != nil {
		return nil, err
	}
	return ts[0], nil
}

// Dataset returns every pre-generated trajectory, batched in generation
// order (the reference's next() with no batch size). It is an error for an
// on-the-fly sampler.
func (s *Sampler) Dataset() (*Feedback, error) {
	if s.num < 0 {
		return nil, fmt.Errorf("clrs: %s: Dataset needs a sampler built with NumSamples >= 0", s.def.name)
	}
	if s.num == 0 {
		return nil, fmt.Errorf("clrs: %s: the sampler holds no samples", s.def.name)
	}
	return Batch(s.data, 0)
}

// Trajectories returns the pre-generated trajectories (shared, not copied).
func (s *Sampler) Trajectories() []*Trajectory { return s.data }

// Next returns a batch of batchSize trajectories, as the reference's
// next(batch_size): drawn with replacement from the pre-generated set, or
// freshly sampled (padded to the longest trajectory seen when tracking).
func (s *Sampler) Next(batchSize int) (*Feedback, error) {
	if batchSize < 1 {
		return nil, fmt.Errorf("clrs: %s: batch size must be at least 1, got %d", s.def.name, batchSize)
	}
	if s.num >= 0 {
		if batchSize > s.num {
			return nil, fmt.Errorf("clrs: %s: batch size %d > dataset size %d", s.def.name, batchSize, s.num)
		}
		picked := make([]*Trajectory, batchSize)
		for i := range picked {
			picked[i] = s.data[s.rng.Intn(s.num)]
		}
		// The reference subsamples its already batched dataset, so the
		// hints keep the whole dataset's number of steps.
		steps := 0
		for _, t := range s.data {
			steps = max(steps, t.Length)
		}
		return Batch(picked, steps)
	}
	ts, err := s.generate(batchSize, nil, nil)
	if err != nil {
		return nil, err
	}
	minSteps := 0
	if s.track {
		minSteps = s.maxSteps
	}
	fb, err := Batch(ts, minSteps)
	if err != nil {
		return nil, err
	}
	if s.track {
		s.maxSteps = max(s.maxSteps, fb.MaxSteps())
	}
	return fb, nil
}

// generate draws n inputs in order, then runs the algorithm on them with
// up to s.workers goroutines. With deltas, each sample's hints are moved
// there by the goroutine that ran it.
func (s *Sampler) generate(n int, progress func(done, total int), deltas *hintDeltas) ([]*Trajectory, error) {
	d := &draw{rng: s.rng, length: s.length, kw: s.kw, decimals: s.decimals}
	drawOne := func() (Args, error) {
		a, err := s.def.sampler.draw(d)
		if err != nil {
			return nil, fmt.Errorf("clrs: %s sampler: %w", s.def.name, err)
		}
		return d.truncate(a), nil
	}
	out := make([]*Trajectory, n)
	errs := make([]error, n)
	runOne := func(i int, a Args) {
		out[i], errs[i] = s.def.run(a)
		if deltas != nil && errs[i] == nil {
			deltas.add(i, out[i])
		}
	}
	workers := min(s.workers, n)
	if workers <= 1 {
		args := make([]Args, n)
		for i := range args {
			var err error
			if args[i], err = drawOne(); err != nil {
				return nil, err
			}
		}
		for i, a := range args {
			runOne(i, a)
			if progress != nil {
				progress(i+1, n)
			}
		}
	} else {
		// The inputs are drawn in order, here, while the workers run the
		// algorithm on those already drawn.
		type drawn struct {
			i int
			a Args
		}
		next := make(chan drawn, n)
		var wg sync.WaitGroup
		var mu sync.Mutex
		done := 0
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for x := range next {
					runOne(x.i, x.a)
					if progress != nil {
						mu.Lock()
						done++
						progress(done, n)
						mu.Unlock()
					}
				}
			}()
		}
		var drawErr error
		for i := range n {
			a, err := drawOne()
			if err != nil {
				drawErr = err
				break
			}
			next <- drawn{i, a}
		}
		close(next)
		wg.Wait()
		if drawErr != nil {
			return nil, drawErr
		}
	}
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("clrs: %s: sample %d: %w", s.def.name, i, err)
		}
	}
	return out, nil
}

// SamplerParams returns the name of the reference sampler class an
// algorithm uses and its parameters with their defaults (nil for None).
func SamplerParams(algo string) (class string, params map[string]any, err error) {
	def, err := lookup(algo)
	if err != nil {
		return "", nil, err
	}
	params = map[string]any{}
	for _, p := range def.sampler.params {
		params[p.name] = p.def
	}
	return def.sampler.name, params, nil
}

// samplerKind is one of the reference's sampler classes.
type samplerKind struct {
	name   string
	params []param
	draw   func(d *draw) (Args, error)
}

// param is one keyword argument of a sampler class, with its default. The
// default's type fixes the accepted type: float64, int, []float64 (a
// tuple), or optInt (an int or None).
type param struct {
	name string
	def  any
}

// optInt marks an optional integer parameter whose default is None.
type optInt struct{}

func (k *samplerKind) resolve(given map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for _, p := range k.params {
		if _, isOpt := p.def.(optInt); isOpt {
			out[p.name] = nil
		} else {
			out[p.name] = p.def
		}
	}
	names := make([]string, len(k.params))
	for i, p := range k.params {
		names[i] = p.name
	}
	for name, v := range given {
		i := slices.IndexFunc(k.params, func(p param) bool { return p.name == name })
		if i < 0 {
			accepted := "none"
			if len(names) > 0 {
				accepted = strings.Join(names, ", ")
			}
			return nil, fmt.Errorf("%s has no parameter %q (accepted: %s)", k.name, name, accepted)
		}
		cv, err := coerceParam(v, k.params[i].def)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", name, err)
		}
		out[name] = cv
	}
	return out, nil
}

func coerceParam(v any, def any) (any, error) {
	switch def.(type) {
	case float64:
		switch x := v.(type) {
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("got %v; want a finite number", x)
			}
			return x, nil
		case int:
			return float64(x), nil
		}
		return nil, fmt.Errorf("got %T; want a number", v)
	case int, optInt:
		switch x := v.(type) {
		case nil:
			if _, ok := def.(optInt); ok {
				return nil, nil
			}
		case int:
			return x, nil
		case float64:
			if x == math.Trunc(x) {
				return int(x), nil
			}
		}
		return nil, fmt.Errorf("got %v; want an integer", v)
	case []float64:
		var ps []float64
		switch x := v.(type) {
		case []float64:
			ps = slices.Clone(x)
		case float64:
			ps = []float64{x}
		default:
			return nil, fmt.Errorf("got %T; want a list of probabilities", v)
		}
		if len(ps) == 0 {
			return nil, fmt.Errorf("want at least one probability")
		}
		for _, p := range ps {
			if !(p >= 0 && p <= 1) {
				return nil, fmt.Errorf("probability %v is outside [0, 1]", p)
			}
		}
		return ps, nil
	}
	return nil, fmt.Errorf("unsupported parameter type %T", def)
}

// draw holds the state a sampler class draws from.
type draw struct {
	rng      *nprand.State
	length   int
	kw       map[string]any
	decimals int
}

func (d *draw) float(name string) float64 { return d.kw[name].(float64) }
func (d *draw) integer(name string) int   { return d.kw[name].(int) }
func (d *draw) optInt(name string) (int, bool) {
	v, ok := d.kw[name].(int)
	return v, ok
}

// choiceP draws the edge probability: numpy's choice over the tuple, which
// draws nothing when it has one element.
func (d *draw) choiceP() float64 {
	ps := d.kw["p"].([]float64)
	return ps[d.rng.Intn(len(ps))]
}

// truncate applies the reference's _trunc_array to real-valued arguments.
func (d *draw) truncate(a Args) Args {
	if d.decimals <= 0 {
		return a
	}
	for i, v := range a {
		switch x := v.(type) {
		case []float64:
			a[i] = truncSlice(x, d.decimals)
		case float64:
			a[i] = truncFloat(x, d.decimals)
		case Matrix:
			if !x.Int {
				a[i] = Matrix{N: x.N, Data: truncSlice(x.Data, d.decimals)}
			}
		}
	}
	return a
}

func truncSlice(x []float64, k int) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = truncFloat(v, k)
	}
	return out
}

// truncFloat is numpy's trunc(x * 10**k) / 10**k.
func truncFloat(x float64, k int) float64 {
	scale := math.Pow10(k)
	return math.Trunc(float64(x*scale)) / scale
}

// erGraph is the reference's _random_er_graph.
func (d *draw) erGraph(n int, p float64, directed, acyclic, weighted bool, low, high float64) Matrix {
	m := NewMatrix(n)
	d.rng.BernoulliFill(p, m.Data)
	if !directed {
		// m ∘ mᵀ, in place: the product is the same both ways.
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := m.Data[i*n+j] * m.Data[j*n+i]
				m.Data[i*n+j], m.Data[j*n+i] = v, v
			}
		}
	} else if acyclic {
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				m.Data[i*n+j] = 0
			}
		}
		m = permuteMatrix(m, d.rng.Permutation(n))
	}
	if !weighted {
		m.Int = true
		return m
	}
	w := d.rng.UniformN(low, high, n*n)
	if !directed {
		// sqrt(w ∘ wᵀ + 0.001), in place: the product is the same both ways.
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				v := math.Sqrt(w[i*n+j]*w[j*n+i] + 1e-3)
				w[i*n+j], w[j*n+i] = v, v
			}
		}
	}
	for i := range m.Data {
		m.Data[i] *= w[i]
	}
	return m
}

// permuteMatrix returns m[p, :][:, p].
func permuteMatrix(m Matrix, p []int) Matrix {
	n := m.N
	out := NewMatrix(n)
	out.Int = m.Int
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			out.Data[i*n+j] = m.Data[p[i]*n+p[j]]
		}
	}
	return out
}

// communityGraph is the reference's _random_community_graph for the
// unweighted case it is used with (strongly connected components).
func (d *draw) communityGraph(n, k int, p, eps float64, directed, acyclic bool) (Matrix, error) {
	if k > n {
		return Matrix{}, fmt.Errorf("cannot generate a graph of %d communities on %d nodes", k, n)
	}
	mat := NewMatrix(n)
	los, his := make([]int, k), make([]int, k)
	lo := 0
	for i := 0; i < k; i++ {
		hi := lo + n/k
		if i == k-1 {
			hi = n
		}
		block := d.erGraph(hi-lo, p, directed, acyclic, false, 0, 1)
		for r := 0; r < hi-lo; r++ {
			for c := 0; c < hi-lo; c++ {
				mat.Data[(lo+r)*n+lo+c] = block.Data[r*block.N+c]
			}
		}
		los[i], his[i] = lo, hi
		lo = hi
	}
	toggle := d.erGraph(n, eps, directed, acyclic, false, 0, 1)
	for i := 0; i < k; i++ {
		for j := 0; j < i; j++ {
			for r := los[i]; r < his[i]; r++ {
				for c := los[j]; c < his[j]; c++ {
					toggle.Data[r*n+c] = 0
				}
			}
		}
	}
	for i, t := range toggle.Data {
		if t > 0 {
			present := 0.0
			if mat.Data[i] > 0 {
				present = 1
			}
			mat.Data[i] = (1 - present) * t
		}
	}
	return permuteMatrix(mat, d.rng.Permutation(n)), nil
}

// pairwiseSum is numpy's pairwise summation of a contiguous float64 array
// (the order np.sum adds in), so that normalised probabilities match the
// reference bit for bit.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, v := range a {
			res += v
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for k := 0; k < 8; k++ {
				r[k] += a[i+k]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
	}
}

var (
	lowHigh01 = []param{{"low", 0.0}, {"high", 1.0}}

	sortingSampler = &samplerKind{name: "SortingSampler", params: lowHigh01,
		draw: func(d *draw) (Args, error) {
			return Args{d.rng.UniformN(d.float("low"), d.float("high"), d.length)}, nil
		}}

	searchSampler = &samplerKind{name: "SearchSampler", params: lowHigh01,
		draw: func(d *draw) (Args, error) {
			arr := d.rng.UniformN(d.float("low"), d.float("high"), d.length)
			sort.Float64s(arr)
			x := d.rng.Uniform(d.float("low"), d.float("high"))
			return Args{x, arr}, nil
		}}

	maxSubarraySampler = &samplerKind{name: "MaxSubarraySampler", params: []param{{"low", -1.0}, {"high", 1.0}},
		draw: func(d *draw) (Args, error) {
			return Args{d.rng.UniformN(d.float("low"), d.float("high"), d.length)}, nil
		}}

	lcsSampler = &samplerKind{name: "LCSSampler", params: []param{{"length_2", optInt{}}, {"chars", 4}},
		draw: func(d *draw) (Args, error) {
			n := d.length
			m, ok := d.optInt("length_2")
			if !ok {
				m = n / 2
				n -= m
			}
			chars := d.integer("chars")
			if chars < 1 || n < 1 || m < 1 {
				return nil, fmt.Errorf("lcs_length needs two non-empty strings over at least one character (got lengths %d and %d, %d chars)", n, m, chars)
			}
			a := d.rng.RandIntN(0, chars, n)
			b := d.rng.RandIntN(0, chars, m)
			return Args{a, b}, nil
		}}

	optimalBSTSampler = &samplerKind{name: "OptimalBSTSampler",
		draw: func(d *draw) (Args, error) {
			n := d.length
			arr := d.rng.UniformN(0, 1, 2*n+1)
			total := pairwiseSum(arr)
			for i := range arr {
				arr[i] /= total
			}
			return Args{slices.Clone(arr[:n]), slices.Clone(arr[n:])}, nil
		}}

	activitySampler = &samplerKind{name: "ActivitySampler", params: lowHigh01,
		draw: func(d *draw) (Args, error) {
			a := d.rng.UniformN(d.float("low"), d.float("high"), d.length)
			b := d.rng.UniformN(d.float("low"), d.float("high"), d.length)
			s, f := make([]float64, len(a)), make([]float64, len(a))
			for i := range a {
				s[i], f[i] = math.Min(a[i], b[i]), math.Max(a[i], b[i])
			}
			return Args{s, f}, nil
		}}

	taskSampler = &samplerKind{name: "TaskSampler", params: []param{{"max_deadline", optInt{}}, {"low", 0.0}, {"high", 1.0}},
		draw: func(d *draw) (Args, error) {
			maxD, ok := d.optInt("max_deadline")
			if !ok {
				maxD = d.length
			}
			if maxD < 1 {
				return nil, fmt.Errorf("max_deadline must be at least 1, got %d", maxD)
			}
			dl := d.rng.RandIntN(0, maxD, d.length)
			for i := range dl {
				dl[i]++
			}
			w := d.rng.UniformN(d.float("low"), d.float("high"), d.length)
			return Args{dl, w}, nil
		}}
)

// graphSampler builds the ER-graph sampler classes.
func graphSampler(name string, defP float64, directed, acyclic, weighted, source bool) *samplerKind {
	params := []param{{"p", []float64{defP}}}
	if weighted {
		params = append(params, lowHigh01...)
	}
	return &samplerKind{name: name, params: params, draw: func(d *draw) (Args, error) {
		low, high := 0.0, 1.0
		if weighted {
			low, high = d.float("low"), d.float("high")
		}
		g := d.erGraph(d.length, d.choiceP(), directed, acyclic, weighted, low, high)
		if !source {
			return Args{g}, nil
		}
		return Args{g, d.rng.Intn(d.length)}, nil
	}}
}

var (
	dfsSampler          = graphSampler("DfsSampler", 0.5, true, false, false, false)
	bfsSampler          = graphSampler("BfsSampler", 0.5, false, false, false, true)
	topoSampler         = graphSampler("TopoSampler", 0.5, true, true, false, false)
	articulationSampler = graphSampler("ArticulationSampler", 0.2, false, false, false, false)
	mstSampler          = graphSampler("MSTSampler", 0.2, false, false, true, false)
	bellmanFordSampler  = graphSampler("BellmanFordSampler", 0.5, false, false, true, true)
	dagPathSampler      = graphSampler("DAGPathSampler", 0.5, true, true, true, true)
	floydSampler        = graphSampler("FloydWarshallSampler", 0.5, false, false, true, false)

	sccSampler = &samplerKind{name: "SccSampler", params: []param{{"k", 4}, {"p", []float64{0.5}}, {"eps", 0.01}},
		draw: func(d *draw) (Args, error) {
			p := d.choiceP()
			g, err := d.communityGraph(d.length, d.integer("k"), p, d.float("eps"), true, false)
			if err != nil {
				return nil, err
			}
			return Args{g}, nil
		}}

	matcherSampler = &samplerKind{name: "MatcherSampler", params: []param{{"length_needle", optInt{}}, {"chars", 4}},
		draw: func(d *draw) (Args, error) {
			n := d.length
			ln, ok := d.optInt("length_needle")
			switch {
			case !ok && n < 5:
				ln = 1
			case !ok:
				ln = n / 5
			case ln < 0:
				ln = d.rng.RandInt(1, 1-ln)
			case ln == 0:
				return nil, fmt.Errorf("length_needle must be non-zero")
			}
			lh := n - ln
			if lh-ln < 1 {
				return nil, fmt.Errorf("length %d leaves no room to embed a needle of length %d in a haystack of length %d", n, ln, lh)
			}
			chars := d.integer("chars")
			if chars < 1 {
				return nil, fmt.Errorf("chars must be at least 1, got %d", chars)
			}
			needle := d.rng.RandIntN(0, chars, ln)
			hay := d.rng.RandIntN(0, chars, lh)
			pos := d.rng.Intn(lh - ln)
			copy(hay[pos:pos+ln], needle)
			return Args{hay, needle}, nil
		}}

	segmentsSampler = &samplerKind{name: "SegmentsSampler", params: lowHigh01,
		draw: func(d *draw) (Args, error) {
			low, high := d.float("low"), d.float("high")
			coin := d.rng.Binomial(1, 0.5) == 1
			xs := d.rng.UniformN(low, high, 4)
			ys := d.rng.UniformN(low, high, 4)
			for quickIntersect(xs, ys) != coin {
				xs = d.rng.UniformN(low, high, 4)
				ys = d.rng.UniformN(low, high, 4)
			}
			return Args{xs, ys}, nil
		}}
)

var convexHullSampler = &samplerKind{name: "ConvexHullSampler",
	params: []param{{"origin_x", 0.0}, {"origin_y", 0.0}, {"radius", 2.0},
		{"collinearity_resampling_attempts", 1000}, {"collineararity_eps", 1e-12}},
	draw: func(d *draw) (Args, error) {
		n := d.length
		ox, oy, radius := d.float("origin_x"), d.float("origin_y"), d.float("radius")
		attempts, eps := d.integer("collinearity_resampling_attempts"), d.float("collineararity_eps")
		for range attempts {
			thetas := d.rng.UniformN(0, 2*math.Pi, n)
			u := d.rng.UniformN(0, 1, n)
			xs, ys := make([]float64, n), make([]float64, n)
			for i := range n {
				r := radius * math.Sqrt(u[i])
				xs[i] = float64(r*refmath.NumpyCos(thetas[i])) + ox
				ys[i] = float64(r*refmath.NumpySin(thetas[i])) + oy
			}
			if d.decimals > 0 {
				xs, ys = truncSlice(xs, d.decimals), truncSlice(ys, d.decimals)
			}
			if !anyCollinear(xs, ys, eps) {
				return Args{xs, ys}, nil
			}
		}
		return nil, fmt.Errorf("could not sample %d points without a collinear triple in %d attempts", n, attempts)
	}}

// anyCollinear reports whether some triple of points has a cross product
// smaller than eps in absolute value (the reference's _is_collinear).
func anyCollinear(xs, ys []float64, eps float64) bool {
	n := len(xs)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			for k := j + 1; k < n; k++ {
				v1x, v1y := xs[j]-xs[i], ys[j]-ys[i]
				v2x, v2y := xs[k]-xs[i], ys[k]-ys[i]
				if math.Abs(float64(v1x*v2y)-float64(v1y*v2x)) < eps {
					return true
				}
			}
		}
	}
	return false
}

// ccwQuick is the sampler's orientation test, ignoring collinearity.
func ccwQuick(xa, ya, xb, yb, xc, yc float64) bool {
	return float64((yc-ya)*(xb-xa)) > float64((yb-ya)*(xc-xa))
}

// quickIntersect is the rejection sampler's test of whether segment
// (0, 1) crosses segment (2, 3).
func quickIntersect(xs, ys []float64) bool {
	return ccwQuick(xs[0], ys[0], xs[2], ys[2], xs[3], ys[3]) != ccwQuick(xs[1], ys[1], xs[2], ys[2], xs[3], ys[3]) &&
		ccwQuick(xs[0], ys[0], xs[1], ys[1], xs[2], ys[2]) != ccwQuick(xs[0], ys[0], xs[1], ys[1], xs[3], ys[3])
}
