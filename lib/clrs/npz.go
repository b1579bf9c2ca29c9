package clrs

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteNPZ writes a feedback as a numpy .npz archive readable by
// numpy.load: one array per probe, named "input/NAME", "hint/NAME" and
// "output/NAME", plus "lengths" (float64 [B]). Inputs and outputs keep
// their dtype (int64 or float64); hints are float64 [T, B, …] as in the
// reference's batched feedback. Arrays are deflate-compressed, as
// numpy.savez_compressed writes them.
func WriteNPZ(w io.Writer, f *Feedback) error {
	zw := zip.NewWriter(w)
	put := func(name string, a Array) error {
		hdr := &zip.FileHeader{Name: name + ".npy", Method: zip.Deflate}
		hdr.SetMode(0o644)
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		return writeNPY(fw, a)
	}
	for _, sec := range []struct {
		prefix string
		list   []DataPoint
	}{{"input/", f.Inputs}, {"hint/", f.Hints}, {"output/", f.Outputs}} {
		for _, d := range sec.list {
			if err := put(sec.prefix+d.Name, d.Array); err != nil {
				return fmt.Errorf("clrs: writing %s%s: %w", sec.prefix, d.Name, err)
			}
		}
	}
	lengths := make([]float64, len(f.Lengths))
	for i, l := range f.Lengths {
		lengths[i] = float64(l)
	}
	if err := put("lengths", Array{Shape: []int{len(lengths)}, Data: lengths}); err != nil {
		return fmt.Errorf("clrs: writing lengths: %w", err)
	}
	return zw.Close()
}

// writeNPY writes one array in the .npy format (version 1.0, little endian).
func writeNPY(w io.Writer, a Array) error {
	descr, width := "<f8", 8
	switch a.DType {
	case Int64:
		descr = "<i8"
	case Float32:
		descr, width = "<f4", 4
	}
	dims := make([]string, len(a.Shape))
	for i, d := range a.Shape {
		dims[i] = strconv.Itoa(d)
	}
	shape := strings.Join(dims, ", ")
	if len(a.Shape) == 1 {
		shape += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape)
	// Pad so that magic(6) + version(2) + length(2) + header + '\n' is a
	// multiple of 64, as numpy does.
	total := 10 + len(header) + 1
	header += strings.Repeat(" ", (64-total%64)%64) + "\n"
	var buf bytes.Buffer
	buf.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&buf, binary.LittleEndian, uint16(len(header)))
	buf.WriteString(header)
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	out := make([]byte, 8*4096)
	for off := 0; off < len(a.Data); off += 4096 {
		chunk := a.Data[off:min(off+4096, len(a.Data))]
		for i, v := range chunk {
			switch a.DType {
			case Int64:
				binary.LittleEndian.PutUint64(out[8*i:], uint64(int64(v)))
			case Float32:
				binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(v)))
			default:
				binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(v))
			}
		}
		if _, err := w.Write(out[:width*len(chunk)]); err != nil {
			return err
		}
	}
	return nil
}

// SaveNPZ writes a feedback to path atomically: the archive is written to a
// temporary file in the same directory and renamed into place, so an
// interrupted run never leaves a half-written file.
func SaveNPZ(path string, f *Feedback) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("clrs: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*.npz")
	if err != nil {
		return fmt.Errorf("clrs: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := WriteNPZ(tmp, f); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("clrs: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("clrs: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("clrs: %w", err)
	}
	return nil
}
