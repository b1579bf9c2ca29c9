package graphtext

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/narlab/narlab/lib/metrics"
)

// Scoring has two modes (ExtractOptions.Mode). Paper, the default, is G1's
// checker reproduced exactly (paper_score.go). Lenient is narlab's own
// reading, in this file: the last \boxed{...} (or \fbox{...}, or
// "\boxed x"), else the text after "the (final) answer is" on its line;
// then a normalization that unwraps \text{...} and $...$ and drops units;
// then a comparison by answer class that accepts any list syntax and, for
// the tasks with several right answers, any valid one.

// ExtractOptions chooses the scoring mode and adjusts the lenient rules.
type ExtractOptions struct {
	// Mode is metrics.ScorePaper (the default: G1's checker,
	// verify_correctness) or metrics.ScoreLenient (narlab's reading:
	// \text{x} and $x$ unwrapped, units and prose after a boxed number
	// tolerated, any list syntax, and any valid answer accepted where a
	// task has several, a Hamiltonian path other than the stored one, say).
	Mode metrics.ScoreMode
	// KeepDecimalPoints disables, in Lenient mode, G1's quirk of deleting
	// every "." from a fallback ("the answer is ...") answer, which also
	// deletes decimal points. Paper mode always keeps G1's rule.
	KeepDecimalPoints bool
}

var answerIsRe = regexp.MustCompile(`(?i)(?:the (?:final )?answer is\s*)(.*)`)

// ExtractAnswer is the lenient reading's extraction: the content of the
// last \boxed{...} or \fbox{...} (braces matched), or of "\boxed x" up to
// the next "$"; without a box, the text after the first "the answer is" /
// "the final answer is" (case-insensitive) up to the end of its line, with
// ":" and "." removed (as G1 does; see [ExtractOptions]). ok is false when
// neither is found or a box is not closed. [G1Extract] is G1's own.
func ExtractAnswer(output string, opts ExtractOptions) (ans string, ok bool) {
	if s, ok := lastBoxedContent(output); ok {
		return s, true
	}
	m := answerIsRe.FindStringSubmatch(output)
	if m == nil {
		return "", false
	}
	s := strings.ReplaceAll(m[1], ":", "")
	if !opts.KeepDecimalPoints {
		s = strings.ReplaceAll(s, ".", "")
	} else {
		s = strings.TrimRight(strings.TrimSpace(s), ".")
	}
	return strings.TrimSpace(s), true
}

// lastBoxedContent finds the last \boxed (or \fbox) and returns what it
// encloses.
func lastBoxedContent(s string) (string, bool) {
	idx := strings.LastIndex(s, `\boxed`)
	if idx < 0 {
		idx = strings.LastIndex(s, `\fbox`)
		if idx < 0 {
			return "", false
		}
	}
	rest := s[idx:]
	if strings.HasPrefix(rest, `\boxed `) {
		body := strings.TrimPrefix(rest, `\boxed `)
		body, _, _ = strings.Cut(body, "$")
		return strings.TrimSpace(body), true
	}
	open := strings.IndexByte(rest, '{')
	if open < 0 {
		return "", false
	}
	depth := 0
	for i := open; i < len(rest); i++ {
		switch rest[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return rest[open+1 : i], true
			}
		}
	}
	return "", false
}

var (
	textUnitRe = regexp.MustCompile(`\\text\{\s[^}]*\}`)
	textRe     = regexp.MustCompile(`\\(?:text|textbf|mathrm)\{([^}]*)\}`)
	slashRe    = regexp.MustCompile(`^(-?\d+)/(\d+)$`)
)

// StripString is the lenient reading's normalization of an extracted
// answer, a more forgiving variant of G1's strip_string ([G1StripString]
// is G1's own): newlines, "\!", \left, \right, degree signs, "$", "%" and
// a trailing "\text{ unit}" are dropped (G1 keeps "$" and "%" and turns
// "4 \text{ nodes}" into "4{nodes}"); \text{x} keeps x; tfrac/dfrac become
// frac; a leading "." gets a 0; a short "x = " prefix is dropped; all
// spaces are removed; "a/b" becomes \frac{a}{b} and "0.5" becomes
// \frac{1}{2}; finally every backslash is removed and "{yes}"/"{no}" lose
// their braces.
func StripString(s string) string {
	s = strings.ReplaceAll(s, "\n", "")
	s = strings.ReplaceAll(s, `\!`, "")
	s = strings.ReplaceAll(s, `\\`, `\`)
	s = strings.ReplaceAll(s, "tfrac", "frac")
	s = strings.ReplaceAll(s, "dfrac", "frac")
	s = strings.ReplaceAll(s, `\left`, "")
	s = strings.ReplaceAll(s, `\right`, "")
	s = strings.ReplaceAll(s, `^{\circ}`, "")
	s = strings.ReplaceAll(s, `^\circ`, "")
	s = strings.ReplaceAll(s, `\$`, "")
	s = strings.ReplaceAll(s, "$", "")
	if loc := textUnitRe.FindStringIndex(s); loc != nil && loc[0] > 0 {
		s = s[:loc[0]]
	}
	s = textRe.ReplaceAllString(s, "$1")
	s = strings.ReplaceAll(s, `\%`, "")
	s = strings.ReplaceAll(s, "%", "")
	s = strings.ReplaceAll(s, " .", " 0.")
	s = strings.ReplaceAll(s, "{.", "{0.")
	if s == "" {
		return s
	}
	if s[0] == '.' {
		s = "0" + s
	}
	if parts := strings.Split(s, "="); len(parts) == 2 && len(parts[0]) <= 2 {
		s = parts[1]
	}
	s = strings.ReplaceAll(s, " ", "")
	if s == "0.5" {
		s = `\frac{1}{2}`
	}
	if m := slashRe.FindStringSubmatch(s); m != nil {
		s = `\frac{` + m[1] + `}{` + m[2] + `}`
	}
	s = strings.ReplaceAll(s, `\`, "")
	switch strings.ToLower(s) {
	case "{yes}":
		s = "yes"
	case "{no}":
		s = "no"
	}
	return s
}

var fracRe = regexp.MustCompile(`^(-?)frac\{(-?[0-9.eE+-]+)\}\{(-?[0-9.eE+-]+)\}$`)

// parseStrippedFloat reads a number written plainly, as frac{a}{b} or as
// a/b.
func parseStrippedFloat(s string) (float64, error) {
	if m := fracRe.FindStringSubmatch(s); m != nil {
		a, err1 := strconv.ParseFloat(m[2], 64)
		b, err2 := strconv.ParseFloat(m[3], 64)
		if err1 != nil || err2 != nil || b == 0 {
			return 0, fmt.Errorf("bad fraction %q", s)
		}
		v := a / b
		if m[1] == "-" {
			v = -v
		}
		return v, nil
	}
	if a, b, ok := strings.Cut(s, "/"); ok {
		x, err1 := strconv.ParseFloat(a, 64)
		y, err2 := strconv.ParseFloat(b, 64)
		if err1 != nil || err2 != nil || y == 0 {
			return 0, fmt.Errorf("bad fraction %q", s)
		}
		return x / y, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a finite number", s)
	}
	return v, nil
}

// parseIntList reads "[1,2,3]", "1,2,3" or a bare "7" (G1 turns a bare
// integer into [7]).
func parseIntList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") || strings.HasPrefix(s, "(") || strings.HasPrefix(s, "{") {
		if len(s) < 2 {
			return nil, fmt.Errorf("%q is not a list", s)
		}
		s = s[1 : len(s)-1]
	}
	out := []int{}
	if strings.TrimSpace(s) == "" {
		return out, nil
	}
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("list item %q is not a node id", p)
		}
		out = append(out, v)
	}
	return out, nil
}

var pairRe = regexp.MustCompile(`[(\[]\s*(-?\d+)\s*,\s*(-?\d+)\s*(?:,[^)\]]*)?[)\]]`)

// parseEdgeList reads "[(1,2),(3,4)]" or "[[1,2],[3,4]]" (weights after
// the endpoints are ignored).
func parseEdgeList(s string) ([][2]int, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") && !strings.HasPrefix(s, "{") && !strings.HasPrefix(s, "(") {
		return nil, fmt.Errorf("%q is not an edge list", s)
	}
	inner := s[1:]
	if len(inner) > 0 {
		inner = inner[:len(inner)-1]
	}
	out := [][2]int{}
	rest := strings.TrimSpace(inner)
	for rest != "" {
		loc := pairRe.FindStringSubmatchIndex(rest)
		if loc == nil || strings.Trim(rest[:loc[0]], ", ") != "" {
			return nil, fmt.Errorf("cannot read an edge (u, v) at %q", rest)
		}
		a, err1 := strconv.Atoi(rest[loc[2]:loc[3]])
		b, err2 := strconv.Atoi(rest[loc[4]:loc[5]])
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad edge at %q", rest)
		}
		out = append(out, [2]int{a, b})
		rest = strings.TrimSpace(rest[loc[1]:])
	}
	return out, nil
}

// ParseAnswer reads an extracted, stripped answer (see [ExtractAnswer] and
// [StripString]) as an answer of the given kind.
func ParseAnswer(kind AnswerKind, stripped string) (Answer, error) {
	a := Answer{Kind: kind}
	switch kind {
	case KindInt:
		v, err := strconv.Atoi(stripped)
		if err != nil {
			return a, fmt.Errorf("graphtext: %q is not an integer", stripped)
		}
		a.Int = v
	case KindFloat:
		v, err := parseStrippedFloat(stripped)
		if err != nil {
			return a, fmt.Errorf("graphtext: %w", err)
		}
		a.Float = v
	case KindBool:
		letters := strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				return r
			}
			return -1
		}, stripped)
		switch strings.ToLower(letters) {
		case "yes":
			a.Bool = true
		case "no":
		default:
			return a, fmt.Errorf("graphtext: %q is neither Yes nor No", stripped)
		}
	case KindNodeSet, KindNodeSeq:
		v, err := parseIntList(stripped)
		if err != nil {
			return a, fmt.Errorf("graphtext: %w", err)
		}
		a.Nodes = v
	case KindEdgeSet:
		v, err := parseEdgeList(stripped)
		if err != nil {
			return a, fmt.Errorf("graphtext: %w", err)
		}
		a.Edges = v
	default:
		return a, fmt.Errorf("graphtext: unknown answer kind %d", int(kind))
	}
	return a, nil
}

// Score is the outcome of scoring one model output.
type Score struct {
	// Extracted is the extracted answer ("" when none was found): in Paper
	// mode G1's generated_answer, in Lenient mode the raw text found.
	Extracted string
	// Parsed reports whether an answer was extracted and read as the
	// task's answer class.
	Parsed bool
	// Correct reports whether it is right.
	Correct bool
	// Pred is the parsed answer (when Parsed).
	Pred Answer
	// Reason says why an answer is not correct ("" when it is).
	Reason string
	// Mode is the scoring mode that decided Correct.
	Mode metrics.ScoreMode
	// Raised is set in Paper mode when G1's checker raises on this output
	// (e.g. "AmbiguousSolution: ..." for a matching on a disconnected
	// bipartite graph, "IndexError: ..." for a trailing \frac): the
	// lenient reading decided Correct. Such outputs are counted apart.
	Raised string
}

// ScoreOutput scores a model output for task t on graph g with ground
// truth gold (the stored answer) in the mode opts.Mode: Paper (the
// default) gives G1's verdict; Lenient accepts, for validated tasks, any
// valid answer (checked with [Task.Validate] on g). Paper mode needs g for
// the tasks G1 validates; without it, the lenient reading decides and
// Raised says why.
func (t *Task) ScoreOutput(g *Graph, gold Answer, output string, opts ExtractOptions) Score {
	if opts.Mode == metrics.ScoreLenient {
		return t.scoreLenient(g, gold, output, opts)
	}
	lenient := t.scoreLenient(g, gold, output, opts)
	var (
		ok, found bool
		gen       string
		err       error
	)
	_, validated := g1Validators[t.Name]
	switch {
	case validated && g == nil:
		err = fmt.Errorf("no graph to run G1's %s validator on", t.Name)
	case validated && t.Check(g) != nil:
		err = fmt.Errorf("the graph does not fit task %s: %w", t.Name, t.Check(g))
	default:
		ok, gen, found, err = g1Verify(t, g, gold, output)
	}
	if err != nil {
		lenient.Mode, lenient.Raised = metrics.ScorePaper, err.Error()
		return lenient
	}
	sc := Score{Mode: metrics.ScorePaper, Extracted: gen, Correct: ok}
	if found && gen != "" {
		if pred, perr := ParseAnswer(t.Kind, gen); perr == nil {
			sc.Parsed, sc.Pred = true, pred
		} else if ok {
			sc.Parsed = true
		}
	}
	switch {
	case ok:
	case !found:
		sc.Reason = "no \\boxed{} answer and no \"the answer is\""
	case gen == "":
		sc.Reason = "empty answer"
	case lenient.Correct:
		sc.Reason = fmt.Sprintf("G1 reads %q and rejects it (lenient reading: right)", gen)
	default:
		sc.Reason = fmt.Sprintf("G1 reads %q: wrong (expected %s)", gen, gold)
	}
	return sc
}

// scoreLenient is narlab's lenient reading of an output.
func (t *Task) scoreLenient(g *Graph, gold Answer, output string, opts ExtractOptions) Score {
	raw, ok := ExtractAnswer(output, opts)
	if !ok {
		return Score{Reason: "no \\boxed{} answer and no \"the answer is\"", Mode: metrics.ScoreLenient}
	}
	sc := Score{Extracted: raw, Mode: metrics.ScoreLenient}
	stripped := StripString(raw)
	pred, err := ParseAnswer(t.Kind, stripped)
	if err != nil {
		if StripString(gold.String()) == stripped { // G1: exact string match first
			sc.Parsed, sc.Correct = true, true
			return sc
		}
		sc.Reason = err.Error()
		return sc
	}
	sc.Parsed, sc.Pred = true, pred
	if t.Validated && g != nil {
		if err := t.Validate(g, pred); err != nil {
			sc.Reason = err.Error()
			return sc
		}
		sc.Correct = true
		return sc
	}
	if gold.Equal(pred) || StripString(gold.String()) == stripped {
		sc.Correct = true
		return sc
	}
	sc.Reason = fmt.Sprintf("answer %s, expected %s", pred, gold)
	return sc
}
