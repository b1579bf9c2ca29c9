package pickle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"
)

// Options say what a pickle may hold beyond the built-in subset.
type Options struct {
	// Classes are the classes ("module.qualname", e.g.
	// "optax._src.transform.ScaleByAdamState") a pickle may instantiate:
	// each becomes an *Object holding the arguments it was pickled with.
	// Named tuples, whose pickles call the class with their fields, are
	// what this is for; no code of the class runs.
	Classes []string
}

// ErrTruncated is wrapped by the error of a pickle that ends early (a torn
// or truncated file).
var ErrTruncated = errors.New("unexpected end of data (a torn or truncated file?)")

// Decode reads one pickle that fills data and returns its value.
func Decode(data []byte, opts Options) (any, error) {
	d := &decoder{data: data, memo: map[uint32]any{}, classes: opts.Classes}
	v, err := d.run()
	if err != nil {
		if d.op != 0 {
			return nil, fmt.Errorf("pickle: opcode %s at byte %d: %w", opName(d.op), d.opAt, err)
		}
		return nil, fmt.Errorf("pickle: %w", err)
	}
	if err := check(v, 0, map[any]bool{}); err != nil {
		return nil, fmt.Errorf("pickle: %w", err)
	}
	return v, nil
}

// global is a class or function a GLOBAL opcode named (one of the
// recognised ones).
type global struct{ module, name string }

// dtype is a numpy.dtype being rebuilt.
type dtype struct {
	kind  byte
	size  int
	order byte // '<', '>' or '|'; 0 until BUILD
}

func (t *dtype) String() string { return fmt.Sprintf("%c%d", t.kind, t.size) }

// The NumPy callables a pickle of arrays names, under NumPy 1.x
// (numpy.core) and 2.x (numpy._core) paths.
var numpyGlobals = map[string]string{
	"numpy.core.multiarray._reconstruct":  "reconstruct",
	"numpy._core.multiarray._reconstruct": "reconstruct",
	"numpy.ndarray":                       "ndarray",
	"numpy.dtype":                         "dtype",
	"numpy.core.multiarray.scalar":        "scalar",
	"numpy._core.multiarray.scalar":       "scalar",
	"numpy.core.numeric._frombuffer":      "frombuffer",
	"numpy._core.numeric._frombuffer":     "frombuffer",
	"_codecs.encode":                      "encode", // bytes under protocol 2
	"__builtin__.bytes":                   "bytes",  // b'' under protocol 2
	"builtins.bytes":                      "bytes",
	"collections.OrderedDict":             "ordereddict",
}

type decoder struct {
	data      []byte
	pos       int
	op        byte
	opAt      int
	stack     []any
	marks     [][]any
	memo      map[uint32]any
	classes   []string
	protocol  int
	stopped   bool
	frameEnds int
}

func (d *decoder) need(n uint64) error {
	if n > uint64(len(d.data)-d.pos) {
		return fmt.Errorf("%d bytes needed, %d left: %w", n, len(d.data)-d.pos, ErrTruncated)
	}
	return nil
}

func (d *decoder) read(n uint64) ([]byte, error) {
	if err := d.need(n); err != nil {
		return nil, err
	}
	b := d.data[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return b, nil
}

func (d *decoder) u8() (uint64, error) {
	b, err := d.read(1)
	if err != nil {
		return 0, err
	}
	return uint64(b[0]), nil
}

func (d *decoder) u16() (uint64, error) {
	b, err := d.read(2)
	if err != nil {
		return 0, err
	}
	return uint64(binary.LittleEndian.Uint16(b)), nil
}

func (d *decoder) u32() (uint64, error) {
	b, err := d.read(4)
	if err != nil {
		return 0, err
	}
	return uint64(binary.LittleEndian.Uint32(b)), nil
}

func (d *decoder) u64() (uint64, error) {
	b, err := d.read(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// line reads up to a newline (GLOBAL's module and name).
func (d *decoder) line() (string, error) {
	for i := d.pos; i < len(d.data); i++ {
		if d.data[i] == '\n' {
			s := string(d.data[d.pos:i])
			d.pos = i + 1
			return s, nil
		}
	}
	return "", ErrTruncated
}

func (d *decoder) push(v any) { d.stack = append(d.stack, v) }

func (d *decoder) pop() (any, error) {
	if len(d.stack) == 0 {
		return nil, errors.New("the stack is empty (a corrupt pickle)")
	}
	v := d.stack[len(d.stack)-1]
	d.stack = d.stack[:len(d.stack)-1]
	return v, nil
}

func (d *decoder) top() (any, error) {
	if len(d.stack) == 0 {
		return nil, errors.New("the stack is empty (a corrupt pickle)")
	}
	return d.stack[len(d.stack)-1], nil
}

// popMark returns the items pushed since the last MARK and restores the
// stack below it.
func (d *decoder) popMark() ([]any, error) {
	if len(d.marks) == 0 {
		return nil, errors.New("no MARK on the stack (a corrupt pickle)")
	}
	items := d.stack
	d.stack = d.marks[len(d.marks)-1]
	d.marks = d.marks[:len(d.marks)-1]
	return items, nil
}

// Opcodes (Lib/pickletools.py).
const (
	opMark           = '('
	opStop           = '.'
	opPop            = '0'
	opPopMark        = '1'
	opDup            = '2'
	opBinFloat       = 'G'
	opBinInt         = 'J'
	opBinInt1        = 'K'
	opBinInt2        = 'M'
	opNone           = 'N'
	opBinPersID      = 'Q'
	opReduce         = 'R'
	opBinUnicode     = 'X'
	opEmptyList      = ']'
	opAppend         = 'a'
	opBuild          = 'b'
	opGlobal         = 'c'
	opAppends        = 'e'
	opBinGet         = 'h'
	opLongBinGet     = 'j'
	opBinPut         = 'q'
	opLongBinPut     = 'r'
	opSetItem        = 's'
	opTuple          = 't'
	opEmptyTuple     = ')'
	opSetItems       = 'u'
	opEmptyDict      = '}'
	opBinBytes       = 'B'
	opShortBinBytes  = 'C'
	opProto          = 0x80
	opNewObj         = 0x81
	opExt1           = 0x82
	opExt2           = 0x83
	opExt4           = 0x84
	opTuple1         = 0x85
	opTuple2         = 0x86
	opTuple3         = 0x87
	opNewTrue        = 0x88
	opNewFalse       = 0x89
	opLong1          = 0x8a
	opLong4          = 0x8b
	opShortBinUni    = 0x8c
	opBinUnicode8    = 0x8d
	opBinBytes8      = 0x8e
	opEmptySet       = 0x8f
	opAddItems       = 0x90
	opFrozenSet      = 0x91
	opNewObjEx       = 0x92
	opStackGlobal    = 0x93
	opMemoize        = 0x94
	opFrame          = 0x95
	opByteArray8     = 0x96
	opNextBuffer     = 0x97
	opReadonlyBuffer = 0x98
)

var opNames = map[byte]string{
	opMark: "MARK", opStop: "STOP", opPop: "POP", opPopMark: "POP_MARK", opDup: "DUP", opBinFloat: "BINFLOAT",
	opBinInt: "BININT", opBinInt1: "BININT1", opBinInt2: "BININT2", opNone: "NONE", opBinPersID: "BINPERSID",
	opReduce: "REDUCE", opBinUnicode: "BINUNICODE", opEmptyList: "EMPTY_LIST", opAppend: "APPEND", opBuild: "BUILD",
	opGlobal: "GLOBAL", opAppends: "APPENDS", opBinGet: "BINGET", opLongBinGet: "LONG_BINGET", opBinPut: "BINPUT",
	opLongBinPut: "LONG_BINPUT", opSetItem: "SETITEM", opTuple: "TUPLE", opEmptyTuple: "EMPTY_TUPLE",
	opSetItems: "SETITEMS", opEmptyDict: "EMPTY_DICT", opBinBytes: "BINBYTES", opShortBinBytes: "SHORT_BINBYTES",
	opProto: "PROTO", opNewObj: "NEWOBJ", opExt1: "EXT1", opExt2: "EXT2", opExt4: "EXT4", opTuple1: "TUPLE1",
	opTuple2: "TUPLE2", opTuple3: "TUPLE3", opNewTrue: "NEWTRUE", opNewFalse: "NEWFALSE", opLong1: "LONG1",
	opLong4: "LONG4", opShortBinUni: "SHORT_BINUNICODE", opBinUnicode8: "BINUNICODE8", opBinBytes8: "BINBYTES8",
	opEmptySet: "EMPTY_SET", opAddItems: "ADDITEMS", opFrozenSet: "FROZENSET", opNewObjEx: "NEWOBJ_EX",
	opStackGlobal: "STACK_GLOBAL", opMemoize: "MEMOIZE", opFrame: "FRAME", opByteArray8: "BYTEARRAY8",
	opNextBuffer: "NEXT_BUFFER", opReadonlyBuffer: "READONLY_BUFFER",
	// Protocol 0 and 1 opcodes, refused.
	'I': "INT", 'L': "LONG", 'F': "FLOAT", 'S': "STRING", 'T': "BINSTRING", 'U': "SHORT_BINSTRING", 'V': "UNICODE",
	'P': "PERSID", 'i': "INST", 'o': "OBJ", 'd': "DICT", 'l': "LIST", 'g': "GET", 'p': "PUT",
}

func opName(op byte) string {
	if n, ok := opNames[op]; ok {
		return n
	}
	return fmt.Sprintf("0x%02x", op)
}

func (d *decoder) run() (any, error) {
	if len(d.data) == 0 {
		return nil, fmt.Errorf("an empty file: %w", ErrTruncated)
	}
	if d.data[0] != opProto {
		return nil, fmt.Errorf("not a pickle of protocol 2 or later (it starts with byte 0x%02x, not PROTO 0x80)", d.data[0])
	}
	for !d.stopped {
		if d.pos >= len(d.data) {
			return nil, fmt.Errorf("no STOP opcode: %w", ErrTruncated)
		}
		d.opAt, d.op = d.pos, d.data[d.pos]
		d.pos++
		if err := d.step(); err != nil {
			return nil, err
		}
	}
	d.op = 0
	if d.pos != len(d.data) {
		return nil, fmt.Errorf("%d bytes after the pickle's STOP at byte %d (two files joined, or a corrupt one)", len(d.data)-d.pos, d.pos-1)
	}
	if len(d.stack) != 1 || len(d.marks) != 0 {
		return nil, fmt.Errorf("the pickle ends with %d values and %d marks on the stack, want one value (a corrupt pickle)", len(d.stack), len(d.marks))
	}
	return d.stack[0], nil
}

func (d *decoder) step() error {
	switch op := d.op; op {
	case opProto:
		v, err := d.u8()
		if err != nil {
			return err
		}
		if v < 2 || v > 5 {
			return fmt.Errorf("pickle protocol %d (protocols 2 to 5 are read)", v)
		}
		d.protocol = int(v)
	case opFrame:
		n, err := d.u64()
		if err != nil {
			return err
		}
		if err := d.need(n); err != nil {
			return fmt.Errorf("a frame of %d bytes: %w", n, err)
		}
	case opStop:
		d.stopped = true
	case opMark:
		d.marks = append(d.marks, d.stack)
		d.stack = nil
	case opPop:
		_, err := d.pop()
		return err
	case opPopMark:
		_, err := d.popMark()
		return err
	case opDup:
		v, err := d.top()
		if err != nil {
			return err
		}
		d.push(v)
	case opNone:
		d.push(nil)
	case opNewTrue:
		d.push(true)
	case opNewFalse:
		d.push(false)
	case opBinInt:
		v, err := d.u32()
		if err != nil {
			return err
		}
		d.push(int64(int32(uint32(v))))
	case opBinInt1:
		v, err := d.u8()
		if err != nil {
			return err
		}
		d.push(int64(v))
	case opBinInt2:
		v, err := d.u16()
		if err != nil {
			return err
		}
		d.push(int64(v))
	case opLong1, opLong4:
		var n uint64
		var err error
		if op == opLong1 {
			n, err = d.u8()
		} else {
			n, err = d.u32()
		}
		if err != nil {
			return err
		}
		b, err := d.read(n)
		if err != nil {
			return err
		}
		v, err := longValue(b)
		if err != nil {
			return err
		}
		d.push(v)
	case opBinFloat:
		b, err := d.read(8)
		if err != nil {
			return err
		}
		d.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case opShortBinUni, opBinUnicode, opBinUnicode8:
		n, err := d.length(op == opShortBinUni, op == opBinUnicode8)
		if err != nil {
			return err
		}
		b, err := d.read(n)
		if err != nil {
			return err
		}
		if !utf8.Valid(b) {
			return errors.New("a string that is not valid UTF-8")
		}
		d.push(string(b))
	case opShortBinBytes, opBinBytes, opBinBytes8, opByteArray8:
		n, err := d.length(op == opShortBinBytes, op == opBinBytes8 || op == opByteArray8)
		if err != nil {
			return err
		}
		b, err := d.read(n)
		if err != nil {
			return err
		}
		d.push(slices.Clone(b))
	case opEmptyTuple:
		d.push(Tuple{})
	case opTuple1, opTuple2, opTuple3:
		n := int(op-opTuple1) + 1
		if len(d.stack) < n {
			return errors.New("the stack is too short (a corrupt pickle)")
		}
		t := slices.Clone(d.stack[len(d.stack)-n:])
		d.stack = d.stack[:len(d.stack)-n]
		d.push(Tuple(t))
	case opTuple:
		items, err := d.popMark()
		if err != nil {
			return err
		}
		d.push(Tuple(slices.Clone(items)))
	case opEmptyList:
		d.push(&List{})
	case opAppend, opAppends:
		var items []any
		if op == opAppend {
			v, err := d.pop()
			if err != nil {
				return err
			}
			items = []any{v}
		} else {
			var err error
			if items, err = d.popMark(); err != nil {
				return err
			}
		}
		t, err := d.top()
		if err != nil {
			return err
		}
		l, ok := t.(*List)
		if !ok {
			return fmt.Errorf("appending to a %s, not a list", typeName(t))
		}
		l.Items = append(l.Items, items...)
	case opEmptyDict:
		d.push(NewDict())
	case opSetItem, opSetItems:
		var items []any
		if op == opSetItem {
			if len(d.stack) < 2 {
				return errors.New("the stack is too short (a corrupt pickle)")
			}
			items = slices.Clone(d.stack[len(d.stack)-2:])
			d.stack = d.stack[:len(d.stack)-2]
		} else {
			var err error
			if items, err = d.popMark(); err != nil {
				return err
			}
			if len(items)%2 != 0 {
				return errors.New("an odd number of items to set (a corrupt pickle)")
			}
		}
		t, err := d.top()
		if err != nil {
			return err
		}
		m, ok := t.(*Dict)
		if !ok {
			return fmt.Errorf("setting items of a %s, not a dict", typeName(t))
		}
		for i := 0; i < len(items); i += 2 {
			if err := m.Set(items[i], items[i+1]); err != nil {
				return err
			}
		}
	case opBinPut, opLongBinPut:
		var i uint64
		var err error
		if op == opBinPut {
			i, err = d.u8()
		} else {
			i, err = d.u32()
		}
		if err != nil {
			return err
		}
		v, err := d.top()
		if err != nil {
			return err
		}
		d.memo[uint32(i)] = v
	case opMemoize:
		v, err := d.top()
		if err != nil {
			return err
		}
		d.memo[uint32(len(d.memo))] = v
	case opBinGet, opLongBinGet:
		var i uint64
		var err error
		if op == opBinGet {
			i, err = d.u8()
		} else {
			i, err = d.u32()
		}
		if err != nil {
			return err
		}
		v, ok := d.memo[uint32(i)]
		if !ok {
			return fmt.Errorf("memo entry %d was never stored (a corrupt pickle)", i)
		}
		d.push(v)
	case opGlobal:
		module, err := d.line()
		if err != nil {
			return err
		}
		name, err := d.line()
		if err != nil {
			return err
		}
		g, err := d.global(module, name)
		if err != nil {
			return err
		}
		d.push(g)
	case opStackGlobal:
		name, err := d.pop()
		if err != nil {
			return err
		}
		module, err := d.pop()
		if err != nil {
			return err
		}
		ms, ok1 := module.(string)
		ns, ok2 := name.(string)
		if !ok1 || !ok2 {
			return errors.New("STACK_GLOBAL of values that are not strings")
		}
		g, err := d.global(ms, ns)
		if err != nil {
			return err
		}
		d.push(g)
	case opReduce:
		args, err := d.pop()
		if err != nil {
			return err
		}
		fn, err := d.pop()
		if err != nil {
			return err
		}
		t, ok := args.(Tuple)
		if !ok {
			return fmt.Errorf("REDUCE with arguments of type %s, not a tuple", typeName(args))
		}
		v, err := d.call(fn, t)
		if err != nil {
			return err
		}
		d.push(v)
	case opNewObj, opNewObjEx:
		if op == opNewObjEx {
			kw, err := d.pop()
			if err != nil {
				return err
			}
			if m, ok := kw.(*Dict); !ok || m.Len() > 0 {
				return errors.New("NEWOBJ_EX with keyword arguments")
			}
		}
		args, err := d.pop()
		if err != nil {
			return err
		}
		cls, err := d.pop()
		if err != nil {
			return err
		}
		t, ok := args.(Tuple)
		if !ok {
			return fmt.Errorf("NEWOBJ with arguments of type %s, not a tuple", typeName(args))
		}
		g, ok := cls.(global)
		if !ok || !d.allowed(g) {
			return fmt.Errorf("NEWOBJ of %s, not a class the reader was told to accept", typeName(cls))
		}
		d.push(&Object{Class: g.module + "." + g.name, Args: t})
	case opBuild:
		state, err := d.pop()
		if err != nil {
			return err
		}
		target, err := d.top()
		if err != nil {
			return err
		}
		return d.build(target, state)
	case opNextBuffer, opReadonlyBuffer:
		return errors.New("an out-of-band buffer (pickle protocol 5 with buffer_callback): only in-band data is read")
	case opBinPersID, 'P':
		return errors.New("a persistent ID (the pickle refers to objects stored outside it)")
	case opExt1, opExt2, opExt4:
		return errors.New("a copyreg extension code")
	case opEmptySet, opAddItems, opFrozenSet:
		return errors.New("a set (not read)")
	default:
		if _, ok := opNames[op]; ok {
			return errors.New("a protocol 0/1 opcode (protocols 2 to 5 are read; re-save with pickle.HIGHEST_PROTOCOL)")
		}
		return errors.New("not a pickle opcode (a corrupt file?)")
	}
	return nil
}

// length reads a length argument: 1 byte (short), 8 bytes (long) or 4.
func (d *decoder) length(short, long bool) (uint64, error) {
	switch {
	case short:
		return d.u8()
	case long:
		return d.u64()
	}
	return d.u32()
}

// longValue decodes a little-endian two's-complement integer of at most 8
// bytes.
func longValue(b []byte) (int64, error) {
	if len(b) > 8 {
		return 0, fmt.Errorf("an integer of %d bytes (at most 8 are read)", len(b))
	}
	if len(b) == 0 {
		return 0, nil
	}
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	if shift := 64 - 8*uint(len(b)); shift > 0 {
		return int64(u<<shift) >> shift, nil
	}
	return int64(u), nil
}

func (d *decoder) allowed(g global) bool {
	return slices.Contains(d.classes, g.module+"."+g.name)
}

// global resolves a GLOBAL: a recognised NumPy callable or an allowed
// class; anything else is refused before it could be called.
func (d *decoder) global(module, name string) (global, error) {
	g := global{module, name}
	if _, ok := numpyGlobals[module+"."+name]; ok || d.allowed(g) {
		return g, nil
	}
	return g, fmt.Errorf("refusing global %s.%s: not a NumPy array constructor or a class the reader was told to accept (unpickling it in Python would run its code)", module, name)
}

// call runs REDUCE: fn(*args) for the recognised callables.
func (d *decoder) call(fn any, args Tuple) (any, error) {
	g, ok := fn.(global)
	if !ok {
		return nil, fmt.Errorf("calling a %s", typeName(fn))
	}
	switch numpyGlobals[g.module+"."+g.name] {
	case "reconstruct":
		// _reconstruct(ndarray, (0,), b'b'): an empty array that BUILD fills.
		if len(args) != 3 {
			return nil, fmt.Errorf("%s.%s with %d arguments, want 3", g.module, g.name, len(args))
		}
		if c, ok := args[0].(global); !ok || numpyGlobals[c.module+"."+c.name] != "ndarray" {
			return nil, fmt.Errorf("%s.%s of %s, not numpy.ndarray (a subclass such as a masked or matrix array is not read)", g.module, g.name, typeName(args[0]))
		}
		return &Array{pending: true}, nil
	case "dtype":
		if len(args) < 1 {
			return nil, errors.New("numpy.dtype without arguments")
		}
		s, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("numpy.dtype of a %s", typeName(args[0]))
		}
		kind, size, err := parseDType(s)
		if err != nil {
			return nil, err
		}
		return &dtype{kind: kind, size: size}, nil
	case "scalar":
		// scalar(dtype, bytes): a NumPy scalar such as numpy.float32(1.5).
		if len(args) != 2 {
			return nil, fmt.Errorf("numpy scalar with %d arguments, want 2 (a dtype and its bytes)", len(args))
		}
		t, ok := args[0].(*dtype)
		b, ok2 := args[1].([]byte)
		if !ok || !ok2 {
			return nil, fmt.Errorf("numpy scalar of (%s, %s), want (dtype, bytes)", typeName(args[0]), typeName(args[1]))
		}
		return newArray(t, nil, b, false)
	case "frombuffer":
		// _frombuffer(buffer, dtype, shape, order): protocol 5's in-band arrays.
		if len(args) != 4 {
			return nil, fmt.Errorf("numpy _frombuffer with %d arguments, want 4", len(args))
		}
		b, ok1 := args[0].([]byte)
		t, ok2 := args[1].(*dtype)
		shape, ok3 := args[2].(Tuple)
		order, ok4 := args[3].(string)
		if !ok1 || !ok2 || !ok3 || !ok4 || (order != "C" && order != "F") {
			return nil, errors.New("numpy _frombuffer arguments are not (bytes, dtype, shape, 'C' or 'F')")
		}
		dims, err := shapeOf(shape)
		if err != nil {
			return nil, err
		}
		return newArray(t, dims, b, order == "F")
	case "encode":
		// _codecs.encode(str, 'latin1'): how protocol 2 writes bytes.
		if len(args) != 2 {
			return nil, errors.New("_codecs.encode without (text, encoding)")
		}
		s, ok1 := args[0].(string)
		enc, ok2 := args[1].(string)
		if !ok1 || !ok2 || (enc != "latin1" && enc != "latin-1") {
			return nil, errors.New("_codecs.encode other than (str, 'latin1')")
		}
		out := make([]byte, 0, len(s))
		for _, r := range s {
			if r > 0xff {
				return nil, errors.New("_codecs.encode of a character beyond latin-1")
			}
			out = append(out, byte(r))
		}
		return out, nil
	case "bytes":
		if len(args) != 0 {
			return nil, errors.New("bytes() with arguments")
		}
		return []byte{}, nil
	case "ordereddict":
		if len(args) != 0 {
			return nil, errors.New("collections.OrderedDict with arguments")
		}
		return NewDict(), nil
	}
	if d.allowed(g) {
		return &Object{Class: g.module + "." + g.name, Args: args}, nil
	}
	return nil, fmt.Errorf("calling %s.%s", g.module, g.name)
}

// build runs BUILD: the state of a NumPy array or dtype, or an allowed
// object's state.
func (d *decoder) build(target, state any) error {
	switch t := target.(type) {
	case *Array:
		if !t.pending {
			return errors.New("BUILD of an array that is already built")
		}
		// (version, shape, dtype, is_fortran, data) — ndarray.__setstate__.
		st, ok := state.(Tuple)
		if !ok || len(st) != 5 {
			return fmt.Errorf("an array state of type %s, want a 5-tuple (version, shape, dtype, fortran, data)", typeName(state))
		}
		shape, ok1 := st[1].(Tuple)
		dt, ok2 := st[2].(*dtype)
		fortran, ok3 := st[3].(bool)
		if !ok1 || !ok2 || !ok3 {
			return errors.New("an array state that is not (version, shape, dtype, fortran, data)")
		}
		var data []byte
		switch v := st[4].(type) {
		case []byte:
			data = v
		case string: // protocol 2 under Python 2
			data = []byte(v)
		default:
			return fmt.Errorf("array data of type %s (an object array?); only numeric arrays are read", typeName(st[4]))
		}
		dims, err := shapeOf(shape)
		if err != nil {
			return err
		}
		a, err := newArray(dt, dims, data, fortran)
		if err != nil {
			return err
		}
		*t = *a
		return nil
	case *dtype:
		st, ok := state.(Tuple)
		if !ok || len(st) < 8 {
			return fmt.Errorf("a dtype state of type %s, want numpy's 8- or 9-tuple", typeName(state))
		}
		order, ok := st[1].(string)
		if !ok || len(order) != 1 || (order != "<" && order != ">" && order != "|") {
			return fmt.Errorf("a dtype byte order %v, want '<', '>' or '|'", st[1])
		}
		if st[2] != nil || st[3] != nil || st[4] != nil {
			return errors.New("a structured or sub-array dtype (only plain numeric dtypes are read)")
		}
		if t.size > 1 && order == "|" {
			return fmt.Errorf("dtype %s without a byte order", t)
		}
		t.order = order[0]
		return nil
	case *Object:
		if t.State != nil {
			return errors.New("BUILD of an object that already has a state")
		}
		t.State = state
		return nil
	case *Dict:
		// dict subclasses with no extra state (OrderedDict) may BUILD None.
		if state == nil {
			return nil
		}
	}
	return fmt.Errorf("BUILD of a %s", typeName(target))
}

func shapeOf(t Tuple) ([]int, error) {
	dims := make([]int, len(t))
	for i, v := range t {
		n, ok := v.(int64)
		if !ok || n < 0 || n > math.MaxInt32 {
			return nil, fmt.Errorf("an array shape %v", []any(t))
		}
		dims[i] = int(n)
	}
	return dims, nil
}

// newArray makes a C-order, little-endian array from raw data.
func newArray(t *dtype, dims []int, data []byte, fortran bool) (*Array, error) {
	if t.order == 0 {
		return nil, errors.New("an array of a dtype that was never built")
	}
	n := uint64(1)
	for _, k := range dims {
		n *= uint64(k)
		if n > uint64(len(data)) && k != 0 {
			return nil, fmt.Errorf("a %s array of shape %v holds %d bytes", t, dims, len(data))
		}
	}
	if n*uint64(t.size) != uint64(len(data)) {
		return nil, fmt.Errorf("a %s array of shape %v holds %d bytes, want %d", t, dims, len(data), n*uint64(t.size))
	}
	out := slices.Clone(data)
	if t.order == '>' {
		for i := 0; i < len(out); i += t.size {
			slices.Reverse(out[i : i+t.size])
		}
	}
	if fortran && len(dims) > 1 {
		out = fortranToC(out, dims, t.size)
	}
	if dims == nil {
		dims = []int{}
	}
	return &Array{DType: t.String(), Shape: dims, Data: out}, nil
}

// fortranToC reorders column-major elements into row-major order.
func fortranToC(data []byte, dims []int, size int) []byte {
	out := make([]byte, len(data))
	n := len(data) / size
	idx := make([]int, len(dims))
	for c := 0; c < n; c++ { // c: the C-order index; idx its coordinates
		f, stride := 0, 1
		for k := 0; k < len(dims); k++ {
			f += idx[k] * stride
			stride *= dims[k]
		}
		copy(out[c*size:(c+1)*size], data[f*size:(f+1)*size])
		for k := len(dims) - 1; k >= 0; k-- {
			idx[k]++
			if idx[k] < dims[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}

// check refuses what must not be left in a result: arrays never built,
// bare classes, dtypes. Shared values (the memo makes DAGs and cycles) are
// visited once.
func check(v any, depth int, seen map[any]bool) error {
	if depth > 1000 {
		return errors.New("values nested more than 1000 deep")
	}
	var key any
	switch v := v.(type) {
	case Tuple:
		if len(v) > 0 {
			key = &v[0]
		}
	case *List, *Dict, *Object:
		key = v
	}
	if key != nil {
		if seen[key] {
			return nil
		}
		seen[key] = true
	}
	switch v := v.(type) {
	case *Array:
		if v.pending {
			return errors.New("an array whose state was never set (a corrupt pickle)")
		}
	case global:
		return fmt.Errorf("a bare reference to %s.%s", v.module, v.name)
	case *dtype:
		return errors.New("a bare numpy.dtype (only arrays are read)")
	case Tuple:
		for _, x := range v {
			if err := check(x, depth+1, seen); err != nil {
				return err
			}
		}
	case *List:
		for _, x := range v.Items {
			if err := check(x, depth+1, seen); err != nil {
				return err
			}
		}
	case *Dict:
		for _, x := range v.vals {
			if err := check(x, depth+1, seen); err != nil {
				return err
			}
		}
	case *Object:
		if err := check(v.Args, depth+1, seen); err != nil {
			return err
		}
		return check(v.State, depth+1, seen)
	}
	return nil
}
