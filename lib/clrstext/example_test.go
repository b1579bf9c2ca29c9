package clrstext_test

import (
	"context"
	"fmt"
	"os"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/clrstext"
)

// The first insertion_sort sample of seed 0, length 5, in both formats.
func ExampleSample() {
	for _, o := range []clrstext.Options{
		{Format: clrstext.Legacy, Hints: true},
		{Format: clrstext.Current, Decimals: 3},
	} {
		ex, err := clrstext.Sample("insertion_sort", 5, 0, 1, o)
		if err != nil {
			panic(err)
		}
		fmt.Print(ex[0].Text())
	}
	// Output:
	// insertion_sort:
	// key: [0.549 0.715 0.603 0.545 0.424], initial_trace: [0.549 0.715 0.603 0.545 0.424]
	// trace | pred:
	// [0.549 0.715 0.603 0.545 0.424], [0.549 0.603 0.715 0.545 0.424], [0.545 0.549 0.603 0.715 0.424] | [0.424 0.545 0.549 0.603 0.715]
	//
	// insertion_sort:
	// key: [0.548 0.715 0.602 0.544 0.423]
	// pred:
	// [0.423 0.544 0.548 0.602 0.715]
}

// Render works on any trajectory, for instance one run on given inputs.
func ExampleRender() {
	t, err := clrs.Run("binary_search", clrs.Args{0.5, []float64{0.1, 0.4, 0.6, 0.9}})
	if err != nil {
		panic(err)
	}
	ex, err := clrstext.Render(t, clrstext.Current, true)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n%q\n", ex.Question, ex.Answer)
	// Output:
	// "binary_search:\nkey: [0.1 0.4 0.6 0.9], target: 0.5, initial_trace: (0, 3)\ntrace | (low, high):\n"
	// "(2, 3) | (2, 2)\n\n"
}

// Scoring a model's answer: exact match on the final output and
// time-to-first-failure along the trace.
func ExampleTimeToFirstFailure() {
	ref := "[1 0], [1 1], [0 1] | [0 0]\n\n"
	pred := "Sure. [1 0], [1 1], [1 1] | [0 0]"
	fmt.Println(clrstext.ExactMatch(pred, ref), clrstext.TimeToFirstFailure("bfs", pred, ref))
	// Output:
	// true 0.5
}

// Generate writes a split's rows as JSONL; here two rows of the test
// schedule for minimum at its smallest size.
func ExampleGenerate() {
	jobs, err := clrstext.SplitJobs("test", []string{"minimum"}, 2, []int64{3})
	if err != nil {
		panic(err)
	}
	_, err = clrstext.Generate(context.Background(), os.Stdout, clrstext.GenerateConfig{
		Jobs: jobs[:1], Options: clrstext.Options{Format: clrstext.Legacy}})
	if err != nil {
		panic(err)
	}
	// Output:
	// {"text": "minimum:\nkey: [0.551 0.708 0.291 0.511]\nmin:\n2\n\n", "question": "minimum:\nkey: [0.551 0.708 0.291 0.511]\nmin:\n", "answer": "2\n\n", "algo_name": "minimum", "length": 4, "seed": 3, "use_hints": false}
	// {"text": "minimum:\nkey: [0.893 0.896 0.126 0.207]\nmin:\n2\n\n", "question": "minimum:\nkey: [0.893 0.896 0.126 0.207]\nmin:\n", "answer": "2\n\n", "algo_name": "minimum", "length": 4, "seed": 3, "use_hints": false}
}
