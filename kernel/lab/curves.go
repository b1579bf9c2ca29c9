package lab

import (
	"context"
	"fmt"
	"image/color"
	"sort"

	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking/mlflow"
)

// Curves draws the runs' curves of a score metric (a fraction, such as
// val/score: each point the score at one validation) as the CLRS paper's
// Figure 3 does: one panel per algorithm (the runs' "algorithm" parameter),
// one line per processor in the paper's colours (several runs of the same
// processor, such as seeds, are one line with their spread shaded). Runs
// without a processor parameter are labelled by their name. The histories
// are read from the tracking server; opts (at most one) replaces
// plots.DefaultCurveOptions, titled after the metric. It fails when no run
// has a point of the metric, rather than draw empty axes.
func (rs Runs) Curves(ctx context.Context, metric string, opts ...plots.CurveOptions) (*plots.Figure, error) {
	if len(rs) == 0 {
		return nil, fmt.Errorf("lab: no runs to draw %s for", metric)
	}
	histories := make([][]mlflow.Metric, len(rs))
	for i, r := range rs {
		if r.client == nil {
			return nil, fmt.Errorf("lab: run %s was not read from a tracking server", shortID(r.ID))
		}
		h, err := r.client.GetMetricHistory(ctx, r.ID, metric)
		if err != nil {
			return nil, fmt.Errorf("lab: %s of run %s: %w", metric, shortID(r.ID), err)
		}
		histories[i] = h
	}
	o := plots.DefaultCurveOptions()
	o.Title = metric + ", from MLflow"
	if len(opts) > 0 {
		o = opts[0]
	}
	return curvesFigure(rs, histories, metric, o)
}

// curvesFigure lays out the runs' histories (histories[i] is rs[i]'s) in
// panels and series, as Curves describes.
func curvesFigure(rs Runs, histories [][]mlflow.Metric, metric string, o plots.CurveOptions) (*plots.Figure, error) {
	var panels []plots.Panel
	panelOf := map[string]int{}
	points := 0
	for i, r := range rs {
		h := append([]mlflow.Metric(nil), histories[i]...)
		if len(h) == 0 {
			continue
		}
		points += len(h)
		sort.SliceStable(h, func(a, b int) bool { return h[a].Step < h[b].Step })
		var c plots.Curve
		for _, m := range h {
			c.Steps = append(c.Steps, float64(m.Step))
			c.Values = append(c.Values, m.Value)
		}
		algo := r.Params["algorithm"]
		p, ok := panelOf[algo]
		if !ok {
			p = len(panels)
			panelOf[algo] = p
			panels = append(panels, plots.Panel{Title: algo})
		}
		label := r.Name
		var col color.Color
		if proc, ok := r.Params["processor"]; ok {
			label = nn.PaperModel(proc)
			if c, ok := nn.ProcessorColor(proc); ok {
				col = c
			}
		}
		s := -1
		for k := range panels[p].Series {
			if panels[p].Series[k].Label == label {
				s = k
			}
		}
		if s < 0 {
			s = len(panels[p].Series)
			panels[p].Series = append(panels[p].Series, plots.Series{Label: label, Color: col})
		}
		panels[p].Series[s].Runs = append(panels[p].Series[s].Runs, c)
	}
	if points == 0 {
		return nil, fmt.Errorf("lab: none of the %d runs has a point of %s", len(rs), metric)
	}
	return plots.ValidationCurves(panels, o)
}
