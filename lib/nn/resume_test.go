package nn

import "testing"

// TestLoadContinuesExactly saves a model after one step, takes a second
// step, then loads the checkpoint and takes the same step again: the
// losses must be equal, also for insertion_sort whose permutation pointer
// draws Gumbel noise from the model's random state (which the checkpoint
// must restore). Pure-Go backend, whose steps are deterministic.
func TestLoadContinuesExactly(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, algo := range []string{"bfs", "insertion_sort"} {
		t.Run(algo, func(t *testing.T) {
			fb := fixedBatch(t, algo, 4, 2)
			cfg := DefaultConfig(algo, "mpnn")
			cfg.Hidden = 8
			m, err := New(be, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.TrainStep(fb); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := m.Save(dir); err != nil {
				t.Fatal(err)
			}
			want, err := m.TrainStep(fb)
			if err != nil {
				t.Fatal(err)
			}
			m2, err := Load(be, dir)
			if err != nil {
				t.Fatal(err)
			}
			if m2.Step() != 1 {
				t.Errorf("loaded model at step %d, want 1", m2.Step())
			}
			got, err := m2.TrainStep(fb)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("second step's loss after loading %v, continuing %v", got, want)
			}
		})
	}
}
