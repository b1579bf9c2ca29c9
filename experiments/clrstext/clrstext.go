// Package clrstext turns CLRS-Text scores (lib/clrstext's Report) into what
// an experiment records and shows: the score table, the paper's Figure 5
// layout (accuracy and time-to-first-failure against test length, one
// panel per algorithm) and the MLflow metrics of a scoring run.
//
// The `narlab clrstext score` command uses it; a notebook scores with
// lib/clrstext and then calls the same functions:
//
//	rep, _ := clrstext.Score(items)          // lib/clrstext
//	fig, _ := textexp.Figure("my-model", rep) // this package
//	kernel.Show(fig)
//	run, _ := tracking.Start(ctx, "clrs-text", params, textexp.RunOptions("my-model")...)
//	err := run.EndWith(ctx, textexp.Log(run, rep, fig))
package clrstext

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/clrstext"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking"
)

// Artifact paths written by [Log].
const (
	ScoresTable    = "scores.json"
	FigureArtifact = "figures/accuracy_vs_length.png"
)

// ScoreColumns are the columns of the score table ([Rows], the
// ScoresTable artifact).
var ScoreColumns = []string{"algorithm", "length", "n", "accuracy", "ttff", "parsed"}

// Rows lists the report's (algorithm, length) cells as table rows under
// [ScoreColumns].
func Rows(r clrstext.Report) [][]any {
	rows := make([][]any, 0, len(r.Cells))
	for _, c := range r.Cells {
		rows = append(rows, []any{c.Algo, c.Length, c.N, c.Accuracy, c.TTFF, c.Parsed})
	}
	return rows
}

// WriteTable prints the report as text: one line per (algorithm, length),
// one per algorithm, and the overall scores. missing is the number of
// dataset rows that had no prediction (left out of the scores).
func WriteTable(w io.Writer, r clrstext.Report, missing int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-30s %6s %6s %9s %7s %7s\n", "algorithm", "length", "n", "accuracy", "ttff", "parsed")
	for _, c := range r.Cells {
		fmt.Fprintf(&b, "%-30s %6d %6d %9.3f %7.3f %7.3f\n", c.Algo, c.Length, c.N, c.Accuracy, c.TTFF, c.Parsed)
	}
	fmt.Fprintln(&b)
	for _, c := range r.PerAlgo {
		fmt.Fprintf(&b, "%-30s %6s %6d %9.3f %7.3f %7.3f\n", c.Algo, "all", c.N, c.Accuracy, c.TTFF, c.Parsed)
	}
	fmt.Fprintf(&b, "\noverall: %d answers, accuracy %.4f (macro over algorithms %.4f), time-to-first-failure %.4f",
		r.Overall.N, r.Overall.Accuracy, r.MacroAccuracy, r.Overall.TTFF)
	if missing > 0 {
		fmt.Fprintf(&b, "; %d dataset rows without a prediction were left out", missing)
	}
	fmt.Fprintln(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// Panels lays the report out as the paper's Figure 5: one panel per
// algorithm (CLRS-30 order, then any other algorithm by name), each with
// two series labelled after label — accuracy and time-to-first-failure —
// whose x values are the test lengths.
func Panels(label string, r clrstext.Report) []plots.Panel {
	byAlgo := map[string][]clrstext.Cell{}
	for _, c := range r.Cells {
		byAlgo[c.Algo] = append(byAlgo[c.Algo], c)
	}
	var names []string
	for _, a := range clrs.CLRS30() {
		if _, ok := byAlgo[a]; ok {
			names = append(names, a)
		}
	}
	var extra []string
	for a := range byAlgo {
		if !slices.Contains(names, a) {
			extra = append(extra, a)
		}
	}
	sort.Strings(extra)
	names = append(names, extra...)
	panels := make([]plots.Panel, 0, len(names))
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
	return panels
}

// Figure draws [Panels] (at most six panels a row).
func Figure(label string, r clrstext.Report) (*plots.Figure, error) {
	panels := Panels(label, r)
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

// RunOptions are the run name, tags and source of a scoring run of the
// model label.
func RunOptions(label string) []tracking.Option {
	note := fmt.Sprintf("`narlab clrstext score`: the answers of **%s** to CLRS-Text questions, scored against the "+
		"references. Results: the per-algorithm scores table and figure in the artifacts; summary metrics on the "+
		"Model metrics tab.", label)
	return []tracking.Option{tracking.RunName(tracking.RunNameFor("clrstext score", label)), tracking.Note(note),
		tracking.Tags(map[string]string{"model": label, "benchmark": "CLRS-Text"}),
		tracking.Source("narlab clrstext score")}
}

// Params are a scoring run's parameters: the dataset and predictions
// files, the model, and the numbers of rows, predictions and unanswered
// rows.
func Params(data, predictions, label string, rows, preds, unanswered int) map[string]string {
	return map[string]string{
		"data": data, "predictions": predictions, "model": label,
		"rows": fmt.Sprint(rows), "predictions_count": fmt.Sprint(preds), "unanswered": fmt.Sprint(unanswered),
	}
}

// Log records a report through l:
//
//	accuracy, macro_accuracy, ttff            overall, at step 0
//	accuracy/<algo>, ttff/<algo>              per algorithm, at step 0
//	accuracy_by_length/<algo>, ttff_by_length/<algo>
//	                                          per (algorithm, length), the length as the step
//
// then the score table (ScoresTable) and, when fig is not nil, its PNG
// (FigureArtifact). It stops at the first error.
func Log(l tracking.Logger, r clrstext.Report, fig *plots.Figure) error {
	metric := func(key string, step int64, v float64) func() error {
		return func() error { return l.LogMetric(key, step, v) }
	}
	steps := []func() error{
		metric("accuracy", 0, r.Overall.Accuracy),
		metric("macro_accuracy", 0, r.MacroAccuracy),
		metric("ttff", 0, r.Overall.TTFF),
	}
	for _, c := range r.PerAlgo {
		steps = append(steps, metric("accuracy/"+c.Algo, 0, c.Accuracy), metric("ttff/"+c.Algo, 0, c.TTFF))
	}
	for _, c := range r.Cells {
		steps = append(steps, metric("accuracy_by_length/"+c.Algo, int64(c.Length), c.Accuracy),
			metric("ttff_by_length/"+c.Algo, int64(c.Length), c.TTFF))
	}
	steps = append(steps, func() error { return l.LogTable(ScoresTable, ScoreColumns, Rows(r)) })
	if fig != nil {
		steps = append(steps, func() error {
			png, err := fig.PNG()
			if err != nil {
				return err
			}
			return l.LogArtifact(FigureArtifact, png)
		})
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}
