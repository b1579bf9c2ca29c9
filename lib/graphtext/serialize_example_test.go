package graphtext_test

import (
	"fmt"

	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/metrics"
)

func ExampleGraph_ErdosText() {
	g, _ := graphtext.New(4, false, false, []graphtext.Edge{{U: 1, V: 3}, {U: 3, V: 2}, {U: 2, V: 4}})
	fmt.Println(g.ErdosText())
	a1, _ := g.Encode(graphtext.AdjSorted, graphtext.EncodeOptions{})
	fmt.Println(a1)
	e2, _ := g.Encode(graphtext.EdgeSortedRep, graphtext.EncodeOptions{})
	fmt.Println(e2)
	// Output:
	// Here is an undirected graph containing nodes from 1 to 4. The edges are: (1, 3), (3, 2), (2, 4).
	// Here is an undirected graph containing nodes from 1 to 4. The adjacency list is: node 1 is connected to (3), node 2 is connected to (3, 4), node 3 is connected to (1, 2), node 4 is connected to (2).
	// Here is an undirected graph containing nodes from 1 to 4. The edges are (each undirected edge is listed in both directions): (1, 3), (2, 3), (2, 4), (3, 1), (3, 2), (4, 2).
}

func ExampleGraph_Relabel() {
	g, _ := graphtext.New(4, false, false, []graphtext.Edge{{U: 1, V: 3}, {U: 3, V: 2}, {U: 2, V: 4}})
	g.Params = map[string]int{"source": 1, "target": 4}
	h, _ := g.Relabel(graphtext.Permutation{4, 3, 2, 1}) // v → 5 − v
	fmt.Println(h.ErdosText(), h.Params)
	// Output:
	// Here is an undirected graph containing nodes from 1 to 4. The edges are: (1, 3), (2, 3), (2, 4). map[source:4 target:1]
}

func ExampleTask_Truth() {
	g, _ := graphtext.New(4, false, false, []graphtext.Edge{{U: 1, V: 3}, {U: 3, V: 2}, {U: 2, V: 4}})
	g.Params = map[string]int{"source": 1, "target": 4}
	task, _ := graphtext.LookupTask("shortest_path")
	a, _ := task.Truth(g)
	fmt.Println(task.Category, task.Kind, a)
	fmt.Println(task.Prompt(g, g.ErdosText()))
	// Output:
	// Hard ordered_set [1, 3, 2, 4]
	// The task is to determine the shortest path between two nodes. The input nodes are guaranteed to be connected. Here is an undirected graph containing nodes from 1 to 4. The edges are: (1, 3), (3, 2), (2, 4). Question: What is the shortest path between node 1 and node 4? You need to format your answer as a list of nodes, e.g., [node-1, node-2, ..., node-n].
}

func ExampleTask_ScoreOutput() {
	g, _ := graphtext.New(4, false, false, []graphtext.Edge{{U: 1, V: 3}, {U: 3, V: 2}, {U: 2, V: 4}})
	g.Params = map[string]int{"u": 3}
	task, _ := graphtext.LookupTask("degree")
	gold, _ := task.Truth(g)
	for _, out := range []string{
		`Therefore, the final answer is: $\boxed{2}$.`,
		"The answer is 2\nI double-checked each step.",
		`$\boxed{\text{2}}$`,
		`$\boxed{2 \text{ neighbours}}$`,
		`$\boxed{3}$`,
	} {
		paper := task.ScoreOutput(g, gold, out, graphtext.ExtractOptions{})
		lenient := task.ScoreOutput(g, gold, out, graphtext.ExtractOptions{Mode: metrics.ScoreLenient})
		fmt.Printf("G1 reads %-16q paper %-5v lenient %v\n", paper.Extracted, paper.Correct, lenient.Correct)
	}
	// Output:
	// G1 reads "2"              paper true  lenient true
	// G1 reads "2"              paper true  lenient true
	// G1 reads "{2}"            paper false lenient true
	// G1 reads "2{neighbours}"  paper false lenient true
	// G1 reads "3"              paper false lenient false
}

// G1's extraction: the last \boxed{} through G1's strip_string, else "the
// answer is" up to the end of its line, stripped, then with ":" and "."
// removed (which leaves the space after a colon).
func ExampleG1Extract() {
	for _, out := range []string{
		`Therefore, the final answer is: $\boxed{\frac{2}{3}}$.`,
		`so \boxed{[1, 2]} and finally \boxed{\text{[1, 3]}}`,
		"The answer is: 0.25\nDone.",
		"no answer here",
	} {
		ans, ok, err := graphtext.G1Extract(out)
		fmt.Printf("%q %v %v\n", ans, ok, err)
	}
	// Output:
	// "frac{2}{3}" true <nil>
	// "{[1,3]}" true <nil>
	// " 025" true <nil>
	// "" false <nil>
}

// G1's strip_string: note what it keeps ("$", "%") and what it breaks
// (\text{ unit}).
func ExampleG1StripString() {
	for _, s := range []string{`\dfrac{1}{2}`, `$18$`, `4 \text{ nodes}`, `x = 7`, `0.5`, `3/4`, `\text{Yes}`, `\sqrt`} {
		out, err := graphtext.G1StripString(s)
		fmt.Printf("%-16q → %q %v\n", s, out, err)
	}
	// Output:
	// "\\dfrac{1}{2}"  → "frac{1}{2}" <nil>
	// "$18$"           → "$18$" <nil>
	// "4 \\text{ nodes}" → "4{nodes}" <nil>
	// "x = 7"          → "7" <nil>
	// "0.5"            → "frac{1}{2}" <nil>
	// "3/4"            → "frac{3}{4}" <nil>
	// "\\text{Yes}"    → "Yes" <nil>
	// "\\sqrt"         → "" IndexError: string index out of range
}
