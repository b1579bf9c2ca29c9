package clrstext_test

import (
	"context"
	"log"
	"os"
	"path/filepath"

	textexp "github.com/narlab/narlab/experiments/clrstext"
)

// ScoreFiles scores a model's answers to CLRS-Text questions held in files
// (what `narlab clrstext score` runs): here two questions, one answered
// right, scored offline.
func ExampleScoreFiles() {
	dir, err := os.MkdirTemp("", "clrstext")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	data, preds := filepath.Join(dir, "questions.jsonl"), filepath.Join(dir, "gemma.jsonl")
	os.WriteFile(data, []byte(`{"algo_name": "insertion_sort", "length": 4, "question": "insertion_sort:\nkey: [0.3 0.1 0.2 0.4]\ninitial_trace:", "answer": "pred: [1 2 0 3]\n"}
{"algo_name": "insertion_sort", "length": 5, "question": "insertion_sort:\nkey: [0.3 0.1 0.2 0.4 0.5]\ninitial_trace:", "answer": "pred: [1 2 0 3 4]\n"}
`), 0o644)
	os.WriteFile(preds, []byte(`{"prediction": "pred: [1 2 0 3]\n"}
{"prediction": "pred: [0 1 2 3 4]\n"}
`), 0o644)
	res, err := textexp.ScoreFiles(context.Background(), textexp.ScoreConfig{Data: data, Predictions: preds, NoMLflow: true})
	if err != nil {
		log.Fatal(err)
	}
	textexp.WriteTable(os.Stdout, res.Report, res.Missing)
	// Output:
	// algorithm                      length      n  accuracy    ttff  parsed
	// insertion_sort                      4      1     1.000   1.000   1.000
	// insertion_sort                      5      1     0.000   0.000   1.000
	//
	// insertion_sort                    all      2     0.500   0.500   1.000
	//
	// overall: 2 answers, accuracy 0.5000 (macro over algorithms 0.5000), time-to-first-failure 0.5000
}
