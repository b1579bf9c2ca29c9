package trainloop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLoop runs a loop whose loss at step s is 1/s and whose score at
// step s is scores[s], from several states, and checks the steps trained,
// the evaluations, the best one, the checkpoints and the events.
func TestLoop(t *testing.T) {
	t.Parallel()
	scores := map[int]float64{2: 0.5, 3: 0.2, 4: 0.7, 5: math.NaN(), 6: 0.7, 7: 0.1, 8: 0.9}
	cases := []struct {
		name             string
		steps, evalEvery int
		from             State
		noEval           bool
		wantEvals        []int // steps evaluated
		wantBest         int   // best step afterwards
		wantBestCkpts    []int // evaluations that were a new best
		wantTrained      []int
	}{
		{name: "every 2", steps: 7, evalEvery: 2, wantEvals: []int{2, 4, 6, 7}, wantBest: 4, wantBestCkpts: []int{2, 4},
			wantTrained: []int{1, 2, 3, 4, 5, 6, 7}},
		{name: "last only", steps: 3, wantEvals: []int{3}, wantBest: 3, wantBestCkpts: []int{3}, wantTrained: []int{1, 2, 3}},
		{name: "NaN is never best", steps: 6, evalEvery: 1, from: State{Step: 4, BestStep: 2, BestVal: 0.5},
			wantEvals: []int{5, 6}, wantBest: 6, wantBestCkpts: []int{6}, wantTrained: []int{5, 6}},
		{name: "a tie keeps the earlier best", steps: 6, evalEvery: 2, from: State{Step: 4, BestStep: 4, BestVal: 0.7},
			wantEvals: []int{6}, wantBest: 4, wantTrained: []int{5, 6}},
		{name: "resumed", steps: 8, evalEvery: 3, from: State{Step: 5, Losses: []float64{1, 0.5, 1. / 3, 0.25, 0.2}},
			wantEvals: []int{6, 8}, wantBest: 8, wantBestCkpts: []int{6, 8}, wantTrained: []int{6, 7, 8}},
		{name: "nothing left", steps: 4, evalEvery: 1, from: State{Step: 4}, wantTrained: nil},
		{name: "no Eval", steps: 3, evalEvery: 1, noEval: true, wantTrained: []int{1, 2, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var trained, evals, bestCkpts, stepped []int
			var kinds []Kind
			l := Loop{Steps: c.steps, EvalEvery: c.evalEvery,
				Step: func(_ context.Context, s int) (float64, error) {
					trained = append(trained, s)
					return 1 / float64(s), nil
				},
				Checkpoint: func(st *State, best bool) error {
					if best {
						bestCkpts = append(bestCkpts, st.Step)
					}
					return nil
				},
				Observers: []Observer{ObserverFunc(func(e Event) {
					kinds = append(kinds, e.Kind)
					if e.Kind == Stepped {
						stepped = append(stepped, e.Step)
						if e.Loss != 1/float64(e.Step) {
							t.Errorf("event of step %d: loss %v", e.Step, e.Loss)
						}
						if (e.Scores != nil) != slices.Contains(c.wantEvals, e.Step) {
							t.Errorf("event of step %d: scores %v", e.Step, e.Scores)
						}
					}
				})},
			}
			if !c.noEval {
				l.Eval = func(_ context.Context, s int) (map[string]float64, error) {
					evals = append(evals, s)
					return map[string]float64{"score": scores[s], "other": -1}, nil
				}
			}
			st := c.from
			stats, err := l.Run(context.Background(), &st)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(trained, c.wantTrained) || !slices.Equal(stepped, c.wantTrained) || stats.Steps != len(c.wantTrained) {
				t.Errorf("trained %v, events of %v, stats %+v; want %v", trained, stepped, stats, c.wantTrained)
			}
			if !slices.Equal(evals, c.wantEvals) {
				t.Errorf("evaluated at %v, want %v", evals, c.wantEvals)
			}
			if st.BestStep != c.wantBest || !slices.Equal(bestCkpts, c.wantBestCkpts) {
				t.Errorf("best step %d, new bests at %v; want %d and %v", st.BestStep, bestCkpts, c.wantBest, c.wantBestCkpts)
			}
			if st.Step != c.steps || len(st.Losses) != len(c.from.Losses)+len(c.wantTrained) {
				t.Errorf("state at step %d with %d losses", st.Step, len(st.Losses))
			}
			if len(st.History) != len(c.from.History)+len(c.wantEvals) {
				t.Errorf("history %+v", st.History)
			}
			if len(kinds) < 2 || kinds[0] != Started || kinds[len(kinds)-1] != Finished {
				t.Errorf("events %v; want Started … Finished", kinds)
			}
		})
	}
}

func TestLoopStops(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	cases := []struct {
		name      string
		loop      Loop
		cancelAt  int // cancel the context after this step (0: never)
		wantErr   error
		wantSteps int // steps done when it stops
	}{
		{name: "cancelled", loop: Loop{Steps: 5}, cancelAt: 2, wantErr: context.Canceled, wantSteps: 2},
		{name: "step fails", loop: Loop{Steps: 5, Step: func(_ context.Context, s int) (float64, error) {
			if s == 3 {
				return 0, boom
			}
			return 1, nil
		}}, wantErr: boom, wantSteps: 2},
		{name: "eval fails", loop: Loop{Steps: 5, EvalEvery: 4, Eval: func(context.Context, int) (map[string]float64, error) {
			return nil, boom
		}}, wantErr: boom, wantSteps: 4},
		{name: "checkpoint fails", loop: Loop{Steps: 5, EvalEvery: 1,
			Eval:       func(context.Context, int) (map[string]float64, error) { return map[string]float64{"score": 1}, nil },
			Checkpoint: func(*State, bool) error { return boom }}, wantErr: boom, wantSteps: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			l := c.loop
			if l.Step == nil {
				l.Step = func(context.Context, int) (float64, error) { return 1, nil }
			}
			var finished error
			l.Observers = []Observer{ObserverFunc(func(e Event) {
				if e.Kind == Stepped && e.Step == c.cancelAt {
					cancel()
				}
				if e.Kind == Finished {
					finished = e.Err
				}
			})}
			var st State
			_, err := l.Run(ctx, &st)
			if !errors.Is(err, c.wantErr) || (c.wantErr == context.Canceled) != errors.Is(err, ErrInterrupted) {
				t.Fatalf("error %v, want %v", err, c.wantErr)
			}
			if finished != err {
				t.Errorf("Finished event's error %v, Run's %v", finished, err)
			}
			if st.Step != c.wantSteps || len(st.Losses) != c.wantSteps {
				t.Errorf("stopped at step %d with %d losses; want %d", st.Step, len(st.Losses), c.wantSteps)
			}
		})
	}
}

func TestLoopErrors(t *testing.T) {
	t.Parallel()
	step := func(context.Context, int) (float64, error) { return 0, nil }
	for _, c := range []struct {
		loop Loop
		st   State
		want string
	}{
		{Loop{Steps: 3}, State{}, "no Step"},
		{Loop{Steps: 3, Step: step, EvalEvery: -1}, State{}, "EvalEvery"},
		{Loop{Steps: 3, Step: step}, State{Step: 4}, "beyond"},
	} {
		if _, err := c.loop.Run(context.Background(), &c.st); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v from %+v: error %v, want one saying %q", c.loop, c.st, err, c.want)
		}
	}
}

func TestObservers(t *testing.T) {
	t.Parallel()
	var logged []string
	var reported []string
	var out strings.Builder
	l := Loop{Steps: 4, EvalEvery: 2,
		Step: func(_ context.Context, s int) (float64, error) { return float64(s), nil },
		Eval: func(_ context.Context, s int) (map[string]float64, error) {
			return map[string]float64{"acc": float64(s) / 10}, nil
		},
		Metric: "acc",
		Observers: []Observer{
			Metrics(func(key string, step int64, v float64) error {
				logged = append(logged, key)
				return nil
			}),
			Report(reporterFunc(func(done, total int, info string) { reported = append(reported, info) })),
			Terminal(&out, "toy"),
		},
	}
	if _, err := l.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"train/loss", "train/loss", "val/acc", "train/loss", "train/loss", "val/acc"}
	if !slices.Equal(logged, want) {
		t.Errorf("logged %v, want %v", logged, want)
	}
	if len(reported) != 4 || reported[0] != "loss 1.0000" || reported[3] != "loss 4.0000 val 0.400 (best 0.400 @4)" {
		t.Errorf("reported %q", reported)
	}
	if !strings.HasPrefix(out.String(), "toy: ") || !strings.Contains(out.String(), "done in") {
		t.Errorf("terminal output %q", out.String())
	}
}

type reporterFunc func(done, total int, info string)

func (f reporterFunc) Update(done, total int, info string) { f(done, total, info) }

// TestEstimate checks the projection made from a run's first steps: the
// compiling steps skipped, the next ones averaged, times the steps left;
// once, and never for a run too short.
func TestEstimate(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name          string
		took          []time.Duration // each step's time
		steps         int             // the loop's last step
		from          int             // steps already done (resumed)
		skip, measure int
		want          *Projection
	}{
		{"one compilation", []time.Duration{900 * ms, 10 * ms, 30 * ms, 5 * ms}, 100, 0, 1, 2,
			&Projection{Step: 3, Steps: 100, PerStep: 20 * ms, Left: 97 * 20 * ms}},
		{"a cycle of lengths", []time.Duration{500 * ms, 600 * ms, 10 * ms, 20 * ms, 1 * ms}, 10, 0, 2, 2,
			&Projection{Step: 4, Steps: 10, PerStep: 15 * ms, Left: 6 * 15 * ms}},
		{"resumed", []time.Duration{900 * ms, 10 * ms}, 1000, 500, 1, 1,
			&Projection{Step: 502, Steps: 1000, PerStep: 10 * ms, Left: 498 * 10 * ms}},
		{"too short", []time.Duration{900 * ms, 10 * ms}, 2, 0, 1, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []Projection
			obs := Estimate(tc.skip, tc.measure, func(p Projection) { got = append(got, p) })
			for i := range tc.steps - tc.from {
				took := time.Millisecond
				if i < len(tc.took) {
					took = tc.took[i]
				}
				obs.Observe(Event{Kind: Stepped, Step: tc.from + i + 1, Steps: tc.steps, Took: took})
			}
			switch {
			case tc.want == nil && len(got) > 0:
				t.Errorf("projections %+v, want none", got)
			case tc.want != nil && (len(got) != 1 || got[0] != *tc.want):
				t.Errorf("projections %+v, want one: %+v", got, *tc.want)
			}
		})
	}
}

// TestTerminalLastLine checks that the progress shown away from a
// terminal ends with "done in" only when every step ran.
func TestTerminalLastLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"finished", nil, "done in"},
		{"interrupted", fmt.Errorf("%w after step 2: %w", ErrInterrupted, context.Canceled), "interrupted after"},
		{"failed", errors.New("out of memory"), "failed after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			obs := Terminal(&buf, "bfs/mpnn")
			obs.Observe(Event{Kind: Started, Steps: 4})
			obs.Observe(Event{Kind: Stepped, Step: 1, Steps: 4, Loss: 0.5})
			obs.Observe(Event{Kind: Finished, Step: 1, Steps: 4, Err: tc.err})
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			last := lines[len(lines)-1]
			if !strings.Contains(last, tc.want) || (tc.err != nil && strings.Contains(last, "done in")) {
				t.Errorf("last line %q, want %q", last, tc.want)
			}
		})
	}
}
