package clrs

import (
	"reflect"
	"testing"
)

// TestSplitTrajectories checks that the split drawn a chunk at a time is
// the split NewSplitSampler pre-generates, sample for sample, across chunk
// boundaries and with every worker count, and that limit, an early stop
// and bad names behave.
func TestSplitTrajectories(t *testing.T) {
	for _, tc := range []struct {
		algo, split string
		limit       int
		workers     int
	}{
		{"insertion_sort", "val", 0, 1},         // the whole split, one worker
		{"bellman_ford", "val", 0, 3},           // graphs, several workers
		{"minimum", "test", 150, 2},             // ×64 split: three chunks, the last partial
		{"quickselect", "val", 65, 2},           // one sample past a chunk
		{"naive_string_matcher", "test", 64, 0}, // exactly one chunk, default workers
	} {
		t.Run(tc.algo+"/"+tc.split, func(t *testing.T) {
			var opts []Option
			if tc.workers > 0 {
				opts = append(opts, Workers(tc.workers))
			}
			s, err := NewSplitSampler(tc.algo, tc.split)
			if err != nil {
				t.Fatal(err)
			}
			want := s.Trajectories()
			if tc.limit > 0 {
				want = want[:tc.limit]
			}
			i := 0
			for got, err := range SplitTrajectories(tc.algo, tc.split, tc.limit, opts...) {
				if err != nil {
					t.Fatalf("sample %d: %v", i, err)
				}
				if i >= len(want) {
					t.Fatalf("more than the %d samples wanted", len(want))
				}
				if !reflect.DeepEqual(got, want[i]) {
					t.Fatalf("sample %d differs from NewSplitSampler's", i)
				}
				i++
			}
			if i != len(want) {
				t.Fatalf("%d samples, want %d", i, len(want))
			}
		})
	}

	t.Run("early stop", func(t *testing.T) {
		n := 0
		for _, err := range SplitTrajectories("bfs", "test", 0) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == 3 {
				break
			}
		}
		if n != 3 {
			t.Fatalf("stopped after %d samples, want 3", n)
		}
	})

	for _, tc := range []struct{ algo, split string }{{"no_such_algo", "val"}, {"bfs", "validation"}} {
		t.Run("error/"+tc.algo+"/"+tc.split, func(t *testing.T) {
			var errs int
			for tr, err := range SplitTrajectories(tc.algo, tc.split, 0) {
				if err == nil || tr != nil {
					t.Fatalf("yielded (%v, %v), want one error", tr, err)
				}
				errs++
			}
			if errs != 1 {
				t.Fatalf("%d errors yielded, want 1", errs)
			}
		})
	}
}
