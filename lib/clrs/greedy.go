package clrs

import (
	"fmt"

	"github.com/narlab/narlab/lib/npsort"
)

// Greedy algorithms: activity_selector (CLRS §16.1) and task_scheduling
// (CLRS §16.5). Both visit the items in an order given by numpy's default
// (unstable) argsort, which npsort.Argsort reproduces so that
// ties are broken as in the reference.

func init() {
	register(&algorithmDef{name: "activity_selector", sampler: activitySampler,
		args: []argSpec{
			{"s", argFloats, "the activities' start times"},
			{"f", argFloats, "the activities' finish times, f[i] >= s[i]"},
		},
		run: func(a Args) (*Trajectory, error) { return ActivitySelector(a[0].([]float64), a[1].([]float64)) }})
	register(&algorithmDef{name: "task_scheduling", sampler: taskSampler,
		args: []argSpec{
			{"d", argInts, "the tasks' deadlines, integers >= 1"},
			{"w", argFloats, "the tasks' penalties for missing their deadline"},
		},
		run: func(a Args) (*Trajectory, error) { return TaskScheduling(a[0].([]int), a[1].([]float64)) }})
}

// ActivitySelector selects a largest set of mutually compatible activities
// (activity i occupies [s[i], f[i])) greedily: visit the activities by
// increasing finish time and take each one that starts no earlier than the
// last taken one finishes. Activities with equal finish times are visited
// in the order numpy's default argsort gives them.
//
// Output: selected, the mask of taken activities. Hints (the empty initial
// state, then one step per activity): pred_h, the identity order;
// selected_h, the activities taken so far; m, the activity just visited;
// k, the last activity taken.
func ActivitySelector(s, f []float64) (*Trajectory, error) {
	n := len(s)
	if n == 0 {
		return nil, fmt.Errorf("s: there are no activities; want at least one")
	}
	if len(f) != n {
		return nil, fmt.Errorf("f: got %d finish times for %d start times; want one per activity", len(f), n)
	}
	if err := checkFinite(s); err != nil {
		return nil, fmt.Errorf("s: %w", err)
	}
	if err := checkFinite(f); err != nil {
		return nil, fmt.Errorf("f: %w", err)
	}
	for i := range s {
		if f[i] < s[i] {
			return nil, fmt.Errorf("f: activity %d finishes at %v, before it starts at %v; want f[i] >= s[i]", i, f[i], s[i])
		}
	}
	r := newRecorder("activity_selector", n)
	r.input("pos", positions(n))
	r.input("s", s)
	r.input("f", f)
	order := arange(n)
	hPred, hSel, hM, hK := r.hint("pred_h"), r.hint("selected_h"), r.hint("m"), r.hint("k")
	selected := make([]float64, n)
	push := func(m, k int) {
		r.step()
		r.pushListPointers(hPred, order)
		r.pushVals(hSel, selected)
		r.pushOneHot(hM, m, n)
		r.pushOneHot(hK, k, n)
	}
	push(0, 0)
	byFinish := npsort.Argsort(f)
	k := byFinish[0]
	selected[k] = 1
	push(k, k)
	for _, m := range byFinish[1:] {
		if s[m] >= f[k] {
			selected[m] = 1
			k = m
		}
		push(m, k)
	}
	r.output("selected", selected)
	return r.finish(Args{append([]float64(nil), s...), append([]float64(nil), f...)}), nil
}

// TaskScheduling schedules unit-time tasks with deadlines d and penalties
// w on one machine, greedily (CLRS §16.5): visit the tasks by decreasing
// penalty and accept each one that can still finish by its deadline when
// the accepted tasks run first, in the next free slot. Tasks with equal
// penalties are visited in the order numpy's default argsort gives them.
//
// Output: selected, the mask of accepted (early) tasks. Hints (the empty
// initial state, then one step per task): pred_h, the identity order;
// selected_h, the tasks accepted so far; i, the task just visited; t, the
// number of accepted tasks.
func TaskScheduling(d []int, w []float64) (*Trajectory, error) {
	n := len(d)
	if n == 0 {
		return nil, fmt.Errorf("d: there are no tasks; want at least one")
	}
	if len(w) != n {
		return nil, fmt.Errorf("w: got %d penalties for %d deadlines; want one per task", len(w), n)
	}
	for i, v := range d {
		if v < 1 {
			return nil, fmt.Errorf("d: task %d has deadline %d; want deadlines >= 1 (time slots are numbered from 1)", i, v)
		}
	}
	if err := checkFinite(w); err != nil {
		return nil, fmt.Errorf("w: %w", err)
	}
	r := newRecorder("task_scheduling", n)
	r.input("pos", positions(n))
	r.inputInts("d", d)
	r.input("w", w)
	order := arange(n)
	hPred, hSel, hI, hT := r.hint("pred_h"), r.hint("selected_h"), r.hint("i"), r.hint("t")
	selected := make([]float64, n)
	push := func(i, t int) {
		r.step()
		r.pushListPointers(hPred, order)
		r.pushVals(hSel, selected)
		r.pushOneHot(hI, i, n)
		r.pushScalar(hT, float64(t))
	}
	push(0, 0)
	negW := make([]float64, n)
	for i, v := range w {
		negW[i] = -v
	}
	byPenalty := npsort.Argsort(negW)
	selected[byPenalty[0]] = 1
	t := 1
	push(byPenalty[0], t)
	for _, i := range byPenalty[1:] {
		if t < d[i] {
			selected[i] = 1
			t++
		}
		push(i, t)
	}
	r.output("selected", selected)
	return r.finish(Args{append([]int(nil), d...), append([]float64(nil), w...)}), nil
}
