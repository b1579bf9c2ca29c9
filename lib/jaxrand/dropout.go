package jaxrand

import "fmt"

// Dropout is haiku's hk.dropout(key, rate, x) on a float32 array x of the
// given shape (row-major): each element is kept with probability 1 − rate
// (a Bernoulli draw with p = float32(1 − rate), the difference taken in
// float64 as Python does) and scaled by 1/keep rate; the others are zero.
// haiku divides by the keep rate, a constant, and XLA turns that division
// into a multiplication by the float32 reciprocal, whose rounding differs
// from the division's for about one value in four: this is XLA's
// product. Rate 0 returns a copy of x, as haiku does (the reference still
// takes a key for it).
func Dropout(k Key, rate float64, x []float32, shape ...int) []float32 {
	if rate < 0 || rate >= 1 {
		panic(fmt.Sprintf("jaxrand: dropout rate %v; want one in [0, 1)", rate))
	}
	if n := size(shape); n != len(x) {
		panic(fmt.Sprintf("jaxrand: dropout of %d values with shape %v", len(x), shape))
	}
	out := make([]float32, len(x))
	if rate == 0 {
		copy(out, x)
		return out
	}
	keepRate := float32(1 - rate)
	scale := 1 / keepRate
	for i, keep := range Bernoulli(k, keepRate, shape...) {
		if keep {
			out[i] = x[i] * scale
		}
	}
	return out
}
