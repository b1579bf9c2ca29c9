package clrstext

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/narlab/narlab/internal/pyfloat"
	"github.com/narlab/narlab/lib/clrs"
)

// Format is a version of the reference's text format.
type Format uint8

// Format versions.
const (
	// Legacy is the July 2024 format (dm-clrs v2.0.1) of the paper's data
	// and the Hugging Face datasets: '%.3g' scalars, '%.3f' graph scalars.
	Legacy Format = iota
	// Current is the format of dm-clrs HEAD: Python str() of every float.
	Current
)

// String returns the format's name as the CLI spells it.
func (f Format) String() string {
	switch f {
	case Legacy:
		return "legacy"
	case Current:
		return "current"
	}
	return fmt.Sprintf("Format(%d)", f)
}

// ParseFormat parses "legacy" or "current".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "legacy":
		return Legacy, nil
	case "current":
		return Current, nil
	}
	return 0, fmt.Errorf("clrstext: unknown format %q (want legacy or current)", s)
}

// The reference's separators and markers.
const (
	Separator            = ", "
	InputTraceMarker     = "initial_trace:"
	TraceAnswerSeparator = " | "
	OutputTraceMarker    = "trace"
)

// Example is one CLRS-Text sample: the prompt and the expected answer.
// The answer ends with a blank line ("\n\n") as in the reference.
type Example struct {
	Algo     string
	Question string
	Answer   string
	// Hints records whether the answer carries a trace.
	Hints bool
}

// Text returns question and answer concatenated, the reference's `text`.
func (e Example) Text() string { return e.Question + e.Answer }

// stringMatchers print hint `s` as the trace and name the output `s`,
// while the answer value stays the `match` output.
var stringMatchers = map[string]string{
	"naive_string_matcher": "s",
	"kmp_matcher":          "s",
}

// searchTasks take their answer (and output names) from hints, in the
// last hint frame.
var searchTasks = map[string][]string{
	"binary_search":                {"low", "high"},
	"find_maximum_subarray_kadane": {"best_low", "best_high"},
	"quickselect":                  {"pivot"},
}

// parenthesised tasks wrap names, frames and answer in "( … )".
var parenthesised = map[string]bool{
	"binary_search":                true,
	"find_maximum_subarray_kadane": true,
}

// HasTrace reports whether the reference prints a trace for the algorithm
// when hints are requested (every CLRS-30 algorithm but
// segments_intersect).
func HasTrace(algo string) bool {
	spec, ok := clrs.Specs[algo]
	if !ok {
		return false
	}
	outs := outputNames(algo, spec, true)
	for _, p := range spec {
		if p.Stage == clrs.Hint && isHintField(p.Name, algo, outs) {
			return true
		}
	}
	return false
}

// Render renders a trajectory as CLRS-Text in the given format, with or
// without the hint trace. The trajectory must hold one sample (as drawn by a
// sampler or returned by clrs.Run); the values are printed as they are, so
// for the Current format with truncation draw it from a sampler built with
// clrs.TruncateDecimals.
func Render(t *clrs.Trajectory, f Format, hints bool) (Example, error) {
	var r renderer
	return r.render(t, f, hints)
}

// renderer renders examples; a Sampler keeps one (it holds no state
// today, but gives rendering a place for reusable buffers).
type renderer struct{}

func (r *renderer) render(t *clrs.Trajectory, f Format, hints bool) (Example, error) {
	if t == nil {
		return Example{}, errors.New("clrstext: nil trajectory")
	}
	if f != Legacy && f != Current {
		return Example{}, fmt.Errorf("clrstext: unknown format %d (want Legacy or Current)", f)
	}
	algo := t.Algorithm
	spec, ok := clrs.Specs[algo]
	if !ok {
		return Example{}, fmt.Errorf("clrstext: unknown algorithm %q", algo)
	}
	ctx, err := newContext(t, spec, f)
	if err != nil {
		return Example{}, err
	}

	// Inputs, in spec order, without pos (and adj when A exists).
	_, hasA := spec.Find("A")
	var inputs []string
	for _, p := range spec {
		if p.Stage != clrs.Input || p.Name == "pos" || (p.Name == "adj" && hasA) {
			continue
		}
		d, ok := t.Probe(p.Name)
		if !ok {
			return Example{}, fmt.Errorf("clrstext: %s: trajectory has no input %q", algo, p.Name)
		}
		s, err := ctx.feature(p, d.Data, d.DType)
		if err != nil {
			return Example{}, err
		}
		inputs = append(inputs, p.Name+": "+s)
	}
	inputStr := strings.Join(inputs, Separator)

	names := outputNames(algo, spec, hints)
	var outs []string
	if _, search := searchTasks[algo]; search && hints {
		var parts []string
		for _, name := range names {
			d, ok := t.Probe(name)
			if !ok || d.Stage != clrs.Hint {
				return Example{}, fmt.Errorf("clrstext: %s: trajectory has no hint %q", algo, name)
			}
			p, _ := spec.Find(name)
			s, err := ctx.feature(p, lastStep(d), d.DType)
			if err != nil {
				return Example{}, err
			}
			parts = append(parts, s)
		}
		outs = []string{strings.Join(parts, Separator)}
	} else {
		for _, p := range spec {
			if p.Stage != clrs.Output {
				continue
			}
			d, ok := t.Probe(p.Name)
			if !ok {
				return Example{}, fmt.Errorf("clrstext: %s: trajectory has no output %q", algo, p.Name)
			}
			s, err := ctx.feature(p, d.Data, d.DType)
			if err != nil {
				return Example{}, err
			}
			outs = append(outs, s)
		}
	}
	outputStr := strings.Join(outs, Separator)
	namesStr := strings.Join(names, Separator)

	added := false
	if hints {
		var initial []string
		var frames [][]string
		for _, p := range spec {
			if p.Stage != clrs.Hint || !isHintField(p.Name, algo, names) {
				continue
			}
			d, ok := t.Probe(p.Name)
			if !ok {
				return Example{}, fmt.Errorf("clrstext: %s: trajectory has no hint %q", algo, p.Name)
			}
			if len(d.Shape) == 0 || d.Shape[0] < 1 {
				return Example{}, fmt.Errorf("clrstext: %s: hint %q has no steps", algo, p.Name)
			}
			outName := hintOutputName(p.Name, algo)
			op, ok := spec.Find(outName)
			if !ok {
				return Example{}, fmt.Errorf("clrstext: %s: no probe %q to format hint %q with", algo, outName, p.Name)
			}
			s, err := ctx.feature(op, d.Step(0), d.DType)
			if err != nil {
				return Example{}, err
			}
			initial = append(initial, s)
			var unrolled []string
			for k := 1; k < d.Shape[0]-1; k++ {
				s, err := ctx.feature(op, d.Step(k), d.DType)
				if err != nil {
					return Example{}, err
				}
				unrolled = append(unrolled, s)
			}
			frames = append(frames, unrolled)
		}
		found := len(initial) > 0
		inputHint := formatHint(initial, algo)
		var outHints []string
		if found {
			for _, fr := range frames[1:] {
				if len(fr) != len(frames[0]) {
					return Example{}, fmt.Errorf("clrstext: %s: hint traces have different lengths", algo)
				}
			}
			for k := range frames[0] {
				step := make([]string, len(frames))
				for j := range frames {
					step[j] = frames[j][k]
				}
				outHints = append(outHints, formatHint(step, algo))
			}
		}
		outputStr = formatHint([]string{outputStr}, algo)
		namesStr = formatHint([]string{namesStr}, algo)
		if inputHint != "" {
			inputStr = inputStr + Separator + InputTraceMarker + " " + inputHint
			outputStr = strings.Join(outHints, Separator) + TraceAnswerSeparator + outputStr
		}
		added = found
	}
	if added {
		namesStr = OutputTraceMarker + TraceAnswerSeparator + namesStr
	}
	return Example{
		Algo:     algo,
		Question: algo + ":\n" + inputStr + "\n" + namesStr + ":\n",
		Answer:   outputStr + "\n\n",
		Hints:    added,
	}, nil
}

func lastStep(d clrs.DataPoint) []float64 { return d.Step(d.Shape[0] - 1) }

// outputNames is the reference's _get_output_names.
func outputNames(algo string, spec clrs.Spec, hints bool) []string {
	if s, ok := stringMatchers[algo]; ok && hints {
		return []string{s}
	}
	if s, ok := searchTasks[algo]; ok && hints {
		return s
	}
	var out []string
	for _, p := range spec {
		if p.Stage == clrs.Output {
			out = append(out, p.Name)
		}
	}
	return out
}

// isHintField is the reference's _is_hint_field: a hint is printed when
// its name without the last two characters is an output name.
func isHintField(name, algo string, outNames []string) bool {
	if s, ok := stringMatchers[algo]; ok {
		return name == s
	}
	if s, ok := searchTasks[algo]; ok {
		for _, n := range s {
			if n == name {
				return true
			}
		}
		return false
	}
	stem := ""
	if len(name) > 2 {
		stem = name[:len(name)-2]
	}
	for _, n := range outNames {
		if n == stem {
			return true
		}
	}
	return false
}

// hintOutputName is the reference's _get_output_name.
func hintOutputName(name, algo string) string {
	if s, ok := stringMatchers[algo]; ok {
		return s
	}
	if _, ok := searchTasks[algo]; ok {
		return name
	}
	if len(name) <= 2 {
		return ""
	}
	return name[:len(name)-2]
}

func formatHint(parts []string, algo string) string {
	s := strings.Join(parts, Separator)
	if parenthesised[algo] {
		s = "(" + s + ")"
	}
	return s
}

// fmtContext carries what formatting a feature needs beyond its own values.
type fmtContext struct {
	algo   string
	format Format
	n      int
	key    []float64 // the `key` input, for permutation outputs
}

func newContext(t *clrs.Trajectory, spec clrs.Spec, f Format) (*fmtContext, error) {
	c := &fmtContext{algo: t.Algorithm, format: f}
	pos, ok := t.Probe("pos")
	if !ok {
		return nil, fmt.Errorf("clrstext: %s: trajectory has no pos input (needed for the number of nodes)", t.Algorithm)
	}
	c.n = len(pos.Data)
	if c.n < 1 {
		return nil, fmt.Errorf("clrstext: %s: trajectory has no nodes", t.Algorithm)
	}
	if k, ok := t.Probe("key"); ok && k.Stage == clrs.Input {
		c.key = k.Data
	}
	return c, nil
}

// feature renders one probe's values (one sample, one time step) the way
// the reference's _feature_to_str does.
func (c *fmtContext) feature(p clrs.Probe, x []float64, dt clrs.DType) (string, error) {
	var b []byte
	var err error
	switch p.Location {
	case clrs.Node:
		b, err = c.node(nil, p, x, dt)
	case clrs.Edge:
		b, err = c.edge(nil, p, x, dt)
	case clrs.Graph:
		b, err = c.graph(nil, p, x, dt)
	default:
		err = fmt.Errorf("location %s not supported", p.Location)
	}
	if err != nil {
		return "", fmt.Errorf("clrstext: %s: probe %s: %w", c.algo, p.Name, err)
	}
	return string(b), nil
}

func (c *fmtContext) node(b []byte, p clrs.Probe, x []float64, dt clrs.DType) ([]byte, error) {
	n := c.n
	switch p.Type {
	case clrs.ShouldBePermutation:
		if len(x) != n {
			return nil, fmt.Errorf("has %d values, want %d", len(x), n)
		}
		if len(c.key) != n {
			return nil, errors.New("a permutation needs a key input with one value per node")
		}
		order, err := predecessorsToOrder(x)
		if err != nil {
			return nil, err
		}
		b = append(b, '[')
		for i, o := range order {
			if i > 0 {
				b = append(b, ' ')
			}
			b = c.scalar(b, c.key[o], clrs.Float64)
		}
		return append(b, ']'), nil
	case clrs.MaskOne:
		idx := -1
		for i, v := range x {
			if v != 0 {
				if idx >= 0 {
					return nil, errors.New("mask_one has more than one nonzero entry")
				}
				idx = i
			}
		}
		if idx < 0 {
			return nil, errors.New("mask_one has no nonzero entry")
		}
		return strconv.AppendInt(b, int64(idx), 10), nil
	case clrs.Scalar:
		if len(x) != n {
			return nil, fmt.Errorf("has %d values, want %d", len(x), n)
		}
		b = append(b, '[')
		for i, v := range x {
			if i > 0 {
				b = append(b, ' ')
			}
			b = c.scalar(b, v, dt)
		}
		return append(b, ']'), nil
	case clrs.Mask, clrs.Pointer:
		if len(x) != n {
			return nil, fmt.Errorf("has %d values, want %d", len(x), n)
		}
		b = append(b, '[')
		for i, v := range x {
			if i > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendInt(b, int64(v), 10)
		}
		return append(b, ']'), nil
	case clrs.Categorical:
		if len(x)%n != 0 || len(x) == 0 {
			return nil, fmt.Errorf("has %d values, not a multiple of %d nodes", len(x), n)
		}
		k := len(x) / n
		b = append(b, '[')
		for i := 0; i < n; i++ {
			if i > 0 {
				b = append(b, ' ')
			}
			b = strconv.AppendInt(b, int64(argmax(x[i*k:(i+1)*k])), 10)
		}
		return append(b, ']'), nil
	}
	return nil, fmt.Errorf("node type %s not supported", p.Type)
}

func (c *fmtContext) graph(b []byte, p clrs.Probe, x []float64, dt clrs.DType) ([]byte, error) {
	switch p.Type {
	case clrs.Scalar:
		if len(x) != 1 {
			return nil, fmt.Errorf("has %d values, want 1", len(x))
		}
		if c.format == Legacy {
			return strconv.AppendFloat(b, x[0], 'f', 3, 64), nil
		}
		if dt == clrs.Int64 {
			return strconv.AppendInt(b, int64(x[0]), 10), nil
		}
		return pyfloat.Append(b, x[0]), nil
	case clrs.Categorical:
		if len(x) == 0 {
			return nil, errors.New("categorical has no classes")
		}
		return strconv.AppendInt(b, int64(argmax(x)), 10), nil
	case clrs.Mask, clrs.MaskOne, clrs.Pointer:
		if len(x) != 1 {
			return nil, fmt.Errorf("has %d values, want 1", len(x))
		}
		return strconv.AppendInt(b, int64(x[0]), 10), nil
	}
	return nil, fmt.Errorf("graph type %s not supported", p.Type)
}

func (c *fmtContext) edge(b []byte, p clrs.Probe, x []float64, dt clrs.DType) ([]byte, error) {
	n := c.n
	k := 1
	switch p.Type {
	case clrs.Categorical:
		if len(x)%(n*n) != 0 || len(x) == 0 {
			return nil, fmt.Errorf("has %d values, not a multiple of %d×%d", len(x), n, n)
		}
		k = len(x) / (n * n)
	case clrs.Pointer, clrs.Mask, clrs.Scalar:
		if len(x) != n*n {
			return nil, fmt.Errorf("has %d values, want %d×%d", len(x), n, n)
		}
	default:
		return nil, fmt.Errorf("edge type %s not supported", p.Type)
	}
	b = append(b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '[')
		for j := 0; j < n; j++ {
			if j > 0 {
				b = append(b, ' ')
			}
			switch p.Type {
			case clrs.Categorical:
				row := x[(i*n+j)*k : (i*n+j+1)*k]
				v := argmax(row)
				for _, e := range row {
					if e == -1 {
						v = -1
						break
					}
				}
				b = strconv.AppendInt(b, int64(v), 10)
			case clrs.Scalar:
				b = c.scalar(b, x[i*n+j], dt)
			default:
				b = strconv.AppendInt(b, int64(x[i*n+j]), 10)
			}
		}
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// scalar prints one node or edge scalar: '%.3g' in the legacy format,
// Python str() of the numpy value (int or float by dtype) in the current
// one.
func (c *fmtContext) scalar(b []byte, v float64, dt clrs.DType) []byte {
	if c.format == Legacy {
		return strconv.AppendFloat(b, v, 'g', 3, 64)
	}
	if dt == clrs.Int64 {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return pyfloat.Append(b, v)
}

// argmax is numpy's argmax: the first index of the largest value.
func argmax(x []float64) int {
	best := 0
	for i, v := range x {
		if v > x[best] || (math.IsNaN(v) && !math.IsNaN(x[best])) {
			best = i
		}
	}
	return best
}

// predecessorsToOrder is the reference's predecessors_to_order: start from
// the unique node that is nobody's predecessor and follow predecessors
// back to the first element.
func predecessorsToOrder(x []float64) ([]int, error) {
	n := len(x)
	isPred := make([]bool, n)
	for _, v := range x {
		i := int(v)
		if i < 0 || i >= n {
			return nil, fmt.Errorf("predecessor %d out of range [0, %d)", i, n)
		}
		isPred[i] = true
	}
	last := -1
	for i, p := range isPred {
		if !p {
			if last >= 0 {
				return nil, errors.New("predecessor pointers do not encode a permutation (several last elements)")
			}
			last = i
		}
	}
	if last < 0 {
		return nil, errors.New("predecessor pointers do not encode a permutation (no last element)")
	}
	order := make([]int, n)
	order[n-1] = last
	for i := n - 2; i >= 0; i-- {
		order[i] = int(x[order[i+1]])
	}
	return order, nil
}
