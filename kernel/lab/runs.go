package lab

import (
	"context"
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/narlab/narlab/kernel"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// Run is one MLflow run as a notebook reads it: its identity, its
// parameters, the latest value of each metric and its tags.
type Run struct {
	ID           string
	Name         string
	ExperimentID string
	Status       string
	Start        time.Time
	Params       map[string]string
	Metrics      map[string]float64 // the latest value of each metric
	Tags         map[string]string
	URL          string // the run's page in the MLflow UI
	ArtifactURI  string // where its artifacts are (Table reads them)

	client *mlflow.Client // reads the metric histories (Curves)
}

// Runs is a list of runs, newest first as Search returns them.
type Runs []Run

// A Filter narrows the runs Search returns.
type Filter func(*query)

type query struct {
	where [][2]string
	keep  []func(Run) bool
	uri   string
}

// Where keeps the runs whose parameter param is value (a search on the
// tracking server).
func Where(param, value string) Filter {
	return func(q *query) { q.where = append(q.where, [2]string{param, value}) }
}

// Keep keeps the runs for which keep returns true.
func Keep(keep func(Run) bool) Filter {
	return func(q *query) { q.keep = append(q.keep, keep) }
}

// TrackingURI reads another tracking server than the default one
// (MLFLOW_TRACKING_URI, else narlab's local server).
func TrackingURI(uri string) Filter {
	return func(q *query) { q.uri = uri }
}

// Search returns the finished runs of an MLflow experiment, newest first,
// narrowed by filters. An experiment that does not exist has no runs: the
// result is empty and the error nil.
func Search(ctx context.Context, experiment string, filters ...Filter) (Runs, error) {
	var q query
	for _, f := range filters {
		f(&q)
	}
	filter, err := q.filter()
	if err != nil {
		return nil, err
	}
	client, err := tracking.Client(ctx, q.uri)
	if err != nil {
		return nil, fmt.Errorf("lab: %w", err)
	}
	exp, err := client.GetExperimentByName(ctx, experiment)
	if mlflow.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lab: experiment %q: %w", experiment, err)
	}
	found, err := client.SearchRuns(ctx, []string{exp.ID}, mlflow.SearchOptions{
		Filter: filter, OrderBy: []string{"attributes.start_time DESC"}})
	if err != nil {
		return nil, fmt.Errorf("lab: runs of %q: %w", experiment, err)
	}
	var out Runs
	for _, r := range found {
		run := fromMLflow(client, r)
		if q.keeps(run) {
			out = append(out, run)
		}
	}
	return out, nil
}

// filter is the query's MLflow filter string: finished runs, and the
// parameter values asked for.
func (q *query) filter() (string, error) {
	parts := []string{"attributes.status = 'FINISHED'"}
	for _, w := range q.where {
		quoted, err := quote(w[1])
		if err != nil {
			return "", fmt.Errorf("lab: Where(%q, %q): %w", w[0], w[1], err)
		}
		if strings.Contains(w[0], "`") {
			return "", fmt.Errorf("lab: Where(%q, …): a parameter name cannot hold a backquote", w[0])
		}
		parts = append(parts, fmt.Sprintf("params.`%s` = %s", w[0], quoted))
	}
	return strings.Join(parts, " and "), nil
}

func (q *query) keeps(r Run) bool {
	for _, k := range q.keep {
		if !k(r) {
			return false
		}
	}
	return true
}

// quote is a string value of an MLflow filter: in single quotes, or double
// quotes when it holds a single quote.
func quote(v string) (string, error) {
	switch {
	case !strings.Contains(v, "'"):
		return "'" + v + "'", nil
	case !strings.Contains(v, `"`):
		return `"` + v + `"`, nil
	}
	return "", fmt.Errorf("a value cannot hold both quote characters")
}

func fromMLflow(c *mlflow.Client, r mlflow.Run) Run {
	run := Run{ID: r.Info.RunID, Name: r.Info.RunName, ExperimentID: r.Info.ExperimentID, Status: string(r.Info.Status),
		Start: time.UnixMilli(int64(r.Info.StartTime)), ArtifactURI: r.Info.ArtifactURI,
		Params: map[string]string{}, Metrics: map[string]float64{}, Tags: map[string]string{}, client: c}
	for _, p := range r.Data.Params {
		run.Params[p.Key] = p.Value
	}
	for _, m := range r.Data.Metrics {
		run.Metrics[m.Key] = m.Value
	}
	for _, t := range r.Data.Tags {
		run.Tags[t.Key] = t.Value
	}
	if c != nil {
		run.URL = c.RunURL(run.ExperimentID, run.ID)
	}
	return run
}

// Latest keeps the newest run of each setting: the first run (runs are
// newest first) of each distinct combination of the parameters by, e.g.
// Latest("processor") or Latest("algorithm", "processor"). Runs listed
// first win, so a.Latest(…) of append(a, b...) prefers a's runs.
func (rs Runs) Latest(by ...string) Runs {
	seen := map[string]bool{}
	var out Runs
	for _, r := range rs {
		var key strings.Builder
		for _, p := range by {
			key.WriteString(r.Params[p])
			key.WriteByte(0)
		}
		if !seen[key.String()] {
			seen[key.String()] = true
			out = append(out, r)
		}
	}
	return out
}

// Where returns the runs whose parameter param is value.
func (rs Runs) Where(param, value string) Runs {
	var out Runs
	for _, r := range rs {
		if r.Params[param] == value {
			out = append(out, r)
		}
	}
	return out
}

// ParamInt is the parameter key as an integer (0 when it is missing or not
// an integer), e.g. r.ParamInt("train_steps").
func (r Run) ParamInt(key string) int {
	n, _ := strconv.Atoi(r.Params[key])
	return n
}

// Value is a column of the run, as text: "run" (the run id's first 8
// characters), "name", "status", "start" (the start time), or a key. A key
// prefixed as in MLflow's search syntax ("params.hidden_size",
// "metrics.val/score", "tags.backend") reads that; a bare key is a metric,
// else a parameter, else a tag. A metric key followed by "%" is a fraction
// shown in percent ("test/score%"). Metrics show 4 significant digits.
// A missing value is "–".
func (r Run) Value(column string) string {
	switch column {
	case "run":
		return shortID(r.ID)
	case "name":
		return r.Name
	case "status":
		return r.Status
	case "start":
		return r.Start.UTC().Format("2006-01-02 15:04")
	}
	key, percent := strings.CutSuffix(column, "%")
	kind := ""
	for _, k := range []string{"params.", "metrics.", "tags."} {
		if rest, ok := strings.CutPrefix(key, k); ok {
			kind, key = k, rest
		}
	}
	if kind == "" || kind == "metrics." {
		if v, ok := r.Metrics[key]; ok {
			if percent {
				return strconv.FormatFloat(100*v, 'f', 1, 64)
			}
			return formatMetric(v)
		}
	}
	if kind == "" || kind == "params." {
		if v, ok := r.Params[key]; ok {
			return v
		}
	}
	if kind == "" || kind == "tags." {
		if v, ok := r.Tags[key]; ok {
			return v
		}
	}
	return "–"
}

// formatMetric shows 4 significant digits, integers up to 10⁶ in full.
func formatMetric(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e6 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if a := math.Abs(v); a >= 1e3 && a < 1e6 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// header is a column's heading: the key without its "params." (…) prefix,
// "(%)" for a percent column.
func header(column string) string {
	key, percent := strings.CutSuffix(column, "%")
	for _, k := range []string{"params.", "metrics.", "tags."} {
		key = strings.TrimPrefix(key, k)
	}
	if percent {
		return key + " (%)"
	}
	return key
}

// Show displays the runs as a table, one row per run and one column per
// column (see Run.Value for what a column can be; default "run", "name").
// In a notebook the "run" column links to each run's page in the MLflow UI.
// With no runs it says so instead of showing an empty table.
func (rs Runs) Show(columns ...string) {
	if len(columns) == 0 {
		columns = []string{"run", "name"}
	}
	headers := make([]string, len(columns))
	for i, c := range columns {
		headers[i] = header(c)
	}
	rows := make([][]cell, len(rs))
	for i, r := range rs {
		for _, c := range columns {
			x := cell{text: r.Value(c)}
			if c == "run" {
				x.url = r.URL
			}
			rows[i] = append(rows[i], x)
		}
	}
	showTable(headers, rows, "no runs")
}

// A cell of a displayed table: text, and a link when url is set.
type cell struct{ text, url string }

// showTable displays a table whose cells may be links (HTML in a notebook,
// aligned text elsewhere), or the sentence empty when it has no rows.
func showTable(headers []string, rows [][]cell, empty string) {
	if len(rows) == 0 {
		kernel.Printf("%s\n", empty)
		return
	}
	if !kernel.InNotebook() {
		text := make([][]string, len(rows))
		for i, r := range rows {
			for _, c := range r {
				text[i] = append(text[i], c.text)
			}
		}
		kernel.Table(headers, text)
		return
	}
	kernel.HTML(tableHTML(headers, rows))
}

// tableHTML is kernel.Table's HTML, with links.
func tableHTML(headers []string, rows [][]cell) string {
	var b strings.Builder
	b.WriteString(`<div style="overflow-x:auto;max-width:100%"><table class="narlab"><thead><tr>`)
	for _, h := range headers {
		b.WriteString("<th>" + html.EscapeString(h) + "</th>")
	}
	b.WriteString("</tr></thead><tbody>")
	for _, r := range rows {
		b.WriteString("<tr>")
		for _, c := range r {
			if c.url != "" {
				fmt.Fprintf(&b, `<td><a href="%s" target="_blank"><code>%s</code></a></td>`,
					html.EscapeString(c.url), html.EscapeString(c.text))
			} else {
				b.WriteString("<td>" + html.EscapeString(c.text) + "</td>")
			}
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table></div>")
	return b.String()
}

// params lists the distinct values of a parameter in the runs, in order of
// first appearance.
func (rs Runs) params(key string) []string {
	var out []string
	for _, r := range rs {
		if v, ok := r.Params[key]; ok && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
