package dsrbench_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/narlab/narlab/experiments/dsrbench"
	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/metrics"
)

// ScoreFiles scores a model's responses to DSR-Bench instances held in
// files (what `narlab dsr score` runs): here the oracle's answers to short
// stack instances, scored offline.
func ExampleScoreFiles() {
	dir, err := os.MkdirTemp("", "dsr")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	task, _ := dsr.LookupTask("stack", "compound")
	insts, err := task.Generate(dsr.GenConfig{Level: dsr.Short, Count: 3, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	dsr.WriteJSONL(&buf, insts)
	preds, _ := dsrbench.Baseline("oracle", insts)
	answers, _ := dsrbench.WritePredictions(preds)
	ip, ap := filepath.Join(dir, "stack.jsonl"), filepath.Join(dir, "oracle.jsonl")
	os.WriteFile(ip, buf.Bytes(), 0o644)
	os.WriteFile(ap, answers, 0o644)
	res, err := dsrbench.ScoreFiles(context.Background(), dsrbench.ScoreConfig{Input: ip, Predictions: ap,
		Score: dsr.ScoreConfig{Strategy: dsr.Stepwise}, NoMLflow: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d responses, overall %.2f (%s), %.2f (%s)\n", res.Label, len(res.Results),
		res.Tables.Overall.Binary, metrics.ScorePaper, res.Other.Overall.Binary, res.OtherMode)
	// Output:
	// oracle: 3 responses, overall 1.00 (paper), 1.00 (lenient)
}
