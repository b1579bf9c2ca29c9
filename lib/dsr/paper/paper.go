// Package paper holds the numbers published in "Can LLMs Reason
// Structurally? Benchmarking via the Lens of Data Structures" (He, Li,
// White, Vitercik; arXiv 2505.24069), transcribed from its tables: Table 2
// (per-structure binary scores of 13 models, with the printed category
// averages and overall scores) and Table 3 (the long-level scores of the 11
// challenge structures for the five reasoning models, with the printed
// challenge scores).
//
// Like every benchmark's paper package in narlab (lib/clrs/paper,
// lib/graphtext/paper), it holds what the paper prints — the model order
// (Models, ChallengeModels) and one variable per table — and no derived
// numbers typed in: [Tables] and [Challenge] recompute the category
// averages, overall and challenge scores from the rows with lib/dsr, and
// the tests compare them with the printed ones (Printed,
// ChallengePrinted).
package paper

import (
	"fmt"
	"maps"
	"slices"

	"github.com/narlab/narlab/lib/dsr"
)

// Models lists Table 2's models in the paper's column order.
var Models = []string{"GPT-5", "Gemini-2.5-Pro", "o4-mini", "DeepSeek-R1", "Claude-3.7", "Claude-3.5",
	"Qwen3-8B", "DeepSeek-V3", "GPT-4.1", "Gemini-2.0-Flash", "Llama-3.3-70B", "Phi-4-R-14B", "Mixtral-8x7B"}

// Structures holds Table 2's per-structure rows: structure title →
// one binary score per model of [Models].
var Structures = map[string][]float64{
	"Array":          {1.00, 1.00, 1.00, 0.99, 0.99, 0.96, 0.99, 0.98, 0.94, 0.90, 0.69, 0.63, 0.49},
	"Stack":          {1.00, 1.00, 1.00, 0.99, 0.97, 0.99, 0.99, 0.41, 0.55, 0.36, 0.04, 0.12, 0.09},
	"Queue":          {1.00, 1.00, 1.00, 0.98, 1.00, 0.99, 0.97, 0.43, 0.55, 0.36, 0.25, 0.05, 0.03},
	"LRU Cache":      {1.00, 1.00, 1.00, 0.16, 0.30, 0.82, 0.49, 0.01, 0.85, 0.78, 0.50, 0.00, 0.00},
	"Priority Queue": {0.52, 0.51, 0.55, 0.65, 0.28, 0.33, 0.35, 0.20, 0.25, 0.16, 0.08, 0.01, 0.01},
	"Hashmap":        {0.87, 0.28, 0.51, 0.33, 0.63, 0.16, 0.01, 0.00, 0.06, 0.10, 0.00, 0.00, 0.02},
	"Trie":           {0.94, 0.62, 0.68, 0.49, 0.08, 0.49, 0.00, 0.02, 0.18, 0.17, 0.00, 0.00, 0.00},
	"Suffix Tree":    {0.98, 0.90, 0.73, 0.96, 0.91, 0.08, 0.36, 0.67, 0.00, 0.01, 0.00, 0.11, 0.00},
	"Skip List":      {0.68, 0.78, 0.62, 0.69, 0.75, 0.42, 0.03, 0.02, 0.07, 0.06, 0.01, 0.01, 0.00},
	"BST":            {1.00, 0.97, 0.86, 0.73, 0.64, 0.71, 0.52, 0.58, 0.59, 0.43, 0.34, 0.18, 0.09},
	"Heap":           {0.61, 0.38, 0.68, 0.48, 0.40, 0.27, 0.29, 0.15, 0.20, 0.10, 0.07, 0.03, 0.01},
	"RB Tree":        {0.76, 0.49, 0.65, 0.62, 0.30, 0.46, 0.09, 0.09, 0.12, 0.12, 0.05, 0.02, 0.01},
	"B+ Tree":        {0.98, 0.97, 0.97, 0.31, 0.38, 0.23, 0.14, 0.08, 0.23, 0.12, 0.01, 0.03, 0.00},
	"K-D Tree":       {0.85, 0.59, 0.47, 0.45, 0.00, 0.03, 0.00, 0.00, 0.00, 0.01, 0.00, 0.00, 0.00},
	"K-D Heap":       {0.10, 0.10, 0.10, 0.11, 0.05, 0.05, 0.05, 0.03, 0.04, 0.04, 0.01, 0.01, 0.01},
	"Graph":          {0.96, 0.78, 0.87, 0.67, 0.11, 0.06, 0.13, 0.06, 0.15, 0.05, 0.02, 0.01, 0.01},
	"DSU":            {1.00, 0.97, 0.98, 1.00, 0.99, 0.02, 0.73, 0.82, 0.02, 0.00, 0.00, 0.16, 0.02},
	"Geom Graph":     {0.16, 0.13, 0.16, 0.13, 0.02, 0.02, 0.00, 0.01, 0.07, 0.02, 0.02, 0.00, 0.00},
	"Bloom Filter":   {0.77, 0.86, 0.61, 0.74, 0.16, 0.04, 0.12, 0.04, 0.04, 0.04, 0.02, 0.01, 0.00},
	"DAWG":           {0.34, 0.23, 0.25, 0.14, 0.06, 0.07, 0.00, 0.06, 0.05, 0.06, 0.01, 0.00, 0.00},
}

// Printed holds Table 2's printed category averages and overall score
// per model (keys: the category names and "Overall"), for comparison with
// the recomputed ones. Four category averages do not follow from their own
// rows (see docs/dsr.md).
var Printed = map[string][]float64{
	"Linear":       {1.00, 1.00, 1.00, 0.99, 0.99, 0.96, 0.99, 0.98, 0.94, 0.90, 0.69, 0.63, 0.49},
	"Temporal":     {0.88, 0.84, 0.89, 0.69, 0.64, 0.79, 0.70, 0.26, 0.55, 0.42, 0.22, 0.04, 0.03},
	"Associative":  {0.87, 0.65, 0.63, 0.62, 0.59, 0.29, 0.10, 0.18, 0.08, 0.09, 0.00, 0.03, 0.00},
	"Hierarchical": {0.72, 0.58, 0.64, 0.45, 0.33, 0.34, 0.18, 0.16, 0.20, 0.14, 0.08, 0.05, 0.02},
	"Network":      {0.71, 0.63, 0.67, 0.60, 0.38, 0.03, 0.29, 0.30, 0.08, 0.03, 0.01, 0.06, 0.01},
	"Hybrid":       {0.56, 0.55, 0.43, 0.44, 0.11, 0.06, 0.06, 0.05, 0.05, 0.05, 0.02, 0.00, 0.00},
	"Overall":      {0.79, 0.71, 0.71, 0.63, 0.51, 0.41, 0.39, 0.32, 0.31, 0.27, 0.17, 0.13, 0.09},
}

// ChallengeModels lists Table 3's models in the paper's order.
var ChallengeModels = []string{"GPT-5", "o4-mini", "Gemini-2.5-Pro", "DeepSeek-R1", "Claude-3.7"}

// ChallengeRows holds Table 3's long-level scores: challenge structure
// title → one score per model of [ChallengeModels].
var ChallengeRows = map[string][]float64{
	"Priority Queue": {0.28, 0.30, 0.23, 0.48, 0.04},
	"Skip List":      {0.51, 0.41, 0.53, 0.54, 0.61},
	"Heap":           {0.71, 0.71, 0.53, 0.27, 0.13},
	"RB Tree":        {0.59, 0.37, 0.08, 0.37, 0.12},
	"B+ Tree":        {0.98, 0.94, 0.94, 0.21, 0.13},
	"K-D Tree":       {0.67, 0.38, 0.16, 0.01, 0.00},
	"K-D Heap":       {0.00, 0.00, 0.00, 0.01, 0.00},
	"Geom Graph":     {0.19, 0.00, 0.02, 0.01, 0.00},
	"Bloom Filter":   {0.47, 0.07, 0.69, 0.31, 0.00},
	"DAWG":           {0.00, 0.06, 0.01, 0.00, 0.00},
	"Hashmap":        {0.71, 0.26, 0.11, 0.12, 0.04},
}

// ChallengePrinted is Table 3's printed challenge score per model of
// [ChallengeModels].
var ChallengePrinted = []float64{0.46, 0.32, 0.30, 0.21, 0.10}

// ModelIndex returns the column of model in models (Models or
// ChallengeModels), or an error that lists the table's models.
func ModelIndex(models []string, model string) (int, error) {
	i := slices.Index(models, model)
	if i < 0 {
		return 0, fmt.Errorf("dsr: no model %q in the paper's table (expected one of %v)", model, models)
	}
	return i, nil
}

// Tables builds a model's Table 2 column as lib/dsr tables: the
// printed per-structure binary scores as Structures, and the category
// averages and overall score computed from them by lib/dsr (Levenshtein
// scores, cells and the challenge table are left empty: Table 2 has none).
func Tables(model string) (dsr.Tables, error) {
	m, err := ModelIndex(Models, model)
	if err != nil {
		return dsr.Tables{}, err
	}
	var structs []dsr.StructureScore
	for _, info := range dsr.Structures() {
		row, ok := Structures[info.Title]
		if !ok {
			return dsr.Tables{}, fmt.Errorf("dsr: Table 2 has no row for %s", info.Title)
		}
		structs = append(structs, dsr.StructureScore{Structure: info.Name, Title: info.Title, Category: info.Category,
			Scores: dsr.Scores{Binary: row[m]}, Cells: 1})
	}
	if len(structs) != len(Structures) {
		return dsr.Tables{}, fmt.Errorf("dsr: Table 2 rows %v do not match the structures", slices.Sorted(maps.Keys(Structures)))
	}
	cats := dsr.CategoryScores(structs)
	return dsr.Tables{Structures: structs, Categories: cats, Overall: dsr.OverallScore(cats)}, nil
}

// Challenge computes a Table 3 model's challenge score from its 11
// printed long-level scores with lib/dsr.
func Challenge(model string) (float64, error) {
	m, err := ModelIndex(ChallengeModels, model)
	if err != nil {
		return 0, err
	}
	in := map[string]float64{}
	for title, row := range ChallengeRows {
		in[title] = row[m]
	}
	return dsr.ChallengeFromScores(in)
}
