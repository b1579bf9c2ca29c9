package spectral

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/spectralgnn"
)

// TestRun runs the spectral-eval protocol offline at a small size: the
// predictors evaluated, the answers file and its parse failures, the
// spread, the figures, the summary, and the settings it refuses.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	graphs := filepath.Join(dir, "graphs.jsonl")
	gs, err := graphtext.GenerateSet(7, 3, graphtext.GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var gb bytes.Buffer
	for _, g := range gs {
		edges := [][2]int{}
		for _, e := range g.Edges {
			edges = append(edges, [2]int{e.U, e.V})
		}
		json.NewEncoder(&gb).Encode(map[string]any{"n": g.N, "edges": edges})
	}
	if err := os.WriteFile(graphs, gb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	answers := filepath.Join(dir, "llm.jsonl")
	if err := os.WriteFile(answers, []byte(`{"id": 0, "task": "graph_energy", "answer_text": "\\boxed{4.5}"}
{"id": 1, "task": "graph_energy", "answer_text": "no idea"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		cfg        Config
		predictors []string
		want       []string // in the summary
		spread     bool
		figures    bool
	}{
		{"mean only, generated graphs", Config{Count: 4, TrainCount: 6, NoGNN: true}, []string{"mean"},
			[]string{"mean: sMAPE Easy"}, false, false},
		{"mean and an answers file, graphs read", Config{GraphsFile: graphs, TrainCount: 6, NoGNN: true, PredictionsFile: answers},
			[]string{"mean", "llm"}, []string{"global error [mean llm]", "llm graph_energy: parsed 1/3 answers"}, false, true},
		{"joint GNN with its spread", Config{Count: 3, TrainCount: 6, Joint: true, Spread: 2,
			GNN: spectralgnn.Config{Steps: 2, Hidden: 4, Layers: 1}}, []string{"mean", "gnn"},
			[]string{"gnn output spread under 2 relabelings"}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.NoMLflow = true
			if tc.figures {
				tc.cfg.FiguresDir = filepath.Join(t.TempDir(), "figs")
			}
			res, err := Run(context.Background(), tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(res.Report.Predictors, ",") != strings.Join(tc.predictors, ",") || res.Run != nil {
				t.Errorf("predictors %v (run %v), want %v", res.Report.Predictors, res.Run, tc.predictors)
			}
			if (len(res.Spreads) == len(graphtext.SpectralTasks)) != tc.spread {
				t.Errorf("%d spreads, want them: %v", len(res.Spreads), tc.spread)
			}
			var sum strings.Builder
			if err := res.WriteSummary(&sum); err != nil {
				t.Fatal(err)
			}
			for _, w := range append(tc.want, "| task |") {
				if !strings.Contains(sum.String(), w) {
					t.Errorf("summary lacks %q:\n%s", w, sum.String())
				}
			}
			for _, f := range []string{"densities.png", "table10.md"} {
				if _, err := os.Stat(filepath.Join(tc.cfg.FiguresDir, f)); tc.figures && err != nil {
					t.Errorf("figure %s: %v", f, err)
				}
			}
		})
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"a name without answers", Config{PredictionsName: "x", NoGNN: true}, `--name "x" names the --predictions predictor`},
		{"one test graph", Config{Count: 1, NoGNN: true}, "want at least 2 each"},
		{"log base 1", Config{Count: 2, TrainCount: 2, NoGNN: true, Options: graphtext.SpectralOptions{EntropyLogBase: 1}}, "base"},
		{"no graphs file", Config{GraphsFile: filepath.Join(dir, "none"), NoGNN: true}, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.NoMLflow = true
			if res, err := Run(context.Background(), tc.cfg); err == nil || res != nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, %v; want no result and an error containing %q", res, err, tc.want)
			}
		})
	}
}
