package clrstext_test

import (
	"os"

	textexp "github.com/narlab/narlab/experiments/clrstext"
	"github.com/narlab/narlab/lib/clrstext"
)

func ExampleWriteTable() {
	rep, err := clrstext.Score([]clrstext.Item{
		{Algo: "insertion_sort", Length: 4, Prediction: "[1 2 3 4]", Reference: "[1 2 3 4]"},
		{Algo: "insertion_sort", Length: 4, Prediction: "[2 1 3 4]", Reference: "[1 2 3 4]"},
	})
	if err != nil {
		panic(err)
	}
	textexp.WriteTable(os.Stdout, rep, 1)
	// Output:
	// algorithm                      length      n  accuracy    ttff  parsed
	// insertion_sort                      4      2     0.500   0.500   1.000
	//
	// insertion_sort                    all      2     0.500   0.500   1.000
	//
	// overall: 2 answers, accuracy 0.5000 (macro over algorithms 0.5000), time-to-first-failure 0.5000; 1 dataset rows without a prediction were left out
}
