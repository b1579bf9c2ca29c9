package pyval

import (
	"math/big"
	"strings"
	"unicode"
)

// LiteralEval is Python 3.11's ast.literal_eval(s) for a str: the text,
// with leading spaces and tabs removed, parsed as an expression whose nodes
// are constants (numbers, strings, bytes, True, False, None, ...), tuples,
// lists, sets, dicts, set(), a sign before a number, or a real number plus
// or minus an imaginary one. Anything else raises: a SyntaxError for text
// that is not a Python expression, a ValueError for an expression that is
// not a literal, a TypeError for an unhashable set item or dict key.
//
// Not supported (they raise here, where Python would accept them): \N{...}
// escapes in strings.
func LiteralEval(s string) (Value, error) {
	src := strings.TrimLeft(s, " \t")
	toks, err := tokenize([]rune(src))
	if err != nil {
		return nil, err
	}
	p := &litParser{toks: toks}
	n, err := p.exprList()
	if err != nil {
		return nil, err
	}
	for p.peek().kind == tNewline {
		p.i++
	}
	if p.peek().kind != tEnd {
		return nil, Raise("SyntaxError", "invalid syntax")
	}
	return convert(n)
}

// LiteralEvalValue is ast.literal_eval(v) for a value that is not a str:
// Python treats it as an AST node, and any value raises ValueError.
func LiteralEvalValue(v Value) (Value, error) {
	if s, ok := v.(Str); ok {
		return LiteralEval(s.String())
	}
	return nil, Raise("ValueError", "malformed node or string: %s", Repr(v))
}

type tokKind int

const (
	tEnd tokKind = iota
	tNewline
	tNum
	tStr
	tName
	tOp
)

type token struct {
	kind  tokKind
	text  string // numbers, names, operators
	str   []rune // string constants
	bytes bool
}

// tokenize splits Python source into the tokens of an expression. Newlines
// inside brackets are joined; comments and blank lines are dropped.
func tokenize(s []rune) ([]token, error) {
	var out []token
	depth := 0
	i := 0
	syntax := func(msg string) error { return Raise("SyntaxError", "%s", msg) }
	lineStart := true
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			if lineStart && depth == 0 && len(out) > 0 && out[len(out)-1].kind == tNewline {
				// an indented line after a logical line: unexpected indent
				j := i
				for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\f') {
					j++
				}
				if j < len(s) && s[j] != '\n' && s[j] != '\r' && s[j] != '#' {
					return nil, Raise("IndentationError", "unexpected indent")
				}
			}
			i++
			continue
		case c == '\\' && i+1 < len(s) && (s[i+1] == '\n' || s[i+1] == '\r'):
			i += 2
			if s[i-1] == '\r' && i < len(s) && s[i] == '\n' {
				i++
			}
			continue
		case c == '#':
			for i < len(s) && s[i] != '\n' && s[i] != '\r' {
				i++
			}
			continue
		case c == '\n' || c == '\r':
			i++
			if depth == 0 {
				if len(out) > 0 && out[len(out)-1].kind != tNewline {
					out = append(out, token{kind: tNewline})
				}
				lineStart = true
			}
			continue
		}
		if lineStart && depth == 0 && len(out) == 0 && i > 0 {
			// text after leading blank lines starts at column 0 only
			k := i - 1
			if s[k] == ' ' || s[k] == '\t' {
				return nil, Raise("IndentationError", "unexpected indent")
			}
		}
		lineStart = false
		switch {
		case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
			j, err := scanNumber(s, i)
			if err != nil {
				return nil, err
			}
			out = append(out, token{kind: tNum, text: string(s[i:j])})
			i = j
		case c == '.' && i+2 < len(s) && s[i+1] == '.' && s[i+2] == '.':
			out = append(out, token{kind: tOp, text: "..."})
			i += 3
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdentCont(s[j]) {
				j++
			}
			word := string(s[i:j])
			if j < len(s) && (s[j] == '\'' || s[j] == '"') && isStrPrefix(word) {
				v, isBytes, k, err := scanString(s, j, strings.ToLower(word))
				if err != nil {
					return nil, err
				}
				out = append(out, token{kind: tStr, str: v, bytes: isBytes, text: strings.ToLower(word)})
				i = k
				continue
			}
			out = append(out, token{kind: tName, text: word})
			i = j
		case c == '\'' || c == '"':
			v, isBytes, k, err := scanString(s, i, "")
			if err != nil {
				return nil, err
			}
			out = append(out, token{kind: tStr, str: v, bytes: isBytes})
			i = k
		default:
			op := ""
			for _, o := range []string{"**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", ":=", "(", ")", "[", "]", "{", "}", ",", ":", ";", "+", "-", "*", "/", "%", "&", "|", "^", "~", "<", ">", "=", ".", "@"} {
				if strings.HasPrefix(string(s[i:min(len(s), i+2)]), o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, syntax("invalid character")
			}
			switch op {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				depth--
				if depth < 0 {
					return nil, syntax("unmatched ')'")
				}
			}
			out = append(out, token{kind: tOp, text: op})
			i += len([]rune(op))
		}
	}
	if depth > 0 {
		return nil, syntax("'(' was never closed")
	}
	out = append(out, token{kind: tEnd})
	return out, nil
}

func isIdentStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)
}

func isIdentCont(r rune) bool {
	return isIdentStart(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc) || unicode.Is(unicode.Other_ID_Continue, r)
}

func isStrPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "b", "br", "rb", "f", "fr", "rf":
		return true
	}
	return false
}

// scanNumber returns the end of a number literal starting at i.
func scanNumber(s []rune, i int) (int, error) {
	bad := Raise("SyntaxError", "invalid decimal literal")
	digits := func(j int, ok func(rune) bool) (int, bool) {
		// digit (["_"] digit)*
		if j >= len(s) || !ok(s[j]) {
			return j, false
		}
		for j < len(s) {
			if ok(s[j]) {
				j++
				continue
			}
			if s[j] == '_' && j+1 < len(s) && ok(s[j+1]) {
				j += 2
				continue
			}
			break
		}
		return j, true
	}
	dec := func(r rune) bool { return r >= '0' && r <= '9' }
	end := func(j int) (int, error) {
		if j < len(s) && (isIdentCont(s[j]) || s[j] == '_') {
			return 0, bad
		}
		return j, nil
	}
	if s[i] == '0' && i+1 < len(s) && strings.ContainsRune("xXoObB", s[i+1]) {
		var ok func(rune) bool
		switch s[i+1] {
		case 'x', 'X':
			ok = func(r rune) bool { return dec(r) || (r >= 'a' && r <= 'f') || (r >= 'A' && r <= 'F') }
		case 'o', 'O':
			ok = func(r rune) bool { return r >= '0' && r <= '7' }
		default:
			ok = func(r rune) bool { return r == '0' || r == '1' }
		}
		j := i + 2
		if j < len(s) && s[j] == '_' {
			j++
		}
		j, found := digits(j, ok)
		if !found {
			return 0, bad
		}
		return end(j)
	}
	j := i
	intPart := false
	if dec(s[j]) {
		j, _ = digits(j, dec)
		intPart = true
	}
	isFloat := false
	if j < len(s) && s[j] == '.' {
		k := j + 1
		if k < len(s) && dec(s[k]) {
			k, _ = digits(k, dec)
		} else if !intPart {
			return 0, bad
		}
		j = k
		isFloat = true
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		k2, found := digits(k, dec)
		if !found {
			return 0, bad
		}
		j = k2
		isFloat = true
	}
	if j < len(s) && (s[j] == 'j' || s[j] == 'J') {
		return end(j + 1)
	}
	if !isFloat {
		// decimal integers: no leading zeros unless all zeros
		lit := strings.ReplaceAll(string(s[i:j]), "_", "")
		if len(lit) > 1 && lit[0] == '0' && strings.Trim(lit, "0") != "" {
			return 0, Raise("SyntaxError", "leading zeros in decimal integer literals are not permitted")
		}
	}
	return end(j)
}

// scanString reads a string literal whose opening quote is at i.
func scanString(s []rune, i int, prefix string) ([]rune, bool, int, error) {
	raw := strings.Contains(prefix, "r")
	isBytes := strings.Contains(prefix, "b")
	if strings.Contains(prefix, "f") {
		// f-strings are JoinedStr nodes, never constants: literal_eval
		// rejects them (whatever their syntax).
		return nil, false, 0, Raise("ValueError", "malformed node or string: f-string")
	}
	q := s[i]
	triple := i+2 < len(s) && s[i+1] == q && s[i+2] == q
	j := i + 1
	if triple {
		j = i + 3
	}
	var out []rune
	for {
		if j >= len(s) {
			return nil, false, 0, Raise("SyntaxError", "unterminated string literal")
		}
		c := s[j]
		if c == q {
			if !triple {
				j++
				break
			}
			if j+2 < len(s) && s[j+1] == q && s[j+2] == q {
				j += 3
				break
			}
		}
		if !triple && (c == '\n' || c == '\r') {
			return nil, false, 0, Raise("SyntaxError", "unterminated string literal")
		}
		if isBytes && c >= 0x80 {
			return nil, false, 0, Raise("SyntaxError", "bytes can only contain ASCII literal characters")
		}
		if c != '\\' {
			out = append(out, c)
			j++
			continue
		}
		if j+1 >= len(s) {
			return nil, false, 0, Raise("SyntaxError", "unterminated string literal")
		}
		e := s[j+1]
		if raw {
			out = append(out, '\\', e)
			j += 2
			continue
		}
		j += 2
		switch e {
		case '\n':
		case '\r':
			if j < len(s) && s[j] == '\n' {
				j++
			}
		case '\\', '\'', '"':
			out = append(out, e)
		case 'a':
			out = append(out, 7)
		case 'b':
			out = append(out, 8)
		case 'f':
			out = append(out, 12)
		case 'n':
			out = append(out, 10)
		case 'r':
			out = append(out, 13)
		case 't':
			out = append(out, 9)
		case 'v':
			out = append(out, 11)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(e - '0')
			for k := 0; k < 2 && j < len(s) && s[j] >= '0' && s[j] <= '7'; k++ {
				v = v*8 + int(s[j]-'0')
				j++
			}
			if isBytes {
				v &= 0xff
			}
			out = append(out, rune(v))
		case 'x':
			v, ok := hexDigits(s, j, 2)
			if !ok {
				return nil, false, 0, Raise("SyntaxError", "truncated \\xXX escape")
			}
			out = append(out, v)
			j += 2
		case 'u', 'U':
			if isBytes {
				out = append(out, '\\', e)
				continue
			}
			n := 4
			if e == 'U' {
				n = 8
			}
			v, ok := hexDigits(s, j, n)
			if !ok || v > 0x10ffff {
				return nil, false, 0, Raise("SyntaxError", "truncated \\uXXXX escape")
			}
			out = append(out, v)
			j += n
		case 'N':
			if isBytes {
				out = append(out, '\\', e)
				continue
			}
			return nil, false, 0, Raise("SyntaxError", "\\N{...} escapes are not supported here")
		default:
			out = append(out, '\\', e)
		}
	}
	return out, isBytes, j, nil
}

func hexDigits(s []rune, j, n int) (rune, bool) {
	if j+n > len(s) {
		return 0, false
	}
	var v rune
	for _, c := range s[j : j+n] {
		var d rune
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		v = v*16 + d
	}
	return v, true
}

// node is the AST of a literal expression.
type node struct {
	kind  string // const, tuple, list, set, dict, setcall, unary, binop
	val   Value
	op    string
	items []*node
	keys  []*node
	num   bool // a constant that is an int, a float or a complex (not a bool)
}

type litParser struct {
	toks []token
	i    int
}

func (p *litParser) peek() token { return p.toks[p.i] }

func (p *litParser) isOp(s string) bool {
	t := p.peek()
	return t.kind == tOp && t.text == s
}

var errSyntax = &Exception{Type: "SyntaxError", Msg: "invalid syntax"}

// exprList parses expr (',' expr)* [','] (a tuple when there is a comma).
func (p *litParser) exprList() (*node, error) {
	first, err := p.expr()
	if err != nil {
		return nil, err
	}
	if !p.isOp(",") {
		return first, nil
	}
	items := []*node{first}
	for p.isOp(",") {
		p.i++
		if p.endOfList() {
			break
		}
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		items = append(items, n)
	}
	return &node{kind: "tuple", items: items}, nil
}

func (p *litParser) endOfList() bool {
	t := p.peek()
	return t.kind == tEnd || t.kind == tNewline || (t.kind == tOp && (t.text == ")" || t.text == "]" || t.text == "}"))
}

// expr parses the additive expressions a literal may hold: unary and
// binary + and - over atoms.
func (p *litParser) expr() (*node, error) {
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		op := p.peek().text
		p.i++
		right, err := p.unary()
		if err != nil {
			return nil, err
		}
		left = &node{kind: "binop", op: op, items: []*node{left, right}}
	}
	// What may follow (",", a closing bracket, ":", the end) is checked by
	// the caller; anything else is a syntax error or a non-literal, both
	// of which raise.
	return left, nil
}

func (p *litParser) unary() (*node, error) {
	if p.isOp("+") || p.isOp("-") || p.isOp("~") {
		op := p.peek().text
		p.i++
		operand, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &node{kind: "unary", op: op, items: []*node{operand}}, nil
	}
	return p.atom()
}

func (p *litParser) atom() (*node, error) {
	t := p.peek()
	switch t.kind {
	case tNum:
		p.i++
		v, err := numberValue(t.text)
		if err != nil {
			return nil, err
		}
		return &node{kind: "const", val: v, num: true}, nil
	case tStr:
		var rs []rune
		isBytes := t.bytes
		for p.peek().kind == tStr {
			if p.peek().bytes != isBytes {
				return nil, Raise("SyntaxError", "cannot mix bytes and nonbytes literals")
			}
			rs = append(rs, p.peek().str...)
			p.i++
		}
		if isBytes {
			b := make([]byte, len(rs))
			for k, r := range rs {
				b[k] = byte(r)
			}
			return &node{kind: "const", val: Bytes(b)}, nil
		}
		return &node{kind: "const", val: Str(rs)}, nil
	case tName:
		p.i++
		switch t.text {
		case "True":
			return &node{kind: "const", val: Bool(true)}, nil
		case "False":
			return &node{kind: "const", val: Bool(false)}, nil
		case "None":
			return &node{kind: "const", val: None}, nil
		case "set":
			if p.isOp("(") && p.toks[p.i+1].kind == tOp && p.toks[p.i+1].text == ")" {
				p.i += 2
				return &node{kind: "setcall"}, nil
			}
		}
		return &node{kind: "name"}, nil
	case tOp:
		switch t.text {
		case "...":
			p.i++
			return &node{kind: "const", val: Ellipsis}, nil
		case "(":
			p.i++
			if p.isOp(")") {
				p.i++
				return &node{kind: "tuple"}, nil
			}
			n, err := p.exprList()
			if err != nil {
				return nil, err
			}
			if !p.isOp(")") {
				return nil, errSyntax
			}
			p.i++
			return n, nil
		case "[":
			p.i++
			items, err := p.items("]")
			if err != nil {
				return nil, err
			}
			return &node{kind: "list", items: items}, nil
		case "{":
			p.i++
			return p.braces()
		}
	}
	return nil, errSyntax
}

// items parses [expr (',' expr)* [',']] close.
func (p *litParser) items(close string) ([]*node, error) {
	var out []*node
	for !p.isOp(close) {
		n, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if p.isOp(",") {
			p.i++
			continue
		}
		if !p.isOp(close) {
			return nil, errSyntax
		}
	}
	p.i++
	return out, nil
}

func (p *litParser) braces() (*node, error) {
	if p.isOp("}") {
		p.i++
		return &node{kind: "dict"}, nil
	}
	first, err := p.expr()
	if err != nil {
		return nil, err
	}
	if !p.isOp(":") {
		rest := []*node{first}
		if p.isOp(",") {
			p.i++
			more, err := p.items("}")
			if err != nil {
				return nil, err
			}
			rest = append(rest, more...)
		} else if p.isOp("}") {
			p.i++
		} else {
			return nil, errSyntax
		}
		return &node{kind: "set", items: rest}, nil
	}
	n := &node{kind: "dict"}
	k := first
	for {
		if !p.isOp(":") {
			return nil, errSyntax
		}
		p.i++
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, k)
		n.items = append(n.items, v)
		if p.isOp(",") {
			p.i++
		} else if !p.isOp("}") {
			return nil, errSyntax
		}
		if p.isOp("}") {
			p.i++
			return n, nil
		}
		if k, err = p.expr(); err != nil {
			return nil, err
		}
	}
}

// numberValue converts a number literal's text.
func numberValue(text string) (Value, error) {
	t := strings.ReplaceAll(text, "_", "")
	if strings.HasSuffix(t, "j") || strings.HasSuffix(t, "J") {
		f, _ := parseFloatASCII(t[:len(t)-1])
		return Complex(complex(0, f)), nil
	}
	lower := strings.ToLower(t)
	if len(lower) > 1 && lower[0] == '0' && strings.ContainsAny(lower[1:2], "xob") {
		base := map[byte]int{'x': 16, 'o': 8, 'b': 2}[lower[1]]
		v, ok := new(big.Int).SetString(lower[2:], base)
		if !ok {
			return nil, Raise("SyntaxError", "invalid literal")
		}
		return &Int{V: v}, nil
	}
	if strings.ContainsAny(lower, ".e") {
		f, ok := parseFloatASCII(t)
		if !ok {
			return nil, Raise("SyntaxError", "invalid literal")
		}
		return Float(f), nil
	}
	if len(t) > maxIntDigits {
		return nil, Raise("SyntaxError", "Exceeds the limit (%d digits) for integer string conversion", maxIntDigits)
	}
	v, _ := new(big.Int).SetString(t, 10)
	return &Int{V: v}, nil
}

// convert is literal_eval's _convert.
func convert(n *node) (Value, error) {
	malformed := func() error { return Raise("ValueError", "malformed node or string") }
	switch n.kind {
	case "const":
		return n.val, nil
	case "tuple", "list", "set":
		items := make([]Value, len(n.items))
		for k, it := range n.items {
			v, err := convert(it)
			if err != nil {
				return nil, err
			}
			items[k] = v
		}
		switch n.kind {
		case "tuple":
			return Tuple(items), nil
		case "list":
			return List(items), nil
		}
		s, _, err := NewSet(items)
		return s, err
	case "setcall":
		return Set{}, nil
	case "dict":
		d := &Dict{}
		keys := make([]Value, len(n.keys))
		for k, kn := range n.keys {
			v, err := convert(kn)
			if err != nil {
				return nil, err
			}
			keys[k] = v
		}
		vals := make([]Value, len(n.items))
		for k, vn := range n.items {
			v, err := convert(vn)
			if err != nil {
				return nil, err
			}
			vals[k] = v
		}
		for k := range keys {
			if !Hashable(keys[k]) {
				return nil, Raise("TypeError", "unhashable type: '%s'", unhashableName(keys[k]))
			}
			d.set(keys[k], vals[k])
		}
		return d, nil
	case "binop":
		left, err := signedNum(n.items[0])
		if err != nil {
			return nil, err
		}
		right, err := plainNum(n.items[1])
		if err != nil {
			return nil, err
		}
		rc, isComplex := right.(Complex)
		if _, lc := left.(Complex); lc || !isComplex {
			return nil, malformed()
		}
		lf, err := ToFloat(left)
		if err != nil {
			return nil, err
		}
		if n.op == "+" {
			return Complex(complex(lf, 0) + complex128(rc)), nil
		}
		return Complex(complex(lf, 0) - complex128(rc)), nil
	}
	return signedNum(n)
}

func plainNum(n *node) (Value, error) {
	if n.kind != "const" || !n.num {
		return nil, Raise("ValueError", "malformed node or string")
	}
	return n.val, nil
}

func signedNum(n *node) (Value, error) {
	if n.kind == "unary" && (n.op == "+" || n.op == "-") {
		v, err := plainNum(n.items[0])
		if err != nil {
			return nil, err
		}
		if n.op == "+" {
			return v, nil
		}
		switch x := v.(type) {
		case *Int:
			return &Int{V: new(big.Int).Neg(x.V)}, nil
		case Float:
			return -x, nil
		case Complex:
			return Complex(-complex128(x)), nil
		}
	}
	return plainNum(n)
}
