package metrics_test

import (
	"fmt"

	"github.com/narlab/narlab/lib/metrics"
)

// Score a kadane-style model with two pointer outputs.
func ExampleCLRSScore() {
	start, _ := metrics.CLRSOutputScore(metrics.Pointer, []float64{2, 0, 5}, []float64{2, 1, 5}, 0)
	end, _ := metrics.CLRSOutputScore(metrics.Pointer, []float64{4, 3, 7}, []float64{4, 3, 7}, 0)
	fmt.Printf("start %.3f end %.3f score %.3f\n", start, end, metrics.CLRSScore(map[string]float64{"start": start, "end": end}))
	// Output: start 0.667 end 1.000 score 0.833
}
