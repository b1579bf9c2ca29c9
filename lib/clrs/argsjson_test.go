package clrs_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/clrs"
)

// TestParseParams pins what ParseParams accepts and converts, and the exact
// text of each error (the narlab CLI prints it after "--kwargs ").
func TestParseParams(t *testing.T) {
	const expectObj = `; expected a JSON object such as '{"p": [0.5]}'`
	cases := []struct {
		name, in string
		want     []clrs.Param
		wantErr  string // the error's whole text; "" for success
	}{
		{"empty: no parameters", ``, nil, ""},
		{"empty object", `{}`, nil, ""},
		{"one list of reals", `{"p": [0.5]}`, []clrs.Param{{"p", []float64{0.5}}}, ""},
		{"a real makes the list real", `{"p": [0.5, 1]}`, []clrs.Param{{"p", []float64{0.5, 1}}}, ""},
		{"list of integers", `{"k": [1, 2]}`, []clrs.Param{{"k", []int{1, 2}}}, ""},
		{"order kept, int and real scalars", `{"low": 0, "high": 2.5}`, []clrs.Param{{"low", 0}, {"high", 2.5}}, ""},
		{"an exponent makes a real", `{"x": 1e2, "y": -3E0}`, []clrs.Param{{"x", 100.0}, {"y", -3.0}}, ""},
		{"null is nil", `{"r": null}`, []clrs.Param{{"r", nil}}, ""},
		{"integer matrix", `{"m": [[1, 2], [3, 4]]}`, []clrs.Param{{"m", clrs.Matrix{N: 2, Data: []float64{1, 2, 3, 4}, Int: true}}}, ""},
		{"real matrix", `{"m": [[1, 2.5], [3, 4]]}`, []clrs.Param{{"m", clrs.Matrix{N: 2, Data: []float64{1, 2.5, 3, 4}}}}, ""},
		{"white space", " \n{ \"p\" : [ 0.5 ] }\t", []clrs.Param{{"p", []float64{0.5}}}, ""},

		{"a list", `[]`, nil, `must be a JSON object such as '{"p": [0.5]}'`},
		{"null", `null`, nil, `must be a JSON object such as '{"p": [0.5]}'`},
		{"not JSON", `p=0.5`, nil, `must be a JSON object such as '{"p": [0.5]}'`},
		{"unterminated", `{`, nil, `"{": unterminated JSON object; expected one such as '{"p": [0.5]}'`},
		{"bad key", `{bad`, nil, `"{bad": invalid character 'b'` + expectObj},
		{"trailing comma", `{"p": 1,}`, nil, `"{\"p\": 1,}": invalid character '}' looking for beginning of object key string` + expectObj},
		{"torn value", `{"p": [0.5`, nil, `"{\"p\": [0.5": parameter p: unexpected EOF` + expectObj},
		{"no colon", `{"p" 1}`, nil, `"{\"p\" 1}": parameter p: expected colon after object key` + expectObj},
		{"text after", `{"p": [0.5]} x`, nil, `"{\"p\": [0.5]} x": text after the JSON object; expected one object such as '{"p": [0.5]}'`},
		{"two objects", `{"p": [0.1]}}`, nil, `"{\"p\": [0.1]}}": text after the JSON object; expected one object such as '{"p": [0.5]}'`},
		{"object value", `{"a": {"b": 1}}`, nil, `a: unsupported value map[b:1]`},
		{"string value", `{"p": "x"}`, nil, `p: unsupported value x`},
		{"boolean", `{"p": true}`, nil, `p: booleans are not accepted here (got true)`},
		{"boolean in a list", `{"p": [true]}`, nil, `p: list element true is not a number`},
		{"null in a list", `{"p": [null]}`, nil, `p: list element <nil> is not a number`},
		{"real out of range", `{"p": 1e400}`, nil, `p: strconv.ParseFloat: parsing "1e400": value out of range`},
		{"real out of range in a list", `{"p": [1.5, 1e400]}`, nil, `p: strconv.ParseFloat: parsing "1e400": value out of range`},
		{"integer out of range", `{"p": 99999999999999999999}`, nil, `p: strconv.ParseInt: parsing "99999999999999999999": value out of range`},
		{"integer out of range in a list", `{"p": [99999999999999999999]}`, nil, `p: strconv.ParseInt: parsing "99999999999999999999": value out of range`},
		{"ragged matrix", `{"p": [[1, 2], [3]]}`, nil, `p: adjacency matrix must be square: row 1 has 1 entries, want 2`},
		{"number after a row", `{"p": [[1, 2], 3]}`, nil, `p: row 1 is not a list`},
		{"row after a number", `{"p": [1, [2]]}`, nil, `p: row 0 is not a list`},
		{"string in a matrix", `{"p": [[1, "a"], [1, 2]]}`, nil, `p: entry [0][1] is not a number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := clrs.ParseParams(c.in)
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("ParseParams(%q) = %v, %v; want the error %s", c.in, got, err, c.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("ParseParams(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
			}
		})
	}
}

// TestDecodeArgs pins the two shapes of Run's JSON input DecodeArgs
// accepts, the length bound, and the exact text of each error.
func TestDecodeArgs(t *testing.T) {
	sortNames, graphNames := []string{"key"}, []string{"A", "s"}
	// ones(n) is a JSON list of n ones; want(n) is what it decodes to.
	ones := func(n int) string { return "[" + strings.TrimSuffix(strings.Repeat("1,", n), ",") + "]" }
	want := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = 1
		}
		return out
	}
	cases := []struct {
		name, in string
		names    []string
		maxLen   int
		want     clrs.Args
		wantErr  string // the error's whole text; "" for success
	}{
		{"by name, integers", `{"key": [3, 1, 2]}`, sortNames, 0, clrs.Args{[]int{3, 1, 2}}, ""},
		{"by name, reals", `{"key": [0.5, 1]}`, sortNames, 0, clrs.Args{[]float64{0.5, 1}}, ""},
		{"by name, in names' order", `{"s": 1, "A": [[0, 1.5], [1, 0]]}`, graphNames, 0,
			clrs.Args{clrs.Matrix{N: 2, Data: []float64{0, 1.5, 1, 0}}, 1}, ""},
		{"integer matrix", `{"A": [[0, 1], [1, 0]], "s": 0}`, graphNames, 0,
			clrs.Args{clrs.Matrix{N: 2, Data: []float64{0, 1, 1, 0}, Int: true}, 0}, ""},
		{"positional", `{"args": [[5, 4]]}`, sortNames, 0, clrs.Args{[]int{5, 4}}, ""},
		{"positional, any count", `{"args": [[1, 2, 3], 2.5]}`, sortNames, 0, clrs.Args{[]int{1, 2, 3}, 2.5}, ""},
		{"positional, none", `{"args": []}`, sortNames, 0, clrs.Args{}, ""},
		{"null is nil", `{"key": null}`, sortNames, 0, clrs.Args{nil}, ""},
		{"only the first value is read", `{"key": [1]} trailing`, sortNames, 0, clrs.Args{[]int{1}}, ""},
		{"at the bound", `{"key": ` + ones(4) + `}`, sortNames, 4, clrs.Args{want(4)}, ""},
		{"no bound", `{"key": ` + ones(300) + `}`, sortNames, 0, clrs.Args{want(300)}, ""},
		{"a matrix at the bound", `{"A": [[0, 1, 1], [1, 0, 1], [1, 1, 0]], "s": 0}`, graphNames, 3,
			clrs.Args{clrs.Matrix{N: 3, Data: []float64{0, 1, 1, 1, 0, 1, 1, 1, 0}, Int: true}, 0}, ""},

		{"empty", ``, sortNames, 0, nil, `not a JSON object: EOF`},
		{"torn", `[`, sortNames, 0, nil, `not a JSON object: unexpected EOF`},
		{"a list", `[1]`, sortNames, 0, nil, `not a JSON object: json: cannot unmarshal array into Go value of type map[string]interface {}`},
		{"null", `null`, sortNames, 0, nil, `missing argument "key"`},
		{"missing", `{"A": [[0, 1], [1, 0]]}`, graphNames, 0, nil, `missing argument "s"`},
		{"unknown", `{"key": [1], "x": 2}`, sortNames, 0, nil, `unknown argument "x"`},
		{"args beside names", `{"args": [], "key": [1]}`, sortNames, 0, nil, `unknown argument "args"`},
		{"args not a list", `{"args": 5}`, sortNames, 0, nil, `"args" must be a list of the positional arguments`},
		{"positional boolean", `{"args": [true]}`, sortNames, 0, nil, `argument 0: booleans are not accepted here (got true)`},
		{"string", `{"key": "abc"}`, sortNames, 0, nil, `argument key: unsupported value abc`},
		{"object", `{"key": {"a": 1}}`, sortNames, 0, nil, `argument key: unsupported value map[a:1]`},
		{"string in a list", `{"key": [1, "a"]}`, sortNames, 0, nil, `argument key: list element a is not a number`},
		{"ragged matrix", `{"A": [[0, 1], [1]], "s": 0}`, graphNames, 0, nil, `argument A: adjacency matrix must be square: row 1 has 1 entries, want 2`},
		{"over the bound", `{"key": ` + ones(5) + `}`, sortNames, 4, nil, `argument key: has 5 elements; accepted at most 4 per dimension`},
		{"positional over the bound", `{"args": [` + ones(5) + `]}`, sortNames, 4, nil, `argument 0: has 5 elements; accepted at most 4 per dimension`},
		{"a matrix over the bound", `{"A": [[0, 1, 1], [1, 0, 1], [1, 1, 0]], "s": 0}`, graphNames, 2, nil,
			`argument A: has 3 elements; accepted at most 2 per dimension`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := clrs.DecodeArgs([]byte(c.in), c.names, c.maxLen)
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("DecodeArgs(%.60q) = %v, %v; want the error %s", c.in, got, err, c.wantErr)
				}
				var le *clrs.ArgLengthError
				if isLen := errors.As(err, &le); isLen != strings.Contains(c.wantErr, "per dimension") {
					t.Fatalf("errors.As(%v, *ArgLengthError) = %v", err, isLen)
				} else if isLen && (!strings.Contains(c.wantErr, fmt.Sprintf("has %d elements", le.Len)) || le.Max != c.maxLen) {
					t.Fatalf("ArgLengthError = %+v; want the length the message names, Max %d", *le, c.maxLen)
				}
				return
			}
			if err != nil {
				t.Fatalf("DecodeArgs(%.60q): %v", c.in, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("DecodeArgs(%.60q) = %#v; want %#v", c.in, got, c.want)
			}
		})
	}
}

// TestFormatSamplerParams pins the text `narlab clrs algos` prints after a
// sampler's class.
func TestFormatSamplerParams(t *testing.T) {
	for _, c := range []struct {
		params map[string]any
		want   string
	}{
		{nil, "()"},
		{map[string]any{"p": []float64{0.5}}, "(p=[0.5])"},
		{map[string]any{"low": 0.0, "high": 1.0}, "(high=1, low=0)"},
		{map[string]any{"k": nil, "eps": 0.25}, "(eps=0.25, k=None)"},
	} {
		if got := clrs.FormatSamplerParams(c.params); got != c.want {
			t.Errorf("FormatSamplerParams(%v) = %q; want %q", c.params, got, c.want)
		}
	}
	_, params, err := clrs.SamplerParams("insertion_sort")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := clrs.FormatSamplerParams(params), "(high=1, low=0)"; got != want {
		t.Errorf("insertion_sort's sampler parameters: %q; want %q", got, want)
	}
}

// FuzzDecodeArgs feeds Run's JSON inputs to DecodeArgs and, when they
// decode, to the algorithm: any input must give a result or an error,
// never a panic, and no accepted array is longer than the bound.
func FuzzDecodeArgs(f *testing.F) {
	const maxLen = 256
	algos := []string{"insertion_sort", "bfs", "dijkstra", "kmp_matcher", "binary_search", "activity_selector", "graham_scan", "matrix_chain_order", "floyd_warshall"}
	seeds := []struct {
		algo int
		in   string
	}{
		{0, `{"key": [3, 1, 2]}`},
		{0, `{"args": [[5, 4]]}`},
		{1, `{"A": [[0, 1], [1, 0]], "s": 0}`},
		{2, `{"A": [[0, 2.5], [2.5, 0]], "s": 1}`},
		{3, `{"T": [0, 1, 0, 1], "P": [0, 1]}`},
		{4, `{"args": [[1, 2, 3], 2]}`},
		{0, `{"key": []}`},
		{1, `{"A": [[0]], "s": 7}`},
		{5, `{"s": [1, 2], "f": [3]}`},
		{6, `{"xs": [0, 1, 0], "ys": [0, 0, 1]}`},
		{0, `{"key": [1e308, -1e308, 0]}`},
		{8, `{"A": [[0, -1], [-1, 0]]}`},
		{0, `[`},
	}
	for _, s := range seeds {
		f.Add(uint8(s.algo), []byte(s.in))
	}
	f.Fuzz(func(t *testing.T, ai uint8, raw []byte) {
		algo := algos[int(ai)%len(algos)]
		names, err := clrs.ArgNames(algo)
		if err != nil {
			t.Fatal(err)
		}
		args, err := clrs.DecodeArgs(raw, names, maxLen)
		if err != nil {
			return
		}
		for i, a := range args {
			n := 0
			switch x := a.(type) {
			case []int:
				n = len(x)
			case []float64:
				n = len(x)
			}
			if n > maxLen {
				t.Fatalf("DecodeArgs accepted %d elements in argument %d", n, i)
			}
		}
		_, _ = clrs.Run(algo, args) // an error is fine; a panic fails the fuzz test
	})
}

// FuzzParseParams: the text is one complete JSON object or an error.
func FuzzParseParams(f *testing.F) {
	for _, s := range []string{`{"p": [0.5]}`, `{`, `{"p": [0.5]} x`, `{}`, `{"a": {"b": 1}}`, `[]`, `{"p": 1e400}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := clrs.ParseParams(s)
		if err == nil && s != "" && len(ps) > len(s) {
			t.Fatalf("%d params from %q", len(ps), s)
		}
	})
}
