package jaxrand

import "math"

// FMA32 is the float32 fused multiply-add a·b + c with one rounding (to
// nearest, ties to even), as x86-64's vfmadd computes it.
func FMA32(a, b, c float32) float32 {
	p := float64(a) * float64(b) // exact: 24 + 24 significant bits
	s := p + float64(c)
	r := float32(s)
	// s is the exact sum rounded to float64. Rounding s to float32 gives
	// the exact sum's rounding except when s lies exactly halfway between
	// two float32 values and the float64 addition rounded: then the exact
	// sum is on the side of its rounding error.
	bb := s - p
	e := (p - (s - bb)) + (float64(c) - bb) // exact sum = s + e (TwoSum)
	if e == 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		return r
	}
	lo, hi := float32Neighbours(s)
	if float64(lo) == s || (float64(lo)+float64(hi))/2 != s {
		return r
	}
	if e > 0 {
		return hi
	}
	return lo
}

// float32Neighbours returns the float32 values just below and just above
// a float64 s (both equal to s when s is a float32).
func float32Neighbours(s float64) (lo, hi float32) {
	r := float32(s)
	switch {
	case float64(r) == s:
		return r, r
	case float64(r) < s:
		return r, math.Nextafter32(r, float32(math.Inf(1)))
	default:
		return math.Nextafter32(r, float32(math.Inf(-1))), r
	}
}

// The coefficients of the Cephes float32 logarithm that XLA's CPU backend
// evaluates (log(1+x) ≈ x − x²/2 + x³·P(x) on [√½−1, √2−1]).
var logP = [9]float32{
	7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1,
	-1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1,
	2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1,
}

const (
	minNormal = float32(1.17549435e-38) // float32's smallest normal number
	logQ1     = float32(-2.12194440e-4) // ln 2 = logQ2 + logQ1 (extra precision)
	logQ2     = float32(0.693359375)
	sqrtHalf  = float32(0.707106781186547524)
)

// Log32 is float32 natural logarithm as XLA's CPU backend (the one in
// jaxlib 0.4.38) computes jnp.log on an x86-64 CPU with FMA: frexp-style
// reduction of x to a mantissa m in [√½, √2) and exponent e, then
// ((m−1 − (m−1)²/2) + (P-polynomial·(m−1)³ + e·q1)) + e·q2 with the
// multiply-adds fused as LLVM contracts them. Some values (6 % of the
// fixture's, 14 % of logs of uniform [0, 1) values) are one unit in the
// last place away from the correctly rounded log; this function gives
// XLA's. Log32(0) = −Inf, Log32(+Inf) = +Inf, and
// a negative or NaN x gives NaN; a subnormal x gives −Inf, as XLA's CPU
// code treats denormals as zero.
func Log32(x float32) float32 {
	switch {
	case x == 0:
		return float32(math.Inf(-1))
	case math.IsInf(float64(x), 1):
		return x
	case !(x > 0):
		return float32(math.NaN())
	}
	if x < minNormal {
		// XLA's CPU code runs with denormals treated as zero.
		return float32(math.Inf(-1))
	}
	bits := math.Float32bits(x)
	e := 1 + float32(int32(bits>>23)-127)
	m := math.Float32frombits(bits&0x807FFFFF | 0x3F000000) // in [0.5, 1)
	var tmp float32
	if m < sqrtHalf {
		tmp = m
		e--
	}
	m = (m - 1) + tmp
	// Explicit conversions keep the compiler from fusing these products
	// into later additions (the Go spec allows it; XLA's code rounds them).
	x2 := float32(m * m)
	x3 := float32(x2 * m)
	y := FMA32(FMA32(m, logP[0], logP[1]), m, logP[2])
	y1 := FMA32(FMA32(m, logP[3], logP[4]), m, logP[5])
	y2 := FMA32(FMA32(m, logP[6], logP[7]), m, logP[8])
	y = FMA32(y, x3, y1)
	y = FMA32(y, x3, y2)
	y = FMA32(y, x3, float32(logQ1*e))
	r := FMA32(-0.5, x2, m) + y
	return FMA32(e, logQ2, r)
}
