package clrs

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/wordflate"
)

// NPZOption configures how .npz archives are written.
type NPZOption func(*npzConfig)

type npzConfig struct {
	compress bool
	save     func(path string, write func(io.Writer) error) error
}

// Compressed deflates every array (zip method 8, which numpy.load reads
// as it reads numpy.savez_compressed's files) with wordflate, an encoder
// that only looks for repeated 8-byte values: CLRS-30 train-split
// archives shrink 5- to 18-fold and are written at 0.8-1.4 GB/s per core,
// checksums and copying included (BenchmarkWriteNPZ). Without it arrays
// are stored as numpy.savez stores them.
func Compressed() NPZOption { return func(c *npzConfig) { c.compress = true } }

// SaveWith makes the SaveNPZ functions hand the archive to save (a path,
// and a function writing the archive's bytes) instead of writing the file
// atomically themselves: for a caller that commits many files together.
// Writers ignore it.
func SaveWith(save func(path string, write func(io.Writer) error) error) NPZOption {
	return func(c *npzConfig) { c.save = save }
}

func npzConfigOf(opts []NPZOption) npzConfig {
	var c npzConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WriteNPZ writes a feedback as a numpy .npz archive readable by
// numpy.load: one array per probe, named "input/NAME", "hint/NAME" and
// "output/NAME", plus "lengths" (float64 [B]). Inputs and outputs keep
// their dtype (int64 or float64); hints are float64 [T, B, …] as in the
// reference's batched feedback. Arrays are stored uncompressed, as
// numpy.savez writes them, unless the Compressed option is given.
func WriteNPZ(w io.Writer, f *Feedback, opts ...NPZOption) error {
	var members []npzMember
	for _, sec := range []struct {
		prefix string
		list   []DataPoint
	}{{"input/", f.Inputs}, {"hint/", f.Hints}, {"output/", f.Outputs}} {
		for _, d := range sec.list {
			members = append(members, arrayMember(sec.prefix+d.Name, d.Array))
		}
	}
	members = append(members, lengthsMember(f.Lengths))
	return writeMembers(w, members, npzConfigOf(opts))
}

// WriteTrajectoriesNPZ writes the .npz archive of Batch(trajs, 0) — the
// same arrays, byte for byte, as WriteNPZ of that feedback — without
// building the padded hint arrays in memory: each hint is streamed step by
// step from the trajectories. Use it for large datasets (the CLRS-30 test
// split of quickselect holds gigabytes of padded hints).
func WriteTrajectoriesNPZ(w io.Writer, trajs []*Trajectory, opts ...NPZOption) error {
	members, err := trajectoryMembers(trajs, nil)
	if err != nil {
		return err
	}
	return writeMembers(w, members, npzConfigOf(opts))
}

// trajectoryMembers lists the arrays of Batch(trajs, 0). Hints are
// streamed from the trajectories, or rebuilt from deltas when the
// trajectories' hints were moved there.
func trajectoryMembers(trajs []*Trajectory, deltas *hintDeltas) ([]npzMember, error) {
	if len(trajs) == 0 {
		return nil, fmt.Errorf("clrs: WriteTrajectoriesNPZ needs at least one trajectory")
	}
	first := trajs[0]
	B, T := len(trajs), 0
	for b, t := range trajs {
		if t.Algorithm != first.Algorithm {
			return nil, fmt.Errorf("clrs: cannot batch %s with %s", t.Algorithm, first.Algorithm)
		}
		if len(t.Inputs) != len(first.Inputs) || len(t.Hints) != len(first.Hints) || len(t.Outputs) != len(first.Outputs) {
			return nil, fmt.Errorf("clrs: %s: sample %d has different probes from sample 0", first.Algorithm, b)
		}
		T = max(T, t.Length)
	}
	var members []npzMember
	addIO := func(prefix string, get func(*Trajectory) []DataPoint) error {
		for i, d := range get(first) {
			dt := Int64
			for b, t := range trajs {
				td := get(t)[i]
				if td.Name != d.Name || !slices.Equal(td.Shape, d.Shape) {
					return fmt.Errorf("clrs: %s: probe %s has shape %v in sample %d but %v in sample 0", first.Algorithm, d.Name, td.Shape, b, d.Shape)
				}
				if td.DType == Float64 {
					dt = Float64
				}
			}
			members = append(members, npzMember{
				name: prefix + d.Name, dtype: dt, shape: append([]int{B}, d.Shape...),
				emit: func(st *stager) error {
					for _, t := range trajs {
						if err := st.put(get(t)[i].Data); err != nil {
							return err
						}
					}
					return nil
				}})
		}
		return nil
	}
	if err := addIO("input/", func(t *Trajectory) []DataPoint { return t.Inputs }); err != nil {
		return nil, err
	}
	lengths := make([]int, B)
	for b, t := range trajs {
		lengths[b] = t.Length
	}
	for i, h := range first.Hints {
		inner := h.Shape[1:]
		per := shapeSize(inner)
		for b, t := range trajs {
			if th := t.Hints[i]; th.Name != h.Name || !slices.Equal(th.Shape[1:], inner) {
				return nil, fmt.Errorf("clrs: %s: hint %s has shape %v in sample %d but %v in sample 0", first.Algorithm, h.Name, th.Shape, b, h.Shape)
			}
		}
		emit := func(st *stager) error {
			return st.putSteps(T, len(trajs), per, func(b int) (data []float64, steps int) {
				return trajs[b].Hints[i].Data, trajs[b].Length
			})
		}
		if deltas != nil {
			emit = func(st *stager) error { return st.putDeltas(deltas, i, T, per, lengths) }
		}
		members = append(members, npzMember{name: "hint/" + h.Name, dtype: Float64, shape: append([]int{T, B}, inner...), emit: emit})
	}
	if err := addIO("output/", func(t *Trajectory) []DataPoint { return t.Outputs }); err != nil {
		return nil, err
	}
	return append(members, lengthsMember(lengths)), nil
}

// npzMember is one array of an archive: its name, dtype, shape, and a
// function that hands its values, in row-major order, to a stager.
type npzMember struct {
	name  string
	dtype DType
	shape []int
	emit  func(st *stager) error
}

func arrayMember(name string, a Array) npzMember {
	return npzMember{name: name, dtype: a.DType, shape: a.Shape,
		emit: func(st *stager) error { return st.put(a.Data) }}
}

func lengthsMember(ls []int) npzMember {
	lengths := make([]float64, len(ls))
	for i, l := range ls {
		lengths[i] = float64(l)
	}
	return arrayMember("lengths", Array{Shape: []int{len(lengths)}, Data: lengths})
}

// writeMembers streams each member's .npy bytes into a zip archive
// without holding any array in memory (the entries carry data
// descriptors): stored, or deflated on the fly by wordflate.
func writeMembers(w io.Writer, members []npzMember, cfg npzConfig) error {
	zw := zip.NewWriter(w)
	method := zip.Store
	if cfg.compress {
		method = zip.Deflate
		zw.RegisterCompressor(zip.Deflate, newPooledDeflater)
	}
	st := newStager()
	defer st.release()
	for _, m := range members {
		hdr := &zip.FileHeader{Name: m.name + ".npy", Method: method}
		hdr.SetMode(0o644)
		fw, err := zw.CreateHeader(hdr)
		if err == nil {
			err = writeNPY(fw, m.dtype, m.shape, st, m.emit)
		}
		if err != nil {
			return fmt.Errorf("clrs: writing %s: %w", m.name, err)
		}
	}
	return zw.Close()
}

// deflaters holds wordflate writers between archive members: their
// buffers are reused instead of allocated for every array.
var deflaters sync.Pool

// pooledDeflater returns its wordflate writer to the pool when closed
// (once: a second Close is an error, as for any closed writer).
type pooledDeflater struct{ z *wordflate.Writer }

func newPooledDeflater(w io.Writer) (io.WriteCloser, error) {
	if z, ok := deflaters.Get().(*wordflate.Writer); ok {
		z.Reset(w)
		return &pooledDeflater{z}, nil
	}
	return &pooledDeflater{wordflate.NewWriter(w)}, nil
}

func (p *pooledDeflater) Write(b []byte) (int, error) {
	if p.z == nil {
		return 0, wordflate.ErrClosed
	}
	return p.z.Write(b)
}

func (p *pooledDeflater) Close() error {
	if p.z == nil {
		return wordflate.ErrClosed
	}
	err := p.z.Close()
	deflaters.Put(p.z)
	p.z = nil
	return err
}

// littleEndian reports whether this machine stores numbers little-endian
// (as .npy's '<f8' does), so that float64 slices can be written as they are.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// writeNPY writes one array in the .npy format (version 1.0, little
// endian); emit hands its values, in row-major order, to st, which
// gathers them for w.
func writeNPY(w io.Writer, dtype DType, shapeDims []int, st *stager, emit func(st *stager) error) error {
	descr := "<f8"
	switch dtype {
	case Int64:
		descr = "<i8"
	case Float32:
		descr = "<f4"
	}
	dims := make([]string, len(shapeDims))
	for i, d := range shapeDims {
		dims[i] = strconv.Itoa(d)
	}
	shape := strings.Join(dims, ", ")
	if len(shapeDims) == 1 {
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
	st.start(w, dtype)
	return errors.Join(emit(st), st.flush())
}

// stagingWords is the size of a stager's buffer in 8-byte words: 256 KiB,
// meant to stay in a core's L2 cache beside the deflater's buffers.
const stagingWords = 32 << 10

// stager gathers an array's .npy bytes in a buffer and hands them to the
// archive member in large writes. Hint arrays are [T, B, …] while samples
// hold their own steps: putSteps copies several steps of a sample at once
// (one contiguous read per sample instead of one per step: fewer cache
// and TLB misses). Writing the CLRS-30 train split stored took 0.77 s
// with one read per step and takes 0.53 s so (BenchmarkWriteTrainSplit).
type stager struct {
	w     io.Writer
	dtype DType
	words []float64 // the buffer, as float64s for putSteps; bytes() views it as bytes
	n     int       // bytes staged
}

var stagers = sync.Pool{New: func() any { return &stager{words: make([]float64, stagingWords)} }}

func newStager() *stager { return stagers.Get().(*stager) }

func (st *stager) release() {
	st.w = nil
	stagers.Put(st)
}

// start directs the stager to a new array of the given dtype.
func (st *stager) start(w io.Writer, dtype DType) { st.w, st.dtype, st.n = w, dtype, 0 }

// bytes is the whole buffer as bytes.
func (st *stager) bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(st.words))), 8*len(st.words))
}

// flush writes what is staged.
func (st *stager) flush() error {
	if st.n == 0 {
		return nil
	}
	_, err := st.w.Write(st.bytes()[:st.n])
	st.n = 0
	return err
}

// rawFloat64 reports whether the array's values are staged as the bytes
// of their float64s (float64 arrays on a little-endian machine).
func (st *stager) rawFloat64() bool { return st.dtype == Float64 && littleEndian }

// put stages vals, converted to the array's dtype.
func (st *stager) put(vals []float64) error {
	buf := st.bytes()
	if st.rawFloat64() {
		raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), 8*len(vals))
		if len(raw) >= len(buf) {
			// A large array goes straight to w.
			if err := st.flush(); err != nil {
				return err
			}
			_, err := st.w.Write(raw)
			return err
		}
		for len(raw) > 0 {
			if st.n == len(buf) {
				if err := st.flush(); err != nil {
					return err
				}
			}
			k := copy(buf[st.n:], raw)
			st.n += k
			raw = raw[k:]
		}
		return nil
	}
	for _, v := range vals {
		if st.n+8 > len(buf) {
			if err := st.flush(); err != nil {
				return err
			}
		}
		switch st.dtype {
		case Int64:
			binary.LittleEndian.PutUint64(buf[st.n:], uint64(int64(v)))
			st.n += 8
		case Float32:
			binary.LittleEndian.PutUint32(buf[st.n:], math.Float32bits(float32(v)))
			st.n += 4
		default:
			binary.LittleEndian.PutUint64(buf[st.n:], math.Float64bits(v))
			st.n += 8
		}
	}
	return nil
}

// putSteps stages a [T, B, per] float64 array whose sample b holds
// steps×per values (sample(b)); the steps past its own are zeros.
func (st *stager) putSteps(T, B, per int, sample func(b int) (data []float64, steps int)) error {
	stepWords := B * per
	k := len(st.words) / max(stepWords, 1) // steps staged at once
	if !st.rawFloat64() || k < 2 {
		// Rows of a step fill the buffer: in order, row by row.
		zeros := make([]float64, per)
		for s := range T {
			for b := range B {
				row := zeros
				if data, steps := sample(b); s < steps {
					row = data[s*per : (s+1)*per]
				}
				if err := st.put(row); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := st.flush(); err != nil {
		return err
	}
	for s0 := 0; s0 < T; s0 += k {
		n := min(k, T-s0)
		block := st.words[:n*stepWords]
		for b := range B {
			data, steps := sample(b)
			for j := range n {
				row := block[(j*B+b)*per : (j*B+b+1)*per]
				if s := s0 + j; s < steps {
					copy(row, data[s*per:(s+1)*per])
				} else {
					clear(row)
				}
			}
		}
		st.n = 8 * len(block)
		if err := st.flush(); err != nil {
			return err
		}
	}
	return nil
}

// SaveNPZ writes a feedback to path atomically (see fsutil.Write: a
// temporary file renamed into place, mode 0644 less the umask), so an
// interrupted run never leaves a half-written file.
func SaveNPZ(path string, f *Feedback, opts ...NPZOption) error {
	return saveAtomic(path, opts, func(w io.Writer) error { return WriteNPZ(w, f, opts...) })
}

// SaveTrajectoriesNPZ is SaveNPZ of Batch(trajs, 0), streamed with
// WriteTrajectoriesNPZ.
func SaveTrajectoriesNPZ(path string, trajs []*Trajectory, opts ...NPZOption) error {
	return saveAtomic(path, opts, func(w io.Writer) error { return WriteTrajectoriesNPZ(w, trajs, opts...) })
}

func saveAtomic(path string, opts []NPZOption, write func(io.Writer) error) error {
	save := npzConfigOf(opts).save
	if save == nil {
		save = func(path string, write func(io.Writer) error) error {
			return fsutil.Write(path, fsutil.DataMode, write)
		}
	}
	err := save(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("clrs: %w", err)
	}
	return nil
}
