package dsr

import (
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
)

// rng is the seeded random source of the generators. It draws from a PCG
// (math/rand/v2's PCG-DXSM, whose output is fixed by its algorithm) through
// narlab's own derivations below, so a (seed, task, level, variant, index)
// always yields the same instance, whatever the Go release.
type rng struct{ src *rand.PCG }

// newRNG returns the source for one instance: the user's seed and a stream
// derived from what identifies the instance, so instance i does not depend
// on how many instances are generated.
func newRNG(seed uint64, key string, index int) *rng {
	h := fnv.New64a()
	h.Write([]byte(key))
	stream := h.Sum64() ^ (uint64(index) * 0x9e3779b97f4a7c15)
	return &rng{src: rand.NewPCG(seed, stream)}
}

// intn returns a uniform int in [0, n) (Lemire's multiply-and-reject).
func (r *rng) intn(n int) int {
	if n <= 0 {
		return 0
	}
	un := uint64(n)
	for {
		x := r.src.Uint64()
		hi, lo := bits.Mul64(x, un)
		if lo < un {
			thresh := -un % un
			if lo < thresh {
				continue
			}
		}
		return int(hi)
	}
}

// between returns a uniform int in [lo, hi] (like Python's randint).
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// float returns a uniform float64 in [0, 1) with 53 random bits.
func (r *rng) float() float64 { return float64(r.src.Uint64()>>11) / (1 << 53) }

// normal returns a standard normal draw (Box–Muller).
func (r *rng) normal() float64 {
	u1 := 1 - r.float() // (0, 1]
	u2 := r.float()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// chance returns true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// shuffle permutes xs uniformly (Fisher–Yates).
func shuffle[T any](r *rng, xs []T) {
	for i := len(xs) - 1; i > 0; i-- {
		j := r.intn(i + 1)
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// sample returns k distinct ints from [lo, hi] in random order.
func (r *rng) sample(lo, hi, k int) []int {
	pool := make([]int, hi-lo+1)
	for i := range pool {
		pool[i] = lo + i
	}
	shuffle(r, pool)
	if k > len(pool) {
		k = len(pool)
	}
	return pool[:k]
}

// pick returns a uniform element of xs (xs must be non-empty).
func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

// letters returns n uniform lowercase letters.
func (r *rng) letters(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.intn(26))
	}
	return string(b)
}
