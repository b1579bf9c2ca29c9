package trainloop_test

import (
	"context"
	"fmt"
	"time"

	"github.com/narlab/narlab/lib/trainloop"
)

// A toy run: gradient descent on (w−3)², evaluated every 2 steps on how
// close w is to 3, printing each evaluation and keeping the best.
func Example() {
	w := 0.0
	loop := trainloop.Loop{
		Steps:     6,
		EvalEvery: 2,
		Step: func(_ context.Context, step int) (float64, error) {
			w -= 0.25 * 2 * (w - 3) // one step of gradient descent
			return (w - 3) * (w - 3), nil
		},
		Eval: func(_ context.Context, step int) (map[string]float64, error) {
			return map[string]float64{"score": 1 / (1 + (w-3)*(w-3))}, nil
		},
		Observers: []trainloop.Observer{trainloop.ObserverFunc(func(e trainloop.Event) {
			if e.Scores != nil {
				fmt.Printf("step %d: %s\n", e.Step, trainloop.Summary(e))
			}
		})},
	}
	var st trainloop.State
	if _, err := loop.Run(context.Background(), &st); err != nil {
		panic(err)
	}
	fmt.Printf("best at step %d of %d\n", st.BestStep, st.Step)
	// Output:
	// step 2: loss 0.5625 val 0.640 (best 0.640 @2)
	// step 4: loss 0.0352 val 0.966 (best 0.966 @4)
	// step 6: loss 0.0022 val 0.998 (best 0.998 @6)
	// best at step 6 of 6
}

// Estimate tells, once the first steps are timed, how long the rest of a
// run will take: here one compiling step is skipped and the next two
// averaged. (A Loop gives it its events; they are replayed here with
// fixed times.)
func ExampleEstimate() {
	est := trainloop.Estimate(1, 2, func(p trainloop.Projection) {
		fmt.Printf("after step %d of %d: %v a step, %v left\n", p.Step, p.Steps, p.PerStep, p.Left)
	})
	for i, took := range []time.Duration{2 * time.Second, 40 * time.Millisecond, 60 * time.Millisecond, 50 * time.Millisecond} {
		est.Observe(trainloop.Event{Kind: trainloop.Stepped, Step: i + 1, Steps: 1000, Took: took})
	}
	// Output:
	// after step 3 of 1000: 50ms a step, 49.85s left
}
