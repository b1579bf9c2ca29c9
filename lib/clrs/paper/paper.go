// Package paper holds the numbers published in "The CLRS Algorithmic
// Reasoning Benchmark" (Veličković et al., 2022), transcribed from its
// tables: test (Table 2) and validation (Table 4) scores of the five
// baseline processors on the 30 algorithms, the class averages of Table 1
// and the win/tie/loss outcomes of Table 3. Notebooks and docs put narlab's
// own results beside them; tests check that narlab's aggregation rules
// reproduce the paper's derived tables from these inputs.
package paper

// Score is a mean ± spread in percent, as printed.
type Score struct {
	Mean, Std float64
}
