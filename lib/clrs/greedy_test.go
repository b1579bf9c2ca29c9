package clrs

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestGreedyBadInput(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		algo string
		args Args
		want string
	}{
		{"activity empty", "activity_selector", Args{[]float64{}, []float64{}}, "no activities"},
		{"activity lengths", "activity_selector", Args{[]float64{0, 1}, []float64{2}}, "got 1 finish times for 2 start times"},
		{"activity finish before start", "activity_selector", Args{[]float64{0, 3}, []float64{1, 2}}, "activity 1 finishes at 2, before it starts at 3"},
		{"activity NaN start", "activity_selector", Args{[]float64{nan}, []float64{1}}, "s: element 0 is NaN"},
		{"activity NaN finish", "activity_selector", Args{[]float64{0}, []float64{nan}}, "f: element 0 is NaN"},
		{"task empty", "task_scheduling", Args{[]int{}, []float64{}}, "no tasks"},
		{"task lengths", "task_scheduling", Args{[]int{1, 2}, []float64{0.5}}, "got 1 penalties for 2 deadlines"},
		{"task zero deadline", "task_scheduling", Args{[]int{1, 0}, []float64{0.5, 0.5}}, "task 1 has deadline 0; want deadlines >= 1"},
		{"task negative deadline", "task_scheduling", Args{[]int{-2}, []float64{0.5}}, "task 0 has deadline -2"},
		{"task NaN penalty", "task_scheduling", Args{[]int{1}, []float64{nan}}, "w: element 0 is NaN"},
	}
	typed := map[string]func(Args) (*Trajectory, error){
		"activity_selector": func(a Args) (*Trajectory, error) { return ActivitySelector(a[0].([]float64), a[1].([]float64)) },
		"task_scheduling":   func(a Args) (*Trajectory, error) { return TaskScheduling(a[0].([]int), a[1].([]float64)) },
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := typed[c.algo](c.args); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("typed: got error %v; want one mentioning %q", err, c.want)
			}
			_, err := Run(c.algo, c.args)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.algo) {
				t.Errorf("Run: got error %v; want one naming %s and mentioning %q", err, c.algo, c.want)
			}
		})
	}
	t.Run("task non-integer deadline", func(t *testing.T) {
		_, err := Run("task_scheduling", Args{[]float64{1.5}, []float64{0.5}})
		if err == nil || !strings.Contains(err.Error(), "want an integer") {
			t.Errorf("got %v; want an error about a non-integer deadline", err)
		}
	})
	t.Run("task sampler max_deadline 0", func(t *testing.T) {
		_, err := NewSampler("task_scheduling", Length(4), Seed(0), NumSamples(1), Kwarg("max_deadline", 0))
		if err == nil || !strings.Contains(err.Error(), "max_deadline") {
			t.Errorf("got %v; want an error about max_deadline", err)
		}
	})
}

// arrVisitOrder reads the node marked by a mask_one hint at steps 1..T-1
// (step 0 is the empty initial state).
func arrVisitOrder(tr *Trajectory, hint string) []int {
	h := tr.Hint(hint)
	out := make([]int, 0, tr.Length-1)
	for step := 1; step < tr.Length; step++ {
		out = append(out, arrOneHot(h.Step(step)))
	}
	return out
}

// arrMaskNodes returns the nodes set in a 0/1 mask.
func arrMaskNodes(mask []float64) []int {
	var out []int
	for i, v := range mask {
		if v == 1 {
			out = append(out, i)
		}
	}
	return out
}

// arrChainable tells whether activities can run one after another, each
// starting no earlier than the previous one finishes (the greedy's notion
// of compatibility): ordered by finish and then start time, each must
// start at or after its predecessor's finish.
func arrChainable(s, f []float64, set []int) bool {
	set = slices.Clone(set)
	slices.SortFunc(set, func(a, b int) int {
		if c := cmp.Compare(f[a], f[b]); c != 0 {
			return c
		}
		return cmp.Compare(s[a], s[b])
	})
	for k := 1; k < len(set); k++ {
		if s[set[k]] < f[set[k-1]] {
			return false
		}
	}
	return true
}

// TestActivitySelectorProperties checks activity_selector against a brute
// force over all subsets: the selection is chainable and as large as the
// largest chainable subset, and activities are visited by non-decreasing
// finish time. Activities have positive durations here: with zero-length
// activities that share a finish time, the greedy result depends on how
// ties are ordered (as in the reference).
func TestActivitySelectorProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(61, 62))
	for trial := range 700 {
		n := 1 + rng.IntN(13)
		s, f := make([]float64, n), make([]float64, n)
		grid := trial%2 == 0 // small integer times: many shared starts and finishes
		for i := range s {
			if grid {
				s[i] = float64(rng.IntN(6))
				f[i] = s[i] + float64(1+rng.IntN(3))
			} else {
				s[i] = rng.Float64() * 10
				f[i] = s[i] + rng.ExpFloat64()
			}
		}
		sb, fb := slices.Clone(s), slices.Clone(f)
		tr, err := ActivitySelector(s, f)
		label := fmt.Sprintf("trial %d activity_selector(%v, %v)", trial, s, f)
		arrCheckRun(t, label, tr, err, Args{s, f}, Args{sb, fb})
		chosen := arrMaskNodes(tr.Output("selected").Data)
		if !arrChainable(s, f, chosen) {
			t.Fatalf("%s: selection %v overlaps", label, chosen)
		}
		best := 0
		for mask := uint(1); mask < 1<<n; mask++ {
			if c := bits.OnesCount(mask); c > best {
				var set []int
				for i := range n {
					if mask>>i&1 == 1 {
						set = append(set, i)
					}
				}
				if arrChainable(s, f, set) {
					best = c
				}
			}
		}
		if len(chosen) != best {
			t.Fatalf("%s: selected %d activities %v; the most compatible ones are %d", label, len(chosen), chosen, best)
		}
		visit := arrVisitOrder(tr, "m")
		sortedVisit := slices.Clone(visit)
		slices.Sort(sortedVisit)
		if !slices.Equal(sortedVisit, arange(n)) {
			t.Fatalf("%s: visit order %v is not a permutation", label, visit)
		}
		for k := 1; k < n; k++ {
			if f[visit[k]] < f[visit[k-1]] {
				t.Fatalf("%s: visit order %v not by finish time", label, visit)
			}
		}
		if !slices.Equal(tr.Hint("selected_h").Step(tr.Length-1), tr.Output("selected").Data) {
			t.Fatalf("%s: last selected_h differs from the output", label)
		}
	}
}

// TestTaskSchedulingProperties checks task_scheduling's invariants: tasks
// are visited by non-increasing penalty, the accepted tasks form a
// feasible schedule (in deadline order the k-th has deadline >= k), t
// counts the accepted tasks, and a task is rejected only when as many
// tasks as its deadline were already accepted. (The reference's
// acceptance test is this count, not CLRS's full independence check, so
// the accepted set is feasible but not always the heaviest one.)
func TestTaskSchedulingProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(71, 72))
	for trial := range 700 {
		n := 1 + rng.IntN(30)
		d, w := make([]int, n), make([]float64, n)
		for i := range d {
			d[i] = 1 + rng.IntN(max(1, n/(1+rng.IntN(3))))
			if trial%2 == 0 {
				w[i] = float64(rng.IntN(4)) // ties
			} else {
				w[i] = rng.Float64()
			}
		}
		db, wb := slices.Clone(d), slices.Clone(w)
		tr, err := TaskScheduling(d, w)
		label := fmt.Sprintf("trial %d task_scheduling(%v, %v)", trial, d, w)
		arrCheckRun(t, label, tr, err, Args{d, w}, Args{db, wb})
		if got := tr.Input("d"); got.DType != Int64 {
			t.Fatalf("%s: d input dtype %v; want int64", label, got.DType)
		}
		visit := arrVisitOrder(tr, "i")
		sortedVisit := slices.Clone(visit)
		slices.Sort(sortedVisit)
		if !slices.Equal(sortedVisit, arange(n)) {
			t.Fatalf("%s: visit order %v is not a permutation", label, visit)
		}
		accepted := 0
		sel := tr.Hint("selected_h")
		for k, task := range visit {
			if k > 0 && w[task] > w[visit[k-1]] {
				t.Fatalf("%s: visit order %v not by decreasing penalty", label, visit)
			}
			now := sel.Step(k + 1)[task] == 1
			if now != (accepted < d[task]) {
				t.Fatalf("%s: task %d (deadline %d) accepted=%v after %d acceptances", label, task, d[task], now, accepted)
			}
			if now {
				accepted++
			}
			if got := tr.Hint("t").Step(k + 1)[0]; got != float64(accepted) {
				t.Fatalf("%s: t = %v at step %d; want %d", label, got, k+1, accepted)
			}
		}
		chosen := arrMaskNodes(tr.Output("selected").Data)
		if len(chosen) != accepted {
			t.Fatalf("%s: %d selected; %d accepted", label, len(chosen), accepted)
		}
		deadlines := make([]int, 0, len(chosen))
		for _, i := range chosen {
			deadlines = append(deadlines, d[i])
		}
		slices.Sort(deadlines)
		for k, dl := range deadlines {
			if dl < k+1 {
				t.Fatalf("%s: accepted tasks %v cannot all meet their deadlines", label, chosen)
			}
		}
	}
}

// TestGreedyReferenceVectors checks the order in which tasks and
// activities with tied keys are visited, and the result, against values
// printed by the reference for these inputs (`dump.py ALGO 0 0 --args`):
// 20 items, so numpy's argsort partitions before insertion-sorting and
// does not keep ties in index order.
func TestGreedyReferenceVectors(t *testing.T) {
	s := []float64{0, 1, 0, 2, 1, 0, 3, 2, 1, 0, 4, 3, 2, 1, 0, 5, 4, 3, 2, 1}
	f := []float64{1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6}
	tr, err := ActivitySelector(s, f)
	if err != nil {
		t.Fatal(err)
	}
	wantM := []int{0, 0, 1, 2, 3, 4, 5, 8, 9, 6, 7, 10, 11, 12, 13, 14, 18, 15, 16, 17, 19}
	wantSel := []float64{1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0}
	if got := append([]int{0}, arrVisitOrder(tr, "m")...); !slices.Equal(got, wantM) {
		t.Errorf("activity_selector m: got %v\nwant %v", got, wantM)
	}
	if got := tr.Output("selected").Data; !slices.Equal(got, wantSel) {
		t.Errorf("activity_selector selected: got %v\nwant %v", got, wantSel)
	}

	d := []int{3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1}
	w := []float64{0.5, 0.5, 0.25, 0.5, 0.25, 0.5, 0.5, 0.25, 0.5, 0.5, 0.5, 0.25, 0.5, 0.5, 0.5, 0.25, 0.5, 0.5, 0.5, 0.5}
	tr, err = TaskScheduling(d, w)
	if err != nil {
		t.Fatal(err)
	}
	wantI := []int{0, 0, 17, 16, 14, 13, 12, 10, 18, 9, 6, 5, 3, 1, 8, 19, 7, 11, 4, 15, 2}
	wantSel = []float64{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0}
	if got := append([]int{0}, arrVisitOrder(tr, "i")...); !slices.Equal(got, wantI) {
		t.Errorf("task_scheduling i: got %v\nwant %v", got, wantI)
	}
	if got := tr.Output("selected").Data; !slices.Equal(got, wantSel) {
		t.Errorf("task_scheduling selected: got %v\nwant %v", got, wantSel)
	}
}
