package paper_test

import (
	"fmt"

	"github.com/narlab/narlab/lib/dsr/paper"
)

// The paper's Table 2 column of GPT-5, with the category averages and the
// overall score recomputed from the per-structure rows.
func ExampleTables() {
	t, err := paper.Tables("GPT-5")
	if err != nil {
		panic(err)
	}
	for _, c := range t.Categories {
		fmt.Printf("%-12s %.2f\n", c.Name, c.Binary)
	}
	fmt.Printf("%-12s %.2f\n", "Overall", t.Overall.Binary)
	// Output:
	// Linear       1.00
	// Temporal     0.88
	// Associative  0.87
	// Hierarchical 0.72
	// Network      0.71
	// Hybrid       0.56
	// Overall      0.79
}
