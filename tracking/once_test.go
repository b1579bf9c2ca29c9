package tracking

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogOnceErrors checks LogOnce's answers before and without a server:
// nothing at all when the destination is off, an unreadable input named
// before a run starts, a bad address, and a server that never answers (the
// run is logged into its spool, and the error says to sync it).
func TestLogOnceErrors(t *testing.T) {
	t.Setenv("NARLAB_DATA", t.TempDir())
	t.Setenv("NARLAB_MLFLOW_TIMEOUT", "2")
	missing := filepath.Join(t.TempDir(), "none.jsonl")
	for _, tc := range []struct {
		name   string
		to     Destination
		inputs []FileInput
		want   string // "" : no run, no error
		logged bool   // log was called
	}{
		{"off", Destination{Experiment: "x", Off: true}, []FileInput{{"d", missing, "eval"}}, "", false},
		{"an input that is not there", Destination{Experiment: "x", TrackingURI: "http://127.0.0.1:1"},
			[]FileInput{{"d", missing, "eval"}}, "dataset d", false},
		{"not a server address", Destination{Experiment: "x", TrackingURI: "file:///tmp/mlruns"}, nil,
			"`mlflow server`) (run offline with --no-mlflow)", false},
		{"no server there", Destination{Experiment: "x", TrackingURI: "http://127.0.0.1:1"},
			[]FileInput{{"stdin", "-", "eval"}, {"none", "", "eval"}},
			"the MLflow server did not take the whole run", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			called := false
			log := func(context.Context, *Run) error { called = true; return nil }
			run, err := LogOnce(context.Background(), tc.to, nil, nil, tc.inputs, log)
			switch {
			case tc.want == "" && (run != nil || err != nil):
				t.Errorf("run %v, error %v; want neither", run, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
			if called != tc.logged {
				t.Errorf("log called %v, want %v", called, tc.logged)
			}
			if tc.logged && (run == nil || !strings.Contains(err.Error(), "deliver them with `narlab mlflow sync`")) {
				t.Errorf("run %v, error %v; want the ended run and the advice to sync", run, err)
			}
		})
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("the missing input was created")
	}
}

// LogOnce logs finished work as one run: here a score, with the file it
// was computed from as the run's dataset input (offline here: Off).
func ExampleLogOnce() {
	run, err := LogOnce(context.Background(), Destination{Experiment: "my-scores", Off: true},
		map[string]string{"model": "gemma"}, []Option{RunName("score gemma")},
		[]FileInput{{Name: "answers", Path: "answers.jsonl", Context: "predictions"}},
		func(ctx context.Context, run *Run) error { return run.LogMetric("accuracy", 0, 0.75) })
	fmt.Println(run == nil, err)
	// Output:
	// true <nil>
}
