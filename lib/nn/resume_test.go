package nn

import (
	"fmt"
	"testing"
)

// TestLoadContinuesExactly saves a model after one step, takes a second
// step, then loads the checkpoint and takes the same step again: the
// losses must be equal, also for insertion_sort whose permutation pointer
// draws Gumbel noise from the model's random state (which the checkpoint
// must restore), and for bfs with teacher forcing, whose draws come from
// the same state. Pure-Go backend, whose steps are deterministic.
func TestLoadContinuesExactly(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		algo    string
		teacher float64
	}{{"bfs", 0}, {"insertion_sort", 0}, {"bfs", 0.5}} {
		algo := c.algo
		t.Run(fmt.Sprintf("%s/teacher_forcing_%g", algo, c.teacher), func(t *testing.T) {
			fb := fixedBatch(t, algo, 4, 2)
			cfg := DefaultConfig(algo, "mpnn")
			cfg.Hidden, cfg.TeacherForcing = 8, c.teacher
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

// TestTeacherForcingFeedsTruth checks that teacher forcing changes what is
// fed back: with probability 1 the first step's loss differs from that
// without it (same seed, same batch), and probability 0 changes nothing.
func TestTeacherForcingFeedsTruth(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	fb := fixedBatch(t, "bellman_ford", 8, 2) // hints over several steps
	loss := func(p float64) float64 {
		cfg := DefaultConfig("bellman_ford", "mpnn")
		cfg.Hidden, cfg.TeacherForcing = 8, p
		m, err := New(be, cfg)
		if err != nil {
			t.Fatal(err)
		}
		l, err := m.TrainStep(fb)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	none, again, all := loss(0), loss(0), loss(1)
	if none != again {
		t.Errorf("two models of the same seed: first losses %v and %v", none, again)
	}
	if all == none {
		t.Errorf("teacher forcing 1 left the first loss at %v", all)
	}
}
