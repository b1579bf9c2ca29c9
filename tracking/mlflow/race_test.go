package mlflow

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentRuns logs from two runs of one experiment at once what two
// sweeps of the same grid log (the same datasets, by name and digest) to a
// real server, where MLflow's store creates a dataset after looking it up,
// so that one of two simultaneous requests loses the race on the unique
// key and is answered 400: through the run logger's spool and through the
// client, every request is delivered and nothing is rejected. It also
// records a run's model output twice (the retry of a request whose answer
// was lost): one output, no error.
func TestConcurrentRuns(t *testing.T) {
	c := testClient(t)
	ctx := context.Background()
	const rounds = 20
	datasets := make([]DatasetInput, rounds)
	for k := range datasets {
		datasets[k] = DatasetInput{Dataset: Dataset{Name: fmt.Sprintf("clrs30/bfs/train-%d", k), Digest: "0123abcd",
			SourceType: "code", Source: `{"seed": 1}`}, Tags: []Tag{{TagDatasetContext, "train"}}}
	}
	// both runs do f(run, k) at once, round after round
	together := func(ids [2]string, f func(id string, i, k int) error) {
		t.Helper()
		for k := range rounds {
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, id := range ids {
				wg.Add(1)
				go func() { defer wg.Done(); errs[i] = f(id, i, k) }()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("run %d, dataset %d: %v", i, k, err)
				}
			}
		}
	}
	check := func(ids [2]string) {
		t.Helper()
		for _, id := range ids {
			r, err := c.GetRun(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if n := len(r.Inputs.DatasetInputs); n != rounds {
				t.Errorf("run %s has %d dataset inputs; want %d", id, n, rounds)
			}
		}
	}

	t.Run("spool", func(t *testing.T) {
		var loggers [2]*RunLogger
		var ids [2]string
		for i := range loggers {
			lg, err := c.StartRun(ctx, RunOptions{Experiment: "narlab-test/races-spool", SpoolDir: newSpoolDir(t), Logf: quietLogf(t)})
			if err != nil {
				t.Fatal(err)
			}
			if err := lg.Flush(ctx); err != nil { // the run exists on the server
				t.Fatal(err)
			}
			loggers[i], ids[i] = lg, lg.RunID()
		}
		together(ids, func(_ string, i, k int) error {
			if err := loggers[i].LogInputs(datasets[k]); err != nil {
				return err
			}
			return loggers[i].Flush(ctx)
		})
		for i, lg := range loggers {
			if err := lg.End(ctx, StatusFinished); err != nil {
				t.Errorf("run %d: %v", i, err)
			}
		}
		check(ids)
	})

	t.Run("client", func(t *testing.T) {
		e, err := c.GetOrCreateExperiment(ctx, "narlab-test/races-client")
		if err != nil {
			t.Fatal(err)
		}
		var ids [2]string
		for i := range ids {
			r, err := c.CreateRun(ctx, CreateRunOptions{ExperimentID: e.ID})
			if err != nil {
				t.Fatal(err)
			}
			ids[i] = r.Info.RunID
		}
		together(ids, func(id string, _, k int) error { return c.LogInputs(ctx, id, datasets[k]) })
		check(ids)

		m, err := c.CreateLoggedModel(ctx, CreateLoggedModelOptions{ExperimentID: e.ID, Name: "tiny", SourceRunID: ids[0]})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if err := c.LogOutputs(ctx, ids[0], ModelOutput{ModelID: m.Info.ModelID, Step: Int64(7)}); err != nil {
				t.Errorf("recording the model output, time %d: %v", i+1, err)
			}
		}
		r, err := c.GetRun(ctx, ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if o := r.Outputs.ModelOutputs; len(o) != 1 || o[0].ModelID != m.Info.ModelID {
			t.Errorf("model outputs %+v; want the one model %s", o, m.Info.ModelID)
		}
	})
}
