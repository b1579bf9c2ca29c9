package dsrbench

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/metrics"
)

// writeScoringFiles writes instances and a baseline's answers to them.
func writeScoringFiles(t *testing.T, baseline string, tasks ...[2]string) (instances, preds string) {
	t.Helper()
	insts := generated(t, 2, tasks...)
	dir := t.TempDir()
	var buf bytes.Buffer
	if err := dsr.WriteJSONL(&buf, insts); err != nil {
		t.Fatal(err)
	}
	instances = filepath.Join(dir, "instances.jsonl")
	if err := os.WriteFile(instances, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Baseline(baseline, insts)
	if err != nil {
		t.Fatal(err)
	}
	data, err := WritePredictions(p)
	if err != nil {
		t.Fatal(err)
	}
	preds = filepath.Join(dir, baseline+".jsonl")
	if err := os.WriteFile(preds, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return instances, preds
}

// TestScoreFiles scores responses held in files offline: both modes, the
// label, the figures, and the errors of bad files and of figures without
// a structure score.
func TestScoreFiles(t *testing.T) {
	for _, tc := range []struct {
		name      string
		baseline  string
		mode      metrics.ScoreMode
		figures   bool
		wantBin   float64 // overall binary score, -1: below 1
		wantOther metrics.ScoreMode
	}{
		{"oracle, paper", "oracle", metrics.ScorePaper, true, 1, metrics.ScoreLenient},
		{"oracle, lenient", "oracle", metrics.ScoreLenient, false, 1, metrics.ScorePaper},
		{"shuffled", "shuffled", metrics.ScorePaper, false, -1, metrics.ScoreLenient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			instances, preds := writeScoringFiles(t, tc.baseline, someTasks[:3]...)
			cfg := ScoreConfig{Input: instances, Predictions: preds, Score: dsr.ScoreConfig{Strategy: dsr.Stepwise, Mode: tc.mode},
				NoMLflow: true}
			if tc.figures {
				cfg.FiguresDir = t.TempDir()
			}
			res, err := ScoreFiles(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Label != tc.baseline || res.OtherMode != tc.wantOther || res.Run != nil || res.Instances != len(res.Results) {
				t.Errorf("label %q, other mode %v, run %v, %d instances for %d results", res.Label, res.OtherMode, res.Run, res.Instances, len(res.Results))
			}
			if b := res.Tables.Overall.Binary; (tc.wantBin >= 0 && b != tc.wantBin) || (tc.wantBin < 0 && b >= 1) {
				t.Errorf("overall binary %v, want %v", b, tc.wantBin)
			}
			for _, f := range []string{"category_radar.png", "structure_bars.png"} {
				_, err := os.Stat(filepath.Join(cfg.FiguresDir, f))
				if tc.figures && err != nil {
					t.Errorf("figure %s: %v", f, err)
				}
			}
		})
	}
	instances, preds := writeScoringFiles(t, "oracle", someTasks[:1]...)
	for _, tc := range []struct {
		name string
		cfg  ScoreConfig
		want string
	}{
		{"no instances", ScoreConfig{Input: filepath.Join(t.TempDir(), "none"), Predictions: preds}, "no such file"},
		{"no predictions", ScoreConfig{Input: instances, Predictions: filepath.Join(t.TempDir(), "none")}, "no such file"},
		{"instances as predictions", ScoreConfig{Input: instances, Predictions: instances}, "dsr: predictions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.NoMLflow = true
			if res, err := ScoreFiles(context.Background(), tc.cfg); err == nil || res != nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, %v; want no result and an error containing %q", res, err, tc.want)
			}
		})
	}
	if err := WriteFigures(t.TempDir(), "x", dsr.Tables{}); !errors.Is(err, ErrNoStructures) {
		t.Errorf("figures of no structure: %v, want ErrNoStructures", err)
	}
}
