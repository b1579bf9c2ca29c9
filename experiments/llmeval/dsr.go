package llmeval

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/narlab/narlab/experiments/dsrbench"
	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/metrics"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking"
)

// DSROptions choose the DSR-Bench prompts: Count generated instances of
// every main task of the chosen structures and categories at each level,
// worded by dsr.BuildPrompt, with the task's response schema sent as
// structured output.
type DSROptions struct {
	// Structures and Categories filter the tasks (default: all); a task is
	// kept when it matches both filters that are given.
	Structures []string
	Categories []string
	// Levels (default: short).
	Levels []dsr.Level
	// Count is the number of instances per task and level (default 3; the
	// reference draws 30).
	Count int
	// Seed of the instances.
	Seed uint64
	// Strategy is the prompting strategy (default stepwise, the paper's).
	Strategy dsr.Strategy
	// Tokens is the budget the prompt states (default dsr.DefaultTokens).
	Tokens int
	// NoSchema sends no response schema: the prompt then spells out the
	// expected JSON itself.
	NoSchema bool
	// Options choose between the reference code's and the paper's reading.
	Options dsr.Options
	// Scoring is metrics.ScorePaper (the default: the reference's evaluation
	// scripts) or metrics.ScoreLenient; the run logs both, this one as its scores.
	Scoring metrics.ScoreMode
}

type dsrSuite struct {
	o     DSROptions
	tasks []*dsr.Task
	insts []dsr.Instance
}

func newDSRSuite(o DSROptions) (*dsrSuite, error) {
	if o.Count == 0 {
		o.Count = 3
	}
	if o.Count < 0 {
		return nil, fmt.Errorf("llmeval: dsr: count %d: want a positive number", o.Count)
	}
	if len(o.Levels) == 0 {
		o.Levels = []dsr.Level{dsr.Short}
	}
	if o.Tokens == 0 {
		o.Tokens = dsr.DefaultTokens
	}
	if slices.Contains(dsr.CodeModes(), o.Strategy) {
		return nil, fmt.Errorf("llmeval: dsr: strategy %s is a code-probe mode; a language model is asked stepwise, 0-CoT, CoT, 3-shot or none", o.Strategy)
	}
	for _, s := range o.Structures {
		if _, ok := dsr.LookupStructure(s); !ok {
			var names []string
			for _, st := range dsr.Structures() {
				names = append(names, st.Name)
			}
			return nil, fmt.Errorf("llmeval: dsr: unknown structure %q; want one of %s", s, strings.Join(names, ", "))
		}
	}
	var catNames []string
	for _, c := range dsr.Categories() {
		catNames = append(catNames, c.String())
	}
	for _, c := range o.Categories {
		if !slices.ContainsFunc(catNames, func(n string) bool { return strings.EqualFold(n, c) }) {
			return nil, fmt.Errorf("llmeval: dsr: unknown category %q; want one of %s", c, strings.Join(catNames, ", "))
		}
	}
	s := &dsrSuite{o: o}
	for _, t := range dsr.MainTasks() {
		info := t.Info()
		if len(o.Structures) > 0 && !slices.Contains(o.Structures, info.Name) {
			continue
		}
		if len(o.Categories) > 0 && !slices.ContainsFunc(o.Categories, func(c string) bool { return strings.EqualFold(c, info.Category.String()) }) {
			continue
		}
		s.tasks = append(s.tasks, t)
	}
	if len(s.tasks) == 0 {
		return nil, fmt.Errorf("llmeval: dsr: no main task of structures %v in categories %v", o.Structures, o.Categories)
	}
	return s, nil
}

func (s *dsrSuite) name() string        { return DSR }
func (s *dsrSuite) defaultAPI() llm.API { return llm.Chat }
func (s *dsrSuite) defaults(p *llm.Params, _ llm.API) {
	if p.MaxTokens == 0 {
		// The prompt's own budget, as DSR-Bench's evaluation sends it.
		p.MaxTokens = s.o.Tokens
	}
}

func (s *dsrSuite) params() map[string]string {
	var tasks, levels []string
	for _, t := range s.tasks {
		tasks = append(tasks, t.Name())
	}
	for _, l := range s.o.Levels {
		levels = append(levels, l.String())
	}
	m := dsrbench.Params("generated", "llm", s.o.Strategy, s.o.Options, len(s.insts), len(s.insts))
	m["tasks"] = strings.Join(tasks, ",")
	m["levels"] = strings.Join(levels, ",")
	m["count"] = strconv.Itoa(s.o.Count)
	m["seed"] = strconv.FormatUint(s.o.Seed, 10)
	m["scoring"] = s.o.Scoring.String()
	m["tokens"] = strconv.Itoa(s.o.Tokens)
	m["structured_output"] = strconv.FormatBool(!s.o.NoSchema)
	return m
}

func (s *dsrSuite) build() ([]item, error) {
	cfg := dsr.PromptConfig{Strategy: s.o.Strategy, Tokens: s.o.Tokens, Options: s.o.Options, OmitFormat: !s.o.NoSchema}
	var items []item
	for _, t := range s.tasks {
		for _, l := range s.o.Levels {
			insts, err := t.Generate(dsr.GenConfig{Level: l, Count: s.o.Count, Seed: s.o.Seed, Options: s.o.Options})
			if err != nil {
				return nil, fmt.Errorf("llmeval: dsr: %s: %w", t.Name(), err)
			}
			for i := range insts {
				p, err := dsr.BuildPrompt(&insts[i], cfg)
				if err != nil {
					return nil, fmt.Errorf("llmeval: dsr: %s: %w", insts[i].ID, err)
				}
				s.insts = append(s.insts, insts[i])
				it := item{id: insts[i].ID, group: insts[i].Structure, prompt: p.Text, ref: len(s.insts) - 1}
				if !s.o.NoSchema {
					name, _ := p.Schema["title"].(string)
					it.schema = &llm.Schema{Name: name, Schema: p.Schema, Strict: true}
				}
				items = append(items, it)
			}
		}
	}
	return items, nil
}

func (s *dsrSuite) score(items []item, answers []answer, label string) (*scored, error) {
	recs := make([]Record, len(items))
	insts := make([]dsr.Instance, len(items))
	var preds []dsr.Prediction
	for i, it := range items {
		inst := s.insts[it.ref]
		insts[i] = inst
		if b, err := json.Marshal(inst.Truth); err == nil {
			recs[i].Truth = string(b)
		}
		if answers[i].err != nil {
			continue // no prediction: scored 0
		}
		raw := answers[i].resp.Text
		preds = append(preds, dsr.Prediction{ID: inst.ID, Response: &raw})
		task, err := inst.Task()
		if err != nil {
			return nil, err
		}
		if v, err := dsr.ParseResponse(task, s.o.Strategy, raw); err == nil {
			if b, err := json.Marshal(v); err == nil {
				recs[i].Parsed = string(b)
			}
		}
	}
	results, err := dsr.ScoreAll(insts, preds, dsr.ScoreConfig{Strategy: s.o.Strategy, Options: s.o.Options, Mode: s.o.Scoring})
	if err != nil {
		return nil, fmt.Errorf("llmeval: dsr: %w", err)
	}
	byID := map[string]dsr.Result{}
	for _, r := range results {
		byID[r.ID] = r
	}
	for i, inst := range insts {
		r, ok := byID[inst.ID]
		if !ok {
			// ScoreAll adds "no prediction" results only for runs that
			// have a prediction: with none at all, add them here.
			r = dsr.NewResult(&insts[i], 0, dsr.Verdict{Reason: "no prediction"})
			results = append(results, r)
		}
		v := r.Binary
		recs[i].Score = &v
		recs[i].Extra = map[string]float64{"levenshtein": r.Lev, "paper": r.Paper.Binary, "paper_levenshtein": r.Paper.Levenshtein,
			"lenient": r.Lenient.Binary, "lenient_levenshtein": r.Lenient.Levenshtein}
		if r.Raised != "" {
			recs[i].Extra["paper_raised"] = 1
		}
	}
	tables := dsr.Aggregate(results)
	other := metrics.ScoreLenient
	if s.o.Scoring == metrics.ScoreLenient {
		other = metrics.ScorePaper
	}
	otherTables := dsr.Aggregate(dsr.ResultsIn(results, other))
	cmp := dsr.CompareModes(results)
	figs := map[string]*plots.Figure{}
	if len(tables.Structures) > 0 {
		if radar, bars, err := dsrbench.RunFigures(label, tables); err == nil {
			figs["category_radar.png"], figs["structure_bars.png"] = radar, bars
		}
	}
	return &scored{records: recs, scoreName: "binary", report: &tables, figures: figs,
		log: func(ctx context.Context, run *tracking.Run) error {
			if err := dsrbench.Log(run, tables, label); err != nil {
				return err
			}
			// The other scoring mode's overall and category scores, and
			// the comparison of the two.
			for _, m := range dsrbench.Metrics(otherTables) {
				if strings.HasPrefix(m.Key, "responses/") {
					continue
				}
				if err := run.LogMetric(other.String()+"/"+m.Key, 0, m.Value); err != nil {
					return err
				}
			}
			return logMetricMap(run, cmp.Metrics())
		}}, nil
}
