package clrstext

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/clrstext"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking"
)

// ScoreConfig is a scoring of a model's answers to CLRS-Text questions
// held in files (what `narlab clrstext score` runs).
type ScoreConfig struct {
	// Data is the dataset the model answered: JSONL from `narlab
	// clrstext generate` or `sample`, or the reference's rows.
	Data string
	// Predictions is the answers' JSONL: {"index"?, "prediction" |
	// "output" | "response" | "completion"}; without index, line k answers
	// row k.
	Predictions string
	// Model names the model that answered in the run's name, tags and the
	// figure (default: the predictions file's base name).
	Model string
	// FigurePath, when set, also receives the accuracy-vs-length figure
	// as a PNG file.
	FigurePath string
	// Experiment (default "clrs-text", or $MLFLOW_EXPERIMENT_NAME),
	// TrackingURI and NoMLflow say where the run is logged.
	Experiment  string
	TrackingURI string
	NoMLflow    bool
}

// ScoreResult is a finished scoring.
type ScoreResult struct {
	Report clrstext.Report
	// Label is the model's name as logged; Rows and Predictions the
	// numbers read; Missing the rows that had no prediction (left out).
	Label                      string
	Rows, Predictions, Missing int
	Figure                     *plots.Figure
	// Run is the ended MLflow run (nil with NoMLflow).
	Run *tracking.Run
}

// ScoreFiles reads the questions and the answers, matches and scores them
// (exact match and time-to-first-failure per algorithm and length), draws
// the accuracy-vs-length figure, writes it to FigurePath when set, and
// logs the scoring as one MLflow run (Params, RunOptions, Log; the two
// files as its dataset inputs). When only the logging fails it returns the
// result with the error.
func ScoreFiles(ctx context.Context, c ScoreConfig) (*ScoreResult, error) {
	rows, err := readFile(c.Data, clrstext.ReadRows)
	if err != nil {
		return nil, err
	}
	preds, err := readFile(c.Predictions, clrstext.ReadPredictions)
	if err != nil {
		return nil, err
	}
	items, missing, err := clrstext.Match(rows, preds)
	if err != nil {
		return nil, err
	}
	rep, err := clrstext.Score(items)
	if err != nil {
		return nil, err
	}
	res := &ScoreResult{Report: rep, Label: c.Model, Rows: len(rows), Predictions: len(preds), Missing: missing}
	if res.Label == "" {
		res.Label = strings.TrimSuffix(filepath.Base(c.Predictions), filepath.Ext(c.Predictions))
	}
	if res.Figure, err = Figure(res.Label, rep); err != nil {
		return nil, err
	}
	if c.FigurePath != "" {
		png, err := res.Figure.PNG()
		if err != nil {
			return nil, err
		}
		if err := fsutil.WriteFile(c.FigurePath, png, fsutil.DataMode); err != nil {
			return nil, err
		}
	}
	exp := c.Experiment
	if exp == "" {
		exp = tracking.DefaultExperiment("clrs-text")
	}
	params := Params(c.Data, c.Predictions, res.Label, len(rows), len(preds), missing)
	inputs := []tracking.FileInput{{Name: "clrstext/questions", Path: c.Data, Context: "eval"},
		{Name: "clrstext/predictions/" + res.Label, Path: c.Predictions, Context: "predictions"}}
	res.Run, err = tracking.LogOnce(ctx, tracking.Destination{Experiment: exp, TrackingURI: c.TrackingURI, Off: c.NoMLflow},
		params, RunOptions(res.Label), inputs, func(_ context.Context, run *tracking.Run) error {
			return Log(run, rep, res.Figure)
		})
	return res, err
}

// readFile opens path and reads it with read.
func readFile[T any](path string, read func(io.Reader) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f)
}
