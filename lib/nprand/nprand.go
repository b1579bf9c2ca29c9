// Package nprand reproduces numpy's legacy random number generator,
// numpy.random.RandomState, bit for bit.
//
// The CLRS reference samplers draw every random number from a
// RandomState seeded with an integer. A RandomState is the 32-bit Mersenne
// Twister (MT19937) plus a handful of conversion routines; this package
// implements the generator and exactly the conversions the samplers use:
// doubles in [0, 1) (random_sample, uniform), bounded integers by masked
// rejection (randint, choice over a range), Bernoulli draws by binomial
// inversion, and Fisher–Yates permutations. For the same seed and the same
// sequence of calls, every value equals numpy's to the last bit.
//
// A State is not safe for concurrent use.
package nprand

import (
	"fmt"
	"math"
)

const (
	mtN         = 624
	mtM         = 397
	matrixA     = 0x9908b0df
	upperMask   = 0x80000000
	lowerMask   = 0x7fffffff
	maxSeed     = 1<<32 - 1
	twoPow53Inv = 1.0 / 9007199254740992.0
)

// State is a numpy RandomState: an MT19937 stream and the conversions
// numpy's legacy API applies to it.
type State struct {
	mt  [mtN]uint32
	pos int
}

// New returns a RandomState seeded like numpy.random.RandomState(seed).
// numpy accepts integer seeds in [0, 2**32-1]; New panics outside that
// range (use NewChecked to get an error instead).
func New(seed int64) *State {
	s, err := NewChecked(seed)
	if err != nil {
		panic(err)
	}
	return s
}

// NewChecked is New with an error for seeds numpy would reject.
func NewChecked(seed int64) (*State, error) {
	if seed < 0 || seed > maxSeed {
		return nil, fmt.Errorf("nprand: seed %d out of range: numpy accepts integer seeds in [0, 2**32-1]", seed)
	}
	s := &State{}
	s.Seed(uint32(seed))
	return s, nil
}

// NewKey returns a RandomState seeded like numpy.random.RandomState(key)
// for a sequence of integers in [0, 2**32-1]: MT19937's init_by_array,
// which is also how Python's random.seed seeds an integer (so
// NewKey([]uint32{0}) starts with random.seed(0)'s random.random()).
// It panics for an empty key, which numpy rejects too.
func NewKey(key []uint32) *State {
	if len(key) == 0 {
		panic("nprand: NewKey needs a non-empty key (numpy rejects an empty seed array)")
	}
	s := &State{}
	s.Seed(19650218)
	mt := &s.mt
	i, j := 1, 0
	for k := max(mtN, len(key)); k > 0; k-- {
		prev := mt[i-1]
		mt[i] = (mt[i] ^ ((prev ^ (prev >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			mt[0] = mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := mtN - 1; k > 0; k-- {
		prev := mt[i-1]
		mt[i] = (mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			mt[0] = mt[mtN-1]
			i = 1
		}
	}
	mt[0] = 0x80000000
	s.pos = mtN
	return s
}

// Seed re-initialises the generator with MT19937's init_genrand, which is
// what numpy's legacy seeding does for an integer seed.
func (s *State) Seed(seed uint32) {
	s.mt[0] = seed
	for i := 1; i < mtN; i++ {
		prev := s.mt[i-1]
		s.mt[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	s.pos = mtN
}

func (s *State) regenerate() {
	mt := &s.mt
	var i int
	for i = 0; i < mtN-mtM; i++ {
		y := (mt[i] & upperMask) | (mt[i+1] & lowerMask)
		mt[i] = mt[i+mtM] ^ (y >> 1) ^ (-(y & 1) & matrixA)
	}
	for ; i < mtN-1; i++ {
		y := (mt[i] & upperMask) | (mt[i+1] & lowerMask)
		mt[i] = mt[i+(mtM-mtN)] ^ (y >> 1) ^ (-(y & 1) & matrixA)
	}
	y := (mt[mtN-1] & upperMask) | (mt[0] & lowerMask)
	mt[mtN-1] = mt[mtM-1] ^ (y >> 1) ^ (-(y & 1) & matrixA)
	s.pos = 0
}

// Uint32 returns the next raw 32-bit output of the Mersenne Twister.
func (s *State) Uint32() uint32 {
	if s.pos >= mtN {
		s.regenerate()
	}
	y := s.mt[s.pos]
	s.pos++
	return temper(y)
}

// RandomSample returns a double in [0, 1) built from two 32-bit outputs
// (53 random bits), as numpy's random_sample() does.
func (s *State) RandomSample() float64 {
	a := s.Uint32() >> 5
	b := s.Uint32() >> 6
	return (float64(a)*67108864.0 + float64(b)) * twoPow53Inv
}

// FillRandomSample fills dst with successive RandomSample draws, the
// values and the stream position of len(dst) calls, faster.
func (s *State) FillRandomSample(dst []float64) {
	for i := range dst {
		if s.pos+2 > mtN {
			dst[i] = s.RandomSample()
			continue
		}
		a := temper(s.mt[s.pos]) >> 5
		b := temper(s.mt[s.pos+1]) >> 6
		s.pos += 2
		dst[i] = (float64(a)*67108864.0 + float64(b)) * twoPow53Inv
	}
}

// Skip advances the stream by n raw 32-bit outputs (n/2 RandomSample
// draws for an even n) without computing them.
func (s *State) Skip(n int) {
	for n > 0 {
		if s.pos >= mtN {
			s.regenerate()
		}
		k := min(n, mtN-s.pos)
		s.pos += k
		n -= k
	}
}

func temper(y uint32) uint32 {
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// Uniform returns low + (high-low)*RandomSample(), numpy's uniform(low, high).
func (s *State) Uniform(low, high float64) float64 {
	scale := high - low
	return low + float64(scale*s.RandomSample())
}

// UniformN fills a new slice with n draws of Uniform(low, high), the order
// of numpy's uniform(low, high, size=n).
func (s *State) UniformN(low, high float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = s.Uniform(low, high)
	}
	return out
}

// Interval returns an integer uniformly drawn from [0, max] by masked
// rejection sampling: numpy's legacy bounded-integer routine, used by
// randint, choice and shuffle. Interval(0) consumes no randomness.
func (s *State) Interval(max uint64) uint64 {
	if max == 0 {
		return 0
	}
	mask := max
	mask |= mask >> 1
	mask |= mask >> 2
	mask |= mask >> 4
	mask |= mask >> 8
	mask |= mask >> 16
	mask |= mask >> 32
	if max <= math.MaxUint32 {
		for {
			v := uint64(s.Uint32()) & mask
			if v <= max {
				return v
			}
		}
	}
	for {
		hi := uint64(s.Uint32())
		lo := uint64(s.Uint32())
		v := (hi<<32 | lo) & mask
		if v <= max {
			return v
		}
	}
}

// Intn returns numpy's randint(0, n) (equivalently choice(n)): an integer
// in [0, n). n must be positive; Intn(1) consumes no randomness.
func (s *State) Intn(n int) int {
	if n <= 0 {
		panic(fmt.Sprintf("nprand: Intn(%d): high must be positive", n))
	}
	return int(s.Interval(uint64(n - 1)))
}

// RandInt returns numpy's randint(low, high): an integer in [low, high).
func (s *State) RandInt(low, high int) int {
	if high <= low {
		panic(fmt.Sprintf("nprand: RandInt(%d, %d): low >= high", low, high))
	}
	return low + int(s.Interval(uint64(high-low-1)))
}

// RandIntN returns n draws of RandInt(low, high) in numpy's order.
func (s *State) RandIntN(low, high, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = s.RandInt(low, high)
	}
	return out
}

// Bernoulli returns numpy's binomial(1, p): 0 or 1, drawn by the legacy
// inversion algorithm exactly as numpy runs it for n = 1 (including its
// rare redraw when rounding pushes the search past the bound).
func (s *State) Bernoulli(p float64) int {
	return s.Binomial(1, p)
}

// Binomial returns numpy's legacy binomial(n, p) for n*min(p, 1-p) <= 30,
// the inversion regime used by every CLRS sampler. It panics for the BTPE
// regime, which narlab does not need.
func (s *State) Binomial(n int, p float64) int {
	return newBinomialDraw(n, p).draw(s)
}

// binomialDraw holds what numpy's inversion algorithm derives from (n, p)
// alone. numpy caches the same values between calls with unchanged
// arguments; computing them once per matrix instead of once per draw
// changes no result (they are pure functions of n and p) and removes an
// exp and a log from every draw of a random graph.
type binomialDraw struct {
	n          int
	p, q, qn   float64
	bound      float64
	complement bool // p > 0.5: draw n - binomial(n, 1-p)
	zero       bool // n == 0 or p == 0
}

func newBinomialDraw(n int, p float64) binomialDraw {
	if n == 0 || p == 0 {
		return binomialDraw{zero: true}
	}
	d := binomialDraw{n: n, p: p}
	if p > 0.5 {
		d.complement, d.p = true, 1-p
	}
	if d.p*float64(n) > 30 {
		panic("nprand: Binomial in the BTPE regime is not implemented")
	}
	d.q = 1 - d.p
	d.qn = expLogPow(d.q, n)
	np := float64(n) * d.p
	d.bound = math.Min(float64(n), np+10*math.Sqrt(np*d.q+1))
	return d
}

func (d binomialDraw) draw(s *State) int {
	if d.zero {
		return 0
	}
	x := s.binomialInversion(d)
	if d.complement {
		return d.n - x
	}
	return x
}

func (s *State) binomialInversion(d binomialDraw) int {
	n, p, q, qn, bound := d.n, d.p, d.q, d.qn, d.bound
	x := 0
	px := qn
	u := s.RandomSample()
	for u > px {
		x++
		if float64(x) > bound {
			x = 0
			px = qn
			u = s.RandomSample()
		} else {
			u -= px
			px = (float64(n-x+1) * p * px) / (float64(x) * q)
		}
	}
	return x
}

// BernoulliMatrix returns binomial(1, p, size=(rows, cols)) in row-major order.
func (s *State) BernoulliMatrix(p float64, rows, cols int) []int {
	out := make([]int, rows*cols)
	d := newBinomialDraw(1, p)
	for i := range out {
		out[i] = d.draw(s)
	}
	return out
}

// BernoulliFill fills out with the draws of BernoulliMatrix(p, 1,
// len(out)), as 0 and 1, consuming the same randomness.
func (s *State) BernoulliFill(p float64, out []float64) {
	d := newBinomialDraw(1, p)
	for i := range out {
		out[i] = float64(d.draw(s))
	}
}

// Permutation returns numpy's permutation(n): arange(n) shuffled in place by
// Fisher–Yates from the last element down.
func (s *State) Permutation(n int) []int {
	a := make([]int, n)
	for i := range a {
		a[i] = i
	}
	for i := n - 1; i >= 1; i-- {
		j := int(s.Interval(uint64(i)))
		a[i], a[j] = a[j], a[i]
	}
	return a
}

// expLogPow returns exp(n·log(q)), the probability of zero successes that
// numpy's inversion starts from. numpy calls the C library's exp and log;
// Go's may differ from glibc's in the last bit, which can change a draw only
// when the uniform variate falls within one ulp of this threshold (an event
// of probability about 2^-53 per draw).
func expLogPow(q float64, n int) float64 {
	if n == 1 {
		return math.Exp(math.Log(q))
	}
	return math.Exp(float64(n) * math.Log(q))
}
