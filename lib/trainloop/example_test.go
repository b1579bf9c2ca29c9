package trainloop_test

import (
	"context"
	"fmt"

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
