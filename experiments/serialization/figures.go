package serialization

import (
	"fmt"

	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/graphtext/paper"
	"github.com/narlab/narlab/lib/metrics"
	"github.com/narlab/narlab/plots"
)

var syntaxLabels = []string{"Erdős", "JSON", "NetworkX", "PyG"}

// PaperSyntaxMeans draws the paper's Fig. 4 from its Table 6: mean
// accuracy over the 49 tasks per model and syntax.
func PaperSyntaxMeans() (*plots.Figure, error) {
	groups := make([]plots.BarGroup, 4)
	for j := range groups {
		groups[j].Label = syntaxLabels[j]
	}
	for _, m := range paper.Models {
		acc := paperSyntax(m)
		means, err := metrics.ColumnMeans(acc)
		if err != nil {
			return nil, err
		}
		for j := range groups {
			groups[j].Values = append(groups[j].Values, means[j])
		}
	}
	return plots.Bars(paper.Models, groups, plots.BarOptions{Title: "Mean accuracy by syntax (paper, Table 6)", ValueLabel: "accuracy (%)", Min: 0, Max: 100})
}

func paperSyntax(model string) [][]float64 {
	var acc [][]float64
	for _, r := range paper.SyntaxAccuracy[model] {
		acc = append(acc, []float64{r[0], r[1], r[2], r[3]})
	}
	return acc
}

// PaperSyntaxDelta draws Fig. 8b for one model: per-task accuracy
// difference (syntax − Erdős) for JSON, NetworkX and PyG.
func PaperSyntaxDelta(model string) (*plots.Figure, error) {
	acc := paperSyntax(model)
	if acc == nil {
		return nil, fmt.Errorf("serialization: no paper data for model %q; want one of %v", model, paper.Models)
	}
	return deltaBars(fmt.Sprintf("%s: accuracy difference vs Erdős syntax (paper, Table 6)", model), paper.TaskOrder, acc, syntaxLabels[1:])
}

// deltaBars draws, per task, column j − column 0 for j ≥ 1.
func deltaBars(title string, tasks []string, acc [][]float64, labels []string) (*plots.Figure, error) {
	groups := make([]plots.BarGroup, len(labels))
	for j := range groups {
		groups[j].Label = labels[j]
		for _, row := range acc {
			groups[j].Values = append(groups[j].Values, row[j+1]-row[0])
		}
	}
	return plots.Bars(tasks, groups, plots.BarOptions{Title: title, ValueLabel: "Δ accuracy (pp)", Horizontal: true})
}

// PaperEncodingDelta draws Fig. 3 for one model: per-task accuracy
// difference of the given encodings against E0 (Tables 3–5).
func PaperEncodingDelta(model string, encs []graphtext.Encoding) (*plots.Figure, error) {
	rows := paper.EncodingAccuracy[model]
	if rows == nil {
		return nil, fmt.Errorf("serialization: no paper data for model %q; want one of %v", model, paper.Models)
	}
	idx := map[graphtext.Encoding]int{}
	for i, e := range graphtext.Encodings() {
		idx[e] = i
	}
	var labels []string
	acc := make([][]float64, len(rows))
	for i, r := range rows {
		acc[i] = []float64{r[0]}
		for _, e := range encs {
			acc[i] = append(acc[i], r[idx[e]])
		}
	}
	for _, e := range encs {
		labels = append(labels, string(e)+" "+e.Name())
	}
	return deltaBars(fmt.Sprintf("%s: accuracy difference vs E0 (paper, Tables 3–5)", model), paper.TaskOrder, acc, labels)
}

// PaperEncodingHeatmap draws Fig. 7 for one model: |acc(config) − acc(E0)|
// for the 11 non-baseline encodings (rows: tasks).
func PaperEncodingHeatmap(model string) (*plots.Figure, error) {
	rows := paper.EncodingAccuracy[model]
	if rows == nil {
		return nil, fmt.Errorf("serialization: no paper data for model %q; want one of %v", model, paper.Models)
	}
	var cols []string
	for _, e := range graphtext.Encodings()[1:] {
		cols = append(cols, string(e))
	}
	vals := make([][]float64, len(rows))
	for i, r := range rows {
		for j := 1; j < 12; j++ {
			d := r[j] - r[0]
			if d < 0 {
				d = -d
			}
			vals[i] = append(vals[i], d)
		}
	}
	return plots.Heatmap(fmt.Sprintf("%s: |Δ accuracy| vs E0 (paper, Tables 3–5)", model), paper.TaskOrder, cols, vals)
}

// ReportDelta draws per-task accuracy differences of configurations against
// the baseline (E0/erdos/orig) from a scored run.
func ReportDelta(r *Report, configs []string, title string) (*plots.Figure, error) {
	acc, err := r.Accuracy(append([]string{Baseline}, configs...))
	if err != nil {
		return nil, err
	}
	return deltaBars(title, r.Tasks, acc, configs)
}

// ReportSyntaxMeans draws the run's mean accuracy per syntax (Fig. 4 for
// one model).
func ReportSyntaxMeans(r *Report, model string) (*plots.Figure, error) {
	syn := r.SyntaxConfigs()
	if len(syn) == 0 {
		return nil, fmt.Errorf("serialization: the run has no E0/<syntax>/orig configuration")
	}
	var groups []plots.BarGroup
	for _, c := range syn {
		groups = append(groups, plots.BarGroup{Label: c, Values: []float64{r.MeanAccuracy(c)}})
	}
	return plots.Bars([]string{model}, groups, plots.BarOptions{Title: "Mean accuracy by syntax (narlab run)", ValueLabel: "accuracy (%)", Min: 0, Max: 100})
}

// ReportSpread draws Fig. 2 for a run: the normalized output spread over
// relabelings per numerical task, and the matching relabeled accuracy.
func ReportSpread(r *Report, model string) (*plots.Figure, *plots.Figure, error) {
	var tasks []string
	var spread, acc []float64
	for _, t := range r.Tasks {
		sp, ok := r.Spread[t]
		if !ok {
			continue
		}
		tasks = append(tasks, t)
		spread = append(spread, sp.Mean)
		a, n := 0.0, 0
		for c, m := range r.Scores {
			if ts := m[t]; ts != nil && len(c) > 10 && c[len(c)-10:] == "/relabeled" {
				a += ts.Accuracy
				n++
			}
		}
		acc = append(acc, a/float64(max(n, 1)))
	}
	if len(tasks) == 0 {
		return nil, nil, fmt.Errorf("serialization: the run has no numerical task with ≥2 relabelings")
	}
	f1, err := plots.Bars(tasks, []plots.BarGroup{{Label: model, Values: spread}}, plots.BarOptions{Title: "Normalized output spread over relabelings", ValueLabel: "spread / answer range"})
	if err != nil {
		return nil, nil, err
	}
	f2, err := plots.Bars(tasks, []plots.BarGroup{{Label: model, Values: acc}}, plots.BarOptions{Title: "Accuracy on relabeled graphs", ValueLabel: "accuracy (%)", Min: 0, Max: 100})
	return f1, f2, err
}
