// Package pyval models the Python values that the papers' own scorers work
// on, with CPython 3.11's semantics: json.loads, ast.literal_eval, str()
// and repr(), ==, int() and float() of strings, and the iteration order of
// sets. lib/dsr and lib/graphtext use it to score responses exactly as the
// DSR-Bench and G1 (Erdős) evaluation scripts do; it is not a general
// Python implementation.
//
// Values are None, Bool, *Int, Float, Complex, Str, Bytes, List, Tuple,
// *Dict, Set and Ellipsis. Python exceptions are returned as *Exception.
package pyval

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
)

// Value is a Python value.
type Value interface {
	// TypeName is Python's type(v).__name__.
	TypeName() string
}

// NoneType is the type of None.
type NoneType struct{}

// EllipsisType is the type of Ellipsis (...).
type EllipsisType struct{}

// None and Ellipsis are the singletons.
var (
	None     = NoneType{}
	Ellipsis = EllipsisType{}
)

type (
	// Bool is True or False.
	Bool bool
	// Int is an arbitrary-precision integer.
	Int struct{ V *big.Int }
	// Float is a Python float.
	Float float64
	// Complex is a Python complex.
	Complex complex128
	// Str is a Python str: code points (lone surrogates included).
	Str []rune
	// Bytes is a Python bytes.
	Bytes []byte
	// List is a Python list.
	List []Value
	// Tuple is a Python tuple.
	Tuple []Value
	// Set is a Python set, its items in CPython's iteration order.
	Set []Value
	// Dict is a Python dict, keys in insertion order.
	Dict struct{ Keys, Vals []Value }
)

func (NoneType) TypeName() string     { return "NoneType" }
func (EllipsisType) TypeName() string { return "ellipsis" }
func (Bool) TypeName() string         { return "bool" }
func (*Int) TypeName() string         { return "int" }
func (Float) TypeName() string        { return "float" }
func (Complex) TypeName() string      { return "complex" }
func (Str) TypeName() string          { return "str" }
func (Bytes) TypeName() string        { return "bytes" }
func (List) TypeName() string         { return "list" }
func (Tuple) TypeName() string        { return "tuple" }
func (Set) TypeName() string          { return "set" }
func (*Dict) TypeName() string        { return "dict" }

// NewInt returns the Python int x.
func NewInt(x int64) *Int { return &Int{V: big.NewInt(x)} }

// NewStr returns the Python str of a Go string.
func NewStr(s string) Str { return Str([]rune(s)) }

// String returns the str as Go text (lone surrogates become U+FFFD).
func (s Str) String() string { return string([]rune(s)) }

// Get returns d[key] and whether key is present.
func (d *Dict) Get(key Value) (Value, bool) {
	for i, k := range d.Keys {
		if Equal(k, key) {
			return d.Vals[i], true
		}
	}
	return nil, false
}

// set stores d[key] = v, keeping the position of an existing equal key.
func (d *Dict) set(key, v Value) {
	for i, k := range d.Keys {
		if Equal(k, key) {
			d.Vals[i] = v
			return
		}
	}
	d.Keys = append(d.Keys, key)
	d.Vals = append(d.Vals, v)
}

// Exception is a Python exception: its type name and message.
type Exception struct {
	Type, Msg string
}

func (e *Exception) Error() string {
	if e.Msg == "" {
		return e.Type
	}
	return e.Type + ": " + e.Msg
}

// Raise returns a Python exception as an error.
func Raise(typ, format string, args ...any) error {
	return &Exception{Type: typ, Msg: fmt.Sprintf(format, args...)}
}

// Repr is Python's repr(v).
func Repr(v Value) string {
	var b strings.Builder
	writeRepr(&b, v)
	return b.String()
}

// PyStr is Python's str(v): a str's own text, repr for the rest.
func PyStr(v Value) string {
	if s, ok := v.(Str); ok {
		return s.String()
	}
	return Repr(v)
}

// PyStrRunes is str(v) as code points (lone surrogates kept).
func PyStrRunes(v Value) []rune {
	if s, ok := v.(Str); ok {
		return []rune(s)
	}
	return []rune(Repr(v))
}

func writeRepr(b *strings.Builder, v Value) {
	switch x := v.(type) {
	case NoneType:
		b.WriteString("None")
	case EllipsisType:
		b.WriteString("Ellipsis")
	case Bool:
		if x {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case *Int:
		b.WriteString(x.V.String())
	case Float:
		b.WriteString(FloatRepr(float64(x)))
	case Complex:
		b.WriteString(complexRepr(complex128(x)))
	case Str:
		writeStrRepr(b, x)
	case Bytes:
		writeBytesRepr(b, x)
	case List:
		b.WriteByte('[')
		for i, it := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, it)
		}
		b.WriteByte(']')
	case Tuple:
		b.WriteByte('(')
		for i, it := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, it)
		}
		if len(x) == 1 {
			b.WriteByte(',')
		}
		b.WriteByte(')')
	case Set:
		if len(x) == 0 {
			b.WriteString("set()")
			return
		}
		b.WriteByte('{')
		for i, it := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, it)
		}
		b.WriteByte('}')
	case *Dict:
		b.WriteByte('{')
		for i := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeRepr(b, x.Keys[i])
			b.WriteString(": ")
			writeRepr(b, x.Vals[i])
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "<%T>", v)
	}
}

// FloatRepr is Python's repr of a float: the shortest digits that round
// trip, in positional notation for exponents -4..15 (with ".0" for whole
// numbers), else in scientific notation with a two-digit exponent at least.
func FloatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exps, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(exps)
	digits := strings.Replace(mant, ".", "", 1)
	var out string
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		out = fmt.Sprintf("%se%s%02d", m, sign, exp)
	} else {
		decpt := exp + 1
		switch {
		case decpt <= 0:
			out = "0." + strings.Repeat("0", -decpt) + digits
		case decpt >= len(digits):
			out = digits + strings.Repeat("0", decpt-len(digits)) + ".0"
		default:
			out = digits[:decpt] + "." + digits[decpt:]
		}
	}
	if neg {
		out = "-" + out
	}
	return out
}

// floatReprNoDot0 is repr without the ".0" Python adds to whole numbers
// (the parts of a complex).
func floatReprNoDot0(f float64) string {
	s := FloatRepr(f)
	return strings.TrimSuffix(s, ".0")
}

func complexRepr(c complex128) string {
	re, im := real(c), imag(c)
	if re == 0 && !math.Signbit(re) {
		return floatReprNoDot0(im) + "j"
	}
	ims := floatReprNoDot0(im)
	if !strings.HasPrefix(ims, "-") {
		ims = "+" + ims
	}
	return "(" + floatReprNoDot0(re) + ims + "j)"
}

func writeStrRepr(b *strings.Builder, s Str) {
	quote := '\''
	hasSingle, hasDouble := false, false
	for _, r := range s {
		switch r {
		case '\'':
			hasSingle = true
		case '"':
			hasDouble = true
		}
	}
	if hasSingle && !hasDouble {
		quote = '"'
	}
	b.WriteRune(quote)
	for _, r := range s {
		switch {
		case r == quote || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == 0x7f:
			fmt.Fprintf(b, `\x%02x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case !isPrintable(r):
			switch {
			case r <= 0xff:
				fmt.Fprintf(b, `\x%02x`, r)
			case r <= 0xffff:
				fmt.Fprintf(b, `\u%04x`, r)
			default:
				fmt.Fprintf(b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteRune(quote)
}

// isPrintable is Python's str.isprintable for one code point: not in the
// categories Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs, except the space.
func isPrintable(r rune) bool {
	if r == ' ' {
		return true
	}
	if r >= 0xd800 && r <= 0xdfff {
		return false
	}
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Zl, unicode.Zp, unicode.Zs) {
		return false
	}
	// Unassigned code points (Cn) are in no category.
	return unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

func writeBytesRepr(b *strings.Builder, x Bytes) {
	quote := byte('\'')
	if strings.IndexByte(string(x), '\'') >= 0 && strings.IndexByte(string(x), '"') < 0 {
		quote = '"'
	}
	b.WriteByte('b')
	b.WriteByte(quote)
	for _, c := range x {
		switch {
		case c == quote || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < ' ' || c >= 0x7f:
			fmt.Fprintf(b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(quote)
}

// Truthy is Python's bool(v).
func Truthy(v Value) bool {
	switch x := v.(type) {
	case NoneType:
		return false
	case Bool:
		return bool(x)
	case *Int:
		return x.V.Sign() != 0
	case Float:
		return x != 0
	case Complex:
		return x != 0
	case Str:
		return len(x) > 0
	case Bytes:
		return len(x) > 0
	case List:
		return len(x) > 0
	case Tuple:
		return len(x) > 0
	case Set:
		return len(x) > 0
	case *Dict:
		return len(x.Keys) > 0
	}
	return true
}

// Len is Python's len(v).
func Len(v Value) (int, error) {
	switch x := v.(type) {
	case Str:
		return len(x), nil
	case Bytes:
		return len(x), nil
	case List:
		return len(x), nil
	case Tuple:
		return len(x), nil
	case Set:
		return len(x), nil
	case *Dict:
		return len(x.Keys), nil
	}
	return 0, Raise("TypeError", "object of type '%s' has no len()", v.TypeName())
}

// Iterate is Python's list(v): the items a for loop visits (a dict's keys,
// a str's characters).
func Iterate(v Value) ([]Value, error) {
	switch x := v.(type) {
	case Str:
		out := make([]Value, len(x))
		for i, r := range x {
			out[i] = Str{r}
		}
		return out, nil
	case Bytes:
		out := make([]Value, len(x))
		for i, c := range x {
			out[i] = NewInt(int64(c))
		}
		return out, nil
	case List:
		return x, nil
	case Tuple:
		return x, nil
	case Set:
		return x, nil
	case *Dict:
		return x.Keys, nil
	}
	return nil, Raise("TypeError", "'%s' object is not iterable", v.TypeName())
}

// GetItem is Python's v[key] for a str key or an int index (the lookups the
// scorers make).
func GetItem(v, key Value) (Value, error) {
	switch x := v.(type) {
	case *Dict:
		if !Hashable(key) {
			return nil, Raise("TypeError", "unhashable type: '%s'", key.TypeName())
		}
		if val, ok := x.Get(key); ok {
			return val, nil
		}
		return nil, Raise("KeyError", "%s", Repr(key))
	case List, Tuple, Str, Bytes:
		i, ok := asIndex(key)
		if !ok {
			kind := map[string]string{"list": "list", "tuple": "tuple", "str": "string", "bytes": "byte"}[v.TypeName()]
			if v.TypeName() == "str" {
				return nil, Raise("TypeError", "string indices must be integers, not '%s'", key.TypeName())
			}
			return nil, Raise("TypeError", "%s indices must be integers or slices, not %s", kind, key.TypeName())
		}
		items, _ := Iterate(v)
		if i < 0 {
			i += int64(len(items))
		}
		if i < 0 || i >= int64(len(items)) {
			return nil, Raise("IndexError", "%s index out of range", v.TypeName())
		}
		return items[i], nil
	}
	return nil, Raise("TypeError", "'%s' object is not subscriptable", v.TypeName())
}

func asIndex(v Value) (int64, bool) {
	switch x := v.(type) {
	case Bool:
		if x {
			return 1, true
		}
		return 0, true
	case *Int:
		if x.V.IsInt64() {
			return x.V.Int64(), true
		}
		return math.MaxInt64, true
	}
	return 0, false
}

// Hashable reports whether v can be a set item or a dict key.
func Hashable(v Value) bool {
	switch x := v.(type) {
	case List, Set, *Dict:
		return false
	case Tuple:
		for _, it := range x {
			if !Hashable(it) {
				return false
			}
		}
	}
	return true
}

// IsInt reports whether type(v) is int (bools are not).
func IsInt(v Value) bool {
	_, ok := v.(*Int)
	return ok
}

// IntValue returns an int's value when it fits in an int.
func IntValue(v Value) (int, bool) {
	x, ok := v.(*Int)
	if !ok || !x.V.IsInt64() {
		return 0, false
	}
	n := x.V.Int64()
	if int64(int(n)) != n {
		return 0, false
	}
	return int(n), true
}
