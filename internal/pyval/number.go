package pyval

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
)

// maxIntDigits is CPython 3.11's limit on decimal digits converted between
// int and str (sys.get_int_max_str_digits()).
const maxIntDigits = 4300

// IsSpace is Python's str.isspace for one code point.
func IsSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x1f, 0x85:
		return true
	}
	return r > 0x7f && unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp)
}

// Strip is Python's str.strip() with no argument.
func Strip(s []rune) []rune {
	i, j := 0, len(s)
	for i < j && IsSpace(s[i]) {
		i++
	}
	for j > i && IsSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}

// asciiDigits replaces Unicode decimal digits with ASCII ones and Unicode
// spaces with ' ', as CPython does before parsing int() and float()
// arguments; other non-ASCII code points become 0xFFFD (invalid).
func asciiDigits(s []rune) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case unicode.Is(unicode.Nd, r):
			b.WriteByte(byte('0' + digitValue(r)))
		case IsSpace(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(0xfffd)
		}
	}
	return b.String()
}

// digitValue is the decimal value of a Unicode Nd code point (the ranges
// of Nd are runs of ten consecutive digits 0-9).
func digitValue(r rune) int {
	for _, rg := range unicode.Nd.R16 {
		if uint16(r) >= rg.Lo && uint16(r) <= rg.Hi && r <= 0xffff {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if uint32(r) >= rg.Lo && uint32(r) <= rg.Hi {
			return int(uint32(r)-rg.Lo) % 10
		}
	}
	return 0
}

// digitsWithUnderscores checks PEP 515 digit groups: ASCII digits with
// single underscores between them; returns them without underscores.
func digitsWithUnderscores(s string) (string, bool) {
	if s == "" || s[0] == '_' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return "", false
	}
	for _, c := range s {
		if c != '_' && (c < '0' || c > '9') {
			return "", false
		}
	}
	return strings.ReplaceAll(s, "_", ""), true
}

// ParseIntStr is Python's int(s) for a str: optional surrounding
// whitespace, a sign, decimal digits (any script) with PEP 515 underscores.
func ParseIntStr(s []rune) (*Int, error) {
	t := strings.TrimSpace(asciiDigits(s))
	body := t
	neg := false
	if strings.HasPrefix(body, "+") || strings.HasPrefix(body, "-") {
		neg = body[0] == '-'
		body = body[1:]
	}
	d, ok := digitsWithUnderscores(body)
	if !ok {
		return nil, Raise("ValueError", "invalid literal for int() with base 10: %s", Repr(Str(s)))
	}
	if len(d) > maxIntDigits {
		return nil, Raise("ValueError", "Exceeds the limit (%d digits) for integer string conversion: value has %d digits; use sys.set_int_max_str_digits() to increase the limit", maxIntDigits, len(d))
	}
	v, _ := new(big.Int).SetString(d, 10)
	if neg {
		v.Neg(v)
	}
	return &Int{V: v}, nil
}

// ToInt is Python's int(v).
func ToInt(v Value) (*Int, error) {
	switch x := v.(type) {
	case Bool:
		if x {
			return NewInt(1), nil
		}
		return NewInt(0), nil
	case *Int:
		return x, nil
	case Float:
		f := float64(x)
		if math.IsNaN(f) {
			return nil, Raise("ValueError", "cannot convert float NaN to integer")
		}
		if math.IsInf(f, 0) {
			return nil, Raise("OverflowError", "cannot convert float infinity to integer")
		}
		bf := big.NewFloat(math.Trunc(f))
		i, _ := bf.Int(nil)
		return &Int{V: i}, nil
	case Str:
		return ParseIntStr(x)
	case Bytes:
		return ParseIntStr([]rune(string(x)))
	}
	return nil, Raise("TypeError", "int() argument must be a string, a bytes-like object or a real number, not '%s'", v.TypeName())
}

// ParseFloatStr is Python's float(s) for a str: surrounding whitespace, a
// sign, "inf", "infinity" or "nan" in any case, or a decimal number (digits
// of any script, PEP 515 underscores, an optional exponent).
func ParseFloatStr(s []rune) (float64, error) {
	t := strings.TrimSpace(asciiDigits(s))
	f, ok := parseFloatASCII(t)
	if !ok {
		return 0, Raise("ValueError", "could not convert string to float: %s", Repr(Str(s)))
	}
	return f, nil
}

func parseFloatASCII(t string) (float64, bool) {
	body := t
	sign := ""
	if strings.HasPrefix(body, "+") || strings.HasPrefix(body, "-") {
		sign, body = body[:1], body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if sign == "-" {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case "nan":
		return math.NaN(), true
	}
	mant, exp := body, ""
	if i := strings.IndexAny(body, "eE"); i >= 0 {
		mant, exp = body[:i], body[i+1:]
		if exp == "" {
			return 0, false
		}
		es := ""
		if exp[0] == '+' || exp[0] == '-' {
			es, exp = exp[:1], exp[1:]
		}
		d, ok := digitsWithUnderscores(exp)
		if !ok {
			return 0, false
		}
		exp = es + d
	}
	ip, fp, hasDot := strings.Cut(mant, ".")
	if ip == "" && fp == "" {
		return 0, false
	}
	if ip != "" {
		d, ok := digitsWithUnderscores(ip)
		if !ok {
			return 0, false
		}
		ip = d
	}
	if fp != "" {
		d, ok := digitsWithUnderscores(fp)
		if !ok {
			return 0, false
		}
		fp = d
	}
	num := ip
	if hasDot {
		num += "." + fp
	}
	if exp != "" {
		num += "e" + exp
	}
	f, err := strconv.ParseFloat(sign+num, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// ToFloat is Python's float(v).
func ToFloat(v Value) (float64, error) {
	switch x := v.(type) {
	case Bool, Float:
		f, _ := toFloat(x)
		return f, nil
	case *Int:
		f, acc := new(big.Float).SetInt(x.V).Float64()
		if math.IsInf(f, 0) && acc != big.Exact {
			return 0, Raise("OverflowError", "int too large to convert to float")
		}
		return f, nil
	case Str:
		return ParseFloatStr(x)
	}
	return 0, Raise("TypeError", "float() argument must be a string or a real number, not '%s'", v.TypeName())
}
