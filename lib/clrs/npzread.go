package clrs

import (
	"archive/zip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// Reading archives back. The .npz files narlab writes (WriteNPZ,
// WriteTrajectoriesNPZ, SplitFile.SaveNPZ, hence `narlab clrs generate`)
// hold one .npy array per probe and do not store the probes' locations and
// types: the reader takes them from the algorithm's spec. It is written
// with archive/zip and a .npy parser of its own rather than a general npy
// library: it needs only the three dtypes narlab writes, decodes them
// straight into the float64 slices a Feedback holds (hint arrays of a
// CLRS-30 test split run to gigabytes), checks every array's size against
// its header, and keeps lib/clrs free of dependencies.

// ReadNPZ reads an .npz archive written by WriteNPZ, WriteTrajectoriesNPZ
// or SplitFile.WriteNPZ for algorithm algo — such as a file of `narlab
// clrs generate` — back into the Feedback it was written from: the probes
// in the order of Specs[algo], each with the dtype and shape it was
// written with, and Lengths. Args, which archives do not hold, is nil.
// For a file of an official split the result equals the split sampler's
// Dataset() (NewSplitSampler), Args aside.
//
// The archive must hold exactly the arrays of the algorithm's spec
// (input/NAME, hint/NAME, output/NAME) and lengths, with consistent batch
// and time axes; archives of transformed feedback (PredAsInput,
// Permutations), whose probes differ from the spec, are refused. A
// truncated ("torn") or corrupt file, an array whose data does not match
// its header, or a dtype other than float64, int64 or float32 gives an
// error that names the array and what was wrong.
func ReadNPZ(r io.ReaderAt, size int64, algo string) (*Feedback, error) {
	spec, ok := Specs[algo]
	if !ok {
		return nil, unknownAlgorithm(algo)
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("clrs: %s: not a readable .npz archive (%w); a torn or partial file? Write it again", algo, err)
	}
	members := map[string]*zip.File{}
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			return nil, fmt.Errorf("clrs: %s: archive member %q is not a .npy array", algo, f.Name)
		}
		if _, dup := members[name]; dup {
			return nil, fmt.Errorf("clrs: %s: archive holds %s twice", algo, f.Name)
		}
		members[name] = f
	}
	take := func(name string) (npyArray, error) {
		f, ok := members[name]
		if !ok {
			return npyArray{}, fmt.Errorf("clrs: %s: archive has no array %q (an archive of %s holds %s)", algo, name, algo, strings.Join(archiveNames(spec), ", "))
		}
		delete(members, name)
		a, err := readNPYMember(f, size)
		if err != nil {
			return npyArray{}, fmt.Errorf("clrs: %s: %s: %w", algo, name, err)
		}
		return a, nil
	}

	la, err := take("lengths")
	if err != nil {
		return nil, err
	}
	if len(la.Shape) != 1 || la.Shape[0] == 0 {
		return nil, fmt.Errorf("clrs: %s: lengths has shape %v, want [B] with B >= 1", algo, la.Shape)
	}
	B := la.Shape[0]
	fb := &Feedback{Algorithm: algo, Spec: spec, Lengths: make([]int, B)}
	longest := 0
	for b, v := range la.Data {
		if v != math.Trunc(v) || v < 1 || v > math.MaxInt32 {
			return nil, fmt.Errorf("clrs: %s: lengths[%d] is %v, want a whole number of steps >= 1", algo, b, v)
		}
		fb.Lengths[b] = int(v)
		longest = max(longest, int(v))
	}
	T := -1
	for _, p := range spec {
		name := p.Stage.String() + "/" + p.Name
		a, err := take(name)
		if err != nil {
			return nil, err
		}
		batchAxis := 0
		if p.Stage == Hint {
			batchAxis = 1
		}
		if len(a.Shape) <= batchAxis || a.Shape[batchAxis] != B {
			want := "[B, …]"
			if p.Stage == Hint {
				want = "[T, B, …]"
			}
			return nil, fmt.Errorf("clrs: %s: %s has shape %v, want %s with B = %d (the length of lengths)", algo, name, a.Shape, want, B)
		}
		if p.Stage == Hint {
			if T < 0 {
				T = a.Shape[0]
				if T < longest {
					return nil, fmt.Errorf("clrs: %s: %s has %d steps but lengths holds %d", algo, name, T, longest)
				}
			} else if a.Shape[0] != T {
				return nil, fmt.Errorf("clrs: %s: %s has %d steps, other hints %d", algo, name, a.Shape[0], T)
			}
		}
		d := DataPoint{Probe: p, Array: a.Array}
		switch p.Stage {
		case Input:
			fb.Inputs = append(fb.Inputs, d)
		case Hint:
			fb.Hints = append(fb.Hints, d)
		default:
			fb.Outputs = append(fb.Outputs, d)
		}
	}
	if len(members) > 0 {
		extra := make([]string, 0, len(members))
		for n := range members {
			extra = append(extra, n)
		}
		slices.Sort(extra)
		return nil, fmt.Errorf("clrs: %s: archive holds arrays that are not probes of %s: %s (archives of transformed feedback cannot be read back)", algo, algo, strings.Join(extra, ", "))
	}
	return fb, nil
}

// archiveNames lists the arrays an archive of a spec holds.
func archiveNames(spec Spec) []string {
	names := []string{"lengths"}
	for _, p := range spec {
		names = append(names, p.Stage.String()+"/"+p.Name)
	}
	return names
}

// LoadNPZ reads the .npz file at path (see ReadNPZ). With algo "" the
// algorithm is taken from the file's name, ALGO_SPLIT.npz, as `narlab clrs
// generate` names its files.
func LoadNPZ(path, algo string) (*Feedback, error) {
	if algo == "" {
		a, _, err := ParseSplitFileName(filepath.Base(path))
		if err != nil {
			return nil, err
		}
		algo = a
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("clrs: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("clrs: %w", err)
	}
	fb, err := ReadNPZ(f, st.Size(), algo)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return fb, nil
}

// ParseSplitFileName splits a file name of `narlab clrs generate`,
// ALGO_SPLIT.npz, into a known algorithm and a split name.
func ParseSplitFileName(name string) (algo, split string, err error) {
	stem, ok := strings.CutSuffix(name, ".npz")
	i := strings.LastIndexByte(stem, '_')
	if ok && i > 0 {
		algo, split = stem[:i], stem[i+1:]
		if _, known := Specs[algo]; known && slices.Contains(SplitNames, split) {
			return algo, split, nil
		}
	}
	return "", "", fmt.Errorf("clrs: cannot tell the algorithm and split from the file name %q: want ALGO_SPLIT.npz as `narlab clrs generate` names its files (split train, val or test), or name the algorithm", name)
}

// Manifest is the manifest.json that `narlab clrs generate` writes beside
// its files.
type Manifest struct {
	Generator  string         `json:"generator"`
	Compressed bool           `json:"compressed"`
	Seconds    float64        `json:"seconds"`
	Files      []ManifestFile `json:"files"`
}

// ManifestFile is one file of a Manifest: the split (or the name of the
// setting, DatasetOptions.Settings) it holds, how it was sampled and the
// number of hint steps of its longest sample.
type ManifestFile struct {
	File       string `json:"file"`
	Algorithm  string `json:"algorithm"`
	Split      string `json:"split"`
	NumSamples int    `json:"num_samples"`
	Length     int    `json:"length"`
	Seed       int64  `json:"seed"`
	MaxSteps   int    `json:"max_steps"`
	// Kwargs are the sampler parameters the file was drawn with beside
	// the defaults (DatasetOptions.Kwargs); absent for the official splits.
	Kwargs map[string]any `json:"kwargs,omitempty"`
}

// ReadManifest reads DIR/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, fmt.Errorf("clrs: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("clrs: %s: not a manifest of `narlab clrs generate`: %w", filepath.Join(dir, "manifest.json"), err)
	}
	return &m, nil
}

// LoadSplit reads the official CLRS-30 split of one algorithm from a
// directory written by `narlab clrs generate` (DIR/ALGO_SPLIT.npz) and
// checks it: against the directory's manifest.json when there is one
// (the file must be listed, with the same algorithm, split, number of
// samples and hint steps), and against the split's official setting
// (CLRS30Split: its number of samples).
func LoadSplit(dir, algo, split string) (*Feedback, error) {
	set, err := CLRS30Split(algo, split)
	if err != nil {
		return nil, err
	}
	name := algo + "_" + split + ".npz"
	var entry *ManifestFile
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
		m, err := ReadManifest(dir)
		if err != nil {
			return nil, err
		}
		for i := range m.Files {
			if m.Files[i].File == name {
				entry = &m.Files[i]
			}
		}
		if entry == nil {
			return nil, fmt.Errorf("clrs: %s is not listed in %s: not a file of that run of narlab clrs generate", name, filepath.Join(dir, "manifest.json"))
		}
		if entry.Algorithm != algo || entry.Split != split {
			return nil, fmt.Errorf("clrs: %s: the manifest lists it as %s/%s", name, entry.Algorithm, entry.Split)
		}
	}
	fb, err := LoadNPZ(filepath.Join(dir, name), algo)
	if err != nil {
		return nil, err
	}
	if fb.BatchSize() != set.NumSamples {
		return nil, fmt.Errorf("clrs: %s holds %d samples; the official %s split of %s has %d", name, fb.BatchSize(), split, algo, set.NumSamples)
	}
	if entry != nil && (entry.NumSamples != fb.BatchSize() || entry.MaxSteps != fb.MaxSteps()) {
		return nil, fmt.Errorf("clrs: %s holds %d samples of %d steps; its manifest entry says %d of %d", name, fb.BatchSize(), fb.MaxSteps(), entry.NumSamples, entry.MaxSteps)
	}
	return fb, nil
}

// Trajectories returns every sample of the batch as a Trajectory (see
// Trajectory): for a Feedback read back from a split's file, the split
// sampler's Trajectories(), Args aside.
func (f *Feedback) Trajectories() ([]*Trajectory, error) {
	out := make([]*Trajectory, f.BatchSize())
	for b := range out {
		t, err := f.Trajectory(b)
		if err != nil {
			return nil, err
		}
		out[b] = t
	}
	return out, nil
}

// Select returns the batch of the given samples, in that order (an index
// may repeat). Like the reference's Sampler.next(batch_size), which
// subsamples its batched dataset, the hints keep all MaxSteps() steps.
func (f *Feedback) Select(indices ...int) (*Feedback, error) {
	B := f.BatchSize()
	if len(indices) == 0 {
		return nil, fmt.Errorf("clrs: %s: Select needs at least one sample", f.Algorithm)
	}
	for _, i := range indices {
		if i < 0 || i >= B {
			return nil, fmt.Errorf("clrs: %s: sample %d out of range for a batch of %d", f.Algorithm, i, B)
		}
	}
	g := &Feedback{Algorithm: f.Algorithm, Spec: f.Spec, Lengths: make([]int, len(indices))}
	if f.Args != nil {
		g.Args = make([]Args, len(indices))
	}
	for k, i := range indices {
		g.Lengths[k] = f.Lengths[i]
		if f.Args != nil {
			g.Args[k] = f.Args[i]
		}
	}
	pick := func(d DataPoint, steps int) DataPoint {
		// steps rows of B samples of per values each (steps = 1 for
		// inputs and outputs).
		per := shapeSize(d.Shape) / (steps * B)
		data := make([]float64, 0, steps*len(indices)*per)
		for s := range steps {
			for _, i := range indices {
				off := (s*B + i) * per
				data = append(data, d.Data[off:off+per]...)
			}
		}
		shape := slices.Clone(d.Shape)
		if d.Stage == Hint {
			shape[1] = len(indices)
		} else {
			shape[0] = len(indices)
		}
		return DataPoint{Probe: d.Probe, Array: Array{Shape: shape, Data: data, DType: d.DType}}
	}
	for _, d := range f.Inputs {
		g.Inputs = append(g.Inputs, pick(d, 1))
	}
	for _, d := range f.Hints {
		g.Hints = append(g.Hints, pick(d, d.Shape[0]))
	}
	for _, d := range f.Outputs {
		g.Outputs = append(g.Outputs, pick(d, 1))
	}
	return g, nil
}

// npyArray is one decoded .npy array.
type npyArray struct{ Array }

// maxDeflateRatio bounds how much deflate can expand: 258 bytes per
// 2-bit code at best (about 1032:1).
const maxDeflateRatio = 1032

// readNPYMember decodes one member of an archive of archiveSize bytes,
// checking that its data is exactly as long as its header says and that
// it is intact (zip's CRC-32, checked once the member is read to its
// end). The sizes the zip directory declares are checked against the
// archive first, so that a corrupt directory cannot make the reader
// allocate what the file cannot hold.
func readNPYMember(f *zip.File, archiveSize int64) (npyArray, error) {
	size, packed := f.UncompressedSize64, f.CompressedSize64
	limit := packed
	if f.Method == zip.Deflate {
		limit = maxDeflateRatio*packed + 1<<10
	}
	if packed > uint64(archiveSize) || size > limit {
		return npyArray{}, fmt.Errorf("the archive's directory gives sizes (%d bytes, %d stored) the file cannot hold: a corrupt or torn file", size, packed)
	}
	rc, err := f.Open()
	if err != nil {
		return npyArray{}, err
	}
	defer rc.Close()
	a, err := readNPY(rc, int64(size))
	if err != nil {
		return npyArray{}, err
	}
	var one [1]byte
	switch n, err := io.ReadFull(rc, one[:]); {
	case n > 0:
		return npyArray{}, errors.New("data runs past the size its .npy header gives (a corrupt array)")
	case err != io.EOF:
		return npyArray{}, fmt.Errorf("%w (a torn or corrupt file?)", err)
	}
	return a, nil
}

// readNPY decodes a .npy stream of size bytes (format versions 1 to 3)
// holding a C-ordered little-endian float64, int64 or float32 array. The
// data must be exactly as long as the header's shape and dtype say, which
// is checked before anything is allocated: a corrupt header cannot ask for
// a huge array.
func readNPY(r io.Reader, size int64) (npyArray, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return npyArray{}, fmt.Errorf("reading the .npy header: %w", truncated(err))
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return npyArray{}, errors.New("not a .npy array (bad magic string)")
	}
	var hlen, prefix int
	switch pre[6] {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return npyArray{}, fmt.Errorf("reading the .npy header: %w", truncated(err))
		}
		hlen, prefix = int(binary.LittleEndian.Uint16(b[:])), 10
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return npyArray{}, fmt.Errorf("reading the .npy header: %w", truncated(err))
		}
		hlen, prefix = int(binary.LittleEndian.Uint32(b[:])), 12
		if hlen > 1<<20 {
			return npyArray{}, fmt.Errorf(".npy header of %d bytes: corrupt", hlen)
		}
	default:
		return npyArray{}, fmt.Errorf(".npy format version %d.%d is not supported (want 1.0 to 3.0)", pre[6], pre[7])
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return npyArray{}, fmt.Errorf("reading the .npy header: %w", truncated(err))
	}
	descr, fortran, shape, err := parseNPYHeader(string(hdr))
	if err != nil {
		return npyArray{}, err
	}
	if fortran {
		return npyArray{}, errors.New("array is in Fortran order; narlab writes C order")
	}
	var dt DType
	var item int
	switch descr {
	case "<f8":
		dt, item = Float64, 8
	case "<i8":
		dt, item = Int64, 8
	case "<f4":
		dt, item = Float32, 4
	default:
		return npyArray{}, fmt.Errorf("dtype %q is not one narlab writes (<f8, <i8 or <f4)", descr)
	}
	n := 1
	for _, d := range shape {
		if d < 0 || (d > 0 && n > math.MaxInt/8/d) {
			return npyArray{}, fmt.Errorf("shape %v is too large", shape)
		}
		n *= d
	}
	if have := size - int64(prefix+hlen); have != int64(n)*int64(item) {
		if have < int64(n)*int64(item) {
			return npyArray{}, fmt.Errorf("array %s%v needs %d bytes of data but holds %d (a torn or corrupt file?)", dt, shape, n*item, have)
		}
		return npyArray{}, fmt.Errorf("array %s%v: data runs past the size its .npy header gives (%d bytes, not %d: a corrupt array)", dt, shape, have, n*item)
	}
	data := make([]float64, n)
	if err := readValues(r, data, dt, item); err != nil {
		return npyArray{}, fmt.Errorf("array %s%v: %w", dt, shape, err)
	}
	if shape == nil {
		shape = []int{}
	}
	return npyArray{Array{Shape: shape, Data: data, DType: dt}}, nil
}

// readValues reads len(data) values of the given dtype into data.
func readValues(r io.Reader, data []float64, dt DType, item int) error {
	done := 0
	fill := func(err error) error {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return fmt.Errorf("data ends after %d of its %d values (a torn file?)", done, len(data))
		}
		return err
	}
	if dt == Float64 && littleEndian {
		raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), 8*len(data))
		k, err := io.ReadFull(r, raw)
		done = k / 8
		if err != nil {
			return fill(err)
		}
		return nil
	}
	buf := make([]byte, 64<<10)
	for done < len(data) {
		want := min(len(buf)/item, len(data)-done) * item
		if k, err := io.ReadFull(r, buf[:want]); err != nil {
			done += k / item
			return fill(err)
		}
		for i := 0; i < want; i += item {
			switch dt {
			case Int64:
				data[done] = float64(int64(binary.LittleEndian.Uint64(buf[i:])))
			case Float32:
				data[done] = float64(math.Float32frombits(binary.LittleEndian.Uint32(buf[i:])))
			default:
				data[done] = math.Float64frombits(binary.LittleEndian.Uint64(buf[i:]))
			}
			done++
		}
	}
	return nil
}

func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errors.New("the array ends early (a torn file?)")
	}
	return err
}

// parseNPYHeader parses the Python dict literal of a .npy header, as
// numpy writes it: {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }.
func parseNPYHeader(h string) (descr string, fortran bool, shape []int, err error) {
	bad := func(why string) error { return fmt.Errorf("malformed .npy header %q: %s", strings.TrimSpace(h), why) }
	s := strings.TrimSpace(h)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return "", false, nil, bad("not a dict")
	}
	s = s[1 : len(s)-1]
	seen := map[string]bool{}
	for {
		s = strings.TrimLeft(s, " ,")
		if s == "" {
			break
		}
		key, rest, ok := pyString(s)
		if !ok {
			return "", false, nil, bad("expected a quoted key")
		}
		rest = strings.TrimLeft(rest, " ")
		if !strings.HasPrefix(rest, ":") {
			return "", false, nil, bad("expected ':' after " + key)
		}
		rest = strings.TrimLeft(rest[1:], " ")
		switch key {
		case "descr":
			descr, rest, ok = pyString(rest)
			if !ok {
				return "", false, nil, bad("descr is not a string (structured dtypes are not supported)")
			}
		case "fortran_order":
			switch {
			case strings.HasPrefix(rest, "False"):
				rest = rest[5:]
			case strings.HasPrefix(rest, "True"):
				fortran, rest = true, rest[4:]
			default:
				return "", false, nil, bad("fortran_order is not True or False")
			}
		case "shape":
			end := strings.IndexByte(rest, ')')
			if !strings.HasPrefix(rest, "(") || end < 0 {
				return "", false, nil, bad("shape is not a tuple")
			}
			shape = []int{}
			for _, f := range strings.Split(rest[1:end], ",") {
				if f = strings.TrimSpace(f); f == "" {
					continue
				}
				f = strings.TrimSuffix(f, "L")
				d, err := strconv.Atoi(f)
				if err != nil || d < 0 {
					return "", false, nil, bad("shape holds " + f)
				}
				shape = append(shape, d)
			}
			rest = rest[end+1:]
		default:
			return "", false, nil, bad("unknown key " + key)
		}
		seen[key] = true
		s = rest
	}
	if !seen["descr"] || !seen["fortran_order"] || !seen["shape"] {
		return "", false, nil, bad("want the keys descr, fortran_order and shape")
	}
	return descr, fortran, shape, nil
}

// pyString reads a single- or double-quoted Python string without
// escapes at the start of s.
func pyString(s string) (str, rest string, ok bool) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", s, false
	}
	return s[1 : 1+end], s[2+end:], true
}

// ReadArraysNPZ reads every array of an .npz archive, whatever it holds,
// keyed by member name without ".npy" ("input/A", "lengths"): the arrays
// of a file that is not one algorithm's whole feedback, such as a model's
// inputs alone. Dtypes, checks and errors are ReadNPZ's: float64, int64
// and float32 members, each checked against its header and its CRC.
func ReadArraysNPZ(r io.ReaderAt, size int64) (map[string]Array, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("clrs: not a readable .npz archive (%w); a torn or partial file? Write it again", err)
	}
	out := make(map[string]Array, len(zr.File))
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			return nil, fmt.Errorf("clrs: archive member %q is not a .npy array", f.Name)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("clrs: archive holds %s twice", f.Name)
		}
		a, err := readNPYMember(f, size)
		if err != nil {
			return nil, fmt.Errorf("clrs: %s: %w", name, err)
		}
		out[name] = a.Array
	}
	return out, nil
}
