package spectral

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/metrics"
	"github.com/narlab/narlab/plots"
)

// TaskResult is one predictor's score on one task.
type TaskResult struct {
	Task, Difficulty, Predictor string
	// Metrics are computed over the parsed predictions only.
	Metrics metrics.Regression
	// Parsed and Total count the predictions that were numbers.
	Parsed, Total int
	// Pred are the predictions per graph (NaN when unparsable).
	Pred []float64
}

// ParseRate is Parsed/Total.
func (r *TaskResult) ParseRate() float64 {
	if r.Total == 0 {
		return 0
	}
	return float64(r.Parsed) / float64(r.Total)
}

// Report holds the evaluation of several predictors on one dataset.
type Report struct {
	Dataset    *Dataset
	Predictors []string
	// Tasks are the evaluated tasks, in Table 7 order.
	Tasks []string
	// Results[predictor][task].
	Results map[string]map[string]*TaskResult
}

// Evaluate scores every predictor on the given tasks of d (all twelve
// when none are given).
func Evaluate(d *Dataset, preds []Predictor, tasks ...string) (*Report, error) {
	if len(tasks) == 0 {
		tasks = graphtext.SpectralTasks
	}
	var ordered []string
	for _, t := range graphtext.SpectralTasks {
		if slices.Contains(tasks, t) {
			ordered = append(ordered, t)
		}
	}
	for _, t := range tasks {
		if !graphtext.IsSpectralTask(t) {
			return nil, fmt.Errorf("spectral: unknown task %q; want one of %v", t, graphtext.SpectralTasks)
		}
	}
	if len(preds) == 0 {
		return nil, fmt.Errorf("spectral: no predictors to evaluate")
	}
	if len(d.Graphs) == 0 {
		return nil, fmt.Errorf("spectral: no graphs to evaluate on")
	}
	r := &Report{Dataset: d, Tasks: ordered, Results: map[string]map[string]*TaskResult{}}
	for _, p := range preds {
		name := p.Name()
		if _, dup := r.Results[name]; dup {
			return nil, fmt.Errorf("spectral: two predictors are named %q", name)
		}
		r.Predictors = append(r.Predictors, name)
		r.Results[name] = map[string]*TaskResult{}
		for _, task := range r.Tasks {
			yh, err := p.Predict(task, d)
			if err != nil {
				return nil, fmt.Errorf("spectral: %s on %s: %w", name, task, err)
			}
			if len(yh) != len(d.Graphs) {
				return nil, fmt.Errorf("spectral: %s gave %d predictions for %d graphs on %s", name, len(yh), len(d.Graphs), task)
			}
			tr := &TaskResult{Task: task, Difficulty: graphtext.SpectralDifficulty(task), Predictor: name, Total: len(yh), Pred: yh}
			var y, ok []float64
			for i, v := range yh {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					continue
				}
				y = append(y, d.Truth[task][i])
				ok = append(ok, v)
			}
			tr.Parsed = len(ok)
			if len(ok) > 0 {
				if tr.Metrics, err = metrics.Regress(y, ok); err != nil {
					return nil, fmt.Errorf("spectral: %s on %s: %w", name, task, err)
				}
			} else {
				tr.Metrics = metrics.Regression{RMSE: math.NaN(), NRMSERange: math.NaN(), NRMSEStd: math.NaN(),
					SMAPE100: math.NaN(), SMAPE200: math.NaN(), SMAPEMeanDenom: math.NaN(), MAE: math.NaN(), MAEMean: math.NaN(), RelMAE: math.NaN()}
			}
			r.Results[name][task] = tr
		}
	}
	return r, nil
}

// GroupMeans returns a predictor's metric averaged per difficulty group
// (the paper's Table 1 for metric "smape") and over all tasks ("All").
func (r *Report) GroupMeans(predictor, metric string) (map[string]float64, error) {
	var vals []float64
	var groups []string
	for _, task := range r.Tasks {
		v, err := r.Results[predictor][task].Metrics.Metric(metric)
		if err != nil {
			return nil, err
		}
		vals = append(vals, v)
		groups = append(groups, graphtext.SpectralDifficulty(task))
	}
	out, err := metrics.GroupMeans(vals, groups)
	if err != nil {
		return nil, err
	}
	all, _ := metrics.GroupMeans(vals, make([]string, len(vals)))
	out["All"] = all[""]
	return out, nil
}

// table returns metric[task][predictor].
func (r *Report) table(metric string) [][]float64 {
	var tab [][]float64
	for _, task := range r.Tasks {
		row := make([]float64, len(r.Predictors))
		for k, p := range r.Predictors {
			row[k], _ = r.Results[p][task].Metrics.Metric(metric)
		}
		tab = append(tab, row)
	}
	return tab
}

// GlobalError is the paper's global normalized error over the report's
// predictors (min–max over sMAPE and RelMAE, App. H), one per predictor.
func (r *Report) GlobalError() ([]float64, error) {
	return metrics.MinMaxGlobalError(r.table("smape"), r.table("relmae"))
}

// Wins counts per predictor the tasks where it has the lowest metric.
func (r *Report) Wins(metric string) []int { return metrics.Wins(r.table(metric)) }

// TableMetrics are the columns of the Table-10-style table, in the paper's
// order.
var TableMetrics = []string{"nrmse_std", "nrmse_range", "smape", "relmae"}

// Table returns the Table-10-style table: one row per task (Table 7
// order), columns task, difficulty, then each metric of [TableMetrics]
// for each predictor, then the parse rate per predictor.
func (r *Report) Table() (columns []string, rows [][]any) {
	columns = []string{"task", "difficulty"}
	for _, m := range TableMetrics {
		for _, p := range r.Predictors {
			columns = append(columns, m+"/"+p)
		}
	}
	for _, p := range r.Predictors {
		columns = append(columns, "parse_rate/"+p)
	}
	for _, task := range r.Tasks {
		row := []any{task, graphtext.SpectralDifficulty(task)}
		for _, m := range TableMetrics {
			for _, p := range r.Predictors {
				v, _ := r.Results[p][task].Metrics.Metric(m)
				row = append(row, v)
			}
		}
		for _, p := range r.Predictors {
			row = append(row, r.Results[p][task].ParseRate())
		}
		rows = append(rows, row)
	}
	return columns, rows
}

// Markdown renders [Report.Table] with 2 decimals (3 for parse rates).
func (r *Report) Markdown() string {
	cols, rows := r.Table()
	var b strings.Builder
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n|")
	for range cols {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, row := range rows {
		b.WriteString("|")
		for _, v := range row {
			switch x := v.(type) {
			case float64:
				fmt.Fprintf(&b, " %.2f |", x)
			default:
				fmt.Fprintf(&b, " %v |", x)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// DensityFigure draws the Figure-12-style grid: one panel per task, the
// kernel densities of the ground truth and of each predictor's parsed
// predictions, clipped to the 0.5–99.5 percentiles of the pooled values.
// A constant predictor (the mean baseline) has no density and is left out.
func (r *Report) DensityFigure(predictors ...string) (*plots.Figure, error) {
	if len(predictors) == 0 {
		predictors = r.Predictors
	}
	var panels []plots.DensityPanel
	for _, task := range r.Tasks {
		pn := plots.DensityPanel{Title: task, Sets: []plots.DensitySet{{Label: "ground truth", Values: r.Dataset.Truth[task]}}}
		for _, p := range predictors {
			tr, ok := r.Results[p][task]
			if !ok {
				return nil, fmt.Errorf("spectral: no results for predictor %q", p)
			}
			var vals []float64
			for _, v := range tr.Pred {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					vals = append(vals, v)
				}
			}
			if len(vals) > 1 && !constant(vals) {
				pn.Sets = append(pn.Sets, plots.DensitySet{Label: p, Values: vals})
			}
		}
		panels = append(panels, pn)
	}
	return plots.Densities(panels, 4)
}

func constant(x []float64) bool {
	for _, v := range x {
		if v != x[0] {
			return false
		}
	}
	return true
}

// Relabel returns g with node v renamed perm[v−1] (perm a permutation of
// 1..N) and its edges written (min, max) and sorted, as the paper's
// relabeling does (footnote 3).
func Relabel(g *graphtext.Graph, perm []int) (*graphtext.Graph, error) {
	if len(perm) != g.N {
		return nil, fmt.Errorf("spectral: permutation of length %d for %d nodes", len(perm), g.N)
	}
	seen := make([]bool, g.N+1)
	for _, p := range perm {
		if p < 1 || p > g.N || seen[p] {
			return nil, fmt.Errorf("spectral: %v is not a permutation of 1..%d", perm, g.N)
		}
		seen[p] = true
	}
	h := &graphtext.Graph{N: g.N, Weighted: g.Weighted, Directed: g.Directed}
	for _, e := range g.Edges {
		u, v := perm[e.U-1], perm[e.V-1]
		if !g.Directed && u > v {
			u, v = v, u
		}
		h.Edges = append(h.Edges, graphtext.Edge{U: u, V: v, W: e.W})
	}
	sortEdges(h.Edges)
	return h, nil
}

func sortEdges(es []graphtext.Edge) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && (es[j-1].U > es[j].U || es[j-1].U == es[j].U && es[j-1].V > es[j].V); j-- {
			es[j-1], es[j] = es[j], es[j-1]
		}
	}
}

// OutputSpread is the paper's normalized output spread under relabeling
// (§3.2 of the serialization notes, Fig. 2): for each graph, the
// predictor answers on k random relabelings (seeded); spread_i = (max −
// min of the parsed answers) / R, R = the range of the task's ground truth
// on d (1 when it is 0); the result is the mean over graphs with at least
// two parsed answers. 0 means perfectly invariant.
func OutputSpread(p Predictor, task string, d *Dataset, k int, seed uint64) (float64, error) {
	if k < 2 {
		return 0, fmt.Errorf("spectral: output spread needs at least 2 relabelings, got %d", k)
	}
	rng := rand.New(rand.NewPCG(seed, 0x737072656164))
	answers := make([][]float64, len(d.Graphs))
	for rep := 0; rep < k; rep++ {
		rel := &Dataset{IDs: d.IDs, Truth: d.Truth}
		for _, g := range d.Graphs {
			perm := rng.Perm(g.N)
			for j := range perm {
				perm[j]++
			}
			h, err := Relabel(g, perm)
			if err != nil {
				return 0, err
			}
			rel.Graphs = append(rel.Graphs, h)
		}
		yh, err := p.Predict(task, rel)
		if err != nil {
			return 0, err
		}
		for i, v := range yh {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				answers[i] = append(answers[i], v)
			}
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, y := range d.Truth[task] {
		lo, hi = math.Min(lo, y), math.Max(hi, y)
	}
	rangeT := hi - lo
	if !(rangeT > 0) {
		rangeT = 1
	}
	sum, n := 0.0, 0
	for _, a := range answers {
		if len(a) < 2 {
			continue
		}
		mn, mx := a[0], a[0]
		for _, v := range a {
			mn, mx = math.Min(mn, v), math.Max(mx, v)
		}
		sum += (mx - mn) / rangeT
		n++
	}
	if n == 0 {
		return math.NaN(), nil
	}
	return sum / float64(n), nil
}
