package train

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunResume trains a tiny model without MLflow, checks the history,
// checkpoints and test scores, then runs again with more steps in the
// same directory: it resumes from the last checkpoint instead of starting
// over.
func TestRunResume(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Algo: "insertion_sort", Processor: "mpnn", Steps: 4, Batch: 4, Hidden: 8, EvalEvery: 2,
		ValSamples: 4, TestSamples: 2, Dir: dir, NoMLflow: true}
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.History) != 2 || res.History[1].Step != 4 {
		t.Fatalf("history %+v; want validations at steps 2 and 4", res.History)
	}
	if _, ok := res.Test["pred"]; !ok {
		t.Errorf("test scores %v lack the pred output", res.Test)
	}
	if s := res.Test["score"]; s < 0 || s > 1 {
		t.Errorf("test score %v outside [0, 1]", s)
	}
	for _, f := range []string{"best/nn_config.json", "last/nn_config.json", "state.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	cfg.Steps = 6
	res2, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res2.History) != 3 || res2.History[0] != res.History[0] {
		t.Fatalf("resumed history %+v; want the first run's two points and step 6", res2.History)
	}
	// The best checkpoint scores the same through Evaluate.
	sc, err := Evaluate(filepath.Join(dir, "best"), "test", "go", 2)
	if err != nil {
		t.Fatal(err)
	}
	if sc["score"] != res2.Test["score"] {
		t.Errorf("Evaluate gives %v, the run %v", sc["score"], res2.Test["score"])
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Algo: "bfs", Processor: "mpnn", Steps: -1}, "steps"},
		{Config{Algo: "bfs", Processor: "mpnn", Batch: -2}, "batch"},
		{Config{Algo: "bfs", Processor: "lstm", NoMLflow: true, Dir: "x"}, "unknown processor"},
		{Config{Algo: "bfs", Processor: "mpnn", Backend: "nosuch", NoMLflow: true, Dir: "x"}, "backend"},
	} {
		_, err := Run(context.Background(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error containing %q", c.cfg, err, c.want)
		}
	}
}
