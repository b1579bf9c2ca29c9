// Package jaxrand reproduces JAX's default random number generator bit for
// bit, as JAX 0.4.38 computes it on a CPU with the configuration
// dm-clrs runs under (jax_enable_x64 off, jax_threefry_partitionable off,
// both JAX 0.4.38's defaults).
//
// The CLRS reference model draws three kinds of randomness from JAX: the
// dropout masks of its processor's output (haiku's dropout: a Bernoulli
// draw per element), the per-sample teacher-forcing choice, and the Gumbel
// noise its permutation decoders add before the Sinkhorn iterations in
// training. Each draw takes a key that haiku's next_rng_key hands out from
// the key the training step was called with. This package implements the
// pieces a port needs to draw the same numbers from the same keys:
//
//   - Threefry-2x32, the counter-based hash behind every draw (Threefry2x32);
//   - keys: PRNGKey from an integer seed, Split into n keys, FoldIn;
//   - raw 32-bit random words (Bits32), uniform float32 values in [lo, hi)
//     (Uniform), Bernoulli draws (Bernoulli) and standard Gumbel values
//     (Gumbel), laid out in row-major order of the requested shape;
//   - Sequence, the key stream of haiku's PRNGSequence (hk.next_rng_key
//     inside a transformed function applied with a key);
//   - Log32, float32 log as XLA's CPU backend computes it (a Cephes-style
//     polynomial contracted into fused multiply-adds on x86-64 CPUs with
//     FMA), which Gumbel noise goes through.
//
// Every function is pure: keys are values, and the same key gives the same
// numbers. Key reuse, as in JAX, gives the same numbers again.
package jaxrand

import (
	"fmt"
	"math"
)

// Key is a raw JAX PRNG key: the two uint32 words of a threefry2x32 key
// (jax.random.PRNGKey's uint32[2] array, or a row of jax.random.split's
// result).
type Key [2]uint32

// String formats a key as JAX prints its raw array.
func (k Key) String() string { return fmt.Sprintf("[%d %d]", k[0], k[1]) }

// PRNGKey is jax.random.PRNGKey(seed) with 64-bit values disabled (JAX's
// default): the seed is taken as a 32-bit integer, so the key is
// [0, seed mod 2³²] for any integer seed (negative ones included), and
// seeds that differ by a multiple of 2³² give the same key.
func PRNGKey(seed int64) Key { return Key{0, uint32(seed)} }

// rotl rotates a 32-bit word left by d bits.
func rotl(x uint32, d uint) uint32 { return x<<d | x>>(32-d) }

// Threefry2x32 applies the Threefry-2x32 block cipher (20 rounds, JAX's
// rotation constants and key schedule) keyed by k to the pair (x0, x1).
func Threefry2x32(k Key, x0, x1 uint32) (uint32, uint32) {
	ks := [3]uint32{k[0], k[1], k[0] ^ k[1] ^ 0x1BD11BDA}
	rot := [2][4]uint{{13, 15, 26, 6}, {17, 29, 16, 24}}
	x0 += ks[0]
	x1 += ks[1]
	for i := 0; i < 5; i++ {
		for _, r := range rot[i%2] {
			x0 += x1
			x1 = rotl(x1, r)
			x1 ^= x0
		}
		x0 += ks[(i+1)%3]
		x1 += ks[(i+2)%3] + uint32(i+1)
	}
	return x0, x1
}

// hash is JAX's threefry_2x32(key, count) on a vector of counters: the
// counters, padded with one zero when their number is odd, are cut into a
// first and a second half, the halves are hashed pairwise, and the two
// output halves are joined (the pad's output dropped).
func hash(k Key, count []uint32) []uint32 {
	n := len(count)
	h := (n + 1) / 2
	at := func(i int) uint32 {
		if i < n {
			return count[i]
		}
		return 0
	}
	out := make([]uint32, 2*h)
	for i := 0; i < h; i++ {
		out[i], out[h+i] = Threefry2x32(k, at(i), at(h+i))
	}
	return out[:n]
}

// iota returns 0, 1, …, n−1 as uint32 counters.
func iota(n int) []uint32 {
	c := make([]uint32, n)
	for i := range c {
		c[i] = uint32(i)
	}
	return c
}

// Split is jax.random.split(key, n): n new keys.
func Split(k Key, n int) []Key {
	if n < 0 {
		panic(fmt.Sprintf("jaxrand: Split into %d keys", n))
	}
	bits := hash(k, iota(2*n))
	keys := make([]Key, n)
	for i := range keys {
		keys[i] = Key{bits[2*i], bits[2*i+1]}
	}
	return keys
}

// Split2 is the common `a, b = jax.random.split(key)`.
func Split2(k Key) (Key, Key) {
	ks := Split(k, 2)
	return ks[0], ks[1]
}

// FoldIn is jax.random.fold_in(key, data): a key derived from k and a
// 32-bit integer (JAX takes data modulo 2³²).
func FoldIn(k Key, data uint32) Key {
	b := hash(k, []uint32{0, data})
	return Key{b[0], b[1]}
}

// size is the number of elements of a shape; it panics on a negative
// dimension.
func size(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 {
			panic(fmt.Sprintf("jaxrand: negative dimension in shape %v", shape))
		}
		n *= d
	}
	return n
}

// maxCount is the largest number of counters JAX hashes under one key
// (uint32's maximum); larger draws split the key into blocks.
const maxCount = math.MaxUint32

// Bits32 is jax.random.bits(key, shape, uint32): one random 32-bit word
// per element of shape, in row-major order.
func Bits32(k Key, shape ...int) []uint32 {
	n := size(shape)
	if n < maxCount {
		return hash(k, iota(n))
	}
	// JAX hashes blocks of 2³²−1 counters under keys split from k, and
	// the rest under the last of them.
	blocks, rem := n/maxCount, n%maxCount
	keys := Split(k, blocks+1)
	out := make([]uint32, 0, n)
	for _, bk := range keys[:blocks] {
		out = append(out, hash(bk, iota(maxCount))...)
	}
	return append(out, hash(keys[blocks], iota(rem))...)
}

// unitFloat maps a random word to a float32 in [0, 1): its top 23 bits
// become the mantissa of a number in [1, 2), less one.
func unitFloat(b uint32) float32 {
	return math.Float32frombits(b>>9|0x3F800000) - 1
}

// Uniform is jax.random.uniform(key, shape, float32, lo, hi): values in
// [lo, hi), each max(lo, u·(hi−lo) + lo) for a unit value u in [0, 1)
// with 23 random bits, computed in float32.
func Uniform(k Key, lo, hi float32, shape ...int) []float32 {
	bits := Bits32(k, shape...)
	out := make([]float32, len(bits))
	scale := hi - lo
	for i, b := range bits {
		// u·scale + lo with one rounding, as XLA's CPU code contracts it
		// into a fused multiply-add; exact anyway when scale is 1.
		v := FMA32(unitFloat(b), scale, lo)
		out[i] = max(lo, v)
	}
	return out
}

// Bernoulli is jax.random.bernoulli(key, p, shape) for a float32 p: each
// element is true when its uniform [0, 1) value is below p.
func Bernoulli(k Key, p float32, shape ...int) []bool {
	u := Uniform(k, 0, 1, shape...)
	out := make([]bool, len(u))
	for i, x := range u {
		out[i] = x < p
	}
	return out
}

// Gumbel is jax.random.gumbel(key, shape, float32): −log(−log(u)) for u
// uniform in [tiny, 1), tiny being float32's smallest normal number, with
// XLA CPU's float32 log (Log32).
func Gumbel(k Key, shape ...int) []float32 {
	const tiny = float32(1.17549435e-38) // math.SmallestNormal of float32
	u := Uniform(k, tiny, 1, shape...)
	for i, x := range u {
		u[i] = -Log32(-Log32(x))
	}
	return u
}
