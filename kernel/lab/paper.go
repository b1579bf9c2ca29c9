package lab

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"

	"github.com/narlab/narlab/experiments/clrs30"
	"github.com/narlab/narlab/kernel"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/clrs/paper"
	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/plots"
)

// BesidePaper displays the CLRS runs' results beside the CLRS paper's: per
// run its algorithm, processor, steps and width, its early-stopped
// validation score (val/best_score, n = 16) beside the paper's Table 4, its
// test score (test/score, n = 64) beside Table 2, its training speed and a
// link to the run. Scores are in percent; "–" where the paper has no
// number (a processor it did not test).
func (rs Runs) BesidePaper() {
	headers, rows := besidePaper(rs)
	showTable(headers, rows, "no runs to put beside the paper")
}

func besidePaper(rs Runs) ([]string, [][]cell) {
	headers := []string{"algorithm", "processor", "steps", "hidden", "best val, n = 16 (%)", "paper val (%)",
		"test, n = 64 (%)", "paper test (%)", "steps/s", "run"}
	var rows [][]cell
	for _, r := range rs {
		algo, proc := r.Params["algorithm"], r.Params["processor"]
		model := nn.PaperModel(proc)
		row := []cell{{text: algo}, {text: model}, {text: r.Value("params.train_steps")},
			{text: r.Value("params.hidden_size")},
			{text: r.Value("metrics." + clrs30.MetricBestVal + "%")}, {text: paperScore(paper.Validation, algo, model)},
			{text: r.Value("metrics." + clrs30.MetricTestScore + "%")}, {text: paperScore(paper.Test, algo, model)},
			{text: r.Value("metrics." + clrs30.MetricStepsPerS)}, {text: shortID(r.ID), url: r.URL}}
		rows = append(rows, row)
	}
	return headers, rows
}

func paperScore(table map[string]map[string]paper.Score, algo, model string) string {
	if s, ok := table[algo][model]; ok {
		return strconv.FormatFloat(s.Mean, 'f', 1, 64)
	}
	return "–"
}

// Group is a set of runs drawn as bars of their own, one per processor:
// "narlab MPNN, " + Label.
type Group struct {
	Label string
	Runs  Runs
}

// PaperBars draws, per algorithm, the CLRS paper's early-stopped validation
// scores (Table 4, with their spread) of the given processors ("mpnn",
// "pgn", …) beside the runs' val/best_score: one bar per group and
// processor that has runs (the first run of an algorithm and processor
// counts: pass Runs.Latest). The paper's bars are in its colours, each
// group's in a lighter (first group) or darker (second, …) shade of them; a
// missing run leaves a gap. With no groups it draws the paper's bars alone.
func PaperBars(algos, processors []string, groups ...Group) (*plots.Figure, error) {
	if len(algos) == 0 || len(processors) == 0 {
		return nil, fmt.Errorf("lab: PaperBars needs algorithms and processors")
	}
	cats, bars := paperBars(algos, processors, groups)
	title := "Early-stopped validation score (the paper's Table 4)"
	if len(groups) > 0 {
		title = "Validation score: the paper's bars and narlab's runs from MLflow"
	}
	return plots.Bars(cats, bars, plots.BarOptions{Title: title, ValueLabel: "micro-F1 (%)", Min: 0, Max: 100})
}

// paperBars are PaperBars' categories and bars.
func paperBars(algos, processors []string, groups []Group) ([]string, []plots.BarGroup) {
	cats := make([]string, len(algos))
	for i, a := range algos {
		cats[i] = a
		if name, ok := paper.TableName[a]; ok {
			cats[i] = name
		}
	}
	var bars []plots.BarGroup
	for _, p := range processors {
		model := nn.PaperModel(p)
		g := plots.BarGroup{Label: model, Color: shade(p, -1)}
		if len(groups) > 0 {
			g.Label += ", paper (Table 4)"
		}
		for _, a := range algos {
			v, e := math.NaN(), 0.0
			if s, ok := paper.Validation[a][model]; ok {
				v, e = s.Mean, s.Std
			}
			g.Values = append(g.Values, v)
			g.Errors = append(g.Errors, e)
		}
		bars = append(bars, g)
	}
	for gi, grp := range groups {
		for _, p := range processors {
			g := plots.BarGroup{Label: "narlab " + nn.PaperModel(p) + ", " + grp.Label, Color: shade(p, gi)}
			found := false
			for _, a := range algos {
				v := math.NaN()
				if rs := grp.Runs.Where("algorithm", a).Where("processor", p); len(rs) > 0 {
					if s, ok := rs[0].Metrics[clrs30.MetricBestVal]; ok {
						v, found = 100*s, true
					}
				}
				g.Values = append(g.Values, v)
			}
			if found {
				bars = append(bars, g)
			}
		}
	}
	return cats, bars
}

// shade is a processor's paper colour (group < 0), lightened for group 0 and
// darkened for the groups after it.
func shade(processor string, group int) color.Color {
	c, ok := nn.ProcessorColor(processor)
	if !ok {
		c = color.RGBA{0x7f, 0x7f, 0x7f, 0xff}
	}
	mix := func(to uint8, f float64) color.RGBA {
		m := func(v uint8) uint8 { return uint8(math.Round(float64(v) + f*(float64(to)-float64(v)))) }
		return color.RGBA{m(c.R), m(c.G), m(c.B), 0xff}
	}
	switch {
	case group < 0:
		return c
	case group == 0:
		return mix(0xff, 0.55)
	}
	return mix(0, math.Min(0.35+0.15*float64(group-1), 0.8))
}

// PaperResults is the CLRS paper's score table (paper.Test, Table 2, or
// paper.Validation, Table 4) as a results table: the 30 algorithms by their
// names in the paper, sorted, and the five models in the paper's order, with
// everything the paper derives from them (best per algorithm, averages,
// win/tie/loss) computed by plots.NewResultsTable.
func PaperResults(scores map[string]map[string]paper.Score) (*plots.ResultsTable, error) {
	var rs []plots.Result
	var rows []string
	for _, a := range clrs.CLRS30() {
		name := paper.TableName[a]
		rows = append(rows, name)
		for model, s := range scores[a] {
			rs = append(rs, plots.Result{Algorithm: name, Model: model, Mean: s.Mean, Std: s.Std})
		}
	}
	sort.Strings(rows)
	return plots.NewResultsTable(rs, rows, paper.Models)
}

// ShowClassAverages displays the CLRS paper's Table 1 computed from a
// results table of PaperResults: per algorithm class (paper.Class), each
// model's unweighted mean over the class's algorithms, and the overall
// average, the mean of the class means.
func ShowClassAverages(t *plots.ResultsTable) {
	headers, rows := classAverages(t)
	kernel.Table(headers, rows)
}

func classAverages(t *plots.ResultsTable) ([]string, [][]string) {
	group := map[string]string{}
	for alg, class := range paper.Class {
		group[paper.TableName[alg]] = class
	}
	classes, means, overall := t.GroupAverages(group)
	var rows [][]string
	row := func(name string, v []float64) {
		r := []string{name}
		for _, x := range v {
			r = append(r, strconv.FormatFloat(x, 'f', 2, 64))
		}
		rows = append(rows, r)
	}
	for i, c := range classes {
		row(c, means[i])
	}
	row("Overall average", overall)
	return append([]string{"class"}, t.Models...), rows
}
