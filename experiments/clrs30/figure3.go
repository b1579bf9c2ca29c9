package clrs30

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/narlab/narlab/lib/clrs/paper"
	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/sweep"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// Figure3Processors are the processors of the CLRS paper's Figure 3 (and
// of Tables 2 and 4): MPNN, PGN and Triplet-GMPNN.
var Figure3Processors = []string{"mpnn", "pgn", "triplet_gmpnn"}

// Figure3Grid is the CLRS paper's Figure 3 grid (`narlab clrs fig3`): the
// processors trained on the eight algorithms of its Figure 3, one cell
// after another in this process, at a scale Config sets (the paper's
// protocol by default: 10,000 steps, batch 32, hidden 128, the CLRS-30
// train split).
//
// In MLflow the grid is one parent run with a child run per (algorithm,
// processor) cell, nested under it: a sweep (package sweep's
// [sweep.Group]) whose cells train in this process. The parent holds the
// results table (results.json, results.md: every cell's scores beside the
// paper's Tables 4 and 2), the validation curves and the summary metrics
// sweep/cells_finished, sweep/mean_best_val_score and sweep/mean_test_score.
//
// Running the same grid again resumes it: cells with a FINISHED run are
// skipped, an interrupted cell continues from its run directory's last
// checkpoint (exactly, see [Run]), and the parent run is the same one,
// found by its tags (the grid's id, from its settings).
type Figure3Grid struct {
	// Algos and Processors are the cells (default: paper.Figure3 and
	// Figure3Processors).
	Algos, Processors []string
	// Config is every cell's settings; Algo, Processor and Dir are set per
	// cell. A zero Seed is 42 (train's default, named in the cells' keys),
	// an empty Experiment clrs-figure3.
	Config Config
	// DirRoot, when set, is where cells train: DirRoot/ALGO-PROCESSOR
	// (default: each cell's default run directory, per settings).
	DirRoot string
	// Log receives the grid's notices and the cells' progress.
	Log io.Writer
	// afterStep, when set, is called after every training step (tests
	// interrupt a cell with it).
	afterStep func(cell string, step int)
}

// Figure3Result is what [RunFigure3] did.
type Figure3Result struct {
	ParentRunID, ParentURL string
	Trained                []string // cells trained (or resumed) by this invocation
	Skipped                []string // cells already FINISHED
	Failed                 map[string]error
	// Rows are the results table (Figure3Columns), finished cells in grid
	// order; Table is the same as markdown.
	Rows  [][]any
	Table string
}

// Figure3Columns are the parent run's results table: the cell, its run and
// the child's own results row ([ResultColumns]).
var Figure3Columns = append([]string{"cell", "run_id"}, ResultColumns...)

// spec is the grid as a sweep: its id names the parent run, its cells'
// keys the child runs. Every setting that changes a cell's result is in
// its flags, so a grid of other settings gets another parent run.
func (g *Figure3Grid) spec() (*sweep.Spec, error) {
	c := g.Config
	s := &sweep.Spec{Name: "fig3", Experiment: c.Experiment, Algorithms: g.Algos, Processors: g.Processors,
		Seeds: []int64{c.Seed}, Executor: "local", Flags: map[string]string{
			"steps": strconv.Itoa(c.Steps), "batch": strconv.Itoa(c.Batch), "hidden": strconv.Itoa(c.Hidden),
			"eval-every": strconv.Itoa(c.EvalEvery), "train-data": c.TrainData, "train-length": strconv.Itoa(c.TrainLength),
			"val-samples": strconv.Itoa(c.ValSamples), "test-samples": strconv.Itoa(c.TestSamples)}}
	if err := s.Validate(nil); err != nil {
		return nil, err
	}
	return s, nil
}

// RunFigure3 trains the grid's unfinished cells, logging each as a child
// of the grid's parent run, then logs the results to the parent and
// returns them. A cell that fails does not stop the others; RunFigure3
// returns an error naming the failed cells, and the parent run ends FAILED
// (KILLED when interrupted) until a later invocation finishes them.
func RunFigure3(ctx context.Context, g Figure3Grid) (*Figure3Result, error) {
	if len(g.Algos) == 0 {
		g.Algos = paper.Figure3
	}
	if len(g.Processors) == 0 {
		g.Processors = Figure3Processors
	}
	if g.Log == nil {
		g.Log = io.Discard
	}
	if g.Config.Experiment == "" {
		g.Config.Experiment = "clrs-figure3"
	}
	if g.Config.Seed == 0 {
		g.Config.Seed = 42 // train's default, named in the cells' keys
	}
	spec, err := g.spec()
	if err != nil {
		return nil, err
	}
	client, err := tracking.Client(ctx, g.Config.TrackingURI)
	if err != nil {
		return nil, err
	}
	exp, err := client.GetOrCreateExperiment(ctx, g.Config.Experiment)
	if err != nil {
		return nil, err
	}
	grp := sweep.Group{Client: client, ExperimentID: exp.ID, ID: spec.ID()}
	cells := spec.Cells()
	parent, err := g.parent(ctx, grp, len(cells))
	if err != nil {
		return nil, err
	}
	out := &Figure3Result{ParentRunID: parent, ParentURL: client.RunURL(exp.ID, parent), Failed: map[string]error{}}
	fmt.Fprintf(g.Log, "fig3: grid %s, %d cells; parent run %s\n", grp.ID, len(cells), out.ParentURL)
	for _, cell := range cells {
		if ctx.Err() != nil {
			break
		}
		if done := g.cell(ctx, grp, parent, cell, out); done {
			continue
		}
		// The parent's table follows the grid cell by cell.
		if err := g.report(context.WithoutCancel(ctx), grp, parent, cells, out, ""); err != nil {
			return out, err
		}
	}
	return out, g.finish(ctx, grp, parent, cells, out)
}

// parent finds or creates the grid's parent run and reopens it.
func (g *Figure3Grid) parent(ctx context.Context, grp sweep.Group, cells int) (string, error) {
	c := g.Config
	note := fmt.Sprintf("The CLRS paper's **Figure 3** grid: %s × %s, %d steps, hidden %d, batch %d, seed %d "+
		"(`narlab clrs fig3`). Each cell is a child run; `results.json` / `results.md` put their "+
		"scores beside the paper's (Tables 4 and 2). Rerunning the same command resumes the grid in this run.",
		strings.Join(g.Algos, ", "), strings.Join(g.Processors, ", "), c.Steps, c.Hidden, c.Batch, c.Seed)
	params := []mlflow.Param{{Key: "grid_id", Value: grp.ID}, {Key: "cells", Value: strconv.Itoa(cells)},
		{Key: "algorithms", Value: strings.Join(g.Algos, ",")}, {Key: "processors", Value: strings.Join(g.Processors, ",")},
		{Key: "seed", Value: strconv.FormatInt(c.Seed, 10)}}
	for k, v := range map[string]string{"train_steps": strconv.Itoa(c.Steps), "batch_size": strconv.Itoa(c.Batch),
		"hidden_size": strconv.Itoa(c.Hidden), "eval_every": strconv.Itoa(c.EvalEvery), "train_data": c.TrainData,
		"train_length": strconv.Itoa(c.TrainLength), "val_samples": strconv.Itoa(c.ValSamples), "test_samples": strconv.Itoa(c.TestSamples)} {
		params = append(params, mlflow.Param{Key: k, Value: v})
	}
	name := fmt.Sprintf("fig3 %s h%d b%d %d steps s%d %s", strings.Join(g.Processors, "+"), c.Hidden, c.Batch, c.Steps, c.Seed,
		strings.TrimPrefix(grp.ID, "fig3-"))
	parent, err := grp.EnsureParent(ctx, "", sweep.ParentOptions{Name: name, Source: "narlab clrs fig3", Note: note, Params: params})
	if err != nil {
		return "", err
	}
	return parent, grp.Reopen(ctx, parent)
}

// cell trains one cell unless it has FINISHED (done), recording what
// happened in out.
func (g *Figure3Grid) cell(ctx context.Context, grp sweep.Group, parent string, cell sweep.Cell, out *Figure3Result) (done bool) {
	cfg := g.Config
	cfg.Algo, cfg.Processor, cfg.Seed = cell.Algorithm, cell.Processor, cell.Seed
	if cfg.TrainLength > 0 {
		cfg.TrainData = "" // the fixed-length set chooses the data
	}
	if g.DirRoot != "" {
		cfg.Dir = fmt.Sprintf("%s/%s-%s", g.DirRoot, cell.Algorithm, cell.Processor)
	}
	cfg.ParentRun, cfg.Tags = parent, grp.CellTags(cell.Key)
	if g.afterStep != nil {
		key := cell.Key
		cfg.AfterStep = func(step int, _ float64) { g.afterStep(key, step) }
	}
	res, err := grp.RunCell(ctx, cell.Key, g.Log, func(ctx context.Context, earlier int) error {
		if earlier > 0 {
			fmt.Fprintf(g.Log, "fig3: cell %s: resuming after %d unfinished attempts\n", cell.Key, earlier)
		}
		_, err := Run(ctx, cfg)
		return err
	})
	switch {
	case err != nil:
		out.Failed[cell.Key] = err
		fmt.Fprintf(g.Log, "fig3: %v\n", err)
	case res.Outcome == sweep.AlreadyFinished:
		out.Skipped = append(out.Skipped, cell.Key)
	default:
		out.Trained = append(out.Trained, cell.Key)
	}
	return res != nil && res.Outcome == sweep.AlreadyFinished
}

// finish ends the parent run as the grid ended (FINISHED, KILLED when
// interrupted, FAILED when a cell failed), with the final results, and
// returns why the grid did not finish, if it did not.
func (g *Figure3Grid) finish(ctx context.Context, grp sweep.Group, parent string, cells []sweep.Cell, out *Figure3Result) error {
	end := mlflow.StatusFinished
	var failed []string
	for _, cell := range cells {
		if err, ok := out.Failed[cell.Key]; ok {
			failed = append(failed, fmt.Sprintf("%s (%v)", cell.Key, err))
		}
	}
	var runErr error
	switch {
	case ctx.Err() != nil:
		end, runErr = mlflow.StatusKilled, fmt.Errorf("interrupted (%w); run the same command again to resume", context.Cause(ctx))
	case len(failed) > 0:
		end, runErr = mlflow.StatusFailed, fmt.Errorf("%d of %d cells failed: %s", len(failed), len(cells), strings.Join(failed, "; "))
	}
	if err := setError(context.WithoutCancel(ctx), grp.Client, parent, runErr); err != nil {
		return err
	}
	if err := g.report(context.WithoutCancel(ctx), grp, parent, cells, out, end); err != nil {
		return err
	}
	out.Table = tracking.MarkdownTable(Figure3Columns, out.Rows)
	return runErr
}

// setError records why the grid did not finish in the parent run's tag
// narlab.error, or, once it has, removes what an earlier invocation
// recorded there.
func setError(ctx context.Context, c *mlflow.Client, parent string, runErr error) error {
	const tag = "narlab.error"
	if runErr != nil {
		return c.SetTag(ctx, parent, tag, runErr.Error())
	}
	r, err := c.GetRun(ctx, parent)
	if err != nil {
		return err
	}
	if _, ok := r.Data.Tag(tag); ok {
		return c.DeleteTag(ctx, parent, tag)
	}
	return nil
}

// report reads every finished cell's results back from MLflow (its
// results.json) and logs the grid's results to the parent run (see
// [sweep.Group.LogResults]), ending it with status end unless empty.
func (g *Figure3Grid) report(ctx context.Context, grp sweep.Group, parent string, cells []sweep.Cell, out *Figure3Result, end mlflow.RunStatus) error {
	attempts, err := grp.Attempts(ctx)
	if err != nil {
		return err
	}
	out.Rows = nil
	var panels []plots.Panel
	panelOf := map[string]int{}
	var sumVal, sumTest float64
	for _, cell := range cells {
		fin := sweep.Finished(attempts[cell.Key])
		if fin == nil {
			continue
		}
		row, err := childRow(ctx, grp.Client, fin.Run)
		if err != nil {
			return fmt.Errorf("cell %s: %w", cell.Key, err)
		}
		out.Rows = append(out.Rows, append([]any{cell.Key, fin.RunID}, row...))
		if m, ok := fin.Run.Data.Metric(MetricBestVal); ok {
			sumVal += m.Value
		}
		if m, ok := fin.Run.Data.Metric(MetricTestScore); ok {
			sumTest += m.Value
		}
		cv, err := sweep.ValidationCurve(ctx, grp.Client, fin.RunID)
		if err != nil {
			return fmt.Errorf("cell %s: %w", cell.Key, err)
		}
		i, ok := panelOf[cell.Algorithm]
		if !ok {
			i = len(panels)
			panelOf[cell.Algorithm] = i
			panels = append(panels, plots.Panel{Title: cell.Algorithm})
		}
		series := plots.Series{Label: nn.PaperModel(cell.Processor), Runs: []plots.Curve{cv}}
		if col, ok := nn.ProcessorColor(cell.Processor); ok {
			series.Color = col
		}
		panels[i].Series = append(panels[i].Series, series)
	}
	table, err := json.Marshal(map[string]any{"columns": Figure3Columns, "data": nonNil(out.Rows)})
	if err != nil {
		return err
	}
	md := fmt.Sprintf("# Figure 3 grid %s\n\n%d of %d cells finished. Scores in %%; paper_val and paper_test are the CLRS "+
		"paper's Tables 4 and 2 (— where it has no column for the processor).\n\n%s",
		grp.ID, len(out.Rows), len(cells), tracking.MarkdownTable(Figure3Columns, out.Rows))
	files := []sweep.Artifact{{Path: "results.json", Data: table, Table: true}, {Path: "results.md", Data: []byte(md)}}
	if len(panels) > 0 {
		fig, err := sweep.CurvesFigure("Figure 3 grid "+grp.ID, panels)
		if err != nil {
			return err
		}
		png, err := fig.PNG()
		if err != nil {
			return err
		}
		files = append(files, sweep.Artifact{Path: "plots/validation_curves.png", Data: png})
	}
	summary := []sweep.Summary{{Key: "sweep/cells_finished", Value: float64(len(out.Rows))}}
	if n := float64(len(out.Rows)); n > 0 {
		summary = append(summary, sweep.Summary{Key: "sweep/mean_best_val_score", Value: sumVal / n},
			sweep.Summary{Key: "sweep/mean_test_score", Value: sumTest / n})
	}
	return grp.LogResults(ctx, parent, files, summary, end)
}

// childRow is a finished cell's results row (ResultColumns), read from
// its run's results.json.
func childRow(ctx context.Context, c *mlflow.Client, run mlflow.Run) ([]any, error) {
	data, err := c.ReadArtifact(ctx, run.Info.ArtifactURI, "results.json")
	if err != nil {
		return nil, fmt.Errorf("results.json of run %s: %w", run.Info.RunID, err)
	}
	var t struct {
		Columns []string `json:"columns"`
		Data    [][]any  `json:"data"`
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("results.json of run %s: %w", run.Info.RunID, err)
	}
	if len(t.Data) != 1 || len(t.Data[0]) != len(t.Columns) {
		return nil, errors.New("results.json of run " + run.Info.RunID + ": want one row")
	}
	at := map[string]any{}
	for i, col := range t.Columns {
		at[col] = t.Data[0][i]
	}
	row := make([]any, len(ResultColumns))
	for i, col := range ResultColumns {
		row[i] = at[col] // nil (—) for a column an older run did not log
	}
	return row, nil
}

func nonNil(rows [][]any) [][]any {
	if rows == nil {
		return [][]any{}
	}
	return rows
}
