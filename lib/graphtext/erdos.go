package graphtext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
)

// ErdosRecord is one record of a local copy of the Erdős dataset
// (HF PKU-ML/Erdos, exported as JSON or JSONL): the fields task, prompt,
// answer, direction, nodes ("(1, 24)"), edges (a Python-literal list of
// (u, v) or (u, v, w) tuples), samples (the query parameters, e.g. "(12,
// 19)" or "3") and answer_type.
type ErdosRecord struct {
	Task       string `json:"task"`
	Prompt     string `json:"prompt"`
	Answer     string `json:"answer"`
	Direction  string `json:"direction"`
	Nodes      string `json:"nodes"`
	Edges      string `json:"edges"`
	Samples    string `json:"samples"`
	AnswerType string `json:"answer_type"`
}

// ErdosInstance is an Erdős record turned into narlab's types.
type ErdosInstance struct {
	Task  *Task
	Graph *Graph
	// Answer is the stored answer, parsed as the task's answer class.
	Answer Answer
	// Before and After are the prompt text around the graph sentence
	// ("Here is ... The edges are: ...."), so that the graph can be
	// re-serialized inside the dataset's own wording.
	Before, After string
}

// Prompt re-serializes the instance's prompt with another graph text (a
// header plus body from [Graph.Encode] or [Graph.Serialize]).
func (e *ErdosInstance) Prompt(graphText string) string {
	return e.Before + graphText + e.After
}

var (
	rangeRe = regexp.MustCompile(`^\(\s*(\d+)\s*,\s*(\d+)\s*\)$`)
	tupleLR = regexp.MustCompile(`\(\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*([0-9.eE+-]+)\s*)?\)`)
	intsRe  = regexp.MustCompile(`-?\d+`)
	graphRe = regexp.MustCompile(`Here is an? (?:un)?directed graph containing nodes from \d+ to \d+\.\s*(?:The edges are:?\s*)?(?:\([^)]*\)(?:,\s*)?)*\.?`)
)

// ReadErdosFile is [ReadErdos] of a file; errors name it, and a file with
// no usable record is one.
func ReadErdosFile(path string) (insts []*ErdosInstance, skipped int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	if insts, skipped, err = ReadErdos(f); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	if len(insts) == 0 {
		return nil, 0, fmt.Errorf("%s has no usable records", path)
	}
	return insts, skipped, nil
}

// ReadErdos reads Erdős records from JSONL (one object per line) or a JSON
// array. Tasks the paper does not use (isomorphic_mapping) are skipped and
// counted in skipped. Errors name the record (line) that is wrong.
func ReadErdos(r io.Reader) (insts []*ErdosInstance, skipped int, err error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, 0, fmt.Errorf("graphtext: reading Erdős data: %w", err)
	}
	var recs []ErdosRecord
	var lines []int
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &recs); err != nil {
			return nil, 0, fmt.Errorf("graphtext: Erdős JSON array: %w", err)
		}
		for i := range recs {
			lines = append(lines, i+1)
		}
	} else {
		err := fsutil.ReadJSONL(bytes.NewReader(data), func(line int, rec ErdosRecord) error {
			recs = append(recs, rec)
			lines = append(lines, line)
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("graphtext: Erdős data %w", err)
		}
	}
	for i, rec := range recs {
		if rec.Task == "isomorphic_mapping" {
			skipped++
			continue
		}
		inst, err := rec.Instance()
		if err != nil {
			return nil, 0, fmt.Errorf("graphtext: Erdős record %d: %w", lines[i], err)
		}
		insts = append(insts, inst)
	}
	return insts, skipped, nil
}

// Instance converts the record.
func (rec ErdosRecord) Instance() (*ErdosInstance, error) {
	task, err := LookupTask(rec.Task)
	if err != nil {
		return nil, err
	}
	m := rangeRe.FindStringSubmatch(strings.TrimSpace(rec.Nodes))
	if m == nil {
		return nil, fmt.Errorf("nodes %q is not a range \"(1, n)\"", rec.Nodes)
	}
	lo, _ := strconv.Atoi(m[1])
	hi, _ := strconv.Atoi(m[2])
	if lo != 1 || hi < 1 {
		return nil, fmt.Errorf("nodes %q: want ids 1..n", rec.Nodes)
	}
	g := &Graph{N: hi, Directed: rec.Direction == "directed"}
	for _, t := range tupleLR.FindAllStringSubmatch(rec.Edges, -1) {
		u, _ := strconv.Atoi(t[1])
		v, _ := strconv.Atoi(t[2])
		e := Edge{U: u, V: v}
		if t[3] != "" {
			w, err := strconv.ParseFloat(t[3], 64)
			if err != nil {
				return nil, fmt.Errorf("edge (%d, %d) has weight %q", u, v, t[3])
			}
			e.W, g.Weighted = w, true
		}
		g.Edges = append(g.Edges, e)
	}
	if len(g.Edges) == 0 && strings.TrimSpace(rec.Edges) != "[]" && strings.TrimSpace(rec.Edges) != "" {
		return nil, fmt.Errorf("edges %q: want a list of (u, v) tuples", rec.Edges)
	}
	if len(task.Params) > 0 {
		vals := intsRe.FindAllString(rec.Samples, -1)
		if len(vals) < len(task.Params) {
			return nil, fmt.Errorf("task %s needs %d parameters (%v), samples is %q", task.Name, len(task.Params), task.Params, rec.Samples)
		}
		g.Params = map[string]int{}
		for i, p := range task.Params {
			g.Params[p], _ = strconv.Atoi(vals[i])
		}
	}
	if err := g.Validate(false); err != nil {
		return nil, err
	}
	ans, err := ParseAnswer(task.Kind, StripString(rec.Answer))
	if err != nil {
		return nil, fmt.Errorf("stored answer %q: %w", rec.Answer, err)
	}
	inst := &ErdosInstance{Task: task, Graph: g, Answer: ans}
	if loc := graphRe.FindStringIndex(rec.Prompt); loc != nil {
		inst.Before, inst.After = rec.Prompt[:loc[0]], rec.Prompt[loc[1]:]
	} else {
		inst.Before, inst.After = task.Description+" ", " Question: "+task.QuestionFor(g)
		if f := task.Kind.FormatSentence(); f != "" {
			inst.After += " " + f
		}
	}
	return inst, nil
}
