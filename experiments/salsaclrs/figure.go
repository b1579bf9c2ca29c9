package salsaclrs

import (
	"fmt"
	"slices"
	"sort"

	"github.com/narlab/narlab/lib/salsa"
	"github.com/narlab/narlab/plots"
)

// Point is one test score: an algorithm on the test set of one family and
// size (what a child run holds: params algorithm, family, n; metric
// test/score).
type Point struct {
	Algo, Family string
	N            int
	Score        float64
}

// Points are the test scores of results, in SALSA-CLRS's order of the
// algorithms.
func Points(results []Result) []Point {
	var out []Point
	for _, r := range inSALSAOrder(results) {
		for _, t := range r.Tests {
			out = append(out, Point{Algo: r.Algo, Family: t.Family, N: t.N, Score: t.Scores["score"]})
		}
	}
	return out
}

// Figure draws score against graph size, a panel per algorithm and a line
// per graph family (SALSA-CLRS's extrapolation figure).
func Figure(points []Point) (*plots.Figure, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("salsaclrs: no test scores to draw")
	}
	byAlgo := map[string]map[string][]Point{}
	for _, p := range points {
		if byAlgo[p.Algo] == nil {
			byAlgo[p.Algo] = map[string][]Point{}
		}
		byAlgo[p.Algo][p.Family] = append(byAlgo[p.Algo][p.Family], p)
	}
	// SALSA-CLRS's order of the algorithms, then any other alphabetically.
	order := salsa.Algorithms()
	rank := func(a string) int {
		if i := slices.Index(order, a); i >= 0 {
			return i
		}
		return len(order)
	}
	algos := make([]string, 0, len(byAlgo))
	for a := range byAlgo {
		algos = append(algos, a)
	}
	sort.Slice(algos, func(i, j int) bool {
		if ri, rj := rank(algos[i]), rank(algos[j]); ri != rj {
			return ri < rj
		}
		return algos[i] < algos[j]
	})
	var panels []plots.Panel
	for _, a := range algos {
		panel := plots.Panel{Title: a}
		families := make([]string, 0, len(byAlgo[a]))
		for f := range byAlgo[a] {
			families = append(families, f)
		}
		sort.Slice(families, func(i, j int) bool {
			if fi, fj := familyOrder(families[i]), familyOrder(families[j]); fi != fj {
				return fi < fj
			}
			return families[i] < families[j]
		})
		for _, f := range families {
			ps := slices.Clone(byAlgo[a][f])
			sort.Slice(ps, func(i, j int) bool { return ps[i].N < ps[j].N })
			var c plots.Curve
			for _, p := range ps {
				c.Steps = append(c.Steps, float64(p.N))
				c.Values = append(c.Values, p.Score)
			}
			panel.Series = append(panel.Series, plots.Series{Label: f, Runs: []plots.Curve{c}})
		}
		panels = append(panels, panel)
	}
	o := plots.DefaultCurveOptions()
	o.Cols = min(3, len(panels))
	o.Title = "Trained on graphs of at most 16 nodes, tested up to 1,600"
	o.XLabel, o.YLabel = "graph size n (log scale)", "test score (%)"
	o.LogX = true
	return plots.ValidationCurves(panels, o)
}
