package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/metrics"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking/mlflow"
)

// CellStatus is one cell's state in MLflow and in the SLURM queue.
type CellStatus struct {
	Cell Cell
	// Status is FINISHED when the cell has a FINISHED run, else the status
	// of its latest attempt (RUNNING, FAILED, KILLED), or "" (never started).
	Status mlflow.RunStatus
	RunID  string
	// Attempts counts the cell's active runs (1 for a finished cell).
	Attempts int
	// Queue is the cell's task in squeue, if SLURM holds one.
	Queue *QueuedTask
	// Test is the FINISHED run's test score (test/score), when it has one.
	Test    float64
	HasTest bool
}

// Status reports every cell. With the slurm executor it also reads squeue;
// queueErr says why the queue could not be read (the MLflow part is still
// returned).
func (sw *Sweep) Status(ctx context.Context) (cells []CellStatus, queueErr error, err error) {
	c, err := sw.client()
	if err != nil {
		return nil, nil, err
	}
	byKey, err := sw.attempts(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	queue := map[int]QueuedTask{}
	if sw.Spec.Executor == "slurm" {
		if _, lerr := exec.LookPath("squeue"); lerr != nil {
			queueErr = errNoSqueue
		} else if queue, queueErr = sw.Queue(ctx); queueErr != nil {
			queue = map[int]QueuedTask{}
		}
	}
	for _, cell := range sw.Cells {
		st := CellStatus{Cell: cell, Attempts: len(byKey[cell.Key])}
		for _, a := range byKey[cell.Key] {
			if a.Status == mlflow.StatusFinished {
				st.Status, st.RunID = a.Status, a.RunID
				if m, ok := a.Run.Data.Metric("test/score"); ok {
					st.Test, st.HasTest = float64(m.Value), true
				}
				break
			}
			st.Status, st.RunID = a.Status, a.RunID // the latest so far
		}
		if q, ok := queue[cell.Index]; ok {
			st.Queue = &q
		}
		cells = append(cells, st)
	}
	return cells, queueErr, nil
}

// StatusText renders cells as a table.
func StatusText(cells []CellStatus) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "INDEX\tCELL\tMLFLOW\tRUN\tATTEMPTS\tSLURM\tTEST")
	count := map[string]int{}
	for _, s := range cells {
		status := string(s.Status)
		if status == "" {
			status = "-"
		}
		count[status]++
		queue := "-"
		if s.Queue != nil {
			queue = s.Queue.State + " " + s.Queue.JobID
		}
		test := "-"
		if s.HasTest {
			test = fmt.Sprintf("%.2f%%", 100*s.Test)
		}
		run := s.RunID
		if run == "" {
			run = "-"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%d\t%s\t%s\n", s.Cell.Index, s.Cell.Key, status, run, s.Attempts, queue, test)
	}
	w.Flush()
	var keys []string
	for k := range count {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
	}
	fmt.Fprintf(&b, "%d cells: %s\n", len(cells), strings.Join(parts, ", "))
	return b.String()
}

// CellScore is a finished cell's result.
type CellScore struct {
	Cell    Cell
	RunID   string
	Test    float64 // test/score, a fraction
	BestVal float64 // val/best_score, a fraction
	// Curve is the validation score over steps (a resumed run holds the
	// points it resumed from too).
	Curve plots.Curve
}

// Report is the sweep's results.
type Report struct {
	Sweep   *Sweep
	Cells   []CellScore // the finished cells, in grid order
	Missing []Cell      // cells without a FINISHED run
	// Table is the per-algorithm table: mean ± std (sample standard
	// deviation, 0 for one seed) of the test score in % over seeds, per
	// model (the processor, and the varied flags), with the CLRS paper's
	// win/tie/loss rule.
	Table *plots.ResultsTable
	// Curves plots every finished cell's validation curve: a panel per
	// algorithm, a line per model (mean over seeds, spread shaded).
	Curves *plots.Figure
}

// Model is the cell's column in the results table: the processor, and the
// varied flags.
func (c Cell) Model() string {
	m := c.Processor
	keys := make([]string, 0, len(c.Vary))
	for k := range c.Vary {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m += " " + k + "=" + c.Vary[k]
	}
	return m
}

// Report collects the results of the finished cells from MLflow. It fails
// when no cell has finished.
func (sw *Sweep) Report(ctx context.Context) (*Report, error) {
	c, err := sw.client()
	if err != nil {
		return nil, err
	}
	byKey, err := sw.attempts(ctx, c)
	if err != nil {
		return nil, err
	}
	rep := &Report{Sweep: sw}
	for _, cell := range sw.Cells {
		var fin *Attempt
		for i, a := range byKey[cell.Key] {
			if a.Status == mlflow.StatusFinished {
				fin = &byKey[cell.Key][i]
				break
			}
		}
		if fin == nil {
			rep.Missing = append(rep.Missing, cell)
			continue
		}
		sc := CellScore{Cell: cell, RunID: fin.RunID}
		m, ok := fin.Run.Data.Metric("test/score")
		if !ok {
			return nil, fmt.Errorf("sweep: cell %s: its FINISHED run %s has no test/score", cell.Key, fin.RunID)
		}
		sc.Test = float64(m.Value)
		if m, ok := fin.Run.Data.Metric("val/best_score"); ok {
			sc.BestVal = float64(m.Value)
		}
		if sc.Curve, err = ValidationCurve(ctx, c, fin.RunID); err != nil {
			return nil, fmt.Errorf("sweep: cell %s: %w", cell.Key, err)
		}
		rep.Cells = append(rep.Cells, sc)
	}
	if len(rep.Cells) == 0 {
		return nil, fmt.Errorf("sweep: no cell of %s has finished yet (narlab sweep status --dir %s)", sw.ID, sw.Dir)
	}
	// The table: mean ± std over seeds per (algorithm, model).
	type group struct{ algo, model string }
	scores := map[group][]float64{}
	curves := map[group][]plots.Curve{}
	var algos, models []string
	seenA, seenM := map[string]bool{}, map[string]bool{}
	for _, sc := range rep.Cells {
		g := group{sc.Cell.Algorithm, sc.Cell.Model()}
		scores[g] = append(scores[g], 100*sc.Test)
		if len(sc.Curve.Steps) > 0 {
			curves[g] = append(curves[g], sc.Curve)
		}
		if !seenA[g.algo] {
			seenA[g.algo] = true
			algos = append(algos, g.algo)
		}
		if !seenM[g.model] {
			seenM[g.model] = true
			models = append(models, g.model)
		}
	}
	var results []plots.Result
	for _, a := range algos {
		for _, m := range models {
			if v, ok := scores[group{a, m}]; ok {
				mean, std := metrics.MeanStd(v)
				results = append(results, plots.Result{Algorithm: a, Model: m, Mean: mean, Std: std})
			}
		}
	}
	if rep.Table, err = plots.NewResultsTable(results, algos, models); err != nil {
		return nil, err
	}
	var panels []plots.Panel
	for _, a := range algos {
		p := plots.Panel{Title: a}
		for _, m := range models {
			if cs := curves[group{a, m}]; len(cs) > 0 {
				p.Series = append(p.Series, plots.Series{Label: m, Runs: cs})
			}
		}
		if len(p.Series) > 0 {
			panels = append(panels, p)
		}
	}
	if len(panels) > 0 {
		if rep.Curves, err = CurvesFigure("sweep "+sw.ID, panels); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// CurvesFigure draws the validation curves of a grid's cells, a panel per
// algorithm in rows of up to four, under title: the figure a grid's parent
// run logs as plots/validation_curves.png ([Report.Log], and the Figure 3
// grid of experiments/clrs30, `narlab clrs fig3`).
func CurvesFigure(title string, panels []plots.Panel) (*plots.Figure, error) {
	o := plots.DefaultCurveOptions()
	o.Cols = min(4, len(panels))
	o.Title = title
	return plots.ValidationCurves(panels, o)
}

// ValidationCurve is a run's validation score (val/score) over steps.
func ValidationCurve(ctx context.Context, c *mlflow.Client, runID string) (plots.Curve, error) {
	hist, err := c.GetMetricHistory(ctx, runID, "val/score")
	if err != nil {
		return plots.Curve{}, fmt.Errorf("val/score of run %s: %w", runID, err)
	}
	sort.Slice(hist, func(i, j int) bool { return hist[i].Step < hist[j].Step })
	var cv plots.Curve
	for _, m := range hist {
		cv.Steps, cv.Values = append(cv.Steps, float64(m.Step)), append(cv.Values, m.Value)
	}
	return cv, nil
}

// Text renders the report: the results table (Markdown), then one line per
// cell, then the cells still missing.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sweep %s: %d of %d cells finished; test score (%%), mean ± std over seeds\n\n",
		r.Sweep.ID, len(r.Cells), len(r.Sweep.Cells))
	b.WriteString(r.Table.Markdown())
	b.WriteString("\n")
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "CELL\tRUN\tBEST VAL\tTEST\tVAL POINTS")
	for _, sc := range r.Cells {
		fmt.Fprintf(w, "%s\t%s\t%.2f%%\t%.2f%%\t%d\n", sc.Cell.Key, sc.RunID, 100*sc.BestVal, 100*sc.Test, len(sc.Curve.Steps))
	}
	w.Flush()
	if len(r.Missing) > 0 {
		keys := make([]string, len(r.Missing))
		for i, c := range r.Missing {
			keys[i] = c.Key
		}
		fmt.Fprintf(&b, "\nnot finished (%d): %s\n", len(keys), strings.Join(keys, ", "))
	}
	return b.String()
}

// WriteFiles writes the report into dir: results.md (Text) and, when
// there are curves, validation_curves.png.
func (r *Report) WriteFiles(dir string) error {
	if err := fsutil.WriteFile(filepath.Join(dir, "results.md"), []byte(r.Text()), fsutil.DataMode); err != nil {
		return err
	}
	if r.Curves == nil {
		return nil
	}
	png, err := r.Curves.PNG()
	if err != nil {
		return err
	}
	return fsutil.WriteFile(filepath.Join(dir, "validation_curves.png"), png, fsutil.DataMode)
}

// Log logs the report to the sweep's parent run (through
// [Group.LogResults]): the results table (results.json, shown as a table in
// the UI, and results.md), the cells' scores (cells.json), the validation
// curves (plots/validation_curves.png) and the summary metrics
// sweep/cells_finished and sweep/mean_test_score. When every cell has
// finished, the parent run ends FINISHED.
func (r *Report) Log(ctx context.Context) error {
	sw := r.Sweep
	c, err := sw.client()
	if err != nil {
		return err
	}
	table, err := r.Table.MLflowJSON()
	if err != nil {
		return err
	}
	rows := [][]any{}
	for _, sc := range r.Cells {
		rows = append(rows, []any{sc.Cell.Key, sc.Cell.Algorithm, sc.Cell.Model(), sc.Cell.Seed, sc.RunID, 100 * sc.BestVal, 100 * sc.Test})
	}
	cells, err := json.Marshal(map[string]any{"columns": []string{"cell", "algorithm", "model", "seed", "run_id", "best_val", "test"}, "data": rows})
	if err != nil {
		return err
	}
	files := []Artifact{{Path: "results.json", Data: table, Table: true}, {Path: "cells.json", Data: cells, Table: true},
		{Path: "results.md", Data: []byte(r.Text())}}
	if r.Curves != nil {
		png, err := r.Curves.PNG()
		if err != nil {
			return err
		}
		files = append(files, Artifact{Path: "plots/validation_curves.png", Data: png})
	}
	var mean float64
	for _, sc := range r.Cells {
		mean += sc.Test
	}
	mean /= float64(len(r.Cells))
	var end mlflow.RunStatus
	if len(r.Missing) == 0 {
		end = mlflow.StatusFinished
	}
	summary := []Summary{{"sweep/cells_finished", float64(len(r.Cells))}, {"sweep/mean_test_score", mean}}
	if err := sw.group(c).LogResults(ctx, sw.ParentRunID, files, summary, end); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	return nil
}
