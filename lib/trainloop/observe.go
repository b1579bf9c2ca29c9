package trainloop

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/narlab/narlab/internal/progress"
)

// Summary is the one-line state of a run at an event: the step's loss and,
// once something was evaluated, the latest score and the best, e.g.
// "loss 0.4120 val 0.613 (best 0.640 @150)".
func Summary(e Event) string {
	s := fmt.Sprintf("loss %.4f", e.Loss)
	if e.State != nil {
		if p, ok := e.State.Last(); ok {
			s += fmt.Sprintf(" val %.3f (best %.3f @%d)", p.Score, e.State.BestVal, e.State.BestStep)
		}
	}
	return s
}

// Terminal shows a loop's progress on w with internal/progress: a bar
// redrawn in place (rate, time left, Summary) on a terminal; anywhere else
// a plain line now and then, and at least every 30 s even while one step
// or evaluation takes longer. The last line says "done in …", or
// "interrupted after …" (or "failed after …") when the loop stopped early.
func Terminal(w io.Writer, label string) Observer {
	var bar *progress.Bar
	stop := func() {}
	return ObserverFunc(func(e Event) {
		switch e.Kind {
		case Started:
			bar = progress.New(w, label, e.Steps)
			bar.Resume(e.Step) // a resumed run's rate counts this session's steps
			stop = bar.KeepAlive()
		case Stepped:
			bar.Update(e.Step, Summary(e))
		case Finished:
			stop()
			switch {
			case errors.Is(e.Err, ErrInterrupted):
				bar.Stop("interrupted")
			case e.Err != nil:
				bar.Stop("failed")
			default:
				bar.Done()
			}
		}
	})
}

// Projection is what a run's first steps say of the rest of it.
type Projection struct {
	Step    int           // the step it was made at
	Steps   int           // the loop's last step
	PerStep time.Duration // the mean time of the measured steps (evaluation excluded)
	Left    time.Duration // PerStep × (Steps − Step): the training still to do
}

// Estimate calls fn once, early in a run, with how long the rest of the
// training will take at the pace of its first steps: it skips this
// session's first skip steps (they compile: one per shape, so a run that
// cycles through k training lengths should skip k), averages the time of
// the next measure steps, and multiplies by the steps left. A run too short
// for it never calls fn. Evaluations are not counted.
func Estimate(skip, measure int, fn func(Projection)) Observer {
	measure = max(1, measure)
	seen := 0
	var sum time.Duration
	return ObserverFunc(func(e Event) {
		if e.Kind != Stepped || seen > skip+measure {
			return
		}
		seen++
		if seen <= skip {
			return
		}
		sum += e.Took
		if seen == skip+measure {
			seen++ // once
			per := sum / time.Duration(measure)
			fn(Projection{Step: e.Step, Steps: e.Steps, PerStep: per, Left: per * time.Duration(e.Steps-e.Step)})
		}
	})
}

// Reporter is a progress display of done steps out of total, with a line of
// information; kernel.Progress (a notebook's live line) is one.
type Reporter interface {
	Update(done, total int, info string)
}

// Report shows each step on r: Report(kernel.NewProgress("bfs/mpnn"))
// keeps a notebook cell's progress line up to date. A reporter that also
// has Resume(done int) (kernel.Progress does) is told where a resumed run
// starts, so that its rate counts only the steps done since.
func Report(r Reporter) Observer {
	return ObserverFunc(func(e Event) {
		switch e.Kind {
		case Started:
			if rr, ok := r.(interface{ Resume(done int) }); ok {
				rr.Resume(e.Step)
			}
		case Stepped:
			r.Update(e.Step, e.Steps, Summary(e))
		}
	})
}

// Metrics logs a run's curves through log, e.g. a tracking.Run's
// LogMetric (errors are the logger's to keep: an MLflow run spools what
// it could not send): train/loss every step and val/<Metric> at every
// evaluation. Single values (the rate, the first step's time, the best
// score) are the caller's to log once, as results (docs/mlflow.md): a
// curve of one point reads as a chart, not a result.
func Metrics(log func(key string, step int64, value float64) error) Observer {
	return ObserverFunc(func(e Event) {
		if e.Kind != Stepped {
			return
		}
		_ = log("train/loss", int64(e.Step), e.Loss)
		if e.Scores != nil {
			_ = log("val/"+e.Metric, int64(e.Step), e.Scores[e.Metric])
		}
	})
}
