package plots

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// DensitySet is one distribution of values (ground truth, or one
// predictor's answers).
type DensitySet struct {
	Label  string
	Values []float64
}

// DensityPanel is one subplot: a title (a task) and its distributions.
type DensityPanel struct {
	Title string
	Sets  []DensitySet
}

// Densities draws kernel-density curves of value distributions, one panel
// per task, the way "Lost in Serialization" compares predictions with
// ground truth (its Figure 12): all sets of a panel are clipped to the
// 0.5–99.5 percentiles of their pooled values, and each curve is a Gaussian
// kernel density with Silverman's bandwidth. A panel whose values span two
// decades or more is drawn on a log x axis, its density taken over log10 of
// the values.
func Densities(panels []DensityPanel, cols int) (*Figure, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("plots: Densities needs at least one panel")
	}
	if cols <= 0 {
		cols = 4
	}
	cols = min(cols, len(panels))
	rows := (len(panels) + cols - 1) / cols
	fig := &Figure{Panels: make([][]*plot.Plot, rows), Width: vg.Length(cols) * 3.2 * vg.Inch, Height: vg.Length(rows) * 2.6 * vg.Inch}
	for i, pn := range panels {
		var pooled []float64
		for _, s := range pn.Sets {
			for _, v := range s.Values {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					pooled = append(pooled, v)
				}
			}
		}
		if len(pooled) == 0 {
			return nil, fmt.Errorf("plots: panel %q has no finite values", pn.Title)
		}
		sort.Float64s(pooled)
		lo, hi := Percentile(pooled, 0.5), Percentile(pooled, 99.5)
		if lo == hi {
			lo, hi = lo-0.5, hi+0.5
		}
		// Values spanning two decades or more (estrada_index: 10 to
		// 200,000) get a log x axis, with the density taken over log10 of
		// the values; on a linear axis they would be one spike at the left.
		logX := lo > 0 && hi/lo >= 100
		p := plot.New()
		p.Title.Text = pn.Title
		if logX {
			p.Title.Text += " (log scale)"
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		}
		p.Legend.Top = true
		p.Legend.TextStyle.Font.Size = vg.Points(7)
		for k, s := range pn.Sets {
			var clipped []float64
			for _, v := range s.Values {
				if v >= lo && v <= hi {
					clipped = append(clipped, v)
				}
			}
			if len(clipped) == 0 {
				continue
			}
			var xs, ys []float64
			if logX {
				logs := make([]float64, len(clipped))
				for j, v := range clipped {
					logs[j] = math.Log10(v)
				}
				xs, ys = KDE(logs, math.Log10(lo), math.Log10(hi), 200)
				for j := range xs {
					xs[j] = math.Pow(10, xs[j])
				}
			} else {
				xs, ys = KDE(clipped, lo, hi, 200)
			}
			pts := make(plotter.XYs, len(xs))
			for j := range xs {
				pts[j] = plotter.XY{X: xs[j], Y: ys[j]}
			}
			l, err := plotter.NewLine(pts)
			if err != nil {
				return nil, err
			}
			l.Color = seriesColor(nil, k)
			l.Width = vg.Points(1.5)
			p.Add(l)
			p.Legend.Add(s.Label, l)
		}
		fig.Panels[i/cols] = append(fig.Panels[i/cols], p)
	}
	fig.hoistLegend()
	return fig, nil
}

// Percentile returns the q-th percentile (0–100) of sorted values with
// linear interpolation, as numpy.percentile's default does.
func Percentile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q / 100 * float64(len(sorted)-1)
	i := int(math.Floor(pos))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i] + f*(sorted[i+1]-sorted[i])
}

// KDE evaluates a Gaussian kernel density estimate of values at n points
// evenly spaced over [lo, hi], with Silverman's rule-of-thumb bandwidth
// 0.9·min(σ, IQR/1.34)·n^(−1/5) (falling back to a small positive width
// for constant data).
func KDE(values []float64, lo, hi float64, n int) (xs, ys []float64) {
	m := float64(len(values))
	mean := 0.0
	for _, v := range values {
		mean += v
	}
	mean /= m
	ss := 0.0
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / math.Max(m-1, 1))
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	iqr := Percentile(sorted, 75) - Percentile(sorted, 25)
	spreadEst := sd
	if iqr > 0 && iqr/1.34 < spreadEst {
		spreadEst = iqr / 1.34
	}
	bw := 0.9 * spreadEst * math.Pow(m, -0.2)
	if !(bw > 0) {
		bw = math.Max((hi-lo)/50, 1e-9)
	}
	xs, ys = make([]float64, n), make([]float64, n)
	norm := 1 / (m * bw * math.Sqrt(2*math.Pi))
	for i := range xs {
		x := lo + (hi-lo)*float64(i)/float64(n-1)
		s := 0.0
		for _, v := range values {
			z := (x - v) / bw
			s += math.Exp(-0.5 * z * z)
		}
		xs[i], ys[i] = x, s*norm
	}
	return xs, ys
}
