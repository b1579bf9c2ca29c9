package serialization

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/metrics"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking"
)

// Summary holds the run-level invariance measures of a report.
type Summary struct {
	// MeanAccuracy per configuration (%).
	MeanAccuracy map[string]float64
	// MeanDelta per configuration: mean over tasks of acc − acc(baseline).
	MeanDelta map[string]float64
	// SyntaxVariability is the mean over tasks of the sample std of
	// accuracy across the syntaxes present (NaN with fewer than 2).
	SyntaxVariability float64
	// BestIn[syntax config] counts tasks where that syntax is best (ties
	// counted for each).
	BestIn map[string]int
	// ParseRate is the overall parse rate (%).
	ParseRate float64
}

// Summarize computes the run-level measures.
func (r *Report) Summarize() Summary {
	s := Summary{MeanAccuracy: map[string]float64{}, MeanDelta: map[string]float64{}, BestIn: map[string]int{}, SyntaxVariability: nan()}
	parsed, n := 0, 0
	for _, c := range r.Configs {
		s.MeanAccuracy[c] = r.MeanAccuracy(c)
		for _, ts := range r.Scores[c] {
			parsed += ts.Parsed
			n += ts.N
		}
		if r.Scores[Baseline] != nil && c != Baseline {
			if d, err := r.Delta(c); err == nil {
				m := 0.0
				for _, x := range d {
					m += x
				}
				s.MeanDelta[c] = m / float64(len(d))
			}
		}
	}
	if n > 0 {
		s.ParseRate = 100 * float64(parsed) / float64(n)
	}
	if syn := r.SyntaxConfigs(); len(syn) >= 2 {
		if acc, err := r.Accuracy(syn); err == nil {
			_, s.SyntaxVariability, _ = metrics.SyntaxVariability(acc)
			counts, _ := metrics.BestInCounts(acc)
			for i, c := range syn {
				s.BestIn[c] = counts[i]
			}
		}
	}
	return s
}

// metricKey makes an MLflow-safe key.
func metricKey(parts ...string) string {
	return strings.NewReplacer("=", "_", ":", "_").Replace(strings.Join(parts, "/"))
}

// Log writes a report to an MLflow run as results: a few summary metrics
// (mean_accuracy/<config>, syntax_variability, parse_rate — fractions, as
// every score narlab logs: the report's percentages divided by 100 —
// and missing_predictions) and the breakdowns as tables (in %, as the
// paper prints them) —
// serialization_scores.json (per configuration and task: accuracy, parse
// rate, counts), serialization_configs.json (per configuration: mean
// accuracy, mean Δ vs the baseline, tasks where it is best) and
// serialization_spread.json (per task: the output spread over relabelings)
// — plus the figures. Per-task numbers as metrics would be hundreds of
// one-point charts.
func Log(ctx context.Context, run *tracking.Run, r *Report) error {
	var errs []error
	lm := func(key string, v float64) {
		if err := run.LogMetric(metricKey(key), 0, v); err != nil {
			errs = append(errs, err)
		}
	}
	var rows [][]any
	for _, c := range r.Configs {
		for _, t := range r.Tasks {
			ts := r.Scores[c][t]
			if ts == nil {
				continue
			}
			task, _ := graphtext.LookupTask(t)
			rows = append(rows, []any{c, t, task.Category, ts.N, ts.Answered, ts.Parsed, ts.Correct, ts.Accuracy, ts.AccuracyStd, ts.ParseRate})
		}
	}
	s := r.Summarize()
	for c, v := range s.MeanAccuracy {
		lm("mean_accuracy/"+c, v/100)
	}
	if s.SyntaxVariability == s.SyntaxVariability {
		lm("syntax_variability", s.SyntaxVariability/100)
	}
	lm("parse_rate", s.ParseRate/100)
	lm("missing_predictions", float64(r.Missing))
	var configRows [][]any
	for _, c := range r.Configs {
		mean, okM := s.MeanAccuracy[c]
		delta, okD := s.MeanDelta[c]
		row := []any{c, nil, nil, s.BestIn[c]}
		if okM && mean == mean {
			row[1] = mean
		}
		if okD && delta == delta {
			row[2] = delta
		}
		configRows = append(configRows, row)
	}
	if err := run.LogTable("serialization_configs.json", []string{"config", "mean_accuracy", "mean_delta_vs_baseline", "best_in"}, configRows); err != nil {
		errs = append(errs, err)
	}
	if len(r.Spread) > 0 {
		var spreadRows [][]any
		for _, t := range r.Tasks {
			if sp, ok := r.Spread[t]; ok {
				spreadRows = append(spreadRows, []any{t, sp.Mean})
			}
		}
		if err := run.LogTable("serialization_spread.json", []string{"task", "output_spread"}, spreadRows); err != nil {
			errs = append(errs, err)
		}
	}
	if err := run.LogTable("serialization_scores.json", []string{"config", "task", "category", "n", "answered", "parsed", "correct", "accuracy", "accuracy_std", "parse_rate"}, rows); err != nil {
		errs = append(errs, err)
	}
	for name, fig := range reportFigures(r) {
		png, err := fig.PNG()
		if err == nil {
			err = run.LogArtifact("figures/"+name+".png", png)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("serialization: logging to MLflow: %v (and %d more)", errs[0], len(errs)-1)
	}
	return nil
}

func nan() float64 { return math.NaN() }

// reportFigures draws what the run has data for: Δ accuracy vs the
// baseline for the other original-label configurations, the syntax means,
// and the relabeling spread.
func reportFigures(r *Report) map[string]*plots.Figure {
	out := map[string]*plots.Figure{}
	var others []string
	for _, c := range r.Configs {
		if c != Baseline && strings.HasSuffix(c, "/orig") {
			others = append(others, c)
		}
	}
	if r.Scores[Baseline] != nil {
		relab := "E0/erdos/relabeled"
		if r.Scores[relab] != nil {
			others = append(others, relab)
		}
		if len(others) > 0 {
			if f, err := ReportDelta(r, others, "Accuracy difference vs E0/erdos/orig"); err == nil {
				out["delta_vs_baseline"] = f
			}
		}
	}
	if f, err := ReportSyntaxMeans(r, "run"); err == nil && len(r.SyntaxConfigs()) > 1 {
		out["syntax_means"] = f
	}
	if f1, f2, err := ReportSpread(r, "run"); err == nil {
		out["relabel_spread"], out["relabel_accuracy"] = f1, f2
	}
	return out
}
