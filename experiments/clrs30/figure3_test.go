package clrs30

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/sweep"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// TestFigure3ParentChildResume runs a 2-cell grid (insertion_sort with MPNN
// and PGN, a few steps, hidden 8, pure-Go backend) against the real MLflow
// server (narlab's embedded one, from .venv), interrupted in its second
// cell, then runs the same grid again, twice. It checks that the grid has
// one parent run throughout; that each cell ends with one active child
// run, FINISHED, nested under it (the interrupted attempt superseded, the
// cell resumed from its checkpoint rather than started over); that the
// parent holds the results table (a row per cell beside the paper's
// scores) and the summary metrics, and ends FINISHED; and that the third
// invocation trains nothing.
func TestFigure3ParentChildResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a real MLflow server and trains; run without -short")
	}
	if _, err := project.VenvBin("mlflow"); err != nil {
		t.Fatalf("MLflow is not installed (%v): run scripts/setup.sh (make setup)", err)
	}
	data := t.TempDir()
	t.Setenv("NARLAB_DATA", data)
	t.Setenv(mlflow.EnvTrackingURI, "")
	t.Setenv("MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL", "1")
	t.Cleanup(func() {
		if _, err := mlflow.StopServer(context.Background(), filepath.Join(data, "mlflow")); err != nil {
			t.Errorf("stopping the embedded server: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	var log bytes.Buffer
	g := Figure3Grid{Algos: []string{"insertion_sort"}, Processors: []string{"mpnn", "pgn"}, DirRoot: t.TempDir(), Log: &log,
		Config: Config{Steps: 4, Batch: 2, Hidden: 8, EvalEvery: 2, TrainLength: 4, ValSamples: 4, TestSamples: 4,
			Backend: "go", Experiment: "narlab-test/fig3"}}
	const mpnn, pgn = "insertion_sort-mpnn-s42", "insertion_sort-pgn-s42"

	// 1. Interrupted after step 3 of the second cell.
	first, stop := context.WithCancel(ctx)
	g.afterStep = func(cell string, step int) {
		if cell == pgn && step == 3 {
			stop()
		}
	}
	o1, err := RunFigure3(first, g)
	stop()
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("first invocation: error %v; want an interruption\n%s\n%+v", err, log.String(), o1)
	}
	if !slices.Equal(o1.Trained, []string{mpnn}) || o1.Failed[pgn] == nil {
		t.Fatalf("first invocation: trained %v, failed %v; want %s trained and %s failed", o1.Trained, o1.Failed, mpnn, pgn)
	}
	c, err := tracking.Client(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	parent, err := c.GetRun(ctx, o1.ParentRunID)
	if err != nil {
		t.Fatal(err)
	}
	if parent.Info.Status != mlflow.StatusKilled {
		t.Errorf("parent after the interruption: %s; want KILLED", parent.Info.Status)
	}
	if msg, _ := parent.Data.Tag("narlab.error"); !strings.Contains(msg, "interrupted") {
		t.Errorf("parent after the interruption: narlab.error %q; want the interruption", msg)
	}
	if rows := resultsRows(t, c, parent); len(rows) != 1 || rows[0][0] != mpnn {
		t.Errorf("parent's results.json after the interruption: %v; want the one row of %s", rows, mpnn)
	}

	// 2. The same grid again: the finished cell is skipped, the other resumes.
	g.afterStep = nil
	o2, err := RunFigure3(ctx, g)
	if err != nil {
		t.Fatalf("second invocation: %v\n%s", err, log.String())
	}
	if o2.ParentRunID != o1.ParentRunID || !slices.Equal(o2.Skipped, []string{mpnn}) || !slices.Equal(o2.Trained, []string{pgn}) {
		t.Fatalf("second invocation: parent %s (first %s), skipped %v, trained %v; want the same parent, %s skipped, %s trained",
			o2.ParentRunID, o1.ParentRunID, o2.Skipped, o2.Trained, mpnn, pgn)
	}

	// 3. Once more: nothing to do.
	o3, err := RunFigure3(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	if o3.ParentRunID != o1.ParentRunID || len(o3.Trained) != 0 || len(o3.Skipped) != 2 {
		t.Errorf("third invocation: parent %s, trained %v, skipped %v; want the same parent and nothing trained",
			o3.ParentRunID, o3.Trained, o3.Skipped)
	}

	// Every run of the grid, deleted ones included.
	exp, err := c.GetExperimentByName(ctx, "narlab-test/fig3")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := c.SearchRuns(ctx, []string{exp.ID}, mlflow.SearchOptions{ViewType: mlflow.AllViews})
	if err != nil {
		t.Fatal(err)
	}
	var parents []mlflow.Run
	children := map[string][]mlflow.Run{}
	for _, r := range runs {
		role, _ := r.Data.Tag(sweep.TagRole)
		switch role {
		case "parent":
			parents = append(parents, r)
		case "cell":
			key, _ := r.Data.Tag(sweep.TagCell)
			children[key] = append(children[key], r)
		default:
			t.Errorf("run %s has role %q", r.Info.RunID, role)
		}
	}
	if len(parents) != 1 || parents[0].Info.RunID != o1.ParentRunID {
		t.Fatalf("%d parent runs; want exactly one, %s", len(parents), o1.ParentRunID)
	}
	parent = &parents[0]
	gridID, _ := parent.Data.Tag(sweep.TagSweep)
	if parent.Info.Status != mlflow.StatusFinished {
		t.Errorf("parent: %s; want FINISHED", parent.Info.Status)
	}
	if msg, ok := parent.Data.Tag("narlab.error"); ok {
		t.Errorf("parent of the finished grid still has narlab.error %q from the interrupted invocation", msg)
	}
	for key, wantRuns := range map[string]int{mpnn: 1, pgn: 2} {
		rs := children[key]
		var active []mlflow.Run
		for _, r := range rs {
			if r.Info.LifecycleStage == "active" {
				active = append(active, r)
			}
		}
		if len(rs) != wantRuns || len(active) != 1 || active[0].Info.Status != mlflow.StatusFinished {
			t.Errorf("cell %s: %d runs, %d active; want %d runs, one active and FINISHED", key, len(rs), len(active), wantRuns)
			continue
		}
		r := active[0]
		for tag, want := range map[string]string{mlflow.TagParentRunID: o1.ParentRunID, sweep.TagSweep: gridID} {
			if got, _ := r.Data.Tag(tag); got != want {
				t.Errorf("cell %s: tag %s = %q; want %q", key, tag, got, want)
			}
		}
		if m, ok := r.Data.Metric(MetricTestScore); !ok || m.Step != 0 {
			t.Errorf("cell %s: %s %+v; want a summary value at step 0", key, MetricTestScore, m)
		}
		if _, ok := r.Data.Metric("test/output/pi"); ok {
			t.Errorf("cell %s: per-output test scores are metrics; want them in tables/test_outputs.json", key)
		}
		if key == pgn {
			if at, _ := r.Data.Tag("resumed_at_step"); at != "3" {
				t.Errorf("cell %s: resumed_at_step %q; want 3 (resumed from its checkpoint)", key, at)
			}
			hist, err := c.GetMetricHistory(ctx, r.Info.RunID, "val/score")
			if err != nil {
				t.Fatal(err)
			}
			if len(hist) != 2 {
				t.Errorf("cell %s: the resumed run's val/score has %d points; want 2 (steps 2 and 4)", key, len(hist))
			}
		}
	}
	rows := resultsRows(t, c, parent)
	if len(rows) != 2 {
		t.Fatalf("parent's results.json: %d rows; want 2", len(rows))
	}
	col := func(name string) int { return slices.Index(Figure3Columns, name) }
	for i, key := range []string{mpnn, pgn} {
		row := rows[i]
		if row[0] != key || row[col("processor")] != strings.TrimPrefix(strings.TrimSuffix(key, "-s42"), "insertion_sort-") {
			t.Errorf("row %d: %v; want cell %s", i, row, key)
		}
		// The paper's Table 4 and 2 scores for insertion sort (MPNN, PGN).
		if pv, ok := row[col("paper_val")].(float64); !ok || pv < 80 {
			t.Errorf("row %d: paper_val %v; want the paper's validation score", i, row[col("paper_val")])
		}
		if id := row[col("run_id")]; id == "" {
			t.Errorf("row %d: no run id", i)
		}
	}
	for _, path := range []string{"results.md", "plots/validation_curves.png"} {
		if _, err := c.ReadArtifact(ctx, parent.Info.ArtifactURI, path); err != nil {
			t.Errorf("parent artifact %s: %v", path, err)
		}
	}
	if tag, _ := parent.Data.Tag(mlflow.TagLoggedArtifacts); !strings.Contains(tag, `"results.json"`) {
		t.Errorf("parent's %s = %q; want results.json listed as a table", mlflow.TagLoggedArtifacts, tag)
	}
	if m, ok := parent.Data.Metric("sweep/cells_finished"); !ok || m.Value != 2 || m.Step != 0 {
		t.Errorf("parent's sweep/cells_finished %+v; want 2 at step 0", m)
	}
	if !strings.Contains(o3.Table, "| "+pgn+" |") || !strings.Contains(o3.Table, "| "+mpnn+" |") || o3.ParentURL == "" {
		t.Errorf("the result's table (parent %q):\n%s", o3.ParentURL, o3.Table)
	}
}

// resultsRows reads the parent run's results.json.
func resultsRows(t *testing.T, c *mlflow.Client, r *mlflow.Run) [][]any {
	t.Helper()
	data, err := c.ReadArtifact(context.Background(), r.Info.ArtifactURI, "results.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Columns []string `json:"columns"`
		Data    [][]any  `json:"data"`
	}
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(table.Columns) != fmt.Sprint(Figure3Columns) {
		t.Errorf("results.json columns %v; want %v", table.Columns, Figure3Columns)
	}
	return table.Data
}
