package dsr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/metrics"
)

// Prediction is one model response to one instance, as read from a JSONL
// predictions file: {"id": …, "response": "<raw model text>", "run": 0}.
// Instead of response, "answer" may hold an already-parsed final answer
// (any JSON value), and "output" the printed result of a code-probe
// solution().
type Prediction struct {
	ID       string          `json:"id"`
	Run      int             `json:"run,omitempty"`
	Response *string         `json:"response,omitempty"`
	Answer   json.RawMessage `json:"answer,omitempty"`
	Output   *string         `json:"output,omitempty"`
}

// ReadPredictions reads a JSONL predictions file; a line that is not a
// prediction is an error naming its line number.
func ReadPredictions(r io.Reader) ([]Prediction, error) {
	var out []Prediction
	err := fsutil.ScanLines(r, func(line int, b []byte) error {
		var p Prediction
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if p.ID == "" {
			return fmt.Errorf("line %d: missing \"id\"", line)
		}
		n := 0
		if p.Response != nil {
			n++
		}
		if len(p.Answer) > 0 {
			n++
		}
		if p.Output != nil {
			n++
		}
		if n != 1 {
			return fmt.Errorf("line %d (%s): expected exactly one of \"response\", \"answer\", \"output\"", line, p.ID)
		}
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dsr: predictions %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("dsr: no predictions found (expected one JSON object per line)")
	}
	return out, nil
}

// ScoreAll scores predictions against instances (matched by ID) under
// cfg.Mode, and fills each Result's Lenient scores with the lenient
// reading's. A prediction's "answer" (an already parsed final answer) is
// scored in Paper mode as the response {"final_answer": <answer>}; an
// "output" (a code probe's printed result) is scored by the lenient
// reading in both modes (the reference does not score code). Instances
// without a prediction score 0 with reason "no prediction"; a prediction for
// an unknown instance is an error, and so is a second prediction for the
// same instance and run.
func ScoreAll(insts []Instance, preds []Prediction, cfg ScoreConfig) ([]Result, error) {
	byID := map[string]*Instance{}
	for i := range insts {
		if _, dup := byID[insts[i].ID]; dup {
			return nil, fmt.Errorf("dsr: instance id %s appears twice", insts[i].ID)
		}
		byID[insts[i].ID] = &insts[i]
	}
	type key struct {
		id  string
		run int
	}
	seen := map[key]bool{}
	runs := map[int]bool{}
	var out []Result
	for _, p := range preds {
		inst, ok := byID[p.ID]
		if !ok {
			return nil, fmt.Errorf("dsr: prediction for unknown instance %q", p.ID)
		}
		k := key{p.ID, p.Run}
		if seen[k] {
			return nil, fmt.Errorf("dsr: two predictions for instance %s run %d", p.ID, p.Run)
		}
		seen[k] = true
		runs[p.Run] = true
		var paper, lenient Verdict
		pcfg, lcfg := cfg, cfg
		pcfg.Mode, lcfg.Mode = metrics.ScorePaper, metrics.ScoreLenient
		switch {
		case p.Response != nil:
			paper = Score(inst, *p.Response, pcfg)
			lenient = Score(inst, *p.Response, lcfg)
		case p.Output != nil:
			lenient = ScoreCodeOutput(inst, *p.Output, cfg.Options)
			paper = lenient
		default:
			dec := json.NewDecoder(bytes.NewReader(p.Answer))
			dec.UseNumber()
			var a any
			if err := dec.Decode(&a); err != nil {
				lenient = Verdict{Reason: (&ParseError{Kind: "invalid JSON", Detail: err.Error()}).Error()}
				paper = lenient
			} else {
				lenient = ScoreAnswer(inst, a, cfg.Options)
				paper = Score(inst, `{"final_answer": `+string(bytes.TrimSpace(p.Answer))+`}`, ScoreConfig{Strategy: NoReasoning, Options: cfg.Options})
			}
		}
		v := paper
		if cfg.Mode == metrics.ScoreLenient {
			v = lenient
		}
		r := NewResult(inst, p.Run, v)
		r.Raised = paper.Raised
		r.Paper = Scores{paper.Binary, paper.Levenshtein}
		r.Lenient = Scores{lenient.Binary, lenient.Levenshtein}
		out = append(out, r)
	}
	for run := range runs {
		for i := range insts {
			if !seen[key{insts[i].ID, run}] {
				out = append(out, NewResult(&insts[i], run, Verdict{Reason: "no prediction"}))
			}
		}
	}
	return out, nil
}
