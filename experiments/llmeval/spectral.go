package llmeval

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/narlab/narlab/experiments/spectral"
	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/metrics"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking"
)

// SpectralOptions choose the spectral-task prompts: Count synthetic graphs
// (as `narlab graphs spectral-eval` generates them) times the tasks, each
// prompt worded by [graphtext.SpectralPrompt] inside G1's query template.
type SpectralOptions struct {
	// Tasks (default: all twelve).
	Tasks []string
	// Count is the number of test graphs (default 10; the paper has 100).
	Count int
	// Seed of the test graphs (the mean baseline's training graphs use
	// Seed+1, as spectral-eval's do); 0 means 1.
	Seed uint64
	// TrainCount is the number of graphs the mean baseline is fitted on
	// (default 500).
	TrainCount int
	// Options settle the tasks' open choices (matrices, heat time, log
	// base); prompts and ground truth follow them.
	Options graphtext.SpectralOptions
	// NoWrap leaves out G1's \boxed{} query template.
	NoWrap bool
}

type spectralSuite struct {
	o       SpectralOptions
	data    *spectral.Dataset
	mean    *spectral.MeanPredictor
	itemRef []struct {
		graph int
		task  string
	}
}

func newSpectralSuite(o SpectralOptions) (*spectralSuite, error) {
	if o.Count == 0 {
		o.Count = 10
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.TrainCount == 0 {
		o.TrainCount = 500
	}
	if o.Count < 2 || o.TrainCount < 2 {
		return nil, fmt.Errorf("llmeval: spectral: count %d, train count %d: want at least 2 each", o.Count, o.TrainCount)
	}
	if len(o.Tasks) == 0 {
		o.Tasks = graphtext.SpectralTasks
	}
	for _, t := range o.Tasks {
		if !graphtext.IsSpectralTask(t) {
			return nil, fmt.Errorf("llmeval: spectral: unknown task %q; want one of %s", t, strings.Join(graphtext.SpectralTasks, ", "))
		}
	}
	if _, err := graphtext.Spectral(&graphtext.Graph{N: 1}, o.Options); err != nil {
		return nil, fmt.Errorf("llmeval: spectral: %w", err)
	}
	return &spectralSuite{o: o}, nil
}

func (s *spectralSuite) name() string        { return Spectral }
func (s *spectralSuite) defaultAPI() llm.API { return llm.Chat }
func (s *spectralSuite) defaults(p *llm.Params, _ llm.API) {
	if p.MaxTokens == 0 {
		p.MaxTokens = g1MaxTokens
	}
}

func (s *spectralSuite) params() map[string]string {
	m := map[string]string{"tasks": strings.Join(s.o.Tasks, ","), "count": strconv.Itoa(s.o.Count),
		"seed": strconv.FormatUint(s.o.Seed, 10), "train_count": strconv.Itoa(s.o.TrainCount),
		"wrap": strconv.FormatBool(!s.o.NoWrap), "data.graphs": "synthetic (not Erdős)"}
	for k, v := range s.o.Options.Params() {
		m[k] = v
	}
	return m
}

func (s *spectralSuite) build() ([]item, error) {
	gs, err := graphtext.GenerateSet(s.o.Seed, s.o.Count, graphtext.GenOptions{})
	if err != nil {
		return nil, fmt.Errorf("llmeval: spectral: %w", err)
	}
	if s.data, err = spectral.NewDataset(gs, nil, s.o.Options); err != nil {
		return nil, fmt.Errorf("llmeval: spectral: %w", err)
	}
	train, err := graphtext.GenerateSet(s.o.Seed+1, s.o.TrainCount, graphtext.GenOptions{})
	if err != nil {
		return nil, fmt.Errorf("llmeval: spectral: %w", err)
	}
	td, err := spectral.NewDataset(train, nil, s.o.Options)
	if err != nil {
		return nil, fmt.Errorf("llmeval: spectral: %w", err)
	}
	s.mean = spectral.FitMean(td)
	var items []item
	for i, g := range gs {
		for _, t := range graphtext.SpectralTasks {
			if !slices.Contains(s.o.Tasks, t) {
				continue
			}
			p, err := graphtext.SpectralPrompt(g, t, s.o.Options)
			if err != nil {
				return nil, fmt.Errorf("llmeval: spectral: %w", err)
			}
			if !s.o.NoWrap {
				p = fmt.Sprintf(graphtext.QueryTemplate, p)
			}
			s.itemRef = append(s.itemRef, struct {
				graph int
				task  string
			}{i, t})
			items = append(items, item{id: t + "/" + s.data.IDs[i], group: t, prompt: p, ref: len(s.itemRef) - 1})
		}
	}
	return items, nil
}

func (s *spectralSuite) score(items []item, answers []answer, label string) (*scored, error) {
	if label == "mean" {
		label = "mean (model)"
	}
	recs := make([]Record, len(items))
	var lines bytes.Buffer
	w := fsutil.NewJSONLWriter(&lines)
	var graphs []int
	var tasks []string
	for i, it := range items {
		ref := s.itemRef[it.ref]
		if !slices.Contains(graphs, ref.graph) {
			graphs = append(graphs, ref.graph)
		}
		if !slices.Contains(tasks, ref.task) {
			tasks = append(tasks, ref.task)
		}
		y := s.data.Truth[ref.task][ref.graph]
		recs[i].Truth = strconv.FormatFloat(y, 'g', -1, 64)
		if answers[i].err != nil {
			continue // missing: NaN in the report, against the parse rate
		}
		raw := answers[i].resp.Text
		if err := w.Write(spectral.Answer{ID: s.data.IDs[ref.graph], Task: ref.task, AnswerText: raw}); err != nil {
			return nil, err
		}
		if v, err := graphtext.ParseSpectralAnswer(raw); err == nil {
			recs[i].Parsed = strconv.FormatFloat(v, 'g', -1, 64)
			if m, err := metrics.Regress([]float64{y}, []float64{v}); err == nil {
				smape := m.SMAPE100 / 100 // a fraction, as every score narlab logs
				recs[i].Score = &smape
			}
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	file, err := spectral.LoadPredictions(label, &lines)
	if err != nil {
		return nil, fmt.Errorf("llmeval: spectral: %w", err)
	}
	// The graphs asked about (all of them unless --limit cut the run).
	slices.Sort(graphs)
	sub := &spectral.Dataset{Truth: map[string][]float64{}}
	for _, g := range graphs {
		sub.IDs = append(sub.IDs, s.data.IDs[g])
		sub.Graphs = append(sub.Graphs, s.data.Graphs[g])
		for t, ys := range s.data.Truth {
			sub.Truth[t] = append(sub.Truth[t], ys[g])
		}
	}
	rep, err := spectral.Evaluate(sub, []spectral.Predictor{s.mean, file}, tasks...)
	if err != nil {
		return nil, fmt.Errorf("llmeval: spectral: %w", err)
	}
	figs := map[string]*plots.Figure{}
	if f, err := rep.DensityFigure(); err == nil {
		figs["densities.png"] = f
	}
	return &scored{records: recs, scoreName: "smape", report: rep, figures: figs,
		log: func(ctx context.Context, run *tracking.Run) error {
			return spectral.LogReport(run, rep)
		}}, nil
}
