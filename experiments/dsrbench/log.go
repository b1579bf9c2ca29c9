package dsrbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/tracking"
)

// Logger is what [Log] records through (tracking.Logger; *tracking.Run
// implements it).
type Logger = tracking.Logger

// Metric is one named score.
type Metric struct {
	Key   string
	Value float64
}

// Artifact paths written by [Log].
const (
	RadarArtifact      = "figures/category_radar.png"
	BarsArtifact       = "figures/structure_bars.png"
	StructuresTable    = "tables/structures.json"
	CellsTable         = "tables/cells.json"
	ChallengeTable     = "tables/challenge.json"
	ScoresJSONArtifact = "scores.json"
	ScoresTextArtifact = "scores.txt"
)

// MetricKey builds a metric name from parts joined by "/", lower-cased,
// with spaces replaced by "_" (MLflow accepts letters, digits, "_", "-",
// ".", " " and "/").
func MetricKey(parts ...string) string {
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(p)), " ", "_")
	}
	return strings.Join(parts, "/")
}

// Metrics lists the scores of t as metrics, binary scores under "score/"
// and Levenshtein scores under "levenshtein/":
//
//	score/overall, score/challenge
//	score/category/<category>          e.g. score/category/linear
//	score/structure/<structure>        e.g. score/structure/priority_queue
//	score/task/<structure>/<operation>[/<variant>]/<level>
//
// plus responses/total and responses/unscored (responses that scored 0
// for a reason other than a wrong answer: unreadable, or missing). Extra (non-paper) cells are left out;
// overall, category and challenge scores only appear when they exist.
func Metrics(t dsr.Tables) []Metric {
	var out []Metric
	both := func(s dsr.Scores, parts ...string) {
		out = append(out, Metric{MetricKey(append([]string{"score"}, parts...)...), s.Binary})
		out = append(out, Metric{MetricKey(append([]string{"levenshtein"}, parts...)...), s.Levenshtein})
	}
	if len(t.Categories) > 0 {
		both(t.Overall, "overall")
	}
	if len(t.Challenge.Rows) > 0 {
		both(t.Challenge.Score, "challenge")
	}
	for _, c := range t.Categories {
		both(c.Scores, "category", c.Name)
	}
	// Per-structure and per-task scores are results tables (StructureRows,
	// CellRows), not metrics: as metrics they would be dozens of one-point
	// charts on the run page.
	total, failed := 0, 0
	for _, c := range t.Cells {
		total += c.N
		failed += c.Failed
	}
	out = append(out, Metric{"responses/total", float64(total)}, Metric{"responses/unscored", float64(failed)})
	return out
}

// Params are a scoring run's parameters: the instance and prediction files,
// the strategy, every option (dsr.<name>, see dsr.Options.Params) and the
// number of instances and predictions.
func Params(instances, predictions string, s dsr.Strategy, o dsr.Options, nInstances, nPredictions int) map[string]string {
	p := o.Params()
	p["instances"] = instances
	p["predictions"] = predictions
	p["strategy"] = s.String()
	p["n_instances"] = strconv.Itoa(nInstances)
	p["n_predictions"] = strconv.Itoa(nPredictions)
	return p
}

// StructureRows is the per-structure table (Table 2 rows) with its column
// names.
func StructureRows(t dsr.Tables) ([]string, [][]any) {
	cols := []string{"category", "structure", "binary", "levenshtein", "cells"}
	var rows [][]any
	for _, c := range t.Categories {
		for _, s := range t.Structures {
			if s.Category == c.Category {
				rows = append(rows, []any{c.Name, s.Title, s.Binary, s.Levenshtein, s.Cells})
			}
		}
		rows = append(rows, []any{c.Name, "avg", c.Binary, c.Levenshtein, c.Structures})
	}
	if len(t.Categories) > 0 {
		rows = append(rows, []any{"Overall", "", t.Overall.Binary, t.Overall.Levenshtein, len(t.Categories)})
	}
	return cols, rows
}

// CellRows is the per-task, variant and level table with its column names.
func CellRows(t dsr.Tables) ([]string, [][]any) {
	cols := []string{"structure", "operation", "variant", "level", "extra", "n", "unscored", "binary", "levenshtein"}
	var rows [][]any
	for _, c := range t.Cells {
		rows = append(rows, []any{c.Structure, c.Operation, c.Variant, c.Level.String(), c.Extra, c.N, c.Failed, c.Binary, c.Levenshtein})
	}
	return cols, rows
}

// ChallengeRows is Table 3 (long-level scores of the challenge structures
// and their mean) with its column names.
func ChallengeRows(t dsr.Tables) ([]string, [][]any) {
	cols := []string{"structure", "binary", "levenshtein"}
	var rows [][]any
	for _, s := range t.Challenge.Rows {
		rows = append(rows, []any{s.Title, s.Binary, s.Levenshtein})
	}
	if len(t.Challenge.Rows) > 0 {
		rows = append(rows, []any{"Challenge score", t.Challenge.Score.Binary, t.Challenge.Score.Levenshtein})
	}
	return cols, rows
}

// Log records a scoring run: every [Metrics] value at step 0, the
// structure, cell and challenge tables, the tables as JSON and text, and
// the category radar chart and per-structure bars as PNG images (see the
// *Artifact constants). label names the run in the figures' legends.
// Figures that cannot be drawn (no structure scores) are left out; the
// first logging error is returned.
func Log(lg Logger, t dsr.Tables, label string) error {
	for _, m := range Metrics(t) {
		if err := lg.LogMetric(m.Key, 0, m.Value); err != nil {
			return fmt.Errorf("dsrbench: logging %s: %w", m.Key, err)
		}
	}
	tables := []struct {
		path string
		rows func(dsr.Tables) ([]string, [][]any)
	}{{StructuresTable, StructureRows}, {CellsTable, CellRows}, {ChallengeTable, ChallengeRows}}
	for _, tb := range tables {
		cols, rows := tb.rows(t)
		if len(rows) == 0 {
			continue
		}
		if err := lg.LogTable(tb.path, cols, rows); err != nil {
			return fmt.Errorf("dsrbench: logging %s: %w", tb.path, err)
		}
	}
	js, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	var text bytes.Buffer
	dsr.WriteTables(&text, t)
	artifacts := []struct {
		path string
		data []byte
	}{{ScoresJSONArtifact, js}, {ScoresTextArtifact, text.Bytes()}}
	if len(t.Structures) > 0 {
		radar, bars, err := RunFigures(label, t)
		if err != nil {
			return err
		}
		for _, f := range []struct {
			path string
			fig  interface{ PNG() ([]byte, error) }
		}{{RadarArtifact, radar}, {BarsArtifact, bars}} {
			png, err := f.fig.PNG()
			if err != nil {
				return fmt.Errorf("dsrbench: rendering %s: %w", f.path, err)
			}
			artifacts = append(artifacts, struct {
				path string
				data []byte
			}{f.path, png})
		}
	}
	for _, a := range artifacts {
		if err := lg.LogArtifact(a.path, a.data); err != nil {
			return fmt.Errorf("dsrbench: logging %s: %w", a.path, err)
		}
	}
	return nil
}

// RunNote is the Markdown description of a scoring run of model label
// with params (see Params).
func RunNote(label string, params map[string]string) string {
	return fmt.Sprintf("`narlab dsr score`: the answers of **%s** to %s DSR-Bench instances (%s), strategy %s. "+
		"Results: the structure, cell and challenge tables and the category radar in the artifacts; "+
		"summary metrics `score/overall`, `score/challenge`, `score/category/…` (exact match) and the same under "+
		"`levenshtein/…`.", label, params["n_instances"], params["instances"], params["strategy"])
}
