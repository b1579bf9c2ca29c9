package llmeval

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/narlab/narlab/experiments/serialization"
	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/metrics"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking"
)

// GraphsOptions choose the graph-serialization prompts, as `narlab graphs
// prompts` writes them (synthetic Erdős-like graphs).
type GraphsOptions struct {
	// Tasks (default: all 49).
	Tasks []*graphtext.Task
	// Encodings and Syntaxes (defaults E0 and erdos); see
	// serialization.Spec for the combinations kept.
	Encodings []graphtext.Encoding
	Syntaxes  []graphtext.Syntax
	// Relabel is the number of random relabelings per instance besides the
	// original labels (the output-spread measure needs at least 2).
	Relabel int
	// Seeds is the number of shuffle seeds of shuffled encodings (default 1).
	Seeds int
	// Instances per task (default 3).
	Instances int
	// Seed of the graphs and relabelings.
	Seed uint64
	// MaxNodes bounds the graphs (default 35).
	MaxNodes int
	// NoWrap leaves out G1's \boxed{} query template.
	NoWrap bool
	// KeepDecimalPoints turns off, in lenient scoring, G1's quirk of
	// deleting "." from "the answer is …" answers.
	KeepDecimalPoints bool
	// Scoring is metrics.ScorePaper (the default: G1's own checker) or
	// metrics.ScoreLenient; the run logs both, this one as its scores.
	Scoring metrics.ScoreMode
}

type graphsSuite struct {
	o    GraphsOptions
	recs []serialization.Record
}

func newGraphsSuite(o GraphsOptions) (*graphsSuite, error) {
	if o.Seeds == 0 {
		o.Seeds = 1
	}
	if o.Instances == 0 {
		o.Instances = 3
	}
	if o.MaxNodes == 0 {
		o.MaxNodes = 35
	}
	if o.Relabel < 0 || o.Seeds < 1 || o.Instances < 1 || o.MaxNodes < 5 {
		return nil, fmt.Errorf("llmeval: graphs: relabel %d, seeds %d, instances %d, max nodes %d: want relabel ≥ 0, seeds ≥ 1, instances ≥ 1, max nodes ≥ 5",
			o.Relabel, o.Seeds, o.Instances, o.MaxNodes)
	}
	return &graphsSuite{o: o}, nil
}

func (s *graphsSuite) name() string        { return Graphs }
func (s *graphsSuite) defaultAPI() llm.API { return llm.Chat }
func (s *graphsSuite) defaults(p *llm.Params, _ llm.API) {
	if p.MaxTokens == 0 {
		p.MaxTokens = g1MaxTokens
	}
}

func (s *graphsSuite) params() map[string]string {
	var tasks, encs, syns []string
	for _, t := range s.o.Tasks {
		tasks = append(tasks, t.Name)
	}
	for _, e := range s.o.Encodings {
		encs = append(encs, string(e))
	}
	for _, x := range s.o.Syntaxes {
		syns = append(syns, string(x))
	}
	orAll := func(xs []string, def string) string {
		if len(xs) == 0 {
			return def
		}
		return strings.Join(xs, ",")
	}
	return map[string]string{"tasks": orAll(tasks, "all"), "encodings": orAll(encs, "E0"), "syntaxes": orAll(syns, "erdos"),
		"relabel": strconv.Itoa(s.o.Relabel), "seeds": strconv.Itoa(s.o.Seeds), "instances": strconv.Itoa(s.o.Instances),
		"seed": strconv.FormatUint(s.o.Seed, 10), "max_nodes": strconv.Itoa(s.o.MaxNodes), "wrap": strconv.FormatBool(!s.o.NoWrap),
		"keep_decimal_points": strconv.FormatBool(s.o.KeepDecimalPoints), "data.graphs": "synthetic (not Erdős)", "scoring": s.o.Scoring.String()}
}

func (s *graphsSuite) build() ([]item, error) {
	spec := serialization.Spec{Tasks: s.o.Tasks, Encodings: s.o.Encodings, Syntaxes: s.o.Syntaxes, Relabel: s.o.Relabel,
		Seeds: s.o.Seeds, Seed: s.o.Seed, Instances: s.o.Instances, Wrap: !s.o.NoWrap,
		Gen: graphtext.GenOptions{MaxNodes: s.o.MaxNodes}}
	var buf bytes.Buffer
	if _, err := serialization.Generate(&buf, spec); err != nil {
		return nil, fmt.Errorf("llmeval: graphs: %w", err)
	}
	recs, err := serialization.ReadPrompts(&buf)
	if err != nil {
		return nil, fmt.Errorf("llmeval: graphs: %w", err)
	}
	s.recs = recs
	items := make([]item, len(recs))
	for i, r := range recs {
		items[i] = item{id: r.ID, group: r.Task, prompt: r.Prompt, ref: i}
	}
	return items, nil
}

func (s *graphsSuite) score(items []item, answers []answer, label string) (*scored, error) {
	opts := graphtext.ExtractOptions{KeepDecimalPoints: s.o.KeepDecimalPoints, Mode: s.o.Scoring}
	otherOpts := opts
	otherOpts.Mode = metrics.ScoreLenient
	if s.o.Scoring == metrics.ScoreLenient {
		otherOpts.Mode = metrics.ScorePaper
	}
	po, lo := opts, opts
	po.Mode, lo.Mode = metrics.ScorePaper, metrics.ScoreLenient
	var cmp graphtext.ModeComparison
	recs := make([]Record, len(items))
	prompts := make([]serialization.Record, len(items))
	preds := map[string]string{}
	for i, it := range items {
		p := s.recs[it.ref]
		prompts[i] = p
		task, err := graphtext.LookupTask(p.Task)
		if err != nil {
			return nil, err
		}
		g, err := graphtext.ReadJSON(bytes.NewReader(p.Graph))
		if err != nil {
			return nil, fmt.Errorf("llmeval: graphs: prompt %s: %w", p.ID, err)
		}
		gold, err := graphtext.DecodeAnswer(task.Kind, p.Answer)
		if err != nil {
			return nil, fmt.Errorf("llmeval: graphs: prompt %s: %w", p.ID, err)
		}
		recs[i].Truth = gold.String()
		if answers[i].err != nil {
			// No answer: serialization.Score counts it as missing and wrong.
			recs[i].Score = b2f(false)
			continue
		}
		raw := answers[i].resp.Text
		preds[p.ID] = raw
		paper, lenient := task.ScoreOutput(g, gold, raw, po), task.ScoreOutput(g, gold, raw, lo)
		cmp.Add(paper, lenient)
		sc := paper
		if opts.Mode == metrics.ScoreLenient {
			sc = lenient
		}
		if sc.Parsed {
			recs[i].Parsed = sc.Pred.String()
		}
		recs[i].Score = b2f(sc.Correct)
		recs[i].Extra = map[string]float64{"paper": *b2f(paper.Correct), "lenient": *b2f(lenient.Correct)}
		if paper.Raised != "" {
			recs[i].Extra["paper_raised"] = 1
		}
	}
	rep, err := serialization.Score(prompts, preds, opts)
	if err != nil {
		return nil, fmt.Errorf("llmeval: graphs: %w", err)
	}
	other, err := serialization.Score(prompts, preds, otherOpts)
	if err != nil {
		return nil, fmt.Errorf("llmeval: graphs: %w", err)
	}
	figs := map[string]*plots.Figure{}
	if f, err := serialization.ReportSyntaxMeans(rep, label); err == nil {
		figs["syntax_means.png"] = f
	}
	if f, err := accuracyByConfig(rep, label); err == nil {
		figs["accuracy_by_config.png"] = f
	}
	if f, err := deltaHeatmap(rep, label); err == nil {
		figs["delta_heatmap.png"] = f
	}
	if f1, f2, err := serialization.ReportSpread(rep, label); err == nil {
		figs["relabel_spread.png"], figs["relabel_accuracy.png"] = f1, f2
	}
	return &scored{records: recs, scoreName: "accuracy", report: rep, figures: figs,
		log: func(ctx context.Context, run *tracking.Run) error {
			if err := serialization.Log(ctx, run, rep); err != nil {
				return err
			}
			// The other scoring mode's mean accuracy per configuration (a
			// fraction) and the comparison of the two modes.
			for _, c := range other.Configs {
				key := strings.NewReplacer("=", "_", ":", "_").Replace(otherOpts.Mode.String() + "/mean_accuracy/" + c)
				if err := run.LogMetric(key, 0, other.MeanAccuracy(c)/100); err != nil {
					return err
				}
			}
			if err := logMetricMap(run, cmp.Metrics()); err != nil {
				return err
			}
			for _, name := range []string{"accuracy_by_config.png", "delta_heatmap.png"} {
				if f := figs[name]; f != nil {
					png, err := f.PNG()
					if err != nil {
						return err
					}
					if err := run.LogArtifact("figures/"+name, png); err != nil {
						return err
					}
				}
			}
			return nil
		}}, nil
}

// accuracyByConfig draws the mean accuracy of each encoding × syntax ×
// labeling configuration of a run.
func accuracyByConfig(r *serialization.Report, label string) (*plots.Figure, error) {
	var vals []float64
	for _, c := range r.Configs {
		vals = append(vals, r.MeanAccuracy(c))
	}
	return plots.Bars(r.Configs, []plots.BarGroup{{Label: label, Values: vals}},
		plots.BarOptions{Title: "Mean accuracy per encoding / syntax / labeling (" + label + ")", ValueLabel: "accuracy (%)", Min: 0, Max: 100})
}

// deltaHeatmap draws |acc(config) − acc(E0/erdos/orig)| per task and
// configuration, the run's version of the paper's Figure 7.
func deltaHeatmap(r *serialization.Report, label string) (*plots.Figure, error) {
	if r.Scores[serialization.Baseline] == nil {
		return nil, fmt.Errorf("llmeval: graphs: the run has no %s prompts", serialization.Baseline)
	}
	var cols []string
	var deltas [][]float64
	for _, c := range r.Configs {
		if c == serialization.Baseline {
			continue
		}
		d, err := r.Delta(c)
		if err != nil {
			continue
		}
		cols = append(cols, c)
		deltas = append(deltas, d)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("llmeval: graphs: no configuration besides %s", serialization.Baseline)
	}
	vals := make([][]float64, len(r.Tasks))
	for i := range r.Tasks {
		for j := range cols {
			vals[i] = append(vals[i], math.Abs(deltas[j][i]))
		}
	}
	return plots.Heatmap(fmt.Sprintf("%s: |Δ accuracy| vs %s", label, serialization.Baseline), r.Tasks, cols, vals)
}
