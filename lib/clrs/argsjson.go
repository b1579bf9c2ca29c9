package clrs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// This file turns JSON a user writes into the values the package takes:
// sampler parameters (ParseParams, for Kwarg) and the positional arguments
// of Run (DecodeArgs), both through jsonValue.

// ParseParams reads sampler parameters written as one JSON object, such as
// {"p": [0.5]} or {"low": 0, "high": 2.5}, into Params in the object's
// order; Kwarg takes a Param's Name and Value. The empty string is no
// parameters (nil, nil). Whether a parameter exists and has the right type
// is checked later, by the sampler. Each value is converted so:
//
//   - a number without '.', 'e' or 'E' is an int; any other number is a
//     float64 (one out of range is an error);
//   - a list of numbers is an []int when every element is an integer as
//     above, an []float64 otherwise;
//   - a list of lists of numbers is a Matrix (square and finite, as
//     MatrixFromRows checks it), with Int set when every entry is an
//     integer;
//   - null is nil;
//   - a boolean, a string, an object, or a list holding anything else
//     (null, or lists mixed with numbers) is an error.
//
// An error's text is written to follow the name of where s came from: the
// narlab CLI prints it after "--kwargs ", for example `--kwargs "{":
// unterminated JSON object; expected one such as '{"p": [0.5]}'`.
func ParseParams(s string) ([]Param, error) {
	if s == "" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("must be a JSON object such as '{\"p\": [0.5]}'")
	}
	var out []Param
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%q: %v; expected a JSON object such as '{\"p\": [0.5]}'", s, err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%q: parameter %v: %v; expected a JSON object such as '{\"p\": [0.5]}'", s, k, err)
		}
		cv, err := jsonValue(v)
		if err != nil {
			return nil, fmt.Errorf("%v: %w", k, err)
		}
		out = append(out, Param{Name: k.(string), Value: cv})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, fmt.Errorf("%q: unterminated JSON object; expected one such as '{\"p\": [0.5]}'", s)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%q: text after the JSON object; expected one object such as '{\"p\": [0.5]}'", s)
	}
	return out, nil
}

// FormatSamplerParams writes the parameters SamplerParams returns as a
// Python call's keyword arguments: sorted by name, nil as None, each value
// in fmt's %v, for example "(high=1, low=0)" or "(p=[0.5])"; no parameters
// is "()".
func FormatSamplerParams(params map[string]any) string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := params[k]
		if v == nil {
			v = "None"
		}
		parts[i] = fmt.Sprintf("%s=%v", k, v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// DecodeArgs reads the JSON input of Run: either an object keyed by the
// algorithm's argument names (names, as ArgNames returns them), such as
// {"A": [[0, 1], [1, 0]], "s": 0} for bfs, or an object whose only key is
// "args", holding the positional arguments as a list, such as
// {"args": [[[0, 1], [1, 0]], 0]}. Each value is converted as ParseParams
// converts it; Run then checks the arguments' count, types and shapes.
// Only the first JSON value in raw is read.
//
// A keyed object must name every argument and nothing else; a missing or
// unknown name is an error. With maxLen > 0, an argument that converts to
// an []int or []float64 longer than maxLen, or to a Matrix of more than
// maxLen rows (N), is an error wrapping an *ArgLengthError. maxLen <= 0
// bounds nothing.
// An error about one argument's value begins "argument NAME: " ("argument
// I: " in a list of positional arguments, I from 0).
func DecodeArgs(raw []byte, names []string, maxLen int) (Args, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if pos, ok := obj["args"]; ok && len(obj) == 1 {
		list, ok := pos.([]any)
		if !ok {
			return nil, fmt.Errorf(`"args" must be a list of the positional arguments`)
		}
		out := make(Args, len(list))
		for i, v := range list {
			cv, err := jsonValue(v)
			if err == nil {
				err = checkArgLength(cv, maxLen)
			}
			if err != nil {
				return nil, fmt.Errorf("argument %d: %w", i, err)
			}
			out[i] = cv
		}
		return out, nil
	}
	out := make(Args, len(names))
	for i, n := range names {
		v, ok := obj[n]
		if !ok {
			return nil, fmt.Errorf("missing argument %q", n)
		}
		cv, err := jsonValue(v)
		if err == nil {
			err = checkArgLength(cv, maxLen)
		}
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", n, err)
		}
		out[i] = cv
	}
	for k := range obj {
		if !slices.Contains(names, k) {
			return nil, fmt.Errorf("unknown argument %q", k)
		}
	}
	return out, nil
}

// An ArgLengthError is DecodeArgs's error for an array argument longer
// than its maxLen. DecodeArgs wraps it with the argument's name or position
// (errors.As finds it).
type ArgLengthError struct {
	Len int // the list's length, or the matrix's number of rows
	Max int // DecodeArgs's maxLen
}

func (e *ArgLengthError) Error() string {
	return fmt.Sprintf("has %d elements; accepted at most %d per dimension", e.Len, e.Max)
}

// checkArgLength refuses an array argument longer than maxLen (> 0), or a
// Matrix with more rows. The values jsonValue returns hold no other nested
// slices.
func checkArgLength(v any, maxLen int) error {
	n := 0
	switch x := v.(type) {
	case []int:
		n = len(x)
	case []float64:
		n = len(x)
	case Matrix:
		n = x.N
	}
	if maxLen > 0 && n > maxLen {
		return &ArgLengthError{Len: n, Max: maxLen}
	}
	return nil
}

// jsonValue converts a decoded JSON value (numbers as json.Number) into the
// Go types the package accepts, as ParseParams's documentation lists them.
func jsonValue(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			i, err := x.Int64()
			return int(i), err
		}
		return x.Float64()
	case []any:
		allInt := true
		for _, e := range x {
			n, ok := e.(json.Number)
			if !ok {
				if _, nested := e.([]any); nested {
					return jsonMatrix(x)
				}
				return nil, fmt.Errorf("list element %v is not a number", e)
			}
			if strings.ContainsAny(string(n), ".eE") {
				allInt = false
			}
		}
		if allInt {
			out := make([]int, len(x))
			for i, e := range x {
				n, err := e.(json.Number).Int64()
				if err != nil {
					return nil, err
				}
				out[i] = int(n)
			}
			return out, nil
		}
		out := make([]float64, len(x))
		for i, e := range x {
			f, err := e.(json.Number).Float64()
			if err != nil {
				return nil, err
			}
			out[i] = f
		}
		return out, nil
	case bool:
		return nil, fmt.Errorf("booleans are not accepted here (got %v)", x)
	}
	return nil, fmt.Errorf("unsupported value %v", v)
}

// jsonMatrix converts a decoded list of lists of numbers into a Matrix.
func jsonMatrix(rows []any) (any, error) {
	out := make([][]float64, len(rows))
	allInt := true
	for i, r := range rows {
		cells, ok := r.([]any)
		if !ok {
			return nil, fmt.Errorf("row %d is not a list", i)
		}
		out[i] = make([]float64, len(cells))
		for j, c := range cells {
			n, ok := c.(json.Number)
			if !ok {
				return nil, fmt.Errorf("entry [%d][%d] is not a number", i, j)
			}
			if strings.ContainsAny(string(n), ".eE") {
				allInt = false
			}
			f, err := n.Float64()
			if err != nil {
				return nil, err
			}
			out[i][j] = f
		}
	}
	m, err := MatrixFromRows(out)
	if err != nil {
		return nil, err
	}
	m.Int = allInt
	return m, nil
}
