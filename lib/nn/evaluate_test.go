package nn

import (
	"math"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/clrs"
)

// TestEvaluateTrajectories checks that scoring samples batched as they go,
// each batch padded to its own longest trajectory, gives Evaluate's scores
// on the same samples batched beforehand and padded to the longest of all
// (the reference's split batches), for algorithms with trajectories of
// varying length and each kind of output, on the pure-Go backend; XLA,
// which compiles slowly and runs the same graph, checks quicksort's
// (varying lengths, a permutation pointer fused with its mask).
func TestEvaluateTrajectories(t *testing.T) {
	for name, be := range testBackends(t) {
		for _, tc := range []struct{ algo, proc string }{
			{"quicksort", "mpnn"},         // permutation pointer fused with its mask
			{"heapsort", "triplet_gmpnn"}, // triplet messages
			{"minimum", "mpnn"},           // mask_one
			{"bellman_ford", "gatv2"},     // varying lengths on graphs
		} {
			if name != "go" && tc.algo != "quicksort" {
				continue // XLA: one case keeps that path checked (see above)
			}
			t.Run(name+"/"+tc.algo+"/"+tc.proc, func(t *testing.T) {
				s, err := clrs.NewSampler(tc.algo, clrs.Length(6), clrs.Seed(5), clrs.NumSamples(7))
				if err != nil {
					t.Fatal(err)
				}
				trajs := s.Trajectories()
				longest, shortest := 0, math.MaxInt
				for _, tr := range trajs {
					longest, shortest = max(longest, tr.Length), min(shortest, tr.Length)
				}
				if tc.algo != "minimum" && longest == shortest {
					t.Fatalf("%s: every sample has %d steps; the test wants varying lengths", tc.algo, longest)
				}
				var padded []*clrs.Feedback // batches of 3, all padded to the longest sample
				for lo := 0; lo < len(trajs); lo += 3 {
					fb, err := clrs.Batch(trajs[lo:min(lo+3, len(trajs))], longest)
					if err != nil {
						t.Fatal(err)
					}
					padded = append(padded, fb)
				}
				cfg := DefaultConfig(tc.algo, tc.proc)
				cfg.Hidden = 8
				m := testModel(t, be, cfg)
				if _, err := m.TrainStep(padded[0]); err != nil { // away from the initial parameters
					t.Fatal(err)
				}
				want, err := m.Evaluate(padded)
				if err != nil {
					t.Fatal(err)
				}
				got, err := m.EvaluateTrajectories(clrs.Each(trajs), 3)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) || len(got) < 2 {
					t.Fatalf("scores %v, want %v", got, want)
				}
				for k, w := range want {
					if got[k] != w {
						t.Errorf("%s: %v batched as it goes, %v batched beforehand", k, got[k], w)
					}
				}
			})
		}
	}
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	m := testModel(t, be, DefaultConfig("bfs", "mpnn"))
	if _, err := m.EvaluateTrajectories(clrs.Each(nil), 0); err == nil {
		t.Error("batch size 0: no error")
	}
	// A stream's error ends the evaluation and is returned.
	if _, err := m.EvaluateTrajectories(clrs.SplitTrajectories("bfs", "validation", 0), 32); err == nil || !strings.Contains(err.Error(), "validation") {
		t.Errorf("a stream yielding an error: got %v, want the stream's error", err)
	}
}

// TestPredictionIgnoresBatchMates checks that a sample's predictions do not
// depend on the other samples of its batch: the first sample of a batch
// of three is predicted bit for bit the same beside two different pairs
// (of one length, so the batches have one shape and the padding is the
// same). Between batch shapes the backends round differently, which is
// why Run and Evaluate in experiments/clrs30 batch validation and test
// alike. The graph is the backends' common one, so the pure Go backend
// checks it (on XLA the three cases compile for a minute).
func TestPredictionIgnoresBatchMates(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ algo, proc string }{
		{"insertion_sort", "mpnn"},   // a pointer and a mask output, hints fed back
		{"dfs", "triplet_gmpnn"},     // triplet messages, graph outputs
		{"bellman_ford", "pgn_mask"}, // masked messages
	} {
		t.Run(tc.algo+"/"+tc.proc, func(t *testing.T) {
			s, err := clrs.NewSampler(tc.algo, clrs.Length(8), clrs.Seed(3), clrs.NumSamples(5))
			if err != nil {
				t.Fatal(err)
			}
			trajs := s.Trajectories()
			steps := 0
			for _, tr := range trajs {
				steps = max(steps, tr.Length)
			}
			cfg := DefaultConfig(tc.algo, tc.proc)
			cfg.Hidden = 8
			m := testModel(t, be, cfg)
			predict := func(ts ...*clrs.Trajectory) Predictions {
				fb, err := clrs.Batch(ts, steps)
				if err != nil {
					t.Fatal(err)
				}
				p, err := m.Predict(fb)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
			a := predict(trajs[0], trajs[1], trajs[2])
			b := predict(trajs[0], trajs[3], trajs[4])
			for k, v := range a {
				for i := range len(v) / 3 {
					if v[i] != b[k][i] {
						t.Fatalf("%s[%d]: %v beside samples 1 and 2, %v beside 3 and 4", k, i, v[i], b[k][i])
					}
				}
			}
		})
	}
}
