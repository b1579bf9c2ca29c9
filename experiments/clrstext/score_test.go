package clrstext

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/clrstext"
)

// writeScoringFiles writes CLRS-Text rows of minimum (test schedule, one
// seed, one row per size) and answers to them: every other one spoilt,
// the last skip rows unanswered.
func writeScoringFiles(t *testing.T, skip int) (data, preds string, rows int) {
	t.Helper()
	jobs, err := clrstext.SplitJobs("test", []string{"minimum"}, 1, []int64{3})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := clrstext.Generate(context.Background(), &buf, clrstext.GenerateConfig{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	data = filepath.Join(dir, "test.jsonl")
	if err := os.WriteFile(data, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := clrstext.ReadRows(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i, r := range rs[:len(rs)-skip] {
		ans := r.Answer
		if i%2 == 1 {
			ans = strings.TrimSuffix(ans, "\n\n") + "9\n\n"
		}
		line, _ := json.Marshal(map[string]any{"index": i, "prediction": ans})
		b.Write(append(line, '\n'))
	}
	preds = filepath.Join(dir, "model-x.jsonl")
	if err := os.WriteFile(preds, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return data, preds, len(rs)
}

// TestScoreFiles scores answers held in files offline: the counts, the
// label, the figure file, and the errors of bad files.
func TestScoreFiles(t *testing.T) {
	for _, tc := range []struct {
		name      string
		skip      int
		model     string
		figure    bool
		wantLabel string
	}{
		{"every row answered", 0, "", true, "model-x"},
		{"two rows unanswered, named model", 2, "gemma", false, "gemma"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, preds, rows := writeScoringFiles(t, tc.skip)
			cfg := ScoreConfig{Data: data, Predictions: preds, Model: tc.model, NoMLflow: true}
			if tc.figure {
				cfg.FigurePath = filepath.Join(t.TempDir(), "fig.png")
			}
			res, err := ScoreFiles(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			answered := rows - tc.skip
			if res.Label != tc.wantLabel || res.Rows != rows || res.Predictions != answered || res.Missing != tc.skip || res.Run != nil {
				t.Errorf("label %q, %d rows, %d predictions, %d missing, run %v", res.Label, res.Rows, res.Predictions, res.Missing, res.Run)
			}
			if o := res.Report.Overall; o.N != answered || o.Correct != (answered+1)/2 {
				t.Errorf("overall %+v, want %d answers, %d correct", o, answered, (answered+1)/2)
			}
			if tc.figure {
				if png, err := os.ReadFile(cfg.FigurePath); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
					t.Errorf("figure: %v", err)
				}
			}
		})
	}
	data, preds, _ := writeScoringFiles(t, 0)
	for _, tc := range []struct {
		name string
		cfg  ScoreConfig
		want string
	}{
		{"no data", ScoreConfig{Data: filepath.Join(t.TempDir(), "none"), Predictions: preds}, "no such file"},
		{"no predictions", ScoreConfig{Data: data, Predictions: filepath.Join(t.TempDir(), "none")}, "no such file"},
		{"rows as predictions", ScoreConfig{Data: data, Predictions: data}, "no prediction, output, response or completion field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.NoMLflow = true
			if res, err := ScoreFiles(context.Background(), tc.cfg); err == nil || res != nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, %v; want no result and an error containing %q", res, err, tc.want)
			}
		})
	}
}
