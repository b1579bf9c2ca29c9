package graphtext_test

import (
	"fmt"
	"strings"

	"github.com/narlab/narlab/lib/graphtext"
)

func ExampleSpectral() {
	g, err := graphtext.ReadJSON(strings.NewReader(`{"n": 5, "edges": [[1,2],[1,3],[1,4],[1,5],[2,3],[2,4],[3,4],[4,5]]}`))
	if err != nil {
		panic(err)
	}
	v, err := graphtext.Spectral(g, graphtext.SpectralOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.6f %.0f %.6f\n", v[graphtext.GraphEnergy], v[graphtext.NComponents], v[graphtext.VonNeumannEntropy])
	// Output: 7.362661 1 1.333473
}

func ExampleParseSpectralAnswer() {
	v, err := graphtext.ParseSpectralAnswer(`... Therefore, the final answer is: $\boxed{\frac{1}{4}}$.`)
	fmt.Println(v, err)
	// Output: 0.25 <nil>
}
