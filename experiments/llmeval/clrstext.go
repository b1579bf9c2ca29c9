package llmeval

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/narlab/narlab/experiments"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/clrstext"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/plots"
)

// CLRSTextOptions choose the CLRS-Text prompts: Count samples of a fresh
// sampler (seed Seed) for every algorithm and length, exactly as `narlab
// clrstext sample` prints them.
type CLRSTextOptions struct {
	// Algorithms (default: the 30 of CLRS-30).
	Algorithms []string
	// Lengths (default: each algorithm's lengths in the paper's test
	// schedule, 4 up to what fits a context, at most 64).
	Lengths []int
	// Count is the number of samples per (algorithm, length) (default 1).
	Count int
	// Seed is the sampler's seed (default 0 means 3, the first seed of the
	// paper's test split; use SeedSet for an explicit 0).
	Seed    int64
	SeedSet bool
	// Options are the text options (format, hints, decimals, shift); the
	// zero value is the paper's legacy format without hints.
	Options clrstext.Options
}

type clrstextSuite struct {
	o       CLRSTextOptions
	samples []clrstextSample
}

type clrstextSample struct {
	algo   string
	length int
	ex     clrstext.Example
}

func newCLRSTextSuite(o CLRSTextOptions) (*clrstextSuite, error) {
	if o.Count == 0 {
		o.Count = 1
	}
	if o.Count < 0 {
		return nil, fmt.Errorf("llmeval: clrstext: count %d: want a positive number", o.Count)
	}
	if !o.SeedSet && o.Seed == 0 {
		o.Seed = clrstext.TestSeeds[0]
	}
	if len(o.Algorithms) == 0 {
		o.Algorithms = clrs.CLRS30()
	}
	for _, l := range o.Lengths {
		if l < 1 {
			return nil, fmt.Errorf("llmeval: clrstext: length %d: want a positive number", l)
		}
	}
	return &clrstextSuite{o: o}, nil
}

func (s *clrstextSuite) name() string        { return CLRSText }
func (s *clrstextSuite) defaultAPI() llm.API { return llm.Completion }

func (s *clrstextSuite) defaults(p *llm.Params, api llm.API) {
	if p.MaxTokens == 0 {
		p.MaxTokens = 512
		if !s.o.Options.Hints {
			p.MaxTokens = 128
		}
	}
	if p.Stop == nil && api == llm.Completion {
		// A reference answer ends with a blank line.
		p.Stop = []string{"\n\n"}
	}
}

func (s *clrstextSuite) params() map[string]string {
	var ls []string
	for _, l := range s.o.Lengths {
		ls = append(ls, strconv.Itoa(l))
	}
	lengths := strings.Join(ls, ",")
	if lengths == "" {
		lengths = "test schedule"
	}
	return map[string]string{"algorithms": strings.Join(s.o.Algorithms, ","), "lengths": lengths,
		"count": strconv.Itoa(s.o.Count), "seed": strconv.FormatInt(s.o.Seed, 10),
		"format": s.o.Options.Format.String(), "hints": strconv.FormatBool(s.o.Options.Hints),
		"decimals": strconv.Itoa(s.o.Options.Decimals), "shift": s.o.Options.Shift.String()}
}

func (s *clrstextSuite) build() ([]item, error) {
	sched := map[string][]int{}
	for _, al := range clrstext.TestSchedule() {
		sched[al.Algo] = al.Lengths
	}
	var items []item
	for _, algo := range s.o.Algorithms {
		lengths := s.o.Lengths
		if len(lengths) == 0 {
			lengths = sched[algo]
			if len(lengths) == 0 {
				return nil, fmt.Errorf("llmeval: clrstext: %q has no lengths in the test schedule; give --lengths", algo)
			}
		}
		for _, l := range lengths {
			exs, err := clrstext.Sample(algo, l, s.o.Seed, s.o.Count, s.o.Options)
			if err != nil {
				return nil, fmt.Errorf("llmeval: clrstext: %w", err)
			}
			for k, ex := range exs {
				s.samples = append(s.samples, clrstextSample{algo: algo, length: l, ex: ex})
				items = append(items, item{id: fmt.Sprintf("%s/n%d/s%d/%d", algo, l, s.o.Seed, k), group: algo,
					prompt: ex.Question, ref: len(s.samples) - 1})
			}
		}
	}
	return items, nil
}

func (s *clrstextSuite) score(items []item, answers []answer, label string) (*scored, error) {
	recs := make([]Record, len(items))
	var scoreItems []clrstext.Item
	for i, it := range items {
		smp := s.samples[it.ref]
		raw := ""
		if answers[i].err == nil {
			raw = answers[i].resp.Text
		}
		ok := clrstext.ExactMatch(raw, smp.ex.Answer)
		ttff := clrstext.TimeToFirstFailure(smp.algo, raw, smp.ex.Answer)
		recs[i].Parsed = clrstext.ParseAnswer(raw).Final
		recs[i].Truth = clrstext.ParseAnswer(smp.ex.Answer).Final
		recs[i].Score = b2f(ok)
		recs[i].Extra = map[string]float64{"ttff": ttff}
		scoreItems = append(scoreItems, clrstext.Item{Algo: smp.algo, Length: smp.length, Prediction: raw, Reference: smp.ex.Answer})
	}
	rep, err := clrstext.Score(scoreItems)
	if err != nil {
		return nil, err
	}
	fig, err := CLRSTextFigure(label, rep)
	if err != nil {
		return nil, err
	}
	return &scored{records: recs, scoreName: "accuracy", report: &rep,
		figures: map[string]*plots.Figure{"accuracy_vs_length.png": fig},
		log: func(ctx context.Context, run *experiments.Run) error {
			return LogCLRSText(run, rep, fig)
		}}, nil
}

func b2f(ok bool) *float64 {
	v := 0.0
	if ok {
		v = 1
	}
	return &v
}

// CLRSTextFigure draws the paper's Figure 5 layout for a scored CLRS-Text
// run: one panel per algorithm (CLRS-30 order, then others by name), the
// accuracy and the time-to-first-failure (Figure 7's measure) against the
// test length.
func CLRSTextFigure(label string, r clrstext.Report) (*plots.Figure, error) {
	byAlgo := map[string][]clrstext.Cell{}
	for _, c := range r.Cells {
		byAlgo[c.Algo] = append(byAlgo[c.Algo], c)
	}
	var names []string
	seen := map[string]bool{}
	for _, a := range clrs.CLRS30() {
		if _, ok := byAlgo[a]; ok {
			names = append(names, a)
			seen[a] = true
		}
	}
	var extra []string
	for a := range byAlgo {
		if !seen[a] {
			extra = append(extra, a)
		}
	}
	sort.Strings(extra)
	names = append(names, extra...)
	var panels []plots.Panel
	for _, a := range names {
		var acc, ttff plots.Curve
		for _, c := range byAlgo[a] {
			acc.Steps = append(acc.Steps, float64(c.Length))
			acc.Values = append(acc.Values, c.Accuracy)
			ttff.Steps = append(ttff.Steps, float64(c.Length))
			ttff.Values = append(ttff.Values, c.TTFF)
		}
		panels = append(panels, plots.Panel{Title: strings.ReplaceAll(a, "_", " "), Series: []plots.Series{
			{Label: label + " accuracy", Runs: []plots.Curve{acc}},
			{Label: label + " time-to-first-failure", Runs: []plots.Curve{ttff}},
		}})
	}
	o := plots.DefaultCurveOptions()
	o.Cols = min(6, len(panels))
	o.XLabel = "test length"
	o.YLabel = "score (%)"
	o.Title = "CLRS-Text: accuracy and time-to-first-failure vs length (" + label + ")"
	fig, err := plots.ValidationCurves(panels, o)
	if err != nil {
		return nil, fmt.Errorf("clrstext: figure: %w", err)
	}
	return fig, nil
}

// LogCLRSText records a scored CLRS-Text run: the overall and
// per-algorithm accuracy and time-to-first-failure, per-length curves (the
// length is the metric step), the score table scores.json and the figure
// (figures/accuracy_vs_length.png).
func LogCLRSText(run *experiments.Run, r clrstext.Report, fig *plots.Figure) error {
	if err := run.LogMetric("accuracy", 0, r.Overall.Accuracy); err != nil {
		return err
	}
	if err := run.LogMetric("macro_accuracy", 0, r.MacroAccuracy); err != nil {
		return err
	}
	if err := run.LogMetric("ttff", 0, r.Overall.TTFF); err != nil {
		return err
	}
	for _, c := range r.PerAlgo {
		if err := run.LogMetric("accuracy/"+c.Algo, 0, c.Accuracy); err != nil {
			return err
		}
		if err := run.LogMetric("ttff/"+c.Algo, 0, c.TTFF); err != nil {
			return err
		}
	}
	var rows [][]any
	for _, c := range r.Cells {
		if err := run.LogMetric("accuracy_by_length/"+c.Algo, int64(c.Length), c.Accuracy); err != nil {
			return err
		}
		if err := run.LogMetric("ttff_by_length/"+c.Algo, int64(c.Length), c.TTFF); err != nil {
			return err
		}
		rows = append(rows, []any{c.Algo, c.Length, c.N, c.Accuracy, c.TTFF, c.Parsed})
	}
	if err := run.LogTable("scores.json", []string{"algorithm", "length", "n", "accuracy", "ttff", "parsed"}, rows); err != nil {
		return err
	}
	png, err := fig.PNG()
	if err != nil {
		return err
	}
	return run.LogArtifact("figures/accuracy_vs_length.png", png)
}
