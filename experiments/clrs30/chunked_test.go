package clrs30

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// chunkedRun is a small chunked training of two algorithms in one model,
// with the LSTM (its cell carried with the latents), dropout and teacher
// forcing.
func chunkedRun(dir string, carry bool) Config {
	return Config{Algo: "bfs,insertion_sort", Processor: "mpnn", Steps: 6, EvalEvery: 3, Batch: 2, Hidden: 8,
		TrainLengths: []int{4, 7}, ValSamples: 4, TestSamples: 4, Seed: 5, Backend: "go", Dir: dir, NoMLflow: true,
		Chunked: true, ChunkLength: 5, ChunkCarry: carry, LSTM: true, Dropout: 0.1, TeacherForcing: 0.5}
}

// TestChunkedTraining: chunked training (run.py's --chunked_training) runs
// and resumes exactly (its draws too), in the reference's way (every chunk from its
// stream's initial state) and carrying states from chunk to chunk (the
// carried states saved with last/); the two differ once a stream's second
// chunk is trained (steps 3 and 4 of two lengths), not before; chunks of
// another length are another run.
func TestChunkedTraining(t *testing.T) {
	runs := map[bool]*Result{}
	for _, carry := range []bool{false, true} {
		full, err := Run(context.Background(), chunkedRun(t.TempDir(), carry))
		if err != nil {
			t.Fatal(err)
		}
		if len(full.Losses) != 6 || len(full.History) != 2 {
			t.Fatalf("carry %v: %d losses, history %+v", carry, len(full.Losses), full.History)
		}
		runs[carry] = full
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		cfg := chunkedRun(dir, carry)
		cfg.AfterStep = func(step int, _ float64) {
			if step == 4 {
				cancel()
			}
		}
		_, err = Run(ctx, cfg)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("carry %v: got %v, want an interruption", carry, err)
		}
		res, err := Run(context.Background(), chunkedRun(dir, carry))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Losses, full.Losses) || !slices.Equal(res.History, full.History) || res.Test["score"] != full.Test["score"] {
			t.Errorf("carry %v, resumed at step 4: losses %v history %+v test %v; want %v, %+v, %v", carry, res.Losses, res.History,
				res.Test["score"], full.Losses, full.History, full.Test["score"])
		}
	}
	ref, carried := runs[false].Losses, runs[true].Losses
	if !slices.Equal(ref[:2], carried[:2]) {
		t.Errorf("the first chunk of each stream starts from its initial state either way: losses %v and %v", ref[:2], carried[:2])
	}
	if slices.Equal(ref[2:], carried[2:]) {
		t.Errorf("carrying the states changes nothing: %v", ref)
	}
	other := chunkedRun(t.TempDir(), false)
	other.ChunkLength = 4
	if other.settings().ID() == chunkedRun("", false).settings().ID() {
		t.Error("chunks of 4 and of 5 steps: the same settings")
	}
}
