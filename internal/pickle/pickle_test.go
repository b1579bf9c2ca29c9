package pickle

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/narlab/narlab/internal/project"
)

// canon is the canonical JSON form of a decoded value, as
// testdata/gen.py's canon writes Python's.
func canon(v any) any {
	switch v := v.(type) {
	case nil, bool:
		return v
	case int64:
		return map[string]any{"int": strconv.FormatInt(v, 10)}
	case float64:
		return map[string]any{"float": pyFloatHex(v)}
	case string:
		return map[string]any{"str": v}
	case []byte:
		return map[string]any{"bytes": hex.EncodeToString(v)}
	case Tuple:
		return map[string]any{"tuple": canonList(v)}
	case *List:
		return map[string]any{"list": canonList(v.Items)}
	case []any: // what Encode writes as a list
		return map[string]any{"list": canonList(v)}
	case *Dict:
		items := []any{}
		for i, k := range v.keys {
			items = append(items, []any{canon(k), canon(v.vals[i])})
		}
		return map[string]any{"dict": items}
	case *Array:
		shape := make([]any, len(v.Shape))
		for i, d := range v.Shape {
			shape[i] = float64(d)
		}
		return map[string]any{"array": v.DType, "shape": shape, "hex": hex.EncodeToString(v.Data)}
	case *Object:
		return map[string]any{"object": v.Class, "args": canonList(v.Args)}
	}
	return fmt.Sprintf("unexpected %T", v)
}

func canonList(xs []any) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = canon(x)
	}
	return out
}

// pyFloatHex is Python's float.hex() of a normal number or zero.
func pyFloatHex(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0x0.0p+0"
		}
		return "0x0.0p+0"
	}
	s := strconv.FormatFloat(f, 'x', 13, 64) // 0x1.8000000000000p+00
	mant, exp, _ := strings.Cut(s, "p")
	e, _ := strconv.Atoi(exp)
	return fmt.Sprintf("%sp%+d", mant, e)
}

func sameJSON(t *testing.T, what string, got any, wantJSON []byte) {
	t.Helper()
	var want any
	if err := json.Unmarshal(wantJSON, &want); err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

// TestDecodeCPython decodes the pickles CPython wrote (testdata/gen.py,
// protocols 2 to 5, NumPy 1.x and 2.x) and compares with the values
// Python pickled.
func TestDecodeCPython(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) < 16 {
		t.Fatalf("want the 16 fixtures of testdata/gen.py, found %d (%v)", len(files), err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".pkl")
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			v, err := Decode(data, Options{Classes: []string{"testmod.State"}})
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, name, canon(v), want)
		})
	}
}

// TestDecodeRefuses: what is outside the subset is an error that says
// what it was, never a call and never a panic.
func TestDecodeRefuses(t *testing.T) {
	cases := []struct {
		file, want string
		truncated  bool
	}{
		{"os-system", "refusing global posix.system", false},
		{"eval", "refusing global builtins.eval", false},
		{"protocol-0", "not a pickle of protocol 2 or later", false},
		{"protocol-1", "not a pickle of protocol 2 or later", false},
		{"object-array", `dtype "O8" is not read`, false},
		{"structured", `dtype "V4" is not read`, false},
		{"out-of-band", "out-of-band buffer", false},
		{"set", "a set (not read)", false},
		{"masked", "refusing global numpy.ma.core._mareconstruct", false},
		{"complex", `dtype "c16" is not read`, false},
		{"truncated", "a torn or truncated file", true},
		{"trailing", "1 bytes after the pickle's STOP", false},
		{"empty", "an empty file", true},
	}
	for _, tag := range []string{"np1", "np2"} {
		for _, c := range cases {
			t.Run(c.file+"."+tag, func(t *testing.T) {
				data, err := os.ReadFile("testdata/bad-" + c.file + "." + tag + ".pkl")
				if err != nil {
					t.Fatal(err)
				}
				_, err = Decode(data, Options{})
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want one containing %q", err, c.want)
				}
				if errors.Is(err, ErrTruncated) != c.truncated {
					t.Errorf("errors.Is(err, ErrTruncated) = %v", !c.truncated)
				}
			})
		}
	}
	// A named tuple's class is refused unless the caller allows it.
	data, err := os.ReadFile("testdata/layouts-p4.np2.pkl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(data, Options{}); err == nil || !strings.Contains(err.Error(), "refusing global testmod.State") {
		t.Errorf("a class not allowed: error %v", err)
	}
}

// TestDecodeCrafted: hand-made byte strings for the checks no CPython
// pickle trips.
func TestDecodeCrafted(t *testing.T) {
	cases := []struct {
		name string
		data string
		want string
	}{
		{"forged length", "\x80\x04\x8e\xff\xff\xff\xff\xff\xff\xff\x7f", "bytes needed"},
		{"forged frame", "\x80\x04\x95\x00\x00\x00\x00\x00\x00\x10\x00N.", "a frame of"},
		{"stack underflow", "\x80\x04\x85.", "too short"},
		{"get before put", "\x80\x04h\x05.", "memo entry 5 was never stored"},
		{"no mark", "\x80\x04N\x8c\x01at.", "no MARK"},
		{"two values", "\x80\x04NN.", "2 values"},
		{"protocol 6", "\x80\x06N.", "protocol 6"},
		{"not an opcode", "\x80\x04\xff", "not a pickle opcode"},
		{"text global", "\x80\x02cos\nsystem\n.", "refusing global os.system"},
		{"unfinished array", "\x80\x04\x8c\x15numpy.core.multiarray\x8c\x0c_reconstruct\x93\x8c\x05numpy\x8c\x07ndarray\x93K\x00\x85C\x01b\x87R.", "never set"},
		{"reconstruct of another class", "\x80\x04\x8c\x15numpy.core.multiarray\x8c\x0c_reconstruct\x93\x8c\x05numpy\x8c\x05dtype\x93K\x00\x85C\x01b\x87R.", "not numpy.ndarray"},
		{"long too long", "\x80\x04\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01.", "at most 8"},
		{"a list key", "\x80\x04}]K\x01s.", "dict key of type list"},
		{"append to a dict", "\x80\x04}K\x01a.", "not a list"},
		{"invalid UTF-8", "\x80\x04\x8c\x01\xff.", "UTF-8"},
		{"no STOP", "\x80\x04N", "no STOP"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.data), Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// The memo makes cycles: a list holding itself is read, not followed forever.
	v, err := Decode([]byte("\x80\x04]\x94h\x00a."), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l := v.(*List); l.Items[0] != any(l) {
		t.Error("the list does not hold itself")
	}
	// Shared tuples nested 60 deep (2^60 paths) are checked in linear
	// time: each level memoizes the previous value and pairs it with itself.
	b := []byte("\x80\x04N")
	for i := range 60 {
		b = append(b, '\x94', 'h', byte(i), '\x86')
	}
	b = append(b, '.')
	if _, err := Decode(b, Options{}); err != nil {
		t.Fatal(err)
	}
}

// testValue is a value of every kind Encode writes.
func testValue() any {
	d := NewDict()
	d.Set("f32", Float32Array([]int{2, 3}, []float32{0, 1.5, -2, 3.25, 1e-8, float32(math.Inf(1))}))
	d.Set("count", Int32Array(nil, []int32{7}))
	d.Set("empty", Float32Array([]int{0, 4}, nil))
	inner := NewDict()
	inner.Set("w", Float32Array([]int{1}, []float32{0.5}))
	d.Set("state", Tuple{
		&Object{Class: "testmod.State", Args: Tuple{Int32Array([]int{}, []int32{3}), inner}},
		Tuple{}, Tuple{int64(1), int64(-1), int64(300), int64(70000), int64(-70000), int64(1 << 40), int64(math.MinInt64)},
	})
	d.Set("misc", []any{nil, true, false, 1.5, "h\u00e9llo", strings.Repeat("y", 300), []byte{0, 255}, bytes.Repeat([]byte{1}, 300)})
	d.Set(int64(3), "an int key")
	return d
}

// TestEncodeRoundTrip: what Encode writes, Decode reads back equal.
func TestEncodeRoundTrip(t *testing.T) {
	v := testValue()
	data, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(data, Options{Classes: []string{"testmod.State"}})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := json.Marshal(canon(got))
	w, _ := json.Marshal(canon(v))
	if !bytes.Equal(g, w) {
		t.Errorf("round trip:\n got %s\nwant %s", g, w)
	}
	if _, err := Encode(map[string]int{}); err == nil {
		t.Error("a Go map was encoded")
	}
	if _, err := Encode(&Array{DType: "f4", Shape: []int{2}, Data: []byte{1}}); err == nil {
		t.Error("an array with too few bytes was encoded")
	}
}

// TestEncodeLoadsInPython: CPython's pickle.load, with NumPy, reads what
// Encode writes, in the project's Python environment (NumPy 2.x) — the
// NumPy 1.x reader is dm-clrs's, tested by lib/nn's bridge test.
func TestEncodeLoadsInPython(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the project's Python (.venv, made by scripts/setup.sh); run without -short")
	}
	py, err := project.Python()
	if err != nil {
		t.Fatal(err)
	}
	data, err := Encode(testValue())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pkl := filepath.Join(dir, "v.pkl")
	if err := os.WriteFile(pkl, data, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `
import json, pickle, runpy, sys
gen = runpy.run_path(sys.argv[1])
with open(sys.argv[2], "rb") as f:
    v = pickle.load(f)
print(json.dumps(gen["canon"](v)))
`
	cmd := exec.Command(py, "-c", script, "testdata/gen.py", pkl)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	sameJSON(t, "Python's reading", canon(testValue()), out)
}
