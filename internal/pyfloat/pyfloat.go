// Package pyfloat formats float64 values exactly as Python prints them, the
// one formatter behind every output narlab compares with a Python
// reference: CLRS-Text traces (str() of a float and of a numpy float64),
// DSR-Bench answers (repr() inside Python literals) and the CLRS reference's
// JSON (json.dumps).
//
// Python's repr() (and str(), since Python 3.2) writes the shortest digits
// that round-trip, in positional notation with at least one digit after the
// point for 1e-4 <= |x| < 1e16 ("0.0001", "123.0", "-0.0") and in scientific
// notation otherwise, with a signed exponent of at least two digits
// ("1e-05", "1.5e+16").
package pyfloat

import (
	"math"
	"strconv"
)

// Append appends x as Python's repr() writes it; non-finite values are
// "nan", "inf" and "-inf".
func Append(b []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(b, "nan"...)
	case math.IsInf(x, 1):
		return append(b, "inf"...)
	case math.IsInf(x, -1):
		return append(b, "-inf"...)
	}
	return appendFinite(b, x)
}

// AppendJSON appends x as Python's json.dumps writes it: like [Append],
// but non-finite values are "NaN", "Infinity" and "-Infinity".
func AppendJSON(b []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(b, "NaN"...)
	case math.IsInf(x, 1):
		return append(b, "Infinity"...)
	case math.IsInf(x, -1):
		return append(b, "-Infinity"...)
	}
	return appendFinite(b, x)
}

// String is x as Python's repr() writes it (see [Append]).
func String(x float64) string {
	var tmp [32]byte
	return string(Append(tmp[:0], x))
}

func appendFinite(b []byte, x float64) []byte {
	if x == 0 {
		if math.Signbit(x) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	var tmp [32]byte
	s := strconv.AppendFloat(tmp[:0], x, 'e', -1, 64)
	if s[0] == '-' {
		b = append(b, '-')
		s = s[1:]
	}
	// s is d[.ddd]e±XX
	epos := 0
	for epos < len(s) && s[epos] != 'e' {
		epos++
	}
	var digits [24]byte
	nd := 0
	for _, c := range s[:epos] {
		if c != '.' {
			digits[nd] = c
			nd++
		}
	}
	exp := 0
	neg := s[epos+1] == '-'
	for _, c := range s[epos+2:] {
		exp = exp*10 + int(c-'0')
	}
	if neg {
		exp = -exp
	}
	if exp < -4 || exp >= 16 {
		b = append(b, digits[0])
		if nd > 1 {
			b = append(b, '.')
			b = append(b, digits[1:nd]...)
		}
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(exp), 10)
	}
	point := exp + 1
	switch {
	case point <= 0:
		b = append(b, "0."...)
		for i := 0; i < -point; i++ {
			b = append(b, '0')
		}
		b = append(b, digits[:nd]...)
	case point >= nd:
		b = append(b, digits[:nd]...)
		for i := nd; i < point; i++ {
			b = append(b, '0')
		}
		b = append(b, ".0"...)
	default:
		b = append(b, digits[:point]...)
		b = append(b, '.')
		b = append(b, digits[point:nd]...)
	}
	return b
}
