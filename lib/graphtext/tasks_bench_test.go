package graphtext

import "testing"

// BenchmarkTruthAllTasks computes the ground truth of all 49 tasks on one
// synthetic instance each (5–35 nodes).
func BenchmarkTruthAllTasks(b *testing.B) {
	var gs []*Graph
	for _, task := range Tasks() {
		g, err := MakeInstance(task, 3, GenOptions{})
		if err != nil {
			b.Fatal(err)
		}
		gs = append(gs, g)
	}
	tasks := Tasks()
	b.ResetTimer()
	for b.Loop() {
		for i, task := range tasks {
			if _, err := task.Truth(gs[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkSerializeAll writes the 19-node running example in all 12
// encodings and the 3 other syntaxes.
func BenchmarkSerializeAll(b *testing.B) {
	g := pairsGraph(b, 19, paper19, false)
	for b.Loop() {
		for _, e := range Encodings() {
			if _, err := g.Encode(e, EncodeOptions{Seed: 1}); err != nil {
				b.Fatal(err)
			}
		}
		for _, s := range Syntaxes()[1:] {
			if _, err := g.Serialize(s, EdgeErdos, EncodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkScoreOutput extracts, parses and validates one boxed answer.
func BenchmarkScoreOutput(b *testing.B) {
	g := pairsGraph(b, 19, paper19, false)
	g.Params = map[string]int{"source": 12, "target": 19}
	task, _ := LookupTask("shortest_path")
	gold, _ := task.Truth(g)
	out := "Reasoning... Therefore, the final answer is: $\\boxed{[12, 1, 6, 9, 19]}$."
	for b.Loop() {
		if sc := task.ScoreOutput(g, gold, out, ExtractOptions{}); !sc.Correct {
			b.Fatal(sc.Reason)
		}
	}
}
