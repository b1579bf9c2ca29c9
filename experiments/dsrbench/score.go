package dsrbench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/metrics"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking"
)

// ScoreConfig is a scoring of a model's responses to DSR-Bench instances
// held in files (what `narlab dsr score` runs).
type ScoreConfig struct {
	// Input holds the instances: narlab JSONL, a published instance file
	// or a DSR-Bench folder (dsr.LoadInstances). Predictions is the
	// responses' JSONL ({"id", "response"|"answer"|"output", "run"}).
	Input, Predictions string
	// Score is how responses are read and compared: Mode (metrics.ScorePaper,
	// DSR-Bench's own evaluation scripts, or metrics.ScoreLenient) for the tables,
	// the other mode scored and logged beside it; Strategy the one the
	// responses were prompted with; Options the instances' options.
	Score dsr.ScoreConfig
	// Model names the model in the run's name, tags and figure legends
	// (default: the predictions file's base name).
	Model string
	// FiguresDir, when set, also receives the category radar and the
	// per-structure bars as category_radar.png and structure_bars.png.
	FiguresDir string
	// Experiment (default "dsr-bench", or $MLFLOW_EXPERIMENT_NAME),
	// TrackingURI and NoMLflow say where the run is logged.
	Experiment  string
	TrackingURI string
	NoMLflow    bool
}

// ScoreResult is a finished scoring.
type ScoreResult struct {
	// Results are the scored responses; Tables their aggregate in the
	// configuration's mode, Other in the other one (OtherMode);
	// Comparison compares the two per response.
	Results    []dsr.Result
	Tables     dsr.Tables
	Other      dsr.Tables
	OtherMode  metrics.ScoreMode
	Comparison dsr.ModeComparison
	// Label is the model's name as logged; Instances and Predictions the
	// numbers read.
	Label                  string
	Instances, Predictions int
	// Run is the ended MLflow run (nil with NoMLflow).
	Run *tracking.Run
}

// ErrNoStructures is the error of figures asked of a scoring without any
// structure score (only realistic or extra tasks were scored).
var ErrNoStructures = errors.New("no structure scores to draw (only realistic or extra tasks were scored)")

// ScoreFiles reads the instances and the responses, scores them in both
// modes, aggregates the tables (the paper's Table 2 layout), writes the
// figures to FiguresDir when set, and logs the scoring as one MLflow run
// ([Log]'s metrics, tables and figures, the other mode's scores under
// "<mode>/", the comparison under "scoring/", the two files as dataset
// inputs). When only the logging fails it returns the result with the
// error.
func ScoreFiles(ctx context.Context, c ScoreConfig) (*ScoreResult, error) {
	insts, err := dsr.LoadInstances(c.Input, "", "")
	if err != nil {
		return nil, err
	}
	f, err := os.Open(c.Predictions)
	if err != nil {
		return nil, err
	}
	preds, err := dsr.ReadPredictions(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	results, err := dsr.ScoreAll(insts, preds, c.Score)
	if err != nil {
		return nil, err
	}
	res := &ScoreResult{Results: results, Tables: dsr.Aggregate(results), OtherMode: metrics.ScoreLenient,
		Comparison: dsr.CompareModes(results), Label: c.Model, Instances: len(insts), Predictions: len(preds)}
	if c.Score.Mode == metrics.ScoreLenient {
		res.OtherMode = metrics.ScorePaper
	}
	res.Other = dsr.Aggregate(dsr.ResultsIn(results, res.OtherMode))
	if res.Label == "" {
		res.Label = strings.TrimSuffix(filepath.Base(c.Predictions), filepath.Ext(c.Predictions))
	}
	if c.FiguresDir != "" {
		if err := WriteFigures(c.FiguresDir, res.Label, res.Tables); err != nil {
			return nil, err
		}
	}
	params := Params(c.Input, c.Predictions, c.Score.Strategy, c.Score.Options, len(insts), len(preds))
	params["model"] = res.Label
	params["scoring"] = c.Score.Mode.String()
	runOpts := []tracking.Option{tracking.RunName(tracking.RunNameFor("dsr score", res.Label)),
		tracking.Note(RunNote(res.Label, params)), tracking.Tags(map[string]string{"model": res.Label, "benchmark": "DSR-Bench"}),
		tracking.Source("narlab dsr score")}
	inputs := []tracking.FileInput{{Name: "dsr/instances", Path: c.Input, Context: "eval"},
		{Name: "dsr/predictions/" + res.Label, Path: c.Predictions, Context: "predictions"}}
	exp := c.Experiment
	if exp == "" {
		exp = tracking.DefaultExperiment("dsr-bench")
	}
	res.Run, err = tracking.LogOnce(ctx, tracking.Destination{Experiment: exp, TrackingURI: c.TrackingURI, Off: c.NoMLflow},
		params, runOpts, inputs, func(_ context.Context, run *tracking.Run) error {
			if err := Log(run, res.Tables, res.Label); err != nil {
				return err
			}
			return LogOtherMode(run, res.OtherMode, res.Other, res.Comparison)
		})
	return res, err
}

// LogOtherMode logs the other scoring mode's overall, category and
// challenge scores under "<mode>/" and the comparison of the two modes
// (scoring/...).
func LogOtherMode(l Logger, otherMode metrics.ScoreMode, other dsr.Tables, cmp dsr.ModeComparison) error {
	for _, m := range Metrics(other) {
		if strings.HasPrefix(m.Key, "responses/") {
			continue
		}
		if err := l.LogMetric(otherMode.String()+"/"+m.Key, 0, m.Value); err != nil {
			return err
		}
	}
	keys := make([]string, 0, len(cmp.Metrics()))
	for k := range cmp.Metrics() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := l.LogMetric(k, 0, cmp.Metrics()[k]); err != nil {
			return err
		}
	}
	return nil
}

// WriteFigures writes the category radar and the per-structure bars of a
// scoring ([RunFigures]) into dir as category_radar.png and
// structure_bars.png.
func WriteFigures(dir, label string, t dsr.Tables) error {
	if len(t.Structures) == 0 {
		return fmt.Errorf("figures: %w", ErrNoStructures)
	}
	radar, bars, err := RunFigures(label, t)
	if err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	for name, fig := range map[string]*plots.Figure{"category_radar.png": radar, "structure_bars.png": bars} {
		png, err := fig.PNG()
		if err != nil {
			return fmt.Errorf("rendering %s: %w", name, err)
		}
		if err := fsutil.WriteFile(filepath.Join(dir, name), png, fsutil.DataMode); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return nil
}
