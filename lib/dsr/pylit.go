package dsr

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParsePython parses a Python literal of the kind the reference writes with
// str(): ints, floats, quoted strings, lists, tuples, dicts, True, False and
// None. Lists and tuples become []any, dicts map[string]any (keys are
// printed with str() when not strings), ints int, floats float64, True/False
// bool and None nil. Trailing text after the literal is an error.
//
// It reads the truth lines of the published instance files and the printed
// result of a solution() function in the code probe.
func ParsePython(s string) (any, error) {
	p := &pyParser{s: s}
	p.skip()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skip()
	if p.i < len(p.s) {
		return nil, fmt.Errorf("python literal: unexpected %q at offset %d", p.rest(), p.i)
	}
	return v, nil
}

type pyParser struct {
	s string
	i int
}

const maxPyDepth = 64

func (p *pyParser) rest() string {
	r := p.s[p.i:]
	if len(r) > 16 {
		r = r[:16] + "…"
	}
	return r
}

func (p *pyParser) skip() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *pyParser) value(depth int) (any, error) {
	if depth > maxPyDepth {
		return nil, fmt.Errorf("python literal: nested deeper than %d levels", maxPyDepth)
	}
	if p.i >= len(p.s) {
		return nil, fmt.Errorf("python literal: unexpected end of text")
	}
	switch c := p.s[p.i]; {
	case c == '[':
		return p.seq(']', depth)
	case c == '(':
		return p.seq(')', depth)
	case c == '{':
		return p.dict(depth)
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, kw := range []struct {
			word string
			val  any
		}{{"True", true}, {"False", false}, {"None", nil}} {
			if strings.HasPrefix(p.s[p.i:], kw.word) {
				p.i += len(kw.word)
				return kw.val, nil
			}
		}
	}
	return nil, fmt.Errorf("python literal: unexpected %q at offset %d", p.rest(), p.i)
}

func (p *pyParser) seq(end byte, depth int) (any, error) {
	p.i++ // opening bracket
	out := []any{}
	for {
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.skip()
		if p.i >= len(p.s) {
			return nil, fmt.Errorf("python literal: missing %q", end)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case end:
			p.i++
			return out, nil
		default:
			return nil, fmt.Errorf("python literal: expected ',' or %q at offset %d, found %q", end, p.i, p.rest())
		}
	}
}

func (p *pyParser) dict(depth int) (any, error) {
	p.i++
	out := map[string]any{}
	for {
		p.skip()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return out, nil
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.skip()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, fmt.Errorf("python literal: expected ':' in dict at offset %d", p.i)
		}
		p.i++
		p.skip()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			key = fmt.Sprint(k)
		}
		out[key] = v
		p.skip()
		if p.i >= len(p.s) {
			return nil, fmt.Errorf("python literal: missing '}'")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return out, nil
		default:
			return nil, fmt.Errorf("python literal: expected ',' or '}' at offset %d", p.i)
		}
	}
}

func (p *pyParser) str() (any, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return nil, fmt.Errorf("python literal: unterminated string")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'x':
				if p.i+2 > len(p.s) {
					return nil, fmt.Errorf("python literal: bad \\x escape")
				}
				n, err := strconv.ParseUint(p.s[p.i:p.i+2], 16, 8)
				if err != nil {
					return nil, fmt.Errorf("python literal: bad \\x escape")
				}
				b.WriteRune(rune(n))
				p.i += 2
			default:
				b.WriteByte('\\')
				b.WriteByte(e)
			}
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteRune(r)
			p.i += size
		}
	}
	return nil, fmt.Errorf("python literal: unterminated string")
}

func (p *pyParser) number() (any, error) {
	start := p.i
	if p.s[p.i] == '-' || p.s[p.i] == '+' {
		p.i++
	}
	isFloat := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c >= '0' && c <= '9':
		case c == '.' || c == 'e' || c == 'E':
			isFloat = true
		case (c == '-' || c == '+') && (p.s[p.i-1] == 'e' || p.s[p.i-1] == 'E'):
		default:
			goto done
		}
		p.i++
	}
done:
	text := p.s[start:p.i]
	if !isFloat {
		n, err := strconv.Atoi(text)
		if err != nil {
			return nil, fmt.Errorf("python literal: bad integer %q", text)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, fmt.Errorf("python literal: bad number %q", text)
	}
	return f, nil
}
