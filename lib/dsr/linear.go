package dsr

import (
	"errors"
	"fmt"
)

// Array tasks (category Linear): access, delete, insert, reverse, search on
// a 0-indexed array of ints.

// recorder receives the state after each step of a simulation (for worked
// examples); nil means no recording.
type recorder func(action string, state any)

func (rec recorder) put(action string, state func() any) {
	if rec != nil {
		rec(action, state())
	}
}

func needArray(in *Input) error {
	if in.Array == nil {
		return errors.New("input has no array")
	}
	return nil
}

func needValue(in *Input) (int, error) {
	if in.Value == nil {
		return 0, errors.New("input has no value")
	}
	return *in.Value, nil
}

func arrayAccess(in *Input, _ Options) (any, error) {
	if err := needArray(in); err != nil {
		return nil, err
	}
	if in.Index == nil {
		return nil, errors.New("input has no index")
	}
	i := *in.Index
	if i < 0 || i >= len(in.Array) {
		return nil, fmt.Errorf("index %d out of range for an array of %d elements", i, len(in.Array))
	}
	return in.Array[i], nil
}

// arrayDelete removes the first occurrence of the value (nothing if absent).
func arrayDelete(in *Input, _ Options) (any, error) {
	if err := needArray(in); err != nil {
		return nil, err
	}
	v, err := needValue(in)
	if err != nil {
		return nil, err
	}
	out := make([]int, 0, len(in.Array))
	done := false
	for _, x := range in.Array {
		if x == v && !done {
			done = true
			continue
		}
		out = append(out, x)
	}
	return intsValue(out), nil
}

// arrayInsert inserts like Python's list.insert: an index past the end
// appends, a negative index counts from the end.
func arrayInsert(in *Input, _ Options) (any, error) {
	if err := needArray(in); err != nil {
		return nil, err
	}
	v, err := needValue(in)
	if err != nil {
		return nil, err
	}
	if in.Index == nil {
		return nil, errors.New("input has no index")
	}
	i := *in.Index
	n := len(in.Array)
	if i < 0 {
		i += n
		if i < 0 {
			i = 0
		}
	}
	if i > n {
		i = n
	}
	out := make([]int, 0, n+1)
	out = append(out, in.Array[:i]...)
	out = append(out, v)
	out = append(out, in.Array[i:]...)
	return intsValue(out), nil
}

func arrayReverse(in *Input, _ Options) (any, error) {
	if err := needArray(in); err != nil {
		return nil, err
	}
	n := len(in.Array)
	out := make([]int, n)
	for i, x := range in.Array {
		out[n-1-i] = x
	}
	return intsValue(out), nil
}

// arraySearch returns the index of the first occurrence, or -1.
func arraySearch(in *Input, _ Options) (any, error) {
	if err := needArray(in); err != nil {
		return nil, err
	}
	v, err := needValue(in)
	if err != nil {
		return nil, err
	}
	for i, x := range in.Array {
		if x == v {
			return i, nil
		}
	}
	return -1, nil
}
