package serialization

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/metrics"
)

// writeScoringFiles writes prompts for two tasks and a predictor's answers
// to them, and returns the two paths.
func writeScoringFiles(t *testing.T, predictor string, drop int) (prompts, preds string) {
	t.Helper()
	tasks, err := graphtext.ParseTasks("degree,has_cycle")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	prompts = filepath.Join(dir, "prompts.jsonl")
	var buf bytes.Buffer
	if _, err := Generate(&buf, Spec{Tasks: tasks, Encodings: []graphtext.Encoding{"E0", "E1"}, Instances: 3, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prompts, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadPromptsFile(prompts)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	for i, r := range recs[drop:] {
		text, err := Predict(r, predictor, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		enc.Encode(graphtext.Prediction{ID: r.ID, AnswerText: text})
	}
	preds = filepath.Join(dir, "preds.jsonl")
	if err := os.WriteFile(preds, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return prompts, preds
}

// TestScoreFiles scores answers held in files offline: both modes, the
// summary, the prompts without an answer, and the errors of bad files.
func TestScoreFiles(t *testing.T) {
	for _, tc := range []struct {
		name      string
		predictor string
		drop      int // prompts left unanswered
		mode      metrics.ScoreMode
		wantAcc   float64
		wantOther metrics.ScoreMode
	}{
		{"oracle, paper scoring", PredictOracle, 0, metrics.ScorePaper, 100, metrics.ScoreLenient},
		{"oracle, lenient scoring", PredictOracle, 0, metrics.ScoreLenient, 100, metrics.ScorePaper},
		{"constant, one unanswered", PredictConstant, 1, metrics.ScorePaper, -1, metrics.ScoreLenient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prompts, preds := writeScoringFiles(t, tc.predictor, tc.drop)
			res, err := ScoreFiles(context.Background(), ScoreConfig{Prompts: prompts, Predictions: preds,
				Extract: graphtext.ExtractOptions{Mode: tc.mode}, NoMLflow: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Run != nil || res.OtherMode != tc.wantOther || res.Prompts != 12 || res.Report.Missing != tc.drop {
				t.Errorf("run %v, other mode %v, %d prompts, %d missing", res.Run, res.OtherMode, res.Prompts, res.Report.Missing)
			}
			if acc := res.Report.MeanAccuracy(Baseline); tc.wantAcc >= 0 && acc != tc.wantAcc {
				t.Errorf("mean accuracy %v, want %v", acc, tc.wantAcc)
			}
			var sum strings.Builder
			WriteSummary(&sum, res.Report)
			if !strings.Contains(sum.String(), "CONFIG") || !strings.Contains(sum.String(), Baseline) ||
				(tc.drop > 0) != strings.Contains(sum.String(), "had no prediction") {
				t.Errorf("summary:\n%s", sum.String())
			}
		})
	}
	prompts, preds := writeScoringFiles(t, PredictOracle, 0)
	for _, tc := range []struct {
		name string
		cfg  ScoreConfig
		want string
	}{
		{"no prompts file", ScoreConfig{Prompts: filepath.Join(t.TempDir(), "none.jsonl"), Predictions: preds}, "no such file"},
		{"no predictions file", ScoreConfig{Prompts: prompts, Predictions: filepath.Join(t.TempDir(), "none.jsonl")}, "no such file"},
		{"predictions as prompts", ScoreConfig{Prompts: preds, Predictions: preds}, "want id, task, graph and answer fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.NoMLflow = true
			if res, err := ScoreFiles(context.Background(), tc.cfg); err == nil || res != nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, %v; want no result and an error containing %q", res, err, tc.want)
			}
		})
	}
}
