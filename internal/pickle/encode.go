package pickle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Encode writes v as a protocol 4 pickle that CPython's pickle.load reads
// (with NumPy 1.x or 2.x installed for arrays): nil, bool, int, int64,
// float64, string, []byte, [Tuple], []any and *[List] (lists), *[Dict],
// *[Array] (as NumPy pickles its arrays: numpy.core.multiarray._reconstruct
// and the array's state) and *[Object] (Class(*Args), then its State if
// any: how named tuples are pickled). Globals are memoized, as CPython does.
func Encode(v any) ([]byte, error) {
	e := &encoder{memo: map[string]int{}}
	e.buf.Write([]byte{opProto, 4})
	if err := e.value(v); err != nil {
		return nil, fmt.Errorf("pickle: %w", err)
	}
	e.buf.WriteByte(opStop)
	return e.buf.Bytes(), nil
}

type encoder struct {
	buf   bytes.Buffer
	memo  map[string]int // global → memo index
	nmemo int
}

func (e *encoder) value(v any) error {
	switch v := v.(type) {
	case nil:
		e.buf.WriteByte(opNone)
	case bool:
		if v {
			e.buf.WriteByte(opNewTrue)
		} else {
			e.buf.WriteByte(opNewFalse)
		}
	case int:
		e.int(int64(v))
	case int64:
		e.int(v)
	case float64:
		e.buf.WriteByte(opBinFloat)
		e.buf.Write(binary.BigEndian.AppendUint64(nil, math.Float64bits(v)))
	case string:
		e.str(v)
	case []byte:
		e.bytes(v)
	case Tuple:
		return e.tuple(v)
	case []any:
		return e.list(v)
	case *List:
		return e.list(v.Items)
	case *Dict:
		e.buf.WriteByte(opEmptyDict)
		if v.Len() == 0 {
			return nil
		}
		e.buf.WriteByte(opMark)
		for i, k := range v.keys {
			if err := e.value(k); err != nil {
				return err
			}
			if err := e.value(v.vals[i]); err != nil {
				return err
			}
		}
		e.buf.WriteByte(opSetItems)
	case *Array:
		return e.array(v)
	case *Object:
		i := strings.LastIndexByte(v.Class, '.')
		if i <= 0 || i == len(v.Class)-1 {
			return fmt.Errorf("object class %q is not module.name", v.Class)
		}
		e.global(v.Class[:i], v.Class[i+1:])
		if err := e.tuple(v.Args); err != nil {
			return err
		}
		e.buf.WriteByte(opNewObj)
		if v.State != nil {
			if err := e.value(v.State); err != nil {
				return err
			}
			e.buf.WriteByte(opBuild)
		}
	default:
		return fmt.Errorf("cannot pickle a Go %T", v)
	}
	return nil
}

func (e *encoder) int(v int64) {
	switch {
	case v >= 0 && v < 1<<8:
		e.buf.Write([]byte{opBinInt1, byte(v)})
	case v >= 0 && v < 1<<16:
		e.buf.WriteByte(opBinInt2)
		e.buf.Write(binary.LittleEndian.AppendUint16(nil, uint16(v)))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		e.buf.WriteByte(opBinInt)
		e.buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(int32(v))))
	default:
		b := binary.LittleEndian.AppendUint64(nil, uint64(v))
		// The shortest two's complement that keeps the sign.
		for len(b) > 1 && ((b[len(b)-1] == 0 && b[len(b)-2]&0x80 == 0) || (b[len(b)-1] == 0xff && b[len(b)-2]&0x80 != 0)) {
			b = b[:len(b)-1]
		}
		e.buf.Write([]byte{opLong1, byte(len(b))})
		e.buf.Write(b)
	}
}

func (e *encoder) str(s string) {
	if len(s) < 256 {
		e.buf.Write([]byte{opShortBinUni, byte(len(s))})
	} else {
		e.buf.WriteByte(opBinUnicode8)
		e.buf.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(s))))
	}
	e.buf.WriteString(s)
}

func (e *encoder) bytes(b []byte) {
	if len(b) < 256 {
		e.buf.Write([]byte{opShortBinBytes, byte(len(b))})
	} else {
		e.buf.WriteByte(opBinBytes8)
		e.buf.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(b))))
	}
	e.buf.Write(b)
}

func (e *encoder) tuple(t Tuple) error {
	if len(t) == 0 {
		e.buf.WriteByte(opEmptyTuple)
		return nil
	}
	if len(t) > 3 {
		e.buf.WriteByte(opMark)
	}
	for _, x := range t {
		if err := e.value(x); err != nil {
			return err
		}
	}
	if len(t) > 3 {
		e.buf.WriteByte(opTuple)
	} else {
		e.buf.WriteByte(opTuple1 + byte(len(t)-1))
	}
	return nil
}

func (e *encoder) list(items []any) error {
	e.buf.WriteByte(opEmptyList)
	if len(items) == 0 {
		return nil
	}
	e.buf.WriteByte(opMark)
	for _, x := range items {
		if err := e.value(x); err != nil {
			return err
		}
	}
	e.buf.WriteByte(opAppends)
	return nil
}

// global pushes module.name, memoized.
func (e *encoder) global(module, name string) {
	key := module + "\n" + name
	if i, ok := e.memo[key]; ok {
		if i < 256 {
			e.buf.Write([]byte{opBinGet, byte(i)})
		} else {
			e.buf.WriteByte(opLongBinGet)
			e.buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(i)))
		}
		return
	}
	e.str(module)
	e.str(name)
	e.buf.WriteByte(opStackGlobal)
	e.buf.WriteByte(opMemoize)
	e.memo[key] = e.nmemo
	e.nmemo++
}

// array writes NumPy's own pickle of an array:
// _reconstruct(ndarray, (0,), b'b') then BUILD (1, shape, dtype, False, data).
func (e *encoder) array(a *Array) error {
	kind, size, err := parseDType(a.DType)
	if err != nil {
		return err
	}
	if len(a.Data) != a.Size()*size {
		return fmt.Errorf("a %s array of shape %v holds %d bytes, want %d", a.DType, a.Shape, len(a.Data), a.Size()*size)
	}
	e.global("numpy.core.multiarray", "_reconstruct")
	e.global("numpy", "ndarray")
	e.int(0)
	e.buf.WriteByte(opTuple1)
	e.bytes([]byte("b"))
	e.buf.WriteByte(opTuple3)
	e.buf.WriteByte(opReduce)
	e.buf.WriteByte(opMark)
	e.int(1)
	shape := make(Tuple, len(a.Shape))
	for i, d := range a.Shape {
		shape[i] = int64(d)
	}
	if err := e.tuple(shape); err != nil {
		return err
	}
	// numpy.dtype('f4', False, True), then its state
	// (3, '<', None, None, None, -1, -1, 0).
	e.global("numpy", "dtype")
	e.str(fmt.Sprintf("%c%d", kind, size))
	e.buf.Write([]byte{opNewFalse, opNewTrue, opTuple3, opReduce, opMark})
	e.int(3)
	order := "<"
	if size == 1 {
		order = "|"
	}
	e.str(order)
	e.buf.Write([]byte{opNone, opNone, opNone})
	e.int(-1)
	e.int(-1)
	e.int(0)
	e.buf.Write([]byte{opTuple, opBuild})
	e.buf.WriteByte(opNewFalse)
	e.bytes(a.Data)
	e.buf.Write([]byte{opTuple, opBuild})
	return nil
}
