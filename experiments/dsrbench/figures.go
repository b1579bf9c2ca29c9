package dsrbench

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/dsr/paper"
	"github.com/narlab/narlab/plots"
)

// Series is one model's (or run's) aggregate tables under a label.
type Series struct {
	Label  string
	Tables dsr.Tables
}

// CategoryAxes are the radar chart's six axes, in the paper's order.
func CategoryAxes() []string {
	var out []string
	for _, c := range dsr.Categories() {
		out = append(out, c.String())
	}
	return out
}

// CategoryValues returns a table's category scores (binary and
// Levenshtein) on the six [CategoryAxes], and whether each category has
// results (a category without results reads 0).
func CategoryValues(t dsr.Tables) (binary, levenshtein []float64, present []bool) {
	for _, c := range dsr.Categories() {
		var s dsr.Scores
		ok := false
		for _, cs := range t.Categories {
			if cs.Category == c {
				s, ok = cs.Scores, true
			}
		}
		binary = append(binary, s.Binary)
		levenshtein = append(levenshtein, s.Levenshtein)
		present = append(present, ok)
	}
	return binary, levenshtein, present
}

// CategoryRadar draws the paper's Figure 2 (right): one polygon per series
// over the six relationship categories, binary scores from 0 at the centre
// to 1 at the rim. The axis of a category that no series has results for
// is labelled "(no data)"; a series has no point on a category it has no
// results for.
func CategoryRadar(title string, series ...Series) (*plots.Figure, error) {
	return categoryRadar(title, false, series)
}

func categoryRadar(title string, withLev bool, series []Series) (*plots.Figure, error) {
	if len(series) == 0 {
		return nil, errors.New("dsrbench: CategoryRadar needs at least one series")
	}
	axes := CategoryAxes()
	seen := make([]bool, len(axes))
	var rs []plots.RadarSeries
	for _, s := range series {
		b, l, present := CategoryValues(s.Tables)
		for i, p := range present {
			seen[i] = seen[i] || p
			if !p { // no result: a gap in the outline, not a 0
				b[i], l[i] = math.NaN(), math.NaN()
			}
		}
		if withLev {
			rs = append(rs, plots.RadarSeries{Label: "exact match", Values: b}, plots.RadarSeries{Label: "Levenshtein", Values: l})
		} else {
			rs = append(rs, plots.RadarSeries{Label: s.Label, Values: b})
		}
	}
	for i, ok := range seen {
		if !ok {
			axes[i] += " (no data)"
		}
	}
	return plots.Radar(title, axes, rs, 1)
}

// StructureBars draws per-structure bars (the paper's Table 2 rows): one
// horizontal bar group per structure (paper order; only structures with
// results), one bar per series (binary score).
func StructureBars(title string, series ...Series) (*plots.Figure, error) {
	return structureBars(title, false, series)
}

// RunFigures draws one scoring run's category radar and per-structure
// bars, each with the binary (exact match) and Levenshtein scores side by
// side: the figures `narlab dsr score` logs.
func RunFigures(label string, t dsr.Tables) (radar, bars *plots.Figure, err error) {
	s := []Series{{Label: label, Tables: t}}
	if bars, err = structureBars("Score per structure: "+label, true, s); err != nil {
		return nil, nil, err
	}
	if radar, err = categoryRadar("Score per category: "+label, true, s); err != nil {
		return nil, nil, err
	}
	return radar, bars, nil
}

func structureBars(title string, withLev bool, series []Series) (*plots.Figure, error) {
	if len(series) == 0 {
		return nil, errors.New("dsrbench: StructureBars needs at least one series")
	}
	var titles []string
	index := map[string]int{}
	for _, info := range dsr.Structures() {
		for _, s := range series {
			if hasStructure(s.Tables, info.Name) {
				index[info.Name] = len(titles)
				titles = append(titles, info.Title)
				break
			}
		}
	}
	if len(titles) == 0 {
		return nil, errors.New("dsrbench: no structure scores to draw (only realistic or extra tasks were scored?)")
	}
	blank := func() []float64 {
		v := make([]float64, len(titles))
		for i := range v {
			v[i] = math.NaN()
		}
		return v
	}
	var groups []plots.BarGroup
	for _, s := range series {
		b := plots.BarGroup{Label: s.Label, Values: blank()}
		l := plots.BarGroup{Label: "Levenshtein", Values: blank()}
		for _, st := range s.Tables.Structures {
			b.Values[index[st.Structure]] = st.Binary
			l.Values[index[st.Structure]] = st.Levenshtein
		}
		if withLev {
			b.Label = "exact match"
			groups = append(groups, b, l)
		} else {
			groups = append(groups, b)
		}
	}
	return plots.Bars(titles, groups, plots.BarOptions{Title: title, ValueLabel: "score", Horizontal: true, Min: 0, Max: 1})
}

func hasStructure(t dsr.Tables, name string) bool {
	for _, s := range t.Structures {
		if s.Structure == name {
			return true
		}
	}
	return false
}

// OverallBars draws the paper's Figure 2 (left): each series' overall
// binary score, sorted from the highest down.
func OverallBars(title string, series ...Series) (*plots.Figure, error) {
	if len(series) == 0 {
		return nil, errors.New("dsrbench: OverallBars needs at least one series")
	}
	sorted := append([]Series(nil), series...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Tables.Overall.Binary > sorted[j].Tables.Overall.Binary })
	var labels []string
	g := plots.BarGroup{Label: "overall"}
	for _, s := range sorted {
		if len(s.Tables.Categories) == 0 {
			return nil, fmt.Errorf("dsrbench: series %q has no category scores, so no overall score", s.Label)
		}
		labels = append(labels, s.Label)
		g.Values = append(g.Values, s.Tables.Overall.Binary)
	}
	return plots.Bars(labels, []plots.BarGroup{g}, plots.BarOptions{Title: title, ValueLabel: "overall score", Min: 0, Max: 1})
}

// PaperFigure2 redraws the paper's Figure 2 from Table 2: the overall
// scores of the 13 models (left) and the category radar of the models
// named in radarModels (right; the paper shows the top five), all
// aggregated by lib/dsr from the per-structure rows.
func PaperFigure2(radarModels ...string) (overall, radar *plots.Figure, err error) {
	var all, top []Series
	for _, m := range paper.Models {
		t, err := paper.Tables(m)
		if err != nil {
			return nil, nil, err
		}
		all = append(all, Series{Label: m, Tables: t})
	}
	for _, m := range radarModels {
		i, err := paper.ModelIndex(paper.Models, m)
		if err != nil {
			return nil, nil, err
		}
		top = append(top, all[i])
	}
	if len(top) == 0 {
		return nil, nil, errors.New("dsrbench: PaperFigure2 needs at least one model for the radar")
	}
	if overall, err = OverallBars("DSR-Bench overall score (Table 2)", all...); err != nil {
		return nil, nil, err
	}
	if radar, err = CategoryRadar("Score per category (Table 2)", top...); err != nil {
		return nil, nil, err
	}
	return overall, radar, nil
}
