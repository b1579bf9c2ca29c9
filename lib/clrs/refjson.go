package clrs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/narlab/narlab/internal/pyfloat"
)

// ReferenceHeader is the metadata at the top of a reference-JSON document:
// how the feedback was sampled.
type ReferenceHeader struct {
	Algorithm  string
	Length     int
	Seed       int64
	NumSamples int
	// Kwargs are the sampler parameters given explicitly (not defaults), in
	// the order they were given.
	Kwargs []Param
}

// Param is a named value, such as a sampler parameter.
type Param struct {
	Name  string
	Value any
}

// WriteReferenceJSON writes a feedback in the layout of the reference
// fixtures (and of the reference's dump tool): a single line of JSON with
// the keys algorithm, length, seed, num_samples, kwargs, spec,
// sampled_args, lengths, inputs, hints and outputs, formatted byte for byte
// as Python's json.dumps(separators=(',', ':')) formats them (floats in
// Python's repr), so that output can be diffed against the reference.
// sampled_args is written when the feedback carries its Args. A header
// with Length 0 (a run on given inputs rather than a sampler) omits the
// sampling fields length, seed, num_samples and kwargs.
func WriteReferenceJSON(w io.Writer, h ReferenceHeader, fb *Feedback) error {
	bw := bufio.NewWriter(w)
	var b bytes.Buffer
	b.WriteString(`{"algorithm":`)
	writeJSONString(&b, h.Algorithm)
	if h.Length > 0 {
		fmt.Fprintf(&b, `,"length":%d,"seed":%d,"num_samples":%d,"kwargs":`, h.Length, h.Seed, h.NumSamples)
		writeKwargs(&b, h.Kwargs)
	}
	b.WriteString(`,"spec":{`)
	for i, p := range fb.Spec {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, p.Name)
		fmt.Fprintf(&b, `:["%s","%s","%s"]`, p.Stage, p.Location, p.Type)
	}
	b.WriteString(`},"sampled_args":[`)
	if fb.Args != nil {
		for i, a := range fb.Args {
			if i > 0 {
				b.WriteByte(',')
			}
			writeArgs(&b, a)
		}
	}
	b.WriteString(`],"lengths":[`)
	for i, l := range fb.Lengths {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(PyFloat(float64(l)))
	}
	b.WriteString(`]`)
	if _, err := bw.Write(b.Bytes()); err != nil {
		return err
	}
	for _, sec := range []struct {
		key  string
		list []DataPoint
	}{{"inputs", fb.Inputs}, {"hints", fb.Hints}, {"outputs", fb.Outputs}} {
		fmt.Fprintf(bw, `,"%s":{`, sec.key)
		for i, d := range sec.list {
			if i > 0 {
				bw.WriteByte(',')
			}
			b.Reset()
			writeJSONString(&b, d.Name)
			fmt.Fprintf(&b, `:{"stage":"%s","location":"%s","type":"%s","dtype":"%s","shape":[`, d.Stage, d.Location, d.Type, d.DType)
			for k, s := range d.Shape {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(s))
			}
			b.WriteString(`],"data":`)
			bw.Write(b.Bytes())
			writeNested(bw, d.Shape, d.Data, d.DType == Int64)
			bw.WriteByte('}')
		}
		bw.WriteByte('}')
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}

func writeKwargs(b *bytes.Buffer, kw []Param) {
	b.WriteByte('{')
	for i, p := range kw {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(b, p.Name)
		b.WriteByte(':')
		writeValue(b, p.Value)
	}
	b.WriteByte('}')
}

func writeValue(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case int:
		b.WriteString(strconv.Itoa(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(PyFloat(x))
	case []float64:
		b.WriteByte('[')
		for i, f := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(PyFloat(f))
		}
		b.WriteByte(']')
	case []int:
		b.WriteByte('[')
		for i, f := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(f))
		}
		b.WriteByte(']')
	case Matrix:
		b.WriteByte('[')
		for i := 0; i < x.N; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('[')
			for j := 0; j < x.N; j++ {
				if j > 0 {
					b.WriteByte(',')
				}
				if x.Int {
					b.WriteString(strconv.FormatInt(int64(x.At(i, j)), 10))
				} else {
					b.WriteString(PyFloat(x.At(i, j)))
				}
			}
			b.WriteByte(']')
		}
		b.WriteByte(']')
	case string:
		writeJSONString(b, x)
	default:
		enc, _ := json.Marshal(x)
		b.Write(enc)
	}
}

func writeArgs(b *bytes.Buffer, a Args) {
	b.WriteByte('[')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		writeValue(b, v)
	}
	b.WriteByte(']')
}

// writeNested writes data of the given shape as nested JSON lists.
func writeNested(w *bufio.Writer, shape []int, data []float64, ints bool) {
	var buf []byte
	var rec func(dim, off int)
	rec = func(dim, off int) {
		if dim == len(shape) {
			if ints {
				buf = strconv.AppendInt(buf, int64(data[off]), 10)
			} else {
				buf = pyfloat.AppendJSON(buf, data[off])
			}
			return
		}
		stride := shapeSize(shape[dim+1:])
		buf = append(buf, '[')
		for i := 0; i < shape[dim]; i++ {
			if i > 0 {
				buf = append(buf, ',')
			}
			rec(dim+1, off+i*stride)
			if len(buf) > 1<<16 {
				w.Write(buf)
				buf = buf[:0]
			}
		}
		buf = append(buf, ']')
	}
	rec(0, 0)
	w.Write(buf)
}

// PyFloat formats a float64 exactly as Python's repr() (and json.dumps)
// does: the shortest digits that round-trip, positional notation with a
// trailing ".0" for 1e-4 <= |x| < 1e16, scientific notation otherwise
// ("1e-05", "1.5e+16"), and "NaN", "Infinity", "-Infinity" as json.dumps
// writes non-finite values.
func PyFloat(x float64) string { return string(pyfloat.AppendJSON(nil, x)) }

// ReferenceDocument is a parsed reference-JSON document (a fixture, or the
// output of `narlab clrs sample --format reference-json`).
type ReferenceDocument struct {
	Algorithm   string
	Length      int
	Seed        int64
	NumSamples  int
	Spec        Spec
	SampledArgs []json.RawMessage
	Lengths     []float64
	Inputs      []DataPoint
	Hints       []DataPoint
	Outputs     []DataPoint
}

// ReadReferenceJSON parses a reference-JSON document, keeping the order of
// the spec and of the probes in each section.
func ReadReferenceJSON(r io.Reader) (*ReferenceDocument, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	doc := &ReferenceDocument{}
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		switch key {
		case "algorithm":
			err = dec.Decode(&doc.Algorithm)
		case "length":
			err = dec.Decode(&doc.Length)
		case "seed":
			err = dec.Decode(&doc.Seed)
		case "num_samples":
			err = dec.Decode(&doc.NumSamples)
		case "sampled_args":
			err = dec.Decode(&doc.SampledArgs)
		case "lengths":
			err = dec.Decode(&doc.Lengths)
		case "spec":
			doc.Spec, err = readSpec(dec)
		case "inputs":
			doc.Inputs, err = readSection(dec)
		case "hints":
			doc.Hints, err = readSection(dec)
		case "outputs":
			doc.Outputs, err = readSection(dec)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, fmt.Errorf("clrs: reference JSON field %q: %w", key, err)
		}
	}
	return doc, expectDelim(dec, '}')
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("clrs: reference JSON: %w", err)
	}
	if tok != d {
		return fmt.Errorf("clrs: reference JSON: got %v, want %v", tok, d)
	}
	return nil
}

func readSpec(dec *json.Decoder) (Spec, error) {
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var s Spec
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var triple [3]string
		if err := dec.Decode(&triple); err != nil {
			return nil, err
		}
		p, err := parseProbe(tok.(string), triple[0], triple[1], triple[2])
		if err != nil {
			return nil, err
		}
		s = append(s, p)
	}
	return s, expectDelim(dec, '}')
}

func parseProbe(name, stage, loc, typ string) (Probe, error) {
	st, err := ParseStage(stage)
	if err != nil {
		return Probe{}, err
	}
	lo, err := ParseLocation(loc)
	if err != nil {
		return Probe{}, err
	}
	ty, err := ParseType(typ)
	if err != nil {
		return Probe{}, err
	}
	return Probe{Name: name, Stage: st, Location: lo, Type: ty}, nil
}

type rawDataPoint struct {
	Stage    string          `json:"stage"`
	Location string          `json:"location"`
	Type     string          `json:"type"`
	DType    string          `json:"dtype"`
	Shape    []int           `json:"shape"`
	Data     json.RawMessage `json:"data"`
}

func readSection(dec *json.Decoder) ([]DataPoint, error) {
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	var out []DataPoint
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name := tok.(string)
		var raw rawDataPoint
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("probe %s: %w", name, err)
		}
		p, err := parseProbe(name, raw.Stage, raw.Location, raw.Type)
		if err != nil {
			return nil, err
		}
		data, err := flattenNumbers(raw.Data)
		if err != nil {
			return nil, fmt.Errorf("probe %s: %w", name, err)
		}
		if len(data) != shapeSize(raw.Shape) {
			return nil, fmt.Errorf("probe %s: %d values for shape %v", name, len(data), raw.Shape)
		}
		dt := Float64
		switch raw.DType {
		case "int64", "int32":
			dt = Int64
		case "float64":
		case "float32":
			dt = Float32
		default:
			return nil, fmt.Errorf("probe %s: unsupported dtype %q", name, raw.DType)
		}
		out = append(out, DataPoint{Probe: p, Array: Array{Shape: raw.Shape, Data: data, DType: dt}})
	}
	return out, expectDelim(dec, '}')
}

// flattenNumbers reads nested JSON lists of numbers in row-major order.
func flattenNumbers(raw json.RawMessage) ([]float64, error) {
	var out []float64
	i := 0
	for i < len(raw) {
		c := raw[i]
		switch {
		case c == '[' || c == ']' || c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r':
			i++
		default:
			j := i
			for j < len(raw) && raw[j] != ',' && raw[j] != ']' && raw[j] != ' ' && raw[j] != '\n' {
				j++
			}
			tok := string(raw[i:j])
			var v float64
			var err error
			switch tok {
			case "NaN":
				v = math.NaN()
			case "Infinity":
				v = math.Inf(1)
			case "-Infinity":
				v = math.Inf(-1)
			case "true":
				v = 1
			case "false":
				v = 0
			default:
				v, err = strconv.ParseFloat(tok, 64)
			}
			if err != nil {
				return nil, fmt.Errorf("bad number %q", strings.TrimSpace(tok))
			}
			out = append(out, v)
			i = j
		}
	}
	return out, nil
}
