// Package pickle reads and writes the subset of Python's pickle format that
// checkpoints of NumPy arrays use: dicts, lists and tuples of strings,
// numbers, bytes and NumPy arrays (numpy.ndarray, NumPy scalars), plus
// instances of named-tuple classes the caller allows (optax's optimizer
// states), in protocols 2 to 5 as CPython writes them (framing and
// memoization included; NumPy 1.x and 2.x module paths).
//
// Unpickling in Python runs whatever callables a file names; this package
// runs none. It recognises a fixed list of NumPy constructors, rebuilds
// their values itself, and refuses every other global (os.system,
// builtins.eval, arbitrary classes) with an error naming it, as it refuses
// opcodes outside that subset (protocol 0/1 text opcodes, persistent IDs,
// extension codes, out-of-band buffers). Every length is checked against
// the bytes that remain, so a torn file or a forged length is an error,
// never a large allocation.
//
// Decoded values are nil (None), bool, int64, float64, string, []byte
// (bytes and bytearray), [Tuple], *[List], *[Dict], *[Array] and *[Object].
package pickle

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Tuple is a Python tuple.
type Tuple []any

// List is a Python list.
type List struct{ Items []any }

// Dict is a Python dict with hashable keys of the kinds this package
// decodes (str, int, float, bool, None), its items in insertion order.
type Dict struct {
	keys, vals []any
	index      map[any]int
}

// NewDict returns an empty dict.
func NewDict() *Dict { return &Dict{index: map[any]int{}} }

// Set sets d[key] = val, keeping the key's first position, as Python does.
// It returns an error for a key of a kind Dict does not hold.
func (d *Dict) Set(key, val any) error {
	switch key.(type) {
	case string, int64, float64, bool, nil:
	default:
		return fmt.Errorf("a dict key of type %s (only str, int, float, bool and None keys are read)", typeName(key))
	}
	if d.index == nil {
		d.index = map[any]int{}
	}
	if i, ok := d.index[key]; ok {
		d.vals[i] = val
		return nil
	}
	d.index[key] = len(d.keys)
	d.keys = append(d.keys, key)
	d.vals = append(d.vals, val)
	return nil
}

// Get returns d[key].
func (d *Dict) Get(key any) (any, bool) {
	i, ok := d.index[key]
	if !ok {
		return nil, false
	}
	return d.vals[i], true
}

// Len returns the number of items.
func (d *Dict) Len() int { return len(d.keys) }

// Keys returns the keys in insertion order.
func (d *Dict) Keys() []any { return append([]any(nil), d.keys...) }

// Object is an instance of a class the caller allowed (see
// [Options.Classes]), as pickled by its __reduce__ or __getnewargs__
// (named tuples: the fields in Args), with the state BUILD gave it.
type Object struct {
	Class string // "module.qualname"
	Args  Tuple
	State any
}

// Array is a NumPy array of booleans, integers or floats: its dtype in
// NumPy's notation without the byte order ("f4", "f8", "i4", "i8", "u1",
// "b1", …), its shape (empty for a 0-d array or a NumPy scalar) and its
// elements in C order, little-endian, whatever order the file held.
type Array struct {
	DType string
	Shape []int
	Data  []byte

	pending bool // made by _reconstruct, waiting for BUILD
}

// Size is the number of elements.
func (a *Array) Size() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// Float32s returns the elements as float32 (from any float dtype; integers
// and booleans converted).
func (a *Array) Float32s() ([]float32, error) {
	f, err := a.Float64s()
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(f))
	if a.DType == "f4" {
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:]))
		}
		return out, nil
	}
	for i, v := range f {
		out[i] = float32(v)
	}
	return out, nil
}

// Float64s returns the elements as float64.
func (a *Array) Float64s() ([]float64, error) {
	kind, size, err := parseDType(a.DType)
	if err != nil {
		return nil, err
	}
	n := a.Size()
	if len(a.Data) != n*size {
		return nil, fmt.Errorf("pickle: a %s array of shape %v holds %d bytes, want %d", a.DType, a.Shape, len(a.Data), n*size)
	}
	out := make([]float64, n)
	for i := range out {
		b := a.Data[i*size : (i+1)*size]
		switch kind {
		case 'f':
			switch size {
			case 2:
				out[i] = float64(float16(binary.LittleEndian.Uint16(b)))
			case 4:
				out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
			case 8:
				out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b))
			}
		case 'i':
			out[i] = float64(signed(b))
		case 'u', 'b':
			out[i] = float64(unsigned(b))
		}
	}
	return out, nil
}

// Int64s returns the elements of an integer or boolean array.
func (a *Array) Int64s() ([]int64, error) {
	kind, size, err := parseDType(a.DType)
	if err != nil {
		return nil, err
	}
	if kind == 'f' {
		return nil, fmt.Errorf("pickle: a %s array is not an integer array", a.DType)
	}
	n := a.Size()
	if len(a.Data) != n*size {
		return nil, fmt.Errorf("pickle: a %s array of shape %v holds %d bytes, want %d", a.DType, a.Shape, len(a.Data), n*size)
	}
	out := make([]int64, n)
	for i := range out {
		b := a.Data[i*size : (i+1)*size]
		if kind == 'i' {
			out[i] = signed(b)
		} else {
			out[i] = int64(unsigned(b))
		}
	}
	return out, nil
}

// Float32Array is a float32 ("f4") array of the given shape.
func Float32Array(shape []int, data []float32) *Array {
	b := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return &Array{DType: "f4", Shape: append([]int{}, shape...), Data: b}
}

// Int32Array is an int32 ("i4") array of the given shape.
func Int32Array(shape []int, data []int32) *Array {
	b := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	return &Array{DType: "i4", Shape: append([]int{}, shape...), Data: b}
}

func signed(b []byte) int64 {
	switch len(b) {
	case 1:
		return int64(int8(b[0]))
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(b)))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	}
	return int64(binary.LittleEndian.Uint64(b))
}

func unsigned(b []byte) uint64 {
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	}
	return binary.LittleEndian.Uint64(b)
}

// float16 converts IEEE half-precision bits.
func float16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf, NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		v := float32(frac) / 1024 / (1 << 14)
		if sign != 0 {
			return -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// parseDType splits a dtype ("f4", "<i8", "|b1") into its kind and size,
// refusing what Array does not hold.
func parseDType(s string) (kind byte, size int, err error) {
	s = strings.TrimLeft(s, "<>|=")
	if len(s) == 2 && strings.IndexByte("fiub", s[0]) >= 0 {
		kind, size = s[0], int(s[1]-'0')
		ok := false
		switch kind {
		case 'f':
			ok = size == 2 || size == 4 || size == 8
		case 'i', 'u':
			ok = size == 1 || size == 2 || size == 4 || size == 8
		case 'b':
			ok = size == 1
		}
		if ok {
			return kind, size, nil
		}
	}
	return 0, 0, fmt.Errorf("pickle: NumPy dtype %q is not read (only bool, integer and float arrays are)", s)
}

func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case int64:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []byte:
		return "bytes"
	case Tuple:
		return "tuple"
	case *List:
		return "list"
	case *Dict:
		return "dict"
	case *Array:
		return "numpy.ndarray"
	case *Object:
		return v.Class
	case global:
		return v.module + "." + v.name
	case *dtype:
		return "numpy.dtype"
	}
	return fmt.Sprintf("%T", v)
}
