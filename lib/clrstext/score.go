package clrstext

import (
	"fmt"
	"sort"
	"strings"
)

// Answer is a parsed answer: the trace steps (if any) and the final
// output, each normalised to the reference's spelling: values joined by
// ", " with every value's own text ("[0 1 2]", "(3, 4)", "0.5") kept as
// written.
type Answer struct {
	// Trace holds the trace's top-level values in order (a step of a task
	// with several hints, such as topological_sort's "[..], k", spans
	// several values; see Steps).
	Trace []string
	// Final is the final output, e.g. "[0 2 0 1 3], 4".
	Final string
	// HasTrace reports whether a " | " separated a trace from the output.
	HasTrace bool
	// OK reports whether an array-like final output was found.
	OK bool
}

// ParseAnswer reads a model's answer (or a reference answer) tolerantly:
// it reads the first paragraph (text up to a blank line, the end of a
// reference answer) that holds an array-like value, takes the final output after
// the last " | " (the trace before it, on the same line), and within each
// part keeps the last run of array-like values — bracketed lists,
// parenthesised tuples and numbers separated by commas — so that text
// around them ("The answer is [1 2]." or an echoed "trace | pred:") is
// ignored. It never panics; OK is false when no final value is found.
func ParseAnswer(s string) Answer {
	for {
		s = strings.TrimLeft(s, "\r\n")
		para, rest := s, ""
		if i := strings.Index(s, "\n\n"); i >= 0 {
			para, rest = s[:i], s[i+2:]
		}
		a := parseParagraph(para)
		if a.OK || strings.TrimSpace(rest) == "" {
			return a
		}
		s = rest
	}
}

func parseParagraph(s string) Answer {
	if t := strings.TrimLeft(s, " \t"); strings.HasPrefix(t, "| ") {
		// An empty trace: the answer starts with " | ".
		s = " " + t
	}
	var a Answer
	finalPart := s
	if i := strings.LastIndex(s, TraceAnswerSeparator); i >= 0 {
		a.HasTrace = true
		finalPart = s[i+len(TraceAnswerSeparator):]
		tracePart := s[:i]
		if j := strings.LastIndexByte(tracePart, '\n'); j >= 0 {
			tracePart = tracePart[j+1:]
		}
		a.Trace = lastValueRun(tracePart)
	}
	var vals []string
	if a.HasTrace {
		if j := strings.IndexByte(finalPart, '\n'); j >= 0 {
			finalPart = finalPart[:j]
		}
		vals = lastValueRun(finalPart)
	} else {
		// The last line holding a value.
		lines := strings.Split(finalPart, "\n")
		for k := len(lines) - 1; k >= 0 && len(vals) == 0; k-- {
			vals = lastValueRun(lines[k])
		}
	}
	if len(vals) > 0 {
		a.Final = strings.Join(vals, Separator)
		a.OK = true
	}
	return a
}

// lastValueRun returns the values of the last maximal comma-separated run
// of array-like values in s.
func lastValueRun(s string) []string {
	var best []string
	i := 0
	for i < len(s) {
		if !valueStart(s, i) {
			i++
			continue
		}
		vals, end := valueRun(s, i)
		if len(vals) == 0 {
			if s[i] == '[' || s[i] == '(' {
				// Not a list (unclosed, or holding words): skip it whole
				// so that the numbers inside are not taken as values.
				j := strings.IndexAny(s[i:], "])")
				if j < 0 {
					break
				}
				i += j + 1
				continue
			}
			i++
			continue
		}
		best = vals
		i = end
	}
	return best
}

func valueStart(s string, i int) bool {
	c := s[i]
	if c == '[' || c == '(' || isDigit(c) {
		// A digit inside a word ("x2") does not start a value.
		return !(isDigit(c) && i > 0 && isWordByte(s[i-1]))
	}
	if c == '-' && i+1 < len(s) && isDigit(s[i+1]) {
		return i == 0 || !isWordByte(s[i-1])
	}
	return false
}

// valueRun parses value (',' ' '* value)* from i and returns the values
// and the end offset.
func valueRun(s string, i int) ([]string, int) {
	var vals []string
	end := i
	for {
		v, j, ok := parseValue(s, i)
		if !ok {
			break
		}
		vals = append(vals, v)
		end = j
		k := j
		if k < len(s) && s[k] == ',' {
			k++
			for k < len(s) && s[k] == ' ' {
				k++
			}
			if k < len(s) && valueStart(s, k) {
				i = k
				continue
			}
		}
		break
	}
	return vals, end
}

// parseValue reads one bracketed list, parenthesised tuple or number.
func parseValue(s string, i int) (string, int, bool) {
	if i >= len(s) {
		return "", i, false
	}
	switch c := s[i]; {
	case c == '[' || c == '(':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '[', '(':
				depth++
			case ']', ')':
				depth--
				if depth == 0 {
					v := s[i : j+1]
					if !balancedSameKind(v) {
						return "", i, false
					}
					return v, j + 1, true
				}
				if depth < 0 {
					return "", i, false
				}
			default:
				if !isValueByte(s[j]) {
					return "", i, false
				}
			}
		}
		return "", i, false
	case c == '-' || isDigit(c):
		j := i
		if s[j] == '-' {
			j++
		}
		start := j
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == start {
			return "", i, false
		}
		if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
			j++
			for j < len(s) && isDigit(s[j]) {
				j++
			}
		}
		if j+1 < len(s) && s[j] == 'e' {
			k := j + 1
			if k < len(s) && (s[k] == '+' || s[k] == '-') {
				k++
			}
			if k < len(s) && isDigit(s[k]) {
				for k < len(s) && isDigit(s[k]) {
					k++
				}
				j = k
			}
		}
		if j < len(s) && isWordByte(s[j]) {
			return "", i, false
		}
		return s[i:j], j, true
	}
	return "", i, false
}

// balancedSameKind checks that brackets and parentheses nest properly.
func balancedSameKind(v string) bool {
	var stack []byte
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '[', '(':
			stack = append(stack, v[i])
		case ']', ')':
			if len(stack) == 0 {
				return false
			}
			open := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if (open == '[') != (v[i] == ']') {
				return false
			}
		}
	}
	return len(stack) == 0
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c)
}

// isValueByte is what may appear inside a list or tuple: numbers (with
// exponents), spaces and commas.
func isValueByte(c byte) bool {
	return isDigit(c) || c == ' ' || c == ',' || c == '.' || c == '-' || c == '+' || c == 'e'
}

// stepWidth is how many top-level values make one trace step: the number
// of hints the reference prints side by side (2 for topological_sort).
func stepWidth(algo string) int {
	if algo == "topological_sort" {
		return 2
	}
	return 1
}

// Steps splits an answer into the steps time-to-first-failure counts: the
// trace steps (each stepWidth values, joined by ", ") followed by the
// final output.
func (a Answer) Steps(algo string) []string {
	w := stepWidth(algo)
	var out []string
	for i := 0; i < len(a.Trace); i += w {
		out = append(out, strings.Join(a.Trace[i:min(i+w, len(a.Trace))], Separator))
	}
	return append(out, a.Final)
}

// ExactMatch reports whether the prediction's final output equals the
// reference answer's (the paper's metric).
func ExactMatch(prediction, reference string) bool {
	p, r := ParseAnswer(prediction), ParseAnswer(reference)
	return p.OK && r.OK && p.Final == r.Final
}

// TimeToFirstFailure is the paper's Figure 7 metric for one sample: the
// fraction of the reference's steps (trace steps, then the final output)
// that the prediction reproduces, in order, before its first mismatch. 1
// implies a correct final answer; a correct final answer with a wrong
// trace scores below 1. For a reference without a trace it is 1 for an
// exact match and 0 otherwise.
func TimeToFirstFailure(algo, prediction, reference string) float64 {
	r := ParseAnswer(reference)
	pred := ParseAnswer(prediction)
	if !r.HasTrace {
		if pred.OK && r.OK && pred.Final == r.Final {
			return 1
		}
		return 0
	}
	ref := r.Steps(algo)
	var ps []string
	if pred.OK {
		ps = pred.Steps(algo)
	}
	k := 0
	for k < len(ref) && k < len(ps) && ps[k] == ref[k] {
		k++
	}
	// A prediction with a shorter trace can only match a prefix: its
	// final output sits where the reference has a trace step.
	if k == len(ref) && len(ps) != len(ref) {
		k--
	}
	return float64(k) / float64(len(ref))
}

// Item is one graded prediction.
type Item struct {
	Algo       string
	Length     int
	Prediction string
	Reference  string
}

// Cell is the score of one (algorithm, length) group, or of a whole
// algorithm (Length 0) or of everything (Algo "").
type Cell struct {
	Algo     string
	Length   int
	N        int
	Correct  int
	Accuracy float64
	// TTFF is the mean time-to-first-failure.
	TTFF float64
	// Parsed is the fraction of predictions in which a final output was found.
	Parsed float64
}

// Report is the result of Score.
type Report struct {
	// Cells, sorted by algorithm then length.
	Cells []Cell
	// PerAlgo, sorted by algorithm (Length 0).
	PerAlgo []Cell
	// Overall is the mean over all items.
	Overall Cell
	// MacroAccuracy is the mean of the per-algorithm accuracies.
	MacroAccuracy float64
}

// Score grades items by exact match of the final output and
// time-to-first-failure, per algorithm and length.
func Score(items []Item) (Report, error) {
	if len(items) == 0 {
		return Report{}, fmt.Errorf("clrstext: nothing to score")
	}
	type acc struct {
		n, correct, parsed int
		ttff               float64
	}
	add := func(a *acc, it Item) {
		a.n++
		if ParseAnswer(it.Prediction).OK {
			a.parsed++
		}
		if ExactMatch(it.Prediction, it.Reference) {
			a.correct++
		}
		a.ttff += TimeToFirstFailure(it.Algo, it.Prediction, it.Reference)
	}
	cell := func(algo string, length int, a *acc) Cell {
		return Cell{Algo: algo, Length: length, N: a.n, Correct: a.correct,
			Accuracy: float64(a.correct) / float64(a.n), TTFF: a.ttff / float64(a.n),
			Parsed: float64(a.parsed) / float64(a.n)}
	}
	type key struct {
		algo   string
		length int
	}
	cells := map[key]*acc{}
	algos := map[string]*acc{}
	var all acc
	for i, it := range items {
		if it.Algo == "" {
			return Report{}, fmt.Errorf("clrstext: item %d has no algorithm", i)
		}
		k := key{it.Algo, it.Length}
		if cells[k] == nil {
			cells[k] = &acc{}
		}
		if algos[it.Algo] == nil {
			algos[it.Algo] = &acc{}
		}
		// Each item is parsed once per aggregate; cheap next to I/O.
		add(cells[k], it)
		add(algos[it.Algo], it)
		add(&all, it)
	}
	var r Report
	for k, a := range cells {
		r.Cells = append(r.Cells, cell(k.algo, k.length, a))
	}
	sort.Slice(r.Cells, func(i, j int) bool {
		if r.Cells[i].Algo != r.Cells[j].Algo {
			return r.Cells[i].Algo < r.Cells[j].Algo
		}
		return r.Cells[i].Length < r.Cells[j].Length
	})
	for name, a := range algos {
		c := cell(name, 0, a)
		r.PerAlgo = append(r.PerAlgo, c)
		r.MacroAccuracy += c.Accuracy
	}
	sort.Slice(r.PerAlgo, func(i, j int) bool { return r.PerAlgo[i].Algo < r.PerAlgo[j].Algo })
	r.MacroAccuracy /= float64(len(r.PerAlgo))
	r.Overall = cell("", 0, &all)
	return r, nil
}
