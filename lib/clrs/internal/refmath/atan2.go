package refmath

import "math"

// Constants of glibc's double-precision atan2 (values from glibc 2.36,
// sysdeps/ieee754/dbl-64/atnat2.h). Each multiple of π is split into its
// nearest double and the rounding remainder, so that the sum of the pair
// carries about 107 bits of π.
const (
	atanPi          float64 = 0x1.921fb54442d18p+1 // π rounded to double
	atanPiLo        float64 = 0x1.1a62633145c07p-53
	atanHalfPi      float64 = 0x1.921fb54442d18p+0
	atanHalfPiLo    float64 = 0x1.1a62633145c07p-54
	atanQuarterPi   float64 = 0x1.921fb54442d18p-1
	atanThreeQtrsPi float64 = 0x1.2d97c7f3321d2p+1

	// Odd minimax polynomial for atan(u) = u + u³·P(u²) on [0, 1/16).
	atanP3  float64 = -0x1.5555555555555p-2
	atanP5  float64 = 0x1.99999999997fdp-3
	atanP7  float64 = -0x1.24924923f7603p-3
	atanP9  float64 = 0x1.c71c6e5129a3bp-4
	atanP11 float64 = -0x1.7458022b13c25p-4
	atanP13 float64 = 0x1.375f08b31cbcep-4

	// Below this ratio the polynomial is used, above it atanTable.
	atanPolyLimit float64 = 0x1p-4

	// Operands whose binary exponents differ by atanExpGap or more give
	// a result that is a multiple of π/2 (or the plain quotient) without
	// any polynomial work.
	atanExpGap = 57

	// Operands beyond 2^±500 are brought nearer 1 by an exact power of
	// two, so that the error-free product below cannot underflow.
	atanScaleUp   float64 = 0x1p500
	atanScaleDown float64 = 0x1p-500
)

// pythonNaN is the quiet NaN CPython's math.atan2 returns for any NaN operand.
var pythonNaN = math.Float64frombits(0x7ff8000000000000)

// Atan2 returns math.atan2(y, x) exactly as Python computes it on x86-64
// Linux with glibc 2.36, on CPUs with FMA and AVX2.
//
// CPython answers NaN, infinite and zero-y operands itself (the values
// agree with C99 Annex F); everything else goes to glibc's atan2, whose
// ifunc picks __atan2_fma on such CPUs: the IBM Accurate Mathematical
// Library fast path (sysdeps/ieee754/dbl-64/e_atan2.c) compiled with
// -mfma -mavx2. Atan2 performs the same IEEE operations in the same order,
// using math.FMA exactly where that build emits a fused multiply-add and
// explicit float64 conversions everywhere else, so that results agree in
// every bit with the library. (Go's math.Atan2 differs from it in the last
// place for about a quarter of arguments in [-4, 4]², and a correctly
// rounded atan2 for about 0.07%.)
//
// For NaN operands Atan2 returns the same quiet NaN as CPython
// (0x7ff8000000000000) rather than propagating a payload.
func Atan2(y, x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(y):
		return pythonNaN
	case math.IsInf(y, 0):
		if !math.IsInf(x, 0) {
			return math.Copysign(atanHalfPi, y)
		}
		if math.Signbit(x) {
			return math.Copysign(atanThreeQtrsPi, y)
		}
		return math.Copysign(atanQuarterPi, y)
	case math.IsInf(x, 0) || y == 0:
		if math.Signbit(x) {
			return math.Copysign(atanPi, y)
		}
		return math.Copysign(0, y)
	case x == 0:
		return math.Copysign(atanHalfPi, y)
	}
	return math.Copysign(atan2Finite(y, x), y)
}

// atan2Finite returns |atan2(y, x)| for finite, non-zero y and finite,
// non-zero x.
func atan2Finite(y, x float64) float64 {
	// The library compares biased exponent fields, so subnormals count as
	// having exponent field 0.
	gap := int(math.Float64bits(y)>>52&0x7ff) - int(math.Float64bits(x)>>52&0x7ff)
	if gap >= atanExpGap {
		return atanHalfPi
	}
	ax, ay := math.Abs(x), math.Abs(y)
	if gap <= -atanExpGap {
		if x > 0 {
			return ay / ax
		}
		return atanPi
	}

	if ax < atanScaleDown || ay < atanScaleDown {
		ax *= atanScaleUp
		ay *= atanScaleUp
	}
	if ax > atanScaleUp || ay > atanScaleUp {
		ax *= atanScaleDown
		ay *= atanScaleDown
	}

	// u = min/max in (0, 1], and du is the first-order correction for the
	// division's rounding error, so that u+du ≈ min/max to about 2^-106.
	num, den := ax, ay
	if ay < ax {
		num, den = ay, ax
	}
	u := num / den
	prod := float64(den * u)
	prodErr := math.FMA(den, u, -prod)
	du := ((num - prod) - prodErr) / den

	switch {
	case x > 0 && ay < ax: // atan(ay/ax)
		return atanRatio(u, du)
	case x > 0: // π/2 − atan(ax/ay)
		return atanFromBase(atanHalfPi, atanHalfPiLo, true, u, du)
	case ax < ay: // π/2 + atan(ax/ay)
		return atanFromBase(atanHalfPi, atanHalfPiLo, false, u, du)
	default: // π − atan(ay/ax)
		return atanFromBase(atanPi, atanPiLo, true, u, du)
	}
}

// atanPoly returns P(w) of the small-ratio polynomial, evaluated by Horner's
// rule with every step fused.
func atanPoly(w float64) float64 {
	p := math.FMA(w, atanP13, atanP11)
	p = math.FMA(w, p, atanP9)
	p = math.FMA(w, p, atanP7)
	p = math.FMA(w, p, atanP5)
	return math.FMA(w, p, atanP3)
}

// atanRowIndex returns the atanTable row for u in [1/16, 1]: the nearest
// multiple of 1/256 (ties to even, as the library's 2^52 shift rounds),
// offset so that 1/16 maps to row 0.
func atanRowIndex(u float64) int {
	return int(math.RoundToEven(u*256)) - 16
}

// atanRatio returns atan(u+du) for u in (0, 1) (the first octant).
func atanRatio(u, du float64) float64 {
	if u < atanPolyLimit {
		w := float64(u * u)
		return u + math.FMA(float64(u*w), atanPoly(w), du)
	}
	row := &atanTable[atanRowIndex(u)]
	// Distance from the row's centre, as an exact two-term sum h+hLo.
	d := u - row[0]
	h := d + du
	var hLo float64
	if math.Abs(d) > math.Abs(du) {
		hLo = (d - h) + du
	} else {
		hLo = (du - h) + d
	}
	q := math.FMA(h, row[6], row[5])
	q = math.FMA(h, q, row[4])
	q = math.FMA(h, q, row[3])
	high := float64(float64(h*h) * q)
	return row[1] + math.FMA(h, row[2], math.FMA(hLo, row[2], high))
}

// atanFromBase returns base+baseLo ∓ atan(u+du) (minus when sub is set) for
// u in (0, 1] and base π/2 or π.
func atanFromBase(base, baseLo float64, sub bool, u, du float64) float64 {
	// Negations are exact, so a subtraction is an addition of the negated
	// operand; the library's two code paths reduce to one with sign flips.
	neg := func(v float64) float64 {
		if sub {
			return -v
		}
		return v
	}
	if u < atanPolyLimit {
		w := float64(u * u)
		tail := float64(float64(u*w) * atanPoly(w))
		su := neg(u)
		// Two-sum of base and ±u; base > |u| here, so the short form is
		// exact.
		head := base + su
		err := (base - head) + su
		return head + (((baseLo + err) + neg(du)) + neg(tail))
	}
	row := &atanTable[atanRowIndex(u)]
	h := (u - row[0]) + du
	q := math.FMA(h, row[6], row[5])
	q = math.FMA(h, q, row[4])
	q = math.FMA(h, q, row[3])
	q = math.FMA(h, q, row[2])
	return (base + neg(row[1])) + math.FMA(neg(h), q, baseLo)
}
