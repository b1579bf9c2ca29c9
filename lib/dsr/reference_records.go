package dsr

import (
	"regexp"
	"strconv"
	"strings"
)

// The published instance files differ only in how their records are laid
// out, so one parser (parseRecords) reads them all from a description of
// the layout: a recordFormat. The formats of each relationship category are
// in reference_<category>.go.
//
// A record is one instance (or, for the BST traversal file, four). It has
// one of two shapes:
//
//   - a sequence: an optional opening line (a header), any number of body
//     lines (the operations), and a closing line that holds the truth;
//   - a block: an optional opening line, then a fixed list of keyed lines
//     (fields) in order, the last of which completes the record.
//
// Blank lines are ignored everywhere. An instance's source line is the
// record's first line (for the realistic graph records, their traversal
// line; see sourcedHere).

// recordFormat describes the records of one kind of published file.
type recordFormat struct {
	// open recognises the line that starts a record and reads it. Without
	// one, a record starts at the first line of its body (or its first
	// field).
	open *lineRule
	// body reads the lines of a sequence record, first matching rule first.
	body []lineRule
	// close recognises the line that completes a sequence record and
	// holds its truth.
	close lineRule
	// fields are the keyed lines of a block record, in order.
	fields []lineRule
	// skip recognises lines that carry nothing (read nowhere).
	skip func(l string) bool
	// truth converts a recorded truth to the task's answer shape first.
	truth func(any) (any, error)
	// prepare runs once before the first record, for formats whose records
	// refer to a shared input file or whose file name carries a parameter.
	prepare func(p *refParser) error
}

// lineRule matches one kind of line and reads it into the record being
// built.
type lineRule struct {
	// name says what the line is, for error messages ("Pre-order:").
	name string
	// match reports whether l is such a line and returns its value: the
	// text after the key, trimmed, or the submatches of a pattern.
	match func(l string) (v string, m []string, ok bool)
	// read stores the value (n is the line's number).
	read func(r *record, v string, m []string, n int) error
}

// record is the instance being read.
type record struct {
	p     *refParser
	k     int // 0-based number of the record in its file
	start int // line of its first line
	in    Input
	truth any
	set   bool // truth was read
	// multi holds the instances of a record that yields several (operation, truth).
	multi []recordTruth
}

type recordTruth struct {
	op    string
	truth any
}

// parseRecords reads every record of p's file with format f.
func parseRecords(p *refParser, f *recordFormat) error {
	if f.truth != nil {
		p.truthConv = f.truth
	}
	if f.prepare != nil {
		if err := f.prepare(p); err != nil {
			return err
		}
	}
	var r *record
	k := 0
	finish := func() error {
		err := r.finish()
		r = nil
		return err
	}
	for {
		l, n, ok := p.next()
		if !ok {
			if r != nil {
				return p.errAt(r.start, "instance without a final state at the end of the file")
			}
			return nil
		}
		if r == nil {
			if f.skip != nil && f.skip(l) {
				continue
			}
			r = &record{p: p, k: k, start: n}
			k++
			if f.open != nil {
				v, m, ok := f.open.match(l)
				if !ok {
					return p.errAt(n, "line %q before any instance header (expected %s)", l, f.open.name)
				}
				if err := f.open.read(r, v, m, n); err != nil {
					return err
				}
				if len(f.fields) == 0 {
					continue
				}
				l, n = "", 0 // the fields start on the next line
			}
			if len(f.fields) > 0 {
				if err := readFields(r, f.fields, l, n); err != nil {
					return err
				}
				if err := finish(); err != nil {
					return err
				}
				continue
			}
		}
		// A line of a sequence record.
		if v, m, ok := f.close.match(l); ok {
			if err := f.close.read(r, v, m, n); err != nil {
				return err
			}
			if err := finish(); err != nil {
				return err
			}
			continue
		}
		if f.open != nil {
			if _, _, ok := f.open.match(l); ok {
				return p.errAt(n, "new instance before the final state of the one at line %d", r.start)
			}
		}
		if f.skip != nil && f.skip(l) {
			continue
		}
		if err := readLine(r, f.body, l, n); err != nil {
			return err
		}
	}
}

// readFields reads the fields of a block record in order; first (line n),
// when not empty, is the line already read that must be the first field.
func readFields(r *record, fields []lineRule, first string, n int) error {
	for i, fr := range fields {
		l := first
		if i > 0 || first == "" {
			var ok bool
			prev := max(n, r.start)
			if l, n, ok = r.p.next(); !ok {
				return r.p.errAt(prev, "expected a %s line, found the end of the file", fr.name)
			}
		}
		v, m, ok := fr.match(l)
		if !ok {
			return r.p.errAt(n, "expected a %s line, found %q", fr.name, l)
		}
		if err := fr.read(r, v, m, n); err != nil {
			return err
		}
	}
	return nil
}

// readLine reads a body line with the first rule that matches it.
func readLine(r *record, rules []lineRule, l string, n int) error {
	for _, rule := range rules {
		if v, m, ok := rule.match(l); ok {
			return rule.read(r, v, m, n)
		}
	}
	names := make([]string, len(rules))
	for i, rule := range rules {
		names[i] = rule.name
	}
	return r.p.errAt(n, "unexpected line %q (expected %s or the final state)", l, strings.Join(names, ", "))
}

// finish adds the record's instances.
func (r *record) finish() error {
	if len(r.multi) > 0 {
		for _, t := range r.multi {
			if err := r.p.add(t.op, r.in, t.truth, r.start); err != nil {
				return err
			}
		}
		return nil
	}
	if !r.set {
		return r.p.errAt(r.start, "instance without a truth")
	}
	return r.p.add("", r.in, r.truth, r.start)
}

// Matchers.

// key matches lines that start with k; the value is the rest, trimmed.
func key(k string) func(string) (string, []string, bool) {
	return func(l string) (string, []string, bool) {
		v, ok := strings.CutPrefix(l, k)
		return strings.TrimSpace(v), nil, ok
	}
}

// exactly matches the line s.
func exactly(s string) func(string) (string, []string, bool) {
	return func(l string) (string, []string, bool) { return "", nil, l == s }
}

// pattern matches lines that match re; the submatches are passed on.
func pattern(re *regexp.Regexp) func(string) (string, []string, bool) {
	return func(l string) (string, []string, bool) {
		m := re.FindStringSubmatch(l)
		return l, m, m != nil
	}
}

// listLine matches lines that start with "[" (a Python list); the value
// is the whole line.
func listLine(l string) (string, []string, bool) { return l, nil, strings.HasPrefix(l, "[") }

// anyLine matches every line; the value is the whole line.
func anyLine(l string) (string, []string, bool) { return l, nil, true }

// Readers.

// truthRule reads the record's truth, a Python literal.
func truthRule(name string, match func(string) (string, []string, bool)) lineRule {
	return lineRule{name: name, match: match, read: func(r *record, v string, _ []string, n int) error {
		t, err := pyAt(r.p, n, v)
		if err != nil {
			return err
		}
		r.truth, r.set = t, true
		return nil
	}}
}

// truthFor reads one of the several truths of a record (its operation op).
func truthFor(k, op string) lineRule {
	return lineRule{name: k, match: key(k), read: func(r *record, v string, _ []string, n int) error {
		t, err := pyAt(r.p, n, v)
		if err != nil {
			return err
		}
		r.multi = append(r.multi, recordTruth{op, t})
		return nil
	}}
}

// header opens a record at a line starting with prefix; when re is given,
// the line must match it and set receives its integer submatches.
func header(prefix string, re *regexp.Regexp, set func(in *Input, xs []int)) *lineRule {
	match := func(l string) (string, []string, bool) { return l, nil, strings.HasPrefix(l, prefix) }
	return &lineRule{name: strconv.Quote(prefix + "…"), match: match, read: func(r *record, l string, _ []string, n int) error {
		if re == nil {
			return nil
		}
		m := re.FindStringSubmatch(l)
		if m == nil {
			return r.p.errAt(n, "bad header %q", l)
		}
		xs := make([]int, len(m)-1)
		for i, s := range m[1:] {
			xs[i], _ = strconv.Atoi(s)
		}
		set(&r.in, xs)
		return nil
	}}
}

// opInt reads "<k> X" (X an integer) as the operation name with argument X.
func opInt(k, name string) lineRule {
	return lineRule{name: strconv.Quote(k + "X"), match: key(k), read: func(r *record, v string, _ []string, n int) error {
		x, err := atoiAt(r.p, n, v)
		if err != nil {
			return err
		}
		r.in.Ops = append(r.in.Ops, Op{Name: name, Args: []int{x}})
		return nil
	}}
}

// opBare reads the line name alone as an operation without arguments.
func opBare(name string) lineRule {
	return lineRule{name: strconv.Quote(name), match: exactly(name), read: func(r *record, _ string, _ []string, _ int) error {
		r.in.Ops = append(r.in.Ops, Op{Name: name})
		return nil
	}}
}

// opWord reads "<k> W" as the operation name with the word (or name) W.
func opWord(k, name string) lineRule {
	return lineRule{name: strconv.Quote(k + "W"), match: key(k), read: func(r *record, v string, _ []string, _ int) error {
		r.in.Ops = append(r.in.Ops, Op{Name: name, Word: v})
		return nil
	}}
}

// opInts reads a line matching re as the operation named by submatch 1
// (or name, when not empty) with the integer submatches that follow.
func opInts(re *regexp.Regexp, name string) lineRule {
	return lineRule{name: strconv.Quote(re.String()), match: pattern(re), read: func(r *record, _ string, m []string, _ int) error {
		op := Op{Name: name}
		rest := m[1:]
		if name == "" {
			op.Name, rest = m[1], m[2:]
		}
		for _, s := range rest {
			x, _ := strconv.Atoi(s)
			op.Args = append(op.Args, x)
		}
		r.in.Ops = append(r.in.Ops, op)
		return nil
	}}
}

// insertDelete are the operation lines "insert X" / "delete X" (X an
// integer) of the skip list, B+ tree and Bloom filter files.
var insertDelete = []lineRule{opInt("insert ", "insert"), opInt("delete ", "delete")}

// keyed reads a keyed line of a block record with read.
func keyed(k string, read func(r *record, v string, n int) error) lineRule {
	match := key(k)
	if k == "" {
		match = anyLine
	}
	return lineRule{name: strconv.Quote(k), match: match, read: func(r *record, v string, _ []string, n int) error {
		return read(r, v, n)
	}}
}

// intsInto reads a Python list of integers into *dst (chosen by at).
func intsInto(at func(in *Input) *[]int) func(r *record, v string, n int) error {
	return func(r *record, v string, n int) error {
		xs, err := pyInts(r.p, n, v)
		if err != nil {
			return err
		}
		*at(&r.in) = xs
		return nil
	}
}

// truthField reads a field that holds the record's truth.
func truthField(k string) lineRule {
	match := key(k)
	if k == "" {
		match = anyLine
	}
	return truthRule(strconv.Quote(k), match)
}
