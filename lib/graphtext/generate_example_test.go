package graphtext_test

import (
	"fmt"

	"github.com/narlab/narlab/lib/graphtext"
)

func ExampleGenerate() {
	g, err := graphtext.Generate(42, graphtext.GenOptions{MinNodes: 6, MaxNodes: 6, Connectivity: graphtext.Connected})
	if err != nil {
		panic(err)
	}
	fmt.Println(g.N, graphtext.Synthetic(g), g.Edges[0].U)
	// Output:
	// 6 true 1
}
