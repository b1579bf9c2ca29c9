package plots

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"strings"
)

// Result is one model's score on one algorithm: a mean and a spread
// (standard deviation, or whatever ± the source reports) over seeds.
type Result struct {
	Algorithm, Model string
	Mean, Std        float64
}

// Cell is one entry of a ResultsTable.
type Cell struct {
	Mean, Std float64
	Present   bool
	// Best marks the highest mean of the algorithm's row.
	Best bool
	// Outcome is 'W', 'T' or 'L' under the paper's rule (0 when the row is
	// incomplete).
	Outcome byte
}

// ResultsTable is a per-algorithm results table, computed from results:
// the best model per algorithm, each model's unweighted average over
// algorithms, and win/tie/loss counts by the CLRS paper's rule (Appendix C):
// model A outperforms B on an algorithm when mean(A) − std(A) > mean(B); A
// wins if it outperforms every other model, loses if some model outperforms
// it, and ties otherwise.
type ResultsTable struct {
	Algorithms []string
	Models     []string
	// Cells is indexed [algorithm][model].
	Cells [][]Cell
	// Average is each model's mean over the algorithms it has results for.
	Average []float64
	// Wins, Ties and Losses count outcomes per model over complete rows.
	Wins, Ties, Losses []int
}

// NewResultsTable builds the table. algorithms and models fix the row and
// column order; when nil, the order of first appearance in results is used.
func NewResultsTable(results []Result, algorithms, models []string) (*ResultsTable, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("plots: NewResultsTable needs at least one result")
	}
	algIdx, modIdx := map[string]int{}, map[string]int{}
	for i, a := range algorithms {
		algIdx[a] = i
	}
	for i, m := range models {
		modIdx[m] = i
	}
	fixedAlgs, fixedModels := algorithms != nil, models != nil
	algorithms, models = append([]string(nil), algorithms...), append([]string(nil), models...)
	for _, r := range results {
		if _, ok := algIdx[r.Algorithm]; !ok {
			if fixedAlgs {
				return nil, fmt.Errorf("plots: result for algorithm %q, which is not among the table's rows", r.Algorithm)
			}
			algIdx[r.Algorithm] = len(algIdx)
			algorithms = append(algorithms, r.Algorithm)
		}
		if _, ok := modIdx[r.Model]; !ok {
			if fixedModels {
				return nil, fmt.Errorf("plots: result for model %q, which is not among the table's columns", r.Model)
			}
			modIdx[r.Model] = len(modIdx)
			models = append(models, r.Model)
		}
	}
	t := &ResultsTable{Algorithms: algorithms, Models: models, Cells: make([][]Cell, len(algorithms)),
		Average: make([]float64, len(models)), Wins: make([]int, len(models)), Ties: make([]int, len(models)),
		Losses: make([]int, len(models))}
	for i := range t.Cells {
		t.Cells[i] = make([]Cell, len(models))
	}
	for _, r := range results {
		c := &t.Cells[algIdx[r.Algorithm]][modIdx[r.Model]]
		if c.Present {
			return nil, fmt.Errorf("plots: two results for %s / %s", r.Algorithm, r.Model)
		}
		if math.IsNaN(r.Mean) || math.IsNaN(r.Std) {
			return nil, fmt.Errorf("plots: result for %s / %s is NaN", r.Algorithm, r.Model)
		}
		*c = Cell{Mean: r.Mean, Std: r.Std, Present: true}
	}
	counts := make([]int, len(models))
	for _, row := range t.Cells {
		best, complete := -1, true
		for j, c := range row {
			if !c.Present {
				complete = false
				continue
			}
			t.Average[j] += c.Mean
			counts[j]++
			if best < 0 || c.Mean > row[best].Mean {
				best = j
			}
		}
		for j := range row {
			if row[j].Present && row[j].Mean == row[best].Mean {
				row[j].Best = true
			}
		}
		if !complete || len(models) < 2 {
			continue
		}
		for j := range row {
			beatsAll, beaten := true, false
			for k := range row {
				if k == j {
					continue
				}
				if !outperforms(row[j], row[k]) {
					beatsAll = false
				}
				if outperforms(row[k], row[j]) {
					beaten = true
				}
			}
			switch {
			case beatsAll:
				row[j].Outcome = 'W'
				t.Wins[j]++
			case beaten:
				row[j].Outcome = 'L'
				t.Losses[j]++
			default:
				row[j].Outcome = 'T'
				t.Ties[j]++
			}
		}
	}
	for j := range t.Average {
		if counts[j] > 0 {
			t.Average[j] /= float64(counts[j])
		} else {
			t.Average[j] = math.NaN()
		}
	}
	return t, nil
}

// outperforms is the paper's rule: mean(a) − std(a) > mean(b).
func outperforms(a, b Cell) bool { return a.Mean-a.Std > b.Mean }

// Markdown renders the table with the best score of each row in bold, an
// average row and a win/tie/loss row.
func (t *ResultsTable) Markdown() string {
	var b strings.Builder
	b.WriteString("| Algorithm | " + strings.Join(t.Models, " | ") + " |\n|---|")
	b.WriteString(strings.Repeat("---|", len(t.Models)) + "\n")
	for i, a := range t.Algorithms {
		b.WriteString("| " + a + " |")
		for _, c := range t.Cells[i] {
			s := "—"
			if c.Present {
				s = fmt.Sprintf("%.2f ± %.2f", c.Mean, c.Std)
				if c.Best {
					s = "**" + s + "**"
				}
			}
			b.WriteString(" " + s + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("| Average |")
	for _, v := range t.Average {
		b.WriteString(fmt.Sprintf(" %.2f |", v))
	}
	b.WriteString("\n| Win/Tie/Loss |")
	for j := range t.Models {
		b.WriteString(fmt.Sprintf(" %d/%d/%d |", t.Wins[j], t.Ties[j], t.Losses[j]))
	}
	b.WriteString("\n")
	return b.String()
}

// HTML renders the table as an HTML <table> (best scores in bold), for
// notebooks.
func (t *ResultsTable) HTML() string {
	var b strings.Builder
	b.WriteString(`<table class="narlab-results"><thead><tr><th>Algorithm</th>`)
	for _, m := range t.Models {
		b.WriteString("<th>" + html.EscapeString(m) + "</th>")
	}
	b.WriteString("</tr></thead><tbody>")
	for i, a := range t.Algorithms {
		b.WriteString("<tr><td>" + html.EscapeString(a) + "</td>")
		for _, c := range t.Cells[i] {
			s := "—"
			if c.Present {
				s = fmt.Sprintf("%.2f ± %.2f", c.Mean, c.Std)
				if c.Best {
					s = "<b>" + s + "</b>"
				}
			}
			b.WriteString("<td>" + s + "</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("<tr><td><i>Average</i></td>")
	for _, v := range t.Average {
		b.WriteString(fmt.Sprintf("<td><i>%.2f</i></td>", v))
	}
	b.WriteString("</tr><tr><td><i>Win/Tie/Loss</i></td>")
	for j := range t.Models {
		b.WriteString(fmt.Sprintf("<td><i>%d/%d/%d</i></td>", t.Wins[j], t.Ties[j], t.Losses[j]))
	}
	b.WriteString("</tr></tbody></table>")
	return b.String()
}

// MLflowJSON renders the table in the {"columns": [...], "data": [[...]]}
// form the MLflow UI shows as a table artifact.
func (t *ResultsTable) MLflowJSON() ([]byte, error) {
	cols := []string{"algorithm"}
	for _, m := range t.Models {
		cols = append(cols, m+" mean", m+" std", m+" outcome")
	}
	data := [][]any{}
	for i, a := range t.Algorithms {
		row := []any{a}
		for _, c := range t.Cells[i] {
			if !c.Present {
				row = append(row, nil, nil, nil)
				continue
			}
			o := ""
			if c.Outcome != 0 {
				o = string(c.Outcome)
			}
			row = append(row, c.Mean, c.Std, o)
		}
		data = append(data, row)
	}
	return json.Marshal(map[string]any{"columns": cols, "data": data})
}

// GroupAverages returns, per group (for example the paper's algorithm
// classes) and model, the unweighted mean of the group's algorithms, and
// the overall mean of the group means per model (Table 1's "Overall
// average"). group maps an algorithm to its group; algorithms without a
// group are ignored.
func (t *ResultsTable) GroupAverages(group map[string]string) (groups []string, means [][]float64, overall []float64) {
	idx := map[string]int{}
	var sums [][]float64
	var counts [][]int
	for i, a := range t.Algorithms {
		g, ok := group[a]
		if !ok {
			continue
		}
		k, seen := idx[g]
		if !seen {
			k = len(groups)
			idx[g] = k
			groups = append(groups, g)
			sums = append(sums, make([]float64, len(t.Models)))
			counts = append(counts, make([]int, len(t.Models)))
		}
		for j, c := range t.Cells[i] {
			if c.Present {
				sums[k][j] += c.Mean
				counts[k][j]++
			}
		}
	}
	overall = make([]float64, len(t.Models))
	for k := range groups {
		row := make([]float64, len(t.Models))
		for j := range row {
			row[j] = sums[k][j] / float64(counts[k][j])
			overall[j] += row[j] / float64(len(groups))
		}
		means = append(means, row)
	}
	return groups, means, overall
}
