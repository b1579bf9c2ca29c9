package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// RadarSeries is one polygon of a radar chart: a value per axis.
type RadarSeries struct {
	Label  string
	Values []float64
}

// Radar draws a radar (spider) chart: one spoke per axis, values scaled so
// that max reaches the rim, with concentric guide rings at 25 % steps (as
// DSR-Bench's Figure 2 shows category scores). A NaN value is a missing
// one: no dot, and the outline breaks there.
func Radar(title string, axes []string, series []RadarSeries, maxValue float64) (*Figure, error) {
	k := len(axes)
	if k < 3 {
		return nil, fmt.Errorf("plots: Radar needs at least 3 axes, got %d", k)
	}
	if !(maxValue > 0) {
		return nil, fmt.Errorf("plots: Radar needs a positive maximum, got %v", maxValue)
	}
	angle := func(i int) float64 { return math.Pi/2 - 2*math.Pi*float64(i)/float64(k) }
	p := plot.New()
	p.Title.Text = title
	p.HideAxes()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -1.35, 1.35, -1.2, 1.2
	grey := color.Gray{Y: 0xbb}
	for _, r := range []float64{0.25, 0.5, 0.75, 1} {
		ring := make(plotter.XYs, k+1)
		for i := 0; i <= k; i++ {
			ring[i] = plotter.XY{X: r * math.Cos(angle(i%k)), Y: r * math.Sin(angle(i%k))}
		}
		l, _ := plotter.NewLine(ring)
		l.Color, l.Width = grey, vg.Points(0.5)
		p.Add(l)
	}
	labels := plotter.XYLabels{}
	for i, a := range axes {
		spoke, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: math.Cos(angle(i)), Y: math.Sin(angle(i))}})
		spoke.Color, spoke.Width = grey, vg.Points(0.5)
		p.Add(spoke)
		labels.XYs = append(labels.XYs, plotter.XY{X: 1.12 * math.Cos(angle(i)), Y: 1.12 * math.Sin(angle(i))})
		labels.Labels = append(labels.Labels, a)
	}
	lab, err := plotter.NewLabels(labels)
	if err != nil {
		return nil, err
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].XAlign = draw.XCenter
		lab.TextStyle[i].YAlign = draw.YCenter
		lab.TextStyle[i].Font.Size = vg.Points(8)
	}
	p.Add(lab)
	for s, se := range series {
		if len(se.Values) != k {
			return nil, fmt.Errorf("plots: radar series %q has %d values for %d axes", se.Label, len(se.Values), k)
		}
		col := seriesColor(nil, s)
		// The outline joins neighbouring axes that both have a value (NaN:
		// no value, the outline breaks there); every value also gets a dot,
		// so a series at 0 on every axis shows as a dot at the centre
		// rather than vanishing, and the legend says so.
		var dots plotter.XYs
		allZero := true
		var line *plotter.Line
		for i := 0; i < k; i++ {
			a, b := se.Values[i], se.Values[(i+1)%k]
			if math.IsNaN(a) {
				continue
			}
			allZero = allZero && a == 0
			pa := radarPoint(a, maxValue, angle(i))
			dots = append(dots, pa)
			if math.IsNaN(b) {
				continue
			}
			l, err := plotter.NewLine(plotter.XYs{pa, radarPoint(b, maxValue, angle((i+1)%k))})
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = col, vg.Points(1.5)
			p.Add(l)
			line = l
		}
		label := se.Label
		if len(dots) > 0 {
			sc, err := plotter.NewScatter(dots)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			sc.GlyphStyle.Radius = vg.Points(3)
			sc.GlyphStyle.Color = col
			p.Add(sc)
			if allZero {
				label += " (0 on every axis)"
			}
			if line != nil {
				p.Legend.Add(label, line, sc)
			} else {
				p.Legend.Add(label, sc)
			}
		}
	}
	fig := single(p, 6*vg.Inch, 5*vg.Inch)
	fig.hoistLegend()
	return fig, nil
}

// radarPoint places value v (clamped to [0, maxValue]) on the spoke at angle a.
func radarPoint(v, maxValue, a float64) plotter.XY {
	r := math.Max(0, math.Min(1, v/maxValue))
	return plotter.XY{X: r * math.Cos(a), Y: r * math.Sin(a)}
}
