package clrs

import (
	"fmt"
	"io"
)

// NPZArray is one array of an archive written by WriteArraysNPZ: a
// member NAME.npy of the given dtype and shape whose values Values hands
// over, in row-major order, in as many calls to put as it likes (so an
// array can be streamed from data kept in any form). The values are
// float64s converted to the dtype as they are written; integers are exact
// up to 2^53.
type NPZArray struct {
	Name   string
	DType  DType
	Shape  []int
	Values func(put func([]float64) error) error
}

// FloatArray returns an NPZArray of float64 values held in a slice.
func FloatArray(name string, shape []int, data []float64) NPZArray {
	return NPZArray{Name: name, DType: Float64, Shape: shape,
		Values: func(put func([]float64) error) error { return put(data) }}
}

// WriteArraysNPZ writes arrays as a numpy .npz archive readable by
// numpy.load, in the order given, with the same writer as WriteNPZ
// (stored, or deflated with the Compressed option). It fails, naming the
// array, when the values handed over do not fill its shape exactly.
func WriteArraysNPZ(w io.Writer, arrays []NPZArray, opts ...NPZOption) error {
	members := make([]npzMember, len(arrays))
	seen := make(map[string]bool, len(arrays))
	for i, a := range arrays {
		if a.Name == "" || seen[a.Name] {
			return fmt.Errorf("clrs: npz array %d: name %q is empty or repeated", i, a.Name)
		}
		seen[a.Name] = true
		for _, d := range a.Shape {
			if d < 0 {
				return fmt.Errorf("clrs: npz array %s: negative dimension in shape %v", a.Name, a.Shape)
			}
		}
		want := shapeSize(a.Shape)
		members[i] = npzMember{name: a.Name, dtype: a.DType, shape: a.Shape,
			emit: func(st *stager) error {
				got := 0
				err := a.Values(func(v []float64) error {
					got += len(v)
					if got > want {
						return fmt.Errorf("more than the %d values of shape %v", want, a.Shape)
					}
					return st.put(v)
				})
				if err == nil && got != want {
					err = fmt.Errorf("%d values for shape %v; want %d", got, a.Shape, want)
				}
				return err
			}}
	}
	return writeMembers(w, members, npzConfigOf(opts))
}

// SaveArraysNPZ writes arrays to path atomically (see SaveNPZ).
func SaveArraysNPZ(path string, arrays []NPZArray, opts ...NPZOption) error {
	return saveAtomic(path, opts, func(w io.Writer) error { return WriteArraysNPZ(w, arrays, opts...) })
}
