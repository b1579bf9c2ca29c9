package salsaclrs

import (
	"strings"
	"testing"

	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// TestRunLogsParentAndChildren runs the protocol at a tiny budget against a
// real MLflow server and reads it back with MLflow's own Python client: a
// parent run per algorithm (params, training loss, validation score, a
// per-set table) and a finished child run per test set with its score.
func TestRunLogsParentAndChildren(t *testing.T) {
	srv := mlflowtest.Server(t)
	cfg := Config{Algos: []string{"bfs"}, TestSets: []string{"er_16", "delaunay_160"}, Steps: 6, EvalEvery: 3,
		TrainSamples: 40, ValSamples: 8, TestSamples: func(int) int { return 3 }, Hidden: 8, Backend: "go",
		TrackingURI: srv.URL, Experiment: "salsa-test"}
	res, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || len(res[0].Tests) != 2 {
		t.Fatalf("results %+v; want one algorithm with two test sets", res)
	}
	r := res[0]
	runs := mlflowtest.ReadRuns(t, srv.URL, r.RunID)
	parent := runs[r.RunID]
	if parent.Status != "FINISHED" || parent.Params["algorithm"] != "bfs" || parent.Params["train_steps"] != "6" {
		t.Errorf("parent run: status %s, params %v", parent.Status, parent.Params)
	}
	for _, k := range []string{"train/loss", "val/score", "test/er_16/score", "test/delaunay_160/score"} {
		if len(parent.Metrics[k]) == 0 {
			t.Errorf("parent run has no %s", k)
		}
	}
	children := mlflowtest.Children(t, srv.URL, r.RunID)
	if len(children) != 2 {
		t.Fatalf("%d child runs, want 2", len(children))
	}
	got := mlflowtest.ReadRuns(t, srv.URL, children...)
	sets := map[string]bool{}
	for _, c := range got {
		sets[c.Params["test_set"]] = true
		if c.Status != "FINISHED" {
			t.Errorf("child %s: status %s", c.Params["test_set"], c.Status)
		}
		sc := c.Metrics["test/score"]
		if len(sc) != 1 || sc[0].Value < 0 || sc[0].Value > 1 {
			t.Errorf("child %s: test/score %v; want one fraction", c.Params["test_set"], sc)
		}
	}
	if !sets["er_16"] || !sets["delaunay_160"] {
		t.Errorf("children cover %v", sets)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Algos: []string{"quicksort"}}, "unknown algorithm"},
		{Config{TestSets: []string{"train"}}, "not a test set"},
		{Config{TestSets: []string{"er_17"}}, "er_17"},
		{Config{Processor: "triplet_gmpnn"}, "no sparse form"},
		{Config{HintMode: "encoded_decoded"}, "hints"},
	} {
		c.cfg.NoMLflow = true
		if _, err := Run(t.Context(), c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.cfg, err, c.want)
		}
	}
}
