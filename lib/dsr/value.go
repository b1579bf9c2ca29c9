package dsr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/narlab/narlab/internal/pyfloat"
)

// Kind is the kind of an answer Shape.
type Kind int

// The kinds of answer shapes.
const (
	KindInt    Kind = iota // a JSON integer, held as int
	KindFloat              // a JSON number, held as float64
	KindString             // a JSON string, held as string
	KindList               // a JSON array of Elem, held as []any
	KindObject             // a JSON object with Fields, held as map[string]any
)

// Shape describes the structure of an expected answer (the schema's
// final_answer). It yields the JSON Schema sent to a model, decodes and
// validates a model's JSON, and prints values in the Python style used for
// the Levenshtein metric.
//
// Canonical values are: int, float64, string, []any and map[string]any.
type Shape struct {
	Kind   Kind
	Elem   *Shape  // KindList: the element shape
	Len    int     // KindList: the exact length when > 0 (pairs)
	Fields []Field // KindObject: the fields, in order, all required
	Enum   []string
}

// Field is one named field of an object shape.
type Field struct {
	Name  string
	Shape *Shape
}

// Shape constructors used by the task table.
var (
	shapeInt    = &Shape{Kind: KindInt}
	shapeFloat  = &Shape{Kind: KindFloat}
	shapeString = &Shape{Kind: KindString}
)

func listOf(e *Shape) *Shape            { return &Shape{Kind: KindList, Elem: e} }
func pairOf(e *Shape) *Shape            { return &Shape{Kind: KindList, Elem: e, Len: 2} }
func objectOf(fs ...Field) *Shape       { return &Shape{Kind: KindObject, Fields: fs} }
func field(name string, s *Shape) Field { return Field{Name: name, Shape: s} }

// Schema returns the JSON Schema (as a JSON-marshalable map) of values of
// this shape.
func (s *Shape) Schema() map[string]any {
	switch s.Kind {
	case KindInt:
		return map[string]any{"type": "integer"}
	case KindFloat:
		return map[string]any{"type": "number"}
	case KindString:
		m := map[string]any{"type": "string"}
		if len(s.Enum) > 0 {
			m["enum"] = append([]string(nil), s.Enum...)
		}
		return m
	case KindList:
		m := map[string]any{"type": "array", "items": s.Elem.Schema()}
		if s.Len > 0 {
			m["minItems"] = s.Len
			m["maxItems"] = s.Len
		}
		return m
	case KindObject:
		props := map[string]any{}
		var req []string
		for _, f := range s.Fields {
			props[f.Name] = f.Shape.Schema()
			req = append(req, f.Name)
		}
		return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
	}
	return map[string]any{}
}

// String describes the shape in a compact, type-like notation, e.g.
// "list[list[int]]" or "{pre_order: list[int], post_order: list[int]}".
func (s *Shape) String() string {
	switch s.Kind {
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindString:
		if len(s.Enum) > 0 {
			return "str(" + strings.Join(s.Enum, "|") + ")"
		}
		return "str"
	case KindList:
		if s.Len > 0 {
			return fmt.Sprintf("list[%s; %d]", s.Elem, s.Len)
		}
		return "list[" + s.Elem.String() + "]"
	case KindObject:
		var parts []string
		for _, f := range s.Fields {
			parts = append(parts, f.Name+": "+f.Shape.String())
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "?"
}

// ShapeError reports a value that does not fit a shape, with the JSON path
// of the offending part.
type ShapeError struct {
	Path string // e.g. "final_answer[3][1]"
	Want string // what was expected
	Got  string // what was found
}

func (e *ShapeError) Error() string {
	return fmt.Sprintf("%s: expected %s, got %s", e.Path, e.Want, e.Got)
}

// DecodeJSON decodes JSON text into a canonical value of this shape.
func (s *Shape) DecodeJSON(data []byte, path string) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: invalid JSON: %w", path, err)
	}
	return s.Convert(v, path)
}

// Convert checks a generic decoded value (from encoding/json with or without
// UseNumber, or from ParsePython) against the shape and returns its
// canonical form. Integral floats are accepted where integers are expected.
func (s *Shape) Convert(v any, path string) (any, error) {
	switch s.Kind {
	case KindInt:
		n, ok := asInt(v)
		if !ok {
			return nil, &ShapeError{path, "integer", describe(v)}
		}
		return n, nil
	case KindFloat:
		f, ok := asFloat(v)
		if !ok {
			return nil, &ShapeError{path, "number", describe(v)}
		}
		return f, nil
	case KindString:
		str, ok := v.(string)
		if !ok {
			return nil, &ShapeError{path, "string", describe(v)}
		}
		if len(s.Enum) > 0 {
			found := false
			for _, e := range s.Enum {
				if e == str {
					found = true
				}
			}
			if !found {
				return nil, &ShapeError{path, "one of " + strings.Join(s.Enum, ", "), strconv.Quote(str)}
			}
		}
		return str, nil
	case KindList:
		xs, ok := v.([]any)
		if !ok {
			return nil, &ShapeError{path, "array", describe(v)}
		}
		if s.Len > 0 && len(xs) != s.Len {
			return nil, &ShapeError{path, fmt.Sprintf("array of %d items", s.Len), fmt.Sprintf("%d items", len(xs))}
		}
		out := make([]any, len(xs))
		for i, x := range xs {
			c, err := s.Elem.Convert(x, fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case KindObject:
		m, ok := v.(map[string]any)
		if !ok {
			return nil, &ShapeError{path, "object", describe(v)}
		}
		out := make(map[string]any, len(s.Fields))
		for _, f := range s.Fields {
			x, ok := m[f.Name]
			if !ok {
				return nil, &ShapeError{path, "field " + strconv.Quote(f.Name), "no such field"}
			}
			c, err := f.Shape.Convert(x, path+"."+f.Name)
			if err != nil {
				return nil, err
			}
			out[f.Name] = c
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: unknown shape kind %d", path, s.Kind)
}

func asInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return int(n), true
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return 0, false
		}
		return floatToInt(f)
	case float64:
		return floatToInt(x)
	}
	return 0, false
}

func floatToInt(f float64) (int, bool) {
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int(f), true
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil && !math.IsInf(f, 0)
	}
	return 0, false
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int, json.Number:
		return fmt.Sprintf("number %v", x)
	case float64:
		return fmt.Sprintf("number %v", x)
	case string:
		if len(x) > 20 {
			x = x[:20] + "…"
		}
		return "string " + strconv.Quote(x)
	case []any:
		return fmt.Sprintf("array of %d items", len(x))
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// Repr prints a canonical value of this shape the way Python's str() prints
// the corresponding list/int/str value: "[1, 2]", "'ab'", "{'pre_order': [1]}".
// This is the text that the Levenshtein metric compares.
func (s *Shape) Repr(v any) string {
	var b strings.Builder
	s.repr(&b, v)
	return b.String()
}

func (s *Shape) repr(b *strings.Builder, v any) {
	switch s.Kind {
	case KindInt:
		n, _ := asInt(v)
		b.WriteString(strconv.Itoa(n))
	case KindFloat:
		f, _ := asFloat(v)
		b.WriteString(pyfloat.String(f))
	case KindString:
		str, _ := v.(string)
		b.WriteString(pyQuote(str))
	case KindList:
		xs, _ := v.([]any)
		b.WriteByte('[')
		for i, x := range xs {
			if i > 0 {
				b.WriteString(", ")
			}
			s.Elem.repr(b, x)
		}
		b.WriteByte(']')
	case KindObject:
		m, _ := v.(map[string]any)
		b.WriteByte('{')
		for i, f := range s.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pyQuote(f.Name))
			b.WriteString(": ")
			f.Shape.repr(b, m[f.Name])
		}
		b.WriteByte('}')
	}
}

// pyQuote quotes a string the way Python's repr does for printable text.
func pyQuote(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// equalValues reports whether two canonical values are identical.
func equalValues(a, b any) bool { return reflect.DeepEqual(a, b) }

// Helpers that build canonical values from Go slices.

func intsValue(xs []int) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func intRowsValue(rows [][]int) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = intsValue(r)
	}
	return out
}

func floatRowsValue(rows [][]float64) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		row := make([]any, len(r))
		for j, x := range r {
			row[j] = x
		}
		out[i] = row
	}
	return out
}

func stringsValue(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// valueInts converts a canonical list of ints back to []int.
func valueInts(v any) ([]int, bool) {
	xs, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]int, len(xs))
	for i, x := range xs {
		n, ok := x.(int)
		if !ok {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}
