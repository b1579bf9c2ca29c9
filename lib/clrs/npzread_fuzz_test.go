package clrs

import (
	"bytes"
	"testing"
)

// FuzzReadNPZ feeds arbitrary bytes, starting from valid archives (stored
// and deflated), to ReadNPZ: it must return an error or a Feedback whose
// arrays agree with their shapes, never panic or allocate what the file
// does not hold.
func FuzzReadNPZ(f *testing.F) {
	s, err := NewSampler("bfs", Length(4), Seed(2), NumSamples(2))
	if err != nil {
		f.Fatal(err)
	}
	fb, err := s.Dataset()
	if err != nil {
		f.Fatal(err)
	}
	for _, opts := range [][]NPZOption{nil, {Compressed()}} {
		var b bytes.Buffer
		if err := WriteNPZ(&b, fb, opts...); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add(npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", f64s(1, 2, 3)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := ReadNPZ(bytes.NewReader(raw), int64(len(raw)), "bfs")
		if err != nil {
			return
		}
		for _, list := range [][]DataPoint{got.Inputs, got.Hints, got.Outputs} {
			for _, d := range list {
				if len(d.Data) != shapeSize(d.Shape) {
					t.Fatalf("%s: %d values for shape %v", d.Name, len(d.Data), d.Shape)
				}
			}
		}
		if len(got.Lengths) != got.BatchSize() || got.MaxSteps() < 1 {
			t.Fatalf("inconsistent feedback: %d lengths, %d steps", len(got.Lengths), got.MaxSteps())
		}
	})
}

// FuzzReadNPY feeds arbitrary .npy streams to the array decoder, with
// their true length and a larger one (a torn member).
func FuzzReadNPY(f *testing.F) {
	f.Add(npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", f64s(1, 2, 3)))
	f.Add(npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }", f64s(1, 2)))
	f.Add(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", []byte{0, 0, 0x80, 0x3f}))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, size := range []int64{int64(len(raw)), int64(len(raw)) + 64} {
			a, err := readNPY(bytes.NewReader(raw), size)
			if err == nil && len(a.Data) != shapeSize(a.Shape) {
				t.Fatalf("%d values for shape %v", len(a.Data), a.Shape)
			}
		}
	})
}
