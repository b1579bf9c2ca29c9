package dsr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/narlab/narlab/internal/pyval"
	"github.com/narlab/narlab/lib/metrics"
)

// Scoring (paper §3.4, App. I). In the default Paper mode (paper.go) a
// response gets the score the reference's evaluation script gives it. In
// Lenient mode a model's response is parsed as the JSON object of the
// response schema (also inside a code fence or prose); its final_answer is
// checked against the task's answer shape and compared with the truth by
// binary exact match and by the normalized Levenshtein similarity of the
// printed answers. Anything malformed scores 0 with the reason recorded;
// nothing panics.

// Verdict is the score of one response.
type Verdict struct {
	Binary      float64 // 1 for an exact match, else 0
	Levenshtein float64 // 1 - distance/max length of the printed answers, in [0, 1]
	// Reason says why Binary is 0: the parse or schema error, or "wrong
	// answer"; empty for a match.
	Reason string
	// Answer is the parsed final answer (nil when parsing failed), as the
	// lenient reading finds it.
	Answer any
	// Mode is the scoring mode that gave Binary and Levenshtein.
	Mode metrics.ScoreMode
	// Raised is set in Paper mode when the reference's script raises on
	// this response (e.g. "KeyError: 'final_answer'"), which stops its
	// whole run: narlab's lenient reading decided Binary and Levenshtein
	// instead. Such responses are counted apart (Report.Raised).
	Raised string
}

// ScoreConfig is what scoring depends on besides the instance.
type ScoreConfig struct {
	Strategy Strategy
	Options  Options
	// Mode is metrics.ScorePaper (the default: like the reference's own
	// evaluation scripts, strict JSON, string comparison of Python-printed
	// answers, the scripts' partial credit) or metrics.ScoreLenient
	// (narlab's reading: the JSON object may sit in a code fence or in
	// prose, the answer is checked against the schema and compared as a
	// structured value, an integer written 33.0 equals 33, partial credit
	// over Python's printing of the canonical values).
	Mode metrics.ScoreMode
}

// ParseError is a response that could not be read as an answer.
type ParseError struct {
	Kind   string // "empty", "no JSON", "truncated JSON", "invalid JSON", "schema"
	Detail string
}

func (e *ParseError) Error() string {
	if e.Detail == "" {
		return e.Kind
	}
	return e.Kind + ": " + e.Detail
}

// extractJSON finds the JSON object in a response: the text itself, a
// ```json fenced block, or the first {…} object in surrounding prose.
func extractJSON(resp string) ([]byte, error) {
	s := strings.TrimSpace(resp)
	if s == "" {
		return nil, &ParseError{Kind: "empty", Detail: "the response is empty"}
	}
	if i := strings.Index(s, "```"); i >= 0 {
		body := s[i+3:]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.Contains(body[:nl], "{") {
			body = body[nl+1:]
		}
		if j := strings.Index(body, "```"); j >= 0 {
			body = body[:j]
		}
		if strings.Contains(body, "{") {
			s = strings.TrimSpace(body)
		}
	}
	start := strings.IndexByte(s, '{')
	if start < 0 {
		return nil, &ParseError{Kind: "no JSON", Detail: "no JSON object in the response (expected {\"final_answer\": …})"}
	}
	dec := json.NewDecoder(strings.NewReader(s[start:]))
	dec.UseNumber()
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, &ParseError{Kind: "truncated JSON", Detail: "the JSON object ends early (output cut off?)"}
		}
		return nil, &ParseError{Kind: "invalid JSON", Detail: err.Error()}
	}
	return raw, nil
}

// ParseResponse reads a raw model response under a strategy and returns
// its final answer as a canonical value of the task's answer shape (a
// string of code for CodeOnly). Errors are *ParseError.
func ParseResponse(t *Task, s Strategy, resp string) (any, error) {
	if !utf8.ValidString(resp) {
		return nil, &ParseError{Kind: "invalid JSON", Detail: "the response is not valid UTF-8"}
	}
	raw, err := extractJSON(resp)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return nil, &ParseError{Kind: "invalid JSON", Detail: err.Error()}
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return nil, &ParseError{Kind: "schema", Detail: "expected a JSON object"}
	}
	if s.HasSteps() {
		st, ok := obj["steps"]
		if !ok {
			return nil, &ParseError{Kind: "schema", Detail: "missing field \"steps\" (the " + s.String() + " schema requires it)"}
		}
		stepShape := listOf(objectOf(field("explanation", shapeString), field("output", shapeString)))
		if _, err := stepShape.Convert(st, "steps"); err != nil {
			return nil, &ParseError{Kind: "schema", Detail: err.Error()}
		}
	}
	fa, ok := obj["final_answer"]
	if !ok {
		return nil, &ParseError{Kind: "schema", Detail: "missing field \"final_answer\""}
	}
	shape := t.Answer
	if s == CodeOnly {
		shape = shapeString
	}
	v, err := shape.Convert(fa, "final_answer")
	if err != nil {
		return nil, &ParseError{Kind: "schema", Detail: err.Error()}
	}
	return v, nil
}

// Score scores a raw response to an instance under cfg.Mode (Paper by
// default). CodeOnly responses hold code, which narlab does not run: they
// score 0 with a reason in both modes (the reference scores them 0 too);
// run the code elsewhere and score its printed result with
// ScoreCodeOutput.
func Score(inst *Instance, resp string, cfg ScoreConfig) Verdict {
	lenient := scoreLenient(inst, resp, cfg)
	if cfg.Mode == metrics.ScoreLenient || cfg.Strategy == CodeOnly {
		return lenient
	}
	t, err := inst.Task()
	if err != nil {
		return Verdict{Reason: err.Error()}
	}
	bin, part, err := scorePaper(t, inst.Truth, resp)
	if err != nil {
		lenient.Mode = metrics.ScorePaper
		lenient.Raised = err.Error()
		if lenient.Reason != "" {
			lenient.Reason = "the reference's scorer raised " + err.Error() + "; lenient reading: " + lenient.Reason
		}
		return lenient
	}
	v := Verdict{Binary: bin, Levenshtein: part, Answer: lenient.Answer, Mode: metrics.ScorePaper}
	if bin == 0 {
		v.Reason = paperReason(resp, lenient)
	}
	return v
}

// paperReason says why the reference's script gives a response 0: the
// lenient reading's parse or schema error when it has one (the response is
// malformed either way), else what stops the strict reading, else a wrong
// answer.
func paperReason(resp string, lenient Verdict) string {
	if lenient.Reason != "" && lenient.Reason != "wrong answer" {
		return lenient.Reason
	}
	js, err := pyval.JSONLoads(resp)
	if err != nil {
		return "not strict JSON (the reference reads the response with json.loads, no code fence or prose around it): " + err.Error()
	}
	if _, err := pyval.GetItem(js, pyval.NewStr("final_answer")); err != nil {
		return "schema: no final_answer in the JSON object"
	}
	return "wrong answer"
}

// scoreLenient is narlab's lenient reading of a response.
func scoreLenient(inst *Instance, resp string, cfg ScoreConfig) Verdict {
	t, err := inst.Task()
	if err != nil {
		return Verdict{Reason: err.Error(), Mode: metrics.ScoreLenient}
	}
	o, err := inst.EffectiveOptions(cfg.Options)
	if err != nil {
		return Verdict{Reason: err.Error(), Mode: metrics.ScoreLenient}
	}
	ans, err := ParseResponse(t, cfg.Strategy, resp)
	if err != nil {
		return Verdict{Reason: err.Error(), Mode: metrics.ScoreLenient}
	}
	if cfg.Strategy == CodeOnly {
		return Verdict{Reason: "code answer: run solution() and score its output with ScoreCodeOutput", Answer: ans, Mode: metrics.ScoreLenient}
	}
	v := judge(t, inst.Truth, ans, o)
	v.Mode = metrics.ScoreLenient
	return v
}

// ScoreAnswer scores an already-parsed final answer (a canonical value, or
// any JSON-decoded value, which is checked against the answer shape).
func ScoreAnswer(inst *Instance, answer any, o Options) Verdict {
	t, err := inst.Task()
	if err != nil {
		return Verdict{Reason: err.Error()}
	}
	if o, err = inst.EffectiveOptions(o); err != nil {
		return Verdict{Reason: err.Error()}
	}
	v, err := t.Answer.Convert(answer, "final_answer")
	if err != nil {
		return Verdict{Reason: (&ParseError{Kind: "schema", Detail: err.Error()}).Error()}
	}
	return judge(t, inst.Truth, v, o)
}

// ScoreCodeOutput scores the printed result of a code-probe answer's
// solution() (Python's print of the returned value: lists, tuples, ints,
// strings). CodeOnly answers are scored this way after being run.
func ScoreCodeOutput(inst *Instance, printed string, o Options) Verdict {
	v, err := ParsePython(strings.TrimSpace(printed))
	if err != nil {
		return Verdict{Reason: (&ParseError{Kind: "invalid output", Detail: err.Error()}).Error()}
	}
	if inst.Structure == "hashmap" {
		if c, err := hashmapFromBuckets(v); err == nil {
			v = c
		}
	}
	return ScoreAnswer(inst, v, o)
}

// ExtractCode returns the code of a CodeOnly response (its final_answer),
// without Markdown fences.
func ExtractCode(resp string) (string, error) {
	raw, err := extractJSON(resp)
	if err != nil {
		return "", err
	}
	var obj struct {
		FinalAnswer *string `json:"final_answer"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj.FinalAnswer == nil {
		return "", &ParseError{Kind: "schema", Detail: "expected final_answer to be a string of code"}
	}
	code := strings.TrimSpace(*obj.FinalAnswer)
	code = strings.TrimPrefix(code, "```python")
	code = strings.TrimPrefix(code, "```")
	code = strings.TrimSuffix(code, "```")
	return strings.TrimSpace(code) + "\n", nil
}

// judge compares a parsed answer with the truth.
func judge(t *Task, truth, ans any, o Options) Verdict {
	v := Verdict{Answer: ans}
	switch t.Name() {
	case "lru_cache/cache":
		if sameSet(ans, truth) {
			v.Binary = 1
		}
		if o.LRUScore == CodeReading {
			v.Levenshtein = 1 // the reference compares the answer with itself
		} else {
			v.Levenshtein = similarity(t.Answer.Repr(sortedInts(ans)), t.Answer.Repr(sortedInts(truth)))
		}
	case "hashmap/compound":
		a, b := hashmapCanonical(ans), hashmapCanonical(truth)
		if equalValues(a, b) {
			v.Binary = 1
		}
		v.Levenshtein = similarity(bucketsRepr(a), bucketsRepr(b))
	case "bst/insert", "bst/remove":
		if equalValues(ans, truth) {
			v.Binary = 1
		}
		am, _ := ans.(map[string]any)
		tm, _ := truth.(map[string]any)
		pre := similarity(shapeInts.Repr(am["pre_order"]), shapeInts.Repr(tm["pre_order"]))
		post := similarity(shapeInts.Repr(am["post_order"]), shapeInts.Repr(tm["post_order"]))
		v.Levenshtein = (pre + post) / 2
	default:
		if equalValues(ans, truth) {
			v.Binary = 1
		}
		v.Levenshtein = similarity(t.Answer.Repr(ans), t.Answer.Repr(truth))
	}
	if v.Binary == 0 {
		v.Reason = "wrong answer"
	}
	return v
}

func sortedInts(v any) any {
	xs, ok := valueInts(v)
	if !ok {
		return v
	}
	slices.Sort(xs)
	return intsValue(xs)
}

// sameSet compares two int lists as sets (the reference's LRU scoring).
func sameSet(a, b any) bool {
	xa, ok1 := valueInts(a)
	xb, ok2 := valueInts(b)
	if !ok1 || !ok2 {
		return false
	}
	set := func(xs []int) []int {
		s := slices.Clone(xs)
		slices.Sort(s)
		return slices.Compact(s)
	}
	return slices.Equal(set(xa), set(xb))
}

// bucketsRepr prints canonical hashmap buckets like the reference's truth:
// [[(k, v), …], …].
func bucketsRepr(v any) string {
	var b strings.Builder
	b.WriteByte('[')
	bs, _ := v.([]any)
	for i, bucket := range bs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('[')
		items, _ := bucket.([]any)
		for j, it := range items {
			if j > 0 {
				b.WriteString(", ")
			}
			m, _ := it.(map[string]any)
			fmt.Fprintf(&b, "(%v, %v)", m["key"], m["value"])
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.String()
}

// Levenshtein returns the edit distance between two strings, counted in
// characters (insertions, deletions, substitutions).
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) < len(rb) {
		ra, rb = rb, ra
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// similarity is 1 - Levenshtein(a, b) / max(len(a), len(b)) (1 for two
// empty strings), the paper's partial-credit metric.
func similarity(a, b string) float64 {
	n := max(utf8.RuneCountInString(a), utf8.RuneCountInString(b))
	if n == 0 {
		return 1
	}
	return 1 - float64(Levenshtein(a, b))/float64(n)
}

// Similarity is the normalized Levenshtein similarity of two strings:
// 1 - distance / max(len(a), len(b)), and 1 for two empty strings.
func Similarity(a, b string) float64 { return similarity(a, b) }
