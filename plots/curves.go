package plots

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Curve is one run's values over training steps.
type Curve struct {
	Steps  []float64
	Values []float64
}

// Series is one line of a panel: a label, one curve per seed, and its
// colour (nil: the palette's, by the series' place in the panel).
type Series struct {
	Label string
	Runs  []Curve
	Color color.Color
}

// Panel is one subplot: a title (an algorithm) and its series.
type Panel struct {
	Title  string
	Series []Series
}

// CurveOptions tunes ValidationCurves.
type CurveOptions struct {
	// Cols is the number of panels per row (default 4).
	Cols int
	// Fraction says the values are fractions in [0, 1], drawn as percent
	// (default true through DefaultCurveOptions).
	Fraction bool
	// MinMax shades the range over seeds instead of ± one standard deviation.
	MinMax bool
	// XLabel and YLabel name the axes.
	XLabel, YLabel string
	// LogX draws the x axis on a log scale (positive steps only), with a
	// tick at each step that a curve has.
	LogX bool
	// Title is the figure title.
	Title string
}

// DefaultCurveOptions are the paper's: 4 panels per row, scores in
// [0, 100] %, ± one standard deviation shaded.
func DefaultCurveOptions() CurveOptions {
	return CurveOptions{Cols: 4, Fraction: true, XLabel: "training step", YLabel: "validation score (%)"}
}

// ValidationCurves draws one panel per algorithm with one line per
// processor: the mean over seeds, with the spread shaded, y fixed to
// [0, 100] % as in the CLRS paper's Figures 3 and 4.
func ValidationCurves(panels []Panel, o CurveOptions) (*Figure, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("plots: ValidationCurves needs at least one panel")
	}
	if o.Cols <= 0 {
		o.Cols = 4
	}
	cols := min(o.Cols, len(panels))
	rows := (len(panels) + cols - 1) / cols
	fig := &Figure{Title: o.Title, Panels: make([][]*plot.Plot, rows),
		Width: vg.Length(cols) * 3.2 * vg.Inch, Height: vg.Length(rows)*2.6*vg.Inch + 0.4*vg.Inch}
	scale := 1.0
	if o.Fraction {
		scale = 100
	}
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.Title
		p.X.Label.Text = o.XLabel
		if o.LogX {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = stepTicks(pn)
		}
		p.Y.Label.Text = o.YLabel
		p.Y.Min, p.Y.Max = 0, 100
		p.Legend.Top = false
		p.Legend.Left = false
		p.Legend.TextStyle.Font.Size = vg.Points(7)
		for k, s := range pn.Series {
			mean, lo, hi, steps, err := aggregate(s.Runs, o.MinMax)
			if err != nil {
				return nil, fmt.Errorf("plots: panel %q series %q: %w", pn.Title, s.Label, err)
			}
			col := seriesColor(s.Color, k)
			line := make(plotter.XYs, len(steps))
			band := make(plotter.XYs, 0, 2*len(steps))
			for j, x := range steps {
				line[j] = plotter.XY{X: x, Y: clamp(mean[j]*scale, 0, 100)}
				band = append(band, plotter.XY{X: x, Y: clamp(hi[j]*scale, 0, 100)})
			}
			for j := len(steps) - 1; j >= 0; j-- {
				band = append(band, plotter.XY{X: steps[j], Y: clamp(lo[j]*scale, 0, 100)})
			}
			if len(s.Runs) > 1 {
				poly, err := plotter.NewPolygon(band)
				if err != nil {
					return nil, err
				}
				r, g, b, _ := col.RGBA()
				poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x40}
				poly.LineStyle.Width = 0
				p.Add(poly)
			}
			l, err := plotter.NewLine(line)
			if err != nil {
				return nil, err
			}
			l.Color = col
			l.Width = vg.Points(1.5)
			p.Add(l)
			p.Legend.Add(s.Label, l)
		}
		fig.Panels[i/cols] = append(fig.Panels[i/cols], p)
	}
	fig.hoistLegend()
	return fig, nil
}

func clamp(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// aggregate aligns runs on the union of their steps (each run holds its
// last value between evaluations) and returns the mean and the spread.
func aggregate(runs []Curve, minmax bool) (mean, lo, hi, steps []float64, err error) {
	if len(runs) == 0 {
		return nil, nil, nil, nil, fmt.Errorf("no runs")
	}
	set := map[float64]bool{}
	for _, r := range runs {
		if len(r.Steps) != len(r.Values) || len(r.Steps) == 0 {
			return nil, nil, nil, nil, fmt.Errorf("a run has %d steps and %d values; want the same non-zero number", len(r.Steps), len(r.Values))
		}
		for _, s := range r.Steps {
			set[s] = true
		}
	}
	for s := range set {
		steps = append(steps, s)
	}
	sort.Float64s(steps)
	for _, x := range steps {
		var vals []float64
		for _, r := range runs {
			if v, ok := valueAt(r, x); ok {
				vals = append(vals, v)
			}
		}
		m, l, h := spread(vals, minmax)
		mean, lo, hi = append(mean, m), append(lo, l), append(hi, h)
	}
	return mean, lo, hi, steps, nil
}

// valueAt is the run's value at step x: the last evaluation at or before x.
func valueAt(r Curve, x float64) (float64, bool) {
	idx := sort.SearchFloat64s(r.Steps, x)
	if idx < len(r.Steps) && r.Steps[idx] == x {
		return r.Values[idx], true
	}
	if idx == 0 {
		return 0, false
	}
	return r.Values[idx-1], true
}

func spread(vals []float64, minmax bool) (mean, lo, hi float64) {
	if len(vals) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	sum := 0.0
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		sum += v
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	mean = sum / float64(len(vals))
	if minmax {
		return mean, lo, hi
	}
	ss := 0.0
	for _, v := range vals {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(len(vals)))
	return mean, mean - sd, mean + sd
}

// stepTicks marks every x value of a panel's curves on a log axis, and
// labels them from the largest down, leaving out the label of a value
// within a factor minLabelRatio of the last one labelled (80 and 160, or
// 800 and 1600, would overlap).
func stepTicks(pn Panel) plot.ConstantTicks {
	seen := map[float64]bool{}
	var ticks plot.ConstantTicks
	for _, s := range pn.Series {
		for _, c := range s.Runs {
			for _, x := range c.Steps {
				if !seen[x] {
					seen[x] = true
					ticks = append(ticks, plot.Tick{Value: x})
				}
			}
		}
	}
	sort.Slice(ticks, func(i, j int) bool { return ticks[i].Value < ticks[j].Value })
	last := math.Inf(1)
	for i := len(ticks) - 1; i >= 0; i-- {
		if x := ticks[i].Value; last/x >= minLabelRatio {
			ticks[i].Label = strconv.FormatFloat(x, 'g', -1, 64)
			last = x
		}
	}
	return ticks
}

// minLabelRatio is the smallest ratio of two labelled values on a log x
// axis (see stepTicks).
const minLabelRatio = 3
