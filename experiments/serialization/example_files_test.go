package serialization_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/narlab/narlab/experiments/serialization"
	"github.com/narlab/narlab/lib/graphtext"
)

// ScoreFiles scores a model's answers to serialization prompts held in
// files (what `narlab graphs score` runs): here the oracle's answers to
// prompts for two tasks in two encodings, scored offline.
func ExampleScoreFiles() {
	dir, err := os.MkdirTemp("", "graphs")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	tasks, _ := graphtext.ParseTasks("degree,has_cycle")
	var prompts, answers bytes.Buffer
	if _, err := serialization.Generate(&prompts, serialization.Spec{Tasks: tasks,
		Encodings: []graphtext.Encoding{"E0", "E1"}, Instances: 2, Seed: 1}); err != nil {
		log.Fatal(err)
	}
	recs, _ := serialization.ReadPrompts(bytes.NewReader(prompts.Bytes()))
	for _, r := range recs {
		text, _ := serialization.Predict(r, serialization.PredictOracle, 0)
		json.NewEncoder(&answers).Encode(graphtext.Prediction{ID: r.ID, AnswerText: text})
	}
	pp, ap := filepath.Join(dir, "prompts.jsonl"), filepath.Join(dir, "oracle.jsonl")
	os.WriteFile(pp, prompts.Bytes(), 0o644)
	os.WriteFile(ap, answers.Bytes(), 0o644)
	res, err := serialization.ScoreFiles(context.Background(), serialization.ScoreConfig{Prompts: pp, Predictions: ap,
		Model: "oracle", NoMLflow: true})
	if err != nil {
		log.Fatal(err)
	}
	serialization.WriteSummary(os.Stdout, res.Report)
	fmt.Println("scored again in", res.OtherMode, "mode:", res.Other.MeanAccuracy(serialization.Baseline))
	// Output:
	// CONFIG         MEAN ACC %  Δ VS E0/erdos/orig  PARSED %
	// E0/erdos/orig  100.00      -                   100.0
	// E1/erdos/orig  100.00      +0.00               100.0
	// data: synthetic Erdős-like graphs (not Erdős)
	// scored again in lenient mode: 100
}
