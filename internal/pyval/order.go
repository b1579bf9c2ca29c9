package pyval

// Less is Python's a < b for numbers, strings, lists and tuples; other
// pairs raise TypeError.
func Less(a, b Value) (bool, error) {
	na, isA, finA := numeric(a)
	nb, isB, finB := numeric(b)
	_, ca := a.(Complex)
	_, cb := b.(Complex)
	if isA && isB && !ca && !cb {
		if !finA || !finB {
			fa, _ := toFloat(a)
			fb, _ := toFloat(b)
			return fa < fb, nil
		}
		return na.Cmp(nb) < 0, nil
	}
	switch x := a.(type) {
	case Str:
		if y, ok := b.(Str); ok {
			for i := 0; i < len(x) && i < len(y); i++ {
				if x[i] != y[i] {
					return x[i] < y[i], nil
				}
			}
			return len(x) < len(y), nil
		}
	case Bytes:
		if y, ok := b.(Bytes); ok {
			return string(x) < string(y), nil
		}
	case List:
		if y, ok := b.(List); ok {
			return seqLess(x, y)
		}
	case Tuple:
		if y, ok := b.(Tuple); ok {
			return seqLess(x, y)
		}
	}
	return false, Raise("TypeError", "'<' not supported between instances of '%s' and '%s'", a.TypeName(), b.TypeName())
}

func seqLess(x, y []Value) (bool, error) {
	for i := 0; i < len(x) && i < len(y); i++ {
		if !Equal(x[i], y[i]) {
			return Less(x[i], y[i])
		}
	}
	return len(x) < len(y), nil
}

// SortedIndex returns the order in which Python's sorted() (CPython's
// timsort, stable) puts keys, making the same comparisons, so that it
// raises TypeError exactly when sorted() does. Lists longer than 63 keys
// (where timsort merges runs) are sorted stably without that guarantee.
func SortedIndex(keys []Value) ([]int, error) {
	n := len(keys)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if n < 2 {
		return idx, nil
	}
	lt := func(i, j int) (bool, error) { return Less(keys[i], keys[j]) }
	if n >= 64 {
		var err error
		sortStable(idx, func(i, j int) bool {
			l, e := lt(i, j)
			if e != nil && err == nil {
				err = e
			}
			return l
		})
		return idx, err
	}
	// count_run
	run := 2
	desc, err := lt(idx[1], idx[0])
	if err != nil {
		return nil, err
	}
	for run < n {
		l, err := lt(idx[run], idx[run-1])
		if err != nil {
			return nil, err
		}
		if l != desc {
			break
		}
		run++
	}
	if desc {
		for i, j := 0, run-1; i < j; i, j = i+1, j-1 {
			idx[i], idx[j] = idx[j], idx[i]
		}
	}
	// binarysort of the rest
	for start := run; start < n; start++ {
		pivot := idx[start]
		l, r := 0, start
		for l < r {
			p := l + (r-l)>>1
			less, err := lt(pivot, idx[p])
			if err != nil {
				return nil, err
			}
			if less {
				r = p
			} else {
				l = p + 1
			}
		}
		copy(idx[l+1:start+1], idx[l:start])
		idx[l] = pivot
	}
	return idx, nil
}

func sortStable(idx []int, less func(i, j int) bool) {
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && less(idx[j], idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}
