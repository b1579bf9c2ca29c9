package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BarGroup is one series of a bar chart: a value per category, and
// optionally an error (drawn as ± bars).
type BarGroup struct {
	Label  string
	Values []float64
	Errors []float64
}

// BarOptions tunes Bars.
type BarOptions struct {
	Title, ValueLabel string
	// Horizontal draws categories down the y axis (better for many
	// categories, e.g. 49 tasks).
	Horizontal bool
	// Min and Max fix the value axis when Min < Max.
	Min, Max float64
}

// Bars draws a grouped bar chart: one group of bars per category, one
// colour per series.
func Bars(categories []string, groups []BarGroup, o BarOptions) (*Figure, error) {
	if len(categories) == 0 || len(groups) == 0 {
		return nil, fmt.Errorf("plots: Bars needs categories and at least one series")
	}
	p := plot.New()
	p.Title.Text = o.Title
	width := vg.Points(math.Max(3, math.Min(18, 300/float64(len(categories)*len(groups)))))
	for i, g := range groups {
		if len(g.Values) != len(categories) {
			return nil, fmt.Errorf("plots: series %q has %d values for %d categories", g.Label, len(g.Values), len(categories))
		}
		if g.Errors != nil && len(g.Errors) != len(categories) {
			return nil, fmt.Errorf("plots: series %q has %d errors for %d categories", g.Label, len(g.Errors), len(categories))
		}
		bc, err := plotter.NewBarChart(plotter.Values(g.Values), width)
		if err != nil {
			return nil, fmt.Errorf("plots: series %q: %w", g.Label, err)
		}
		bc.Horizontal = o.Horizontal
		bc.Color = seriesColor(g.Label, i)
		bc.LineStyle.Width = 0
		bc.Offset = width * vg.Length(float64(i)-float64(len(groups)-1)/2)
		p.Add(bc)
		if len(groups) > 1 {
			p.Legend.Add(g.Label, bc)
		}
		if g.Errors != nil {
			pts := make(plotter.XYs, len(g.Values))
			errs := make(plotter.YErrors, len(g.Values))
			for k := range g.Values {
				pts[k] = plotter.XY{X: float64(k), Y: g.Values[k]}
				errs[k].Low, errs[k].High = g.Errors[k], g.Errors[k]
			}
			if !o.Horizontal {
				eb, err := plotter.NewYErrorBars(struct {
					plotter.XYer
					plotter.YErrorer
				}{pts, errs})
				if err == nil {
					p.Add(eb)
				}
			}
		}
	}
	if o.Horizontal {
		p.NominalY(categories...)
		p.X.Label.Text = o.ValueLabel
		if o.Min < o.Max {
			p.X.Min, p.X.Max = o.Min, o.Max
		}
	} else {
		p.NominalX(categories...)
		p.Y.Label.Text = o.ValueLabel
		if o.Min < o.Max {
			p.Y.Min, p.Y.Max = o.Min, o.Max
		}
		if len(categories) > 8 {
			p.X.Tick.Label.Rotation = math.Pi / 3
			p.X.Tick.Label.XAlign = draw.XRight
			p.X.Tick.Label.YAlign = draw.YCenter
		}
	}
	p.Legend.Top = true
	w, h := 6*vg.Inch, 4*vg.Inch
	if o.Horizontal {
		h = vg.Length(math.Max(4, 0.18*float64(len(categories)))) * vg.Inch
	} else {
		w = vg.Length(math.Max(6, 0.25*float64(len(categories)*len(groups)))) * vg.Inch
	}
	return single(p, w, h), nil
}

// grid adapts a matrix to plotter.GridXYZ (row 0 drawn at the top).
type grid struct {
	v [][]float64
}

func (g grid) Dims() (c, r int)   { return len(g.v[0]), len(g.v) }
func (g grid) Z(c, r int) float64 { return g.v[len(g.v)-1-r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// Heatmap draws a matrix of values with row and column labels (row 0 at
// the top), coloured on a diverging blue–red scale from the smallest to the
// largest value, each cell labelled with its value (up to 600 cells).
func Heatmap(title string, rows, cols []string, values [][]float64) (*Figure, error) {
	if len(rows) == 0 || len(cols) == 0 || len(values) != len(rows) {
		return nil, fmt.Errorf("plots: Heatmap needs %d rows of values, got %d", len(rows), len(values))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, r := range values {
		if len(r) != len(cols) {
			return nil, fmt.Errorf("plots: Heatmap row %d has %d values for %d columns", i, len(r), len(cols))
		}
		for _, v := range r {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if lo == hi {
		hi = lo + 1
	}
	pal := moreland.SmoothBlueRed()
	pal.SetMin(lo)
	pal.SetMax(hi)
	p := plot.New()
	p.Title.Text = title
	hm := plotter.NewHeatMap(grid{values}, pal.Palette(64))
	hm.Min, hm.Max = lo, hi
	p.Add(hm)
	rev := make([]string, len(rows))
	for i, r := range rows {
		rev[len(rows)-1-i] = r
	}
	p.NominalX(cols...)
	p.NominalY(rev...)
	if len(cols) > 6 {
		p.X.Tick.Label.Rotation = math.Pi / 3
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	if len(rows)*len(cols) <= 600 {
		// Print each value in its cell, in black or white for contrast.
		labels := plotter.XYLabels{}
		for i, r := range values {
			for j, v := range r {
				if math.IsNaN(v) {
					continue
				}
				labels.XYs = append(labels.XYs, plotter.XY{X: float64(j), Y: float64(len(rows) - 1 - i)})
				labels.Labels = append(labels.Labels, strconv.FormatFloat(v, 'g', 3, 64))
			}
		}
		lab, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, err
		}
		k := 0
		for i, r := range values {
			for _, v := range r {
				if math.IsNaN(v) {
					continue
				}
				lab.TextStyle[k].XAlign, lab.TextStyle[k].YAlign = draw.XCenter, draw.YCenter
				lab.TextStyle[k].Font.Size = vg.Points(7)
				if f := (v - lo) / (hi - lo); f < 0.2 || f > 0.8 {
					lab.TextStyle[k].Color = color.White
				}
				k++
			}
			_ = i
		}
		p.Add(lab)
	}
	w := vg.Length(math.Max(5, 0.45*float64(len(cols))+2)) * vg.Inch
	h := vg.Length(math.Max(3, 0.25*float64(len(rows))+1.5)) * vg.Inch
	return single(p, w, h), nil
}
