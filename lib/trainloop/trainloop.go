// Package trainloop is narlab's one training harness: a Loop runs training
// steps, evaluates every EvalEvery steps and after the last one, keeps the
// validation history and the best evaluation, calls back to checkpoint, and
// tells Observers what happened as values (no text to parse back), so that
// the same run can show a bar on a terminal (Terminal), a progress line in
// a notebook (Report with kernel.NewProgress) and curves in MLflow
// (Metrics with tracking.Run.LogMetric) at once.
//
// The model, the data and the optimizer stay with the caller: Step trains
// one step and returns its loss, Eval scores the model. A Loop continues
// the State it is given, so a run resumed from a checkpoint and its State
// goes on exactly where it stopped. experiments/clrs30 (the CLRS baselines),
// experiments/salsaclrs (SALSA-CLRS's sparse model) and lib/spectralgnn (the
// spectral GNN) train through it.
package trainloop

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Point is one evaluation: the step, that step's training loss and the
// selection score.
type Point struct {
	Step  int     `json:"step"`
	Loss  float64 `json:"loss"`
	Score float64 `json:"score"`
}

// State is where a training run stands; a Loop continues it (the zero
// State starts at step 1). It marshals to the JSON kept beside a
// checkpoint.
type State struct {
	Step     int       `json:"step"`   // steps done
	Losses   []float64 `json:"losses"` // the training loss of steps 1..Step
	History  []Point   `json:"history"`
	BestStep int       `json:"best_step"` // step of the best evaluation; 0: none yet
	BestVal  float64   `json:"best_val"`  // its score
}

// Last returns the latest evaluation, if any.
func (s *State) Last() (Point, bool) {
	if len(s.History) == 0 {
		return Point{}, false
	}
	return s.History[len(s.History)-1], true
}

// record appends an evaluation and reports whether it is the best so far:
// the first evaluation that is a number, then any strictly higher score.
func (s *State) record(p Point) bool {
	s.History = append(s.History, p)
	if math.IsNaN(p.Score) || (s.BestStep != 0 && !(p.Score > s.BestVal)) {
		return false
	}
	s.BestStep, s.BestVal = p.Step, p.Score
	return true
}

// Kind says what an Event reports.
type Kind int

const (
	// Started: the loop is about to run its first step (Step is the steps
	// already done).
	Started Kind = iota
	// Stepped: a training step ended, and the evaluation due at it.
	Stepped
	// Finished: the loop ended, with every step done or stopped by Err.
	Finished
)

// Event is what a Loop tells its Observers. State is the loop's own:
// observers read it, never change or keep it.
type Event struct {
	Kind  Kind
	Step  int // the step just done (Stepped), steps done (Started, Finished)
	Steps int // the last step of the loop
	Loss  float64
	Took  time.Duration // the step's time, evaluation excluded
	First bool          // the first step of this process (compilation included)
	// Scores is the evaluation run at this step (nil when none ran);
	// Scores[Metric] is the score the best evaluation is selected on.
	Scores map[string]float64
	Metric string
	State  *State
	// StepsPerS (Finished) is this process's steady training rate (see
	// SteadyRate); Err why the loop stopped early, if it did.
	StepsPerS float64
	Err       error
}

// Observer receives a loop's events, in order, on the loop's goroutine.
type Observer interface{ Observe(Event) }

// ObserverFunc adapts a function to an Observer.
type ObserverFunc func(Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e Event) { f(e) }

// ErrInterrupted is wrapped, together with the context's error, by the
// error of a loop whose context ended before its last step.
var ErrInterrupted = errors.New("trainloop: interrupted")

// Loop is one training run's schedule. Step is required; the rest may be
// left zero.
type Loop struct {
	// Steps is the last step: Run trains steps State.Step+1 … Steps.
	Steps int
	// EvalEvery evaluates after every EvalEvery-th step and after the
	// last; 0 evaluates after the last step only. Nothing is evaluated
	// without Eval.
	EvalEvery int
	// Step trains step (counted from 1) and returns its loss.
	Step func(ctx context.Context, step int) (loss float64, err error)
	// Eval scores the model after step; its Metric entry selects the best
	// evaluation (higher is better).
	Eval func(ctx context.Context, step int) (map[string]float64, error)
	// Metric is the key of Eval's scores the best is chosen on (default
	// "score").
	Metric string
	// Checkpoint, when set, is called after each evaluation has been
	// recorded in the state; best says it is the best so far.
	Checkpoint func(st *State, best bool) error
	// Observers are told of the start, of every step and of the end.
	Observers []Observer
}

// Stats are the timings of one Run.
type Stats struct {
	Steps     int           // steps this Run trained
	FirstStep time.Duration // the first one's time (compilation included)
	StepsPerS float64       // steady rate: see SteadyRate
}

// Run trains from st (nil: a fresh state) to l.Steps and returns this
// session's timings. st is updated as it goes: after an error it holds the
// steps done. When ctx ends before a step, Run returns an error wrapping
// ErrInterrupted and ctx.Err().
func (l *Loop) Run(ctx context.Context, st *State) (stats Stats, err error) {
	if st == nil {
		st = &State{}
	}
	switch {
	case l.Step == nil:
		return stats, errors.New("trainloop: no Step function")
	case l.EvalEvery < 0:
		return stats, fmt.Errorf("trainloop: EvalEvery %d; want 0 or more", l.EvalEvery)
	case st.Step > l.Steps:
		return stats, fmt.Errorf("trainloop: state at step %d, beyond the last step %d", st.Step, l.Steps)
	}
	metric := l.Metric
	if metric == "" {
		metric = "score"
	}
	l.tell(Event{Kind: Started, Step: st.Step, Steps: l.Steps, Metric: metric, State: st})
	var times []time.Duration
	defer func() {
		stats.StepsPerS = SteadyRate(times)
		l.tell(Event{Kind: Finished, Step: st.Step, Steps: l.Steps, Metric: metric, State: st,
			StepsPerS: stats.StepsPerS, Err: err})
	}()
	for step := st.Step + 1; step <= l.Steps; step++ {
		if cerr := ctx.Err(); cerr != nil {
			return stats, fmt.Errorf("%w after step %d: %w", ErrInterrupted, st.Step, cerr)
		}
		t0 := time.Now()
		loss, err := l.Step(ctx, step)
		if err != nil {
			return stats, err
		}
		took := time.Since(t0)
		times = append(times, took)
		stats.Steps++
		if stats.Steps == 1 {
			stats.FirstStep = took
		}
		st.Step, st.Losses = step, append(st.Losses, loss)
		var scores map[string]float64
		if l.Eval != nil && (step == l.Steps || (l.EvalEvery > 0 && step%l.EvalEvery == 0)) {
			if scores, err = l.Eval(ctx, step); err != nil {
				return stats, err
			}
			best := st.record(Point{Step: step, Loss: loss, Score: scores[metric]})
			if l.Checkpoint != nil {
				if err := l.Checkpoint(st, best); err != nil {
					return stats, err
				}
			}
		}
		l.tell(Event{Kind: Stepped, Step: step, Steps: l.Steps, Loss: loss, Took: took, First: stats.Steps == 1,
			Scores: scores, Metric: metric, State: st})
	}
	return stats, nil
}

func (l *Loop) tell(e Event) {
	for _, o := range l.Observers {
		o.Observe(e)
	}
}

// SteadyRate is the steady-state rate of steps with the given durations:
// one over their median, so that the first step (compilation) and the
// steps that recompile for a new shape do not count; 0 with no steps.
func SteadyRate(times []time.Duration) float64 {
	if len(times) == 0 {
		return 0
	}
	s := slices.Clone(times)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	if med <= 0 {
		return 0
	}
	return 1 / med.Seconds()
}
