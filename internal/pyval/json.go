package pyval

import (
	"math"
	"math/big"
	"strconv"
	"unicode/utf16"
)

// maxDepth bounds nesting, standing in for Python's recursion limit.
const maxDepth = 900

// JSONLoads is Python's json.loads(s) with its defaults: strict strings (no
// raw control characters), NaN, Infinity and -Infinity accepted, numbers
// with a fraction or an exponent as floats and others as ints, duplicate
// object keys resolved by the last value (at the first key's position),
// lone surrogate escapes kept. Failures are a JSONDecodeError (a
// ValueError) *Exception.
func JSONLoads(s string) (Value, error) {
	p := &jsonParser{s: []rune(s)}
	if len(p.s) > 0 && p.s[0] == 0xfeff {
		return nil, p.fail("Unexpected UTF-8 BOM (decode using utf-8-sig)")
	}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, p.fail("Extra data")
	}
	return v, nil
}

type jsonParser struct {
	s []rune
	i int
}

func (p *jsonParser) fail(msg string) error {
	return &Exception{Type: "JSONDecodeError", Msg: msg + ": char " + strconv.Itoa(p.i)}
}

func (p *jsonParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) hasPrefix(w string) bool {
	r := []rune(w)
	if p.i+len(r) > len(p.s) {
		return false
	}
	for k, c := range r {
		if p.s[p.i+k] != c {
			return false
		}
	}
	return true
}

func (p *jsonParser) value(depth int) (Value, error) {
	if depth > maxDepth {
		return nil, &Exception{Type: "RecursionError", Msg: "maximum recursion depth exceeded while decoding a JSON document"}
	}
	if p.i >= len(p.s) {
		return nil, p.fail("Expecting value")
	}
	switch c := p.s[p.i]; {
	case c == '"':
		p.i++
		return p.str()
	case c == '{':
		p.i++
		return p.object(depth)
	case c == '[':
		p.i++
		return p.array(depth)
	case c == 'n' && p.hasPrefix("null"):
		p.i += 4
		return None, nil
	case c == 't' && p.hasPrefix("true"):
		p.i += 4
		return Bool(true), nil
	case c == 'f' && p.hasPrefix("false"):
		p.i += 5
		return Bool(false), nil
	case c == 'N' && p.hasPrefix("NaN"):
		p.i += 3
		return Float(nan()), nil
	case c == 'I' && p.hasPrefix("Infinity"):
		p.i += 8
		return Float(inf(1)), nil
	case c == '-' && p.hasPrefix("-Infinity"):
		p.i += 9
		return Float(inf(-1)), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.fail("Expecting value")
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// number matches (-?(?:0|[1-9]\d*))(\.\d+)?([eE][-+]?\d+)? like json's
// scanner.
func (p *jsonParser) number() (Value, error) {
	start := p.i
	i := p.i
	if i < len(p.s) && p.s[i] == '-' {
		i++
	}
	switch {
	case i < len(p.s) && p.s[i] == '0':
		i++
	case i < len(p.s) && p.s[i] >= '1' && p.s[i] <= '9':
		for i < len(p.s) && isDigit(p.s[i]) {
			i++
		}
	default:
		return nil, p.fail("Expecting value")
	}
	isFloat := false
	if i+1 < len(p.s) && p.s[i] == '.' && isDigit(p.s[i+1]) {
		isFloat = true
		i += 2
		for i < len(p.s) && isDigit(p.s[i]) {
			i++
		}
	}
	if i < len(p.s) && (p.s[i] == 'e' || p.s[i] == 'E') {
		j := i + 1
		if j < len(p.s) && (p.s[j] == '+' || p.s[j] == '-') {
			j++
		}
		if j < len(p.s) && isDigit(p.s[j]) {
			for j < len(p.s) && isDigit(p.s[j]) {
				j++
			}
			isFloat = true
			i = j
		}
	}
	text := string(p.s[start:i])
	p.i = i
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
				return nil, p.fail("Expecting value")
			}
		}
		return Float(f), nil
	}
	digits := len(text)
	if text[0] == '-' {
		digits--
	}
	if digits > maxIntDigits {
		return nil, Raise("ValueError", "Exceeds the limit (%d digits) for integer string conversion: value has %d digits; use sys.set_int_max_str_digits() to increase the limit", maxIntDigits, digits)
	}
	v, _ := new(big.Int).SetString(text, 10)
	return &Int{V: v}, nil
}

func (p *jsonParser) str() (Value, error) {
	var out []rune
	for {
		if p.i >= len(p.s) {
			return nil, p.fail("Unterminated string starting at")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return Str(out), nil
		case c < 0x20:
			return nil, p.fail("Invalid control character at")
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return nil, p.fail("Unterminated string starting at")
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				u, ok := p.hex4()
				if !ok {
					return nil, p.fail("Invalid \\uXXXX escape")
				}
				if u >= 0xd800 && u <= 0xdbff && p.hasPrefix(`\u`) {
					save := p.i
					p.i += 2
					if l, ok := p.hex4(); ok && l >= 0xdc00 && l <= 0xdfff {
						u = utf16.DecodeRune(u, l)
					} else {
						p.i = save
					}
				}
				out = append(out, u)
			default:
				return nil, p.fail("Invalid \\escape")
			}
		default:
			out = append(out, c)
			p.i++
		}
	}
}

func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.s[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	for _, c := range p.s[p.i : p.i+4] {
		if c == '+' || c == '-' || c == '_' {
			return 0, false
		}
	}
	p.i += 4
	return rune(v), true
}

func (p *jsonParser) object(depth int) (Value, error) {
	d := &Dict{}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return d, nil
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.fail("Expecting property name enclosed in double quotes")
		}
		p.i++
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.fail("Expecting ':' delimiter")
		}
		p.i++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		d.set(k, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return d, nil
		}
		if p.i >= len(p.s) || p.s[p.i] != ',' {
			return nil, p.fail("Expecting ',' delimiter")
		}
		p.i++
		p.ws()
	}
}

func (p *jsonParser) array(depth int) (Value, error) {
	l := List{}
	p.ws()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return l, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		l = append(l, v)
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return l, nil
		}
		if p.i >= len(p.s) || p.s[p.i] != ',' {
			return nil, p.fail("Expecting ',' delimiter")
		}
		p.i++
		p.ws()
	}
}

func nan() float64         { return math.NaN() }
func inf(sign int) float64 { return math.Inf(sign) }
