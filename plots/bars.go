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
	// Color is the group's colour (nil: the palette's, by the group's
	// place).
	Color color.Color
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

// maxBarRows is the most categories a horizontal bar chart stacks in one
// column; more are split over columns side by side (49 tasks: two columns
// of 25 and 24), so the figure stays about as wide as it is tall.
const maxBarRows = 25

// Bars draws a grouped bar chart: one group of bars per category, one
// colour per series, with ± error bars where given. A horizontal chart of
// more than 25 categories is split into side-by-side columns on one value
// axis. The legend (with two or more series) is drawn beside the bars.
func Bars(categories []string, groups []BarGroup, o BarOptions) (*Figure, error) {
	if len(categories) == 0 || len(groups) == 0 {
		return nil, fmt.Errorf("plots: Bars needs categories and at least one series")
	}
	lo, hi := 0.0, 0.0
	for _, g := range groups {
		if len(g.Values) != len(categories) {
			return nil, fmt.Errorf("plots: series %q has %d values for %d categories", g.Label, len(g.Values), len(categories))
		}
		if g.Errors != nil && len(g.Errors) != len(categories) {
			return nil, fmt.Errorf("plots: series %q has %d errors for %d categories", g.Label, len(g.Errors), len(categories))
		}
		for k, v := range g.Values {
			if math.IsNaN(v) {
				continue
			}
			e := 0.0
			if g.Errors != nil {
				e = g.Errors[k]
			}
			lo, hi = math.Min(lo, v-e), math.Max(hi, v+e)
		}
	}
	if o.Min < o.Max {
		lo, hi = o.Min, o.Max
	}
	if lo == hi {
		hi = lo + 1
	}
	if !o.Horizontal || len(categories) <= maxBarRows {
		p, err := barPlot(categories, groups, o, lo, hi)
		if err != nil {
			return nil, err
		}
		width, height := 7.5*vg.Inch, 4.5*vg.Inch
		if o.Horizontal {
			height = vg.Length(math.Max(4, 0.28*float64(len(categories))+0.06*float64(len(categories)*(len(groups)-1))+1.2)) * vg.Inch
		} else {
			// At least a third of an inch per category, so that the
			// slanted labels do not run into each other.
			per := math.Max(0.2*float64(len(groups)), 0.34)
			width = vg.Length(math.Max(7.5, per*float64(len(categories))+1.5)) * vg.Inch
		}
		fig := single(p, width, height)
		fig.hoistLegend() // beside the bars, not over them
		return fig, nil
	}
	cols := (len(categories) + maxBarRows - 1) / maxBarRows
	per := (len(categories) + cols - 1) / cols
	fig := &Figure{Title: o.Title, Panels: [][]*plot.Plot{nil}}
	sub := o
	sub.Title = ""
	for c := 0; c < len(categories); c += per {
		end := min(c+per, len(categories))
		part := make([]BarGroup, len(groups))
		for i, g := range groups {
			part[i] = BarGroup{Label: g.Label, Values: g.Values[c:end], Color: g.Color}
			if g.Errors != nil {
				part[i].Errors = g.Errors[c:end]
			}
		}
		p, err := barPlot(categories[c:end], part, sub, lo, hi)
		if err != nil {
			return nil, err
		}
		fig.Panels[0] = append(fig.Panels[0], p)
	}
	fig.Width = vg.Length(cols) * 4.6 * vg.Inch
	fig.Height = vg.Length(math.Max(4, 0.28*float64(per)+0.06*float64(per*(len(groups)-1))+1.2))*vg.Inch + fig.titleHeight()
	fig.hoistLegend()
	return fig, nil
}

// barPlot draws one panel of Bars with the value axis on [lo, hi].
func barPlot(categories []string, groups []BarGroup, o BarOptions, lo, hi float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = o.Title
	// Bars are drawn as polygons in data units: category k spans
	// [k-0.4, k+0.4], split evenly among the series.
	w := 0.8 / float64(len(groups))
	for i, g := range groups {
		col := seriesColor(g.Color, i)
		var legendThumb plot.Thumbnailer
		for k, v := range g.Values {
			if math.IsNaN(v) {
				continue
			}
			pos := float64(k)
			if o.Horizontal {
				// The first category at the top, series in legend order downwards.
				pos = float64(len(categories)-1-k) + 0.8 - 2*w*float64(i) - w
			}
			c0 := pos - 0.4 + w*float64(i)
			rect := plotter.XYs{{X: c0, Y: 0}, {X: c0 + w, Y: 0}, {X: c0 + w, Y: v}, {X: c0, Y: v}}
			var errLo, errHi float64
			if g.Errors != nil {
				errLo, errHi = v-g.Errors[k], v+g.Errors[k]
			}
			if o.Horizontal {
				rect = swapXY(rect)
			}
			poly, err := plotter.NewPolygon(rect)
			if err != nil {
				return nil, err
			}
			poly.Color = col
			poly.LineStyle.Width = 0
			p.Add(poly)
			legendThumb = poly
			if g.Errors != nil && g.Errors[k] > 0 {
				mid := c0 + w/2
				seg := plotter.XYs{{X: mid, Y: errLo}, {X: mid, Y: errHi}}
				capLo := plotter.XYs{{X: mid - w/4, Y: errLo}, {X: mid + w/4, Y: errLo}}
				capHi := plotter.XYs{{X: mid - w/4, Y: errHi}, {X: mid + w/4, Y: errHi}}
				for _, line := range []plotter.XYs{seg, capLo, capHi} {
					if o.Horizontal {
						line = swapXY(line)
					}
					l, err := plotter.NewLine(line)
					if err != nil {
						return nil, err
					}
					l.Width = vg.Points(0.8)
					p.Add(l)
				}
			}
		}
		if len(groups) > 1 && legendThumb != nil {
			p.Legend.Add(g.Label, legendThumb)
		}
	}
	if o.Horizontal {
		rev := make([]string, len(categories))
		for k, c := range categories {
			rev[len(categories)-1-k] = c
		}
		p.NominalY(rev...)
		p.X.Label.Text = o.ValueLabel
		p.X.Min, p.X.Max = lo, hi
		p.Y.Min, p.Y.Max = -0.6, float64(len(categories))-0.4
	} else {
		p.NominalX(categories...)
		p.Y.Label.Text = o.ValueLabel
		p.Y.Min, p.Y.Max = lo, hi
		p.X.Min, p.X.Max = -0.6, float64(len(categories))-0.4
		switch {
		case len(categories) > 12: // upright labels: one line of text per category
			p.X.Tick.Label.Rotation = math.Pi / 2
			p.X.Tick.Label.XAlign = draw.XRight
			p.X.Tick.Label.YAlign = draw.YCenter
		case len(categories) > 6:
			p.X.Tick.Label.Rotation = math.Pi / 4
			p.X.Tick.Label.XAlign = draw.XRight
			p.X.Tick.Label.YAlign = draw.YCenter
		}
	}
	return p, nil
}

func swapXY(pts plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, q := range pts {
		out[i] = plotter.XY{X: q.Y, Y: q.X}
	}
	return out
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
				lab.TextStyle[k].Font.Size = vg.Points(9)
				if f := (v - lo) / (hi - lo); f < 0.2 || f > 0.8 {
					lab.TextStyle[k].Color = color.White
				}
				k++
			}
			_ = i
		}
		p.Add(lab)
	}
	// Cells wide and tall enough for their 9-point values.
	w := vg.Length(math.Max(7.5, 0.6*float64(len(cols))+2.5)) * vg.Inch
	h := vg.Length(math.Max(3.5, 0.32*float64(len(rows))+2)) * vg.Inch
	return single(p, w, h), nil
}
