package pyval

import (
	"math"
	"math/big"
	"math/bits"
	"slices"
)

// numeric returns a number's value as an exact big.Float (ok false for
// NaN, infinities and non-numbers) and whether v is a number at all.
func numeric(v Value) (f *big.Float, isNum, finite bool) {
	switch x := v.(type) {
	case Bool:
		if x {
			return big.NewFloat(1), true, true
		}
		return big.NewFloat(0), true, true
	case *Int:
		return new(big.Float).SetPrec(0).SetInt(x.V), true, true
	case Float:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, true, false
		}
		return big.NewFloat(float64(x)), true, true
	}
	return nil, false, false
}

// Equal is Python's a == b for the values of this package.
func Equal(a, b Value) bool {
	if ca, ok := a.(Complex); ok {
		return complexEqual(ca, b)
	}
	if cb, ok := b.(Complex); ok {
		return complexEqual(cb, a)
	}
	if fa, ok := a.(Float); ok {
		if fb, ok := b.(Float); ok {
			return fa == fb
		}
	}
	na, isA, finA := numeric(a)
	nb, isB, finB := numeric(b)
	if isA || isB {
		if !isA || !isB {
			return false
		}
		if !finA || !finB {
			// at least one NaN or infinity: equal only as floats
			fa, _ := toFloat(a)
			fb, _ := toFloat(b)
			return fa == fb
		}
		return na.Cmp(nb) == 0
	}
	switch x := a.(type) {
	case NoneType:
		_, ok := b.(NoneType)
		return ok
	case EllipsisType:
		_, ok := b.(EllipsisType)
		return ok
	case Str:
		y, ok := b.(Str)
		return ok && slices.Equal(x, y)
	case Bytes:
		y, ok := b.(Bytes)
		return ok && string(x) == string(y)
	case List:
		y, ok := b.(List)
		return ok && seqEqual(x, y)
	case Tuple:
		y, ok := b.(Tuple)
		return ok && seqEqual(x, y)
	case Set:
		y, ok := b.(Set)
		if !ok || len(x) != len(y) {
			return false
		}
		for _, it := range x {
			if !slices.ContainsFunc(y, func(o Value) bool { return Equal(it, o) }) {
				return false
			}
		}
		return true
	case *Dict:
		y, ok := b.(*Dict)
		if !ok || len(x.Keys) != len(y.Keys) {
			return false
		}
		for i, k := range x.Keys {
			v, ok := y.Get(k)
			if !ok || !Equal(x.Vals[i], v) {
				return false
			}
		}
		return true
	}
	return false
}

func seqEqual(x, y []Value) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if !Equal(x[i], y[i]) {
			return false
		}
	}
	return true
}

func complexEqual(c Complex, o Value) bool {
	switch y := o.(type) {
	case Complex:
		return c == y
	}
	if imag(c) != 0 {
		return false
	}
	_, isNum, _ := numeric(o)
	if !isNum {
		return false
	}
	return Equal(Float(real(c)), o)
}

// toFloat converts a number to float64 (ints may round).
func toFloat(v Value) (float64, bool) {
	switch x := v.(type) {
	case Bool:
		if x {
			return 1, true
		}
		return 0, true
	case *Int:
		f, _ := new(big.Float).SetInt(x.V).Float64()
		return f, true
	case Float:
		return float64(x), true
	}
	return 0, false
}

// Hashing and set order, as CPython 3.11 on a 64-bit machine.

const (
	hashModulus = (1 << 61) - 1
	hashInf     = 314159
)

// hash returns hash(v) and whether it is deterministic (str, bytes and None
// hash differently from run to run; unhashable values report false too).
func hash(v Value) (int64, bool) {
	switch x := v.(type) {
	case Bool:
		if x {
			return 1, true
		}
		return 0, true
	case *Int:
		m := new(big.Int).Mod(new(big.Int).Abs(x.V), big.NewInt(hashModulus)).Int64()
		if x.V.Sign() < 0 {
			m = -m
		}
		if m == -1 {
			m = -2
		}
		return m, true
	case Float:
		return hashFloat(float64(x)), true
	case Complex:
		hr := hashFloat(real(x))
		hi := hashFloat(imag(x))
		h := uint64(hr) + 1000003*uint64(hi)
		if int64(h) == -1 {
			return -2, true
		}
		return int64(h), true
	case Tuple:
		const (
			p1 = 11400714785074694791
			p2 = 14029467366897019727
			p5 = 2870177450012600261
		)
		acc := uint64(p5)
		for _, it := range x {
			h, ok := hash(it)
			if !ok {
				return 0, false
			}
			acc += uint64(h) * p2
			acc = bits.RotateLeft64(acc, 31)
			acc *= p1
		}
		acc += uint64(len(x)) ^ (p5 ^ 3527539)
		if acc == math.MaxUint64 {
			return 1546275796, true
		}
		return int64(acc), true
	}
	return 0, false
}

// hashFloat is CPython's _Py_HashDouble (NaN hashes by identity; 0 here).
func hashFloat(f float64) int64 {
	if math.IsInf(f, 1) {
		return hashInf
	}
	if math.IsInf(f, -1) {
		return -hashInf
	}
	if math.IsNaN(f) {
		return 0
	}
	m, e := math.Frexp(f)
	sign := int64(1)
	if m < 0 {
		sign, m = -1, -m
	}
	var x uint64
	for m != 0 {
		x = ((x << 28) & hashModulus) | x>>(61-28)
		m *= 268435456.0 // 2**28
		e -= 28
		y := uint64(m)
		m -= float64(y)
		x += y
		if x >= hashModulus {
			x -= hashModulus
		}
	}
	if e >= 0 {
		e = e % 61
	} else {
		e = 61 - 1 - ((-1 - e) % 61)
	}
	x = ((x << uint(e)) & hashModulus) | x>>(61-uint(e))
	h := int64(x) * sign
	if h == -1 {
		h = -2
	}
	return h
}

// NewSet builds set(items): duplicates dropped (the first kept) and the
// items in CPython's iteration order. ordered is false when an item's hash
// differs from run to run in Python (str, bytes, None), in which case the
// items are left in insertion order. Unhashable items raise TypeError.
func NewSet(items []Value) (s Set, ordered bool, err error) {
	ordered = true
	var uniq []Value
	var hashes []int64
	for _, it := range items {
		if !Hashable(it) {
			return nil, false, Raise("TypeError", "unhashable type: '%s'", unhashableName(it))
		}
		if slices.ContainsFunc(uniq, func(o Value) bool { return Equal(o, it) }) {
			continue
		}
		h, ok := hash(it)
		if !ok {
			ordered = false
		}
		uniq = append(uniq, it)
		hashes = append(hashes, h)
	}
	if !ordered {
		return Set(uniq), false, nil
	}
	return Set(setOrder(uniq, hashes)), true, nil
}

func unhashableName(v Value) string {
	if t, ok := v.(Tuple); ok {
		for _, it := range t {
			if !Hashable(it) {
				return unhashableName(it)
			}
		}
	}
	return v.TypeName()
}

// setOrder replays CPython's set_add_entry (linear probes of 9, perturbed
// open addressing, growth to 4 × used when 3/5 full) for distinct items
// and returns them in table order.
func setOrder(items []Value, hashes []int64) []Value {
	const linearProbes, perturbShift = 9, 5
	type slot struct {
		used bool
		h    int64
		v    Value
	}
	table := make([]slot, 8)
	used := 0
	insert := func(tab []slot, h int64, v Value) {
		mask := uint64(len(tab) - 1)
		perturb := uint64(h)
		i := uint64(h) & mask
		for {
			probes := 0
			if i+linearProbes <= mask {
				probes = linearProbes
			}
			for j := uint64(0); j <= uint64(probes); j++ {
				if !tab[i+j].used {
					tab[i+j] = slot{used: true, h: h, v: v}
					return
				}
			}
			perturb >>= perturbShift
			i = (i*5 + 1 + perturb) & mask
		}
	}
	for k, v := range items {
		insert(table, hashes[k], v)
		used++
		mask := len(table) - 1
		if used*5 >= mask*3 {
			minused := used * 4
			if used > 50000 {
				minused = used * 2
			}
			size := 8
			for size <= minused {
				size <<= 1
			}
			nt := make([]slot, size)
			for _, s := range table {
				if s.used {
					insert(nt, s.h, s.v)
				}
			}
			table = nt
		}
	}
	out := make([]Value, 0, len(items))
	for _, s := range table {
		if s.used {
			out = append(out, s.v)
		}
	}
	return out
}
