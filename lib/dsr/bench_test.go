package dsr

import "testing"

// BenchmarkVerifyPublished recomputes the truth of every published
// instance (4830) once per iteration.
func BenchmarkVerifyPublished(b *testing.B) {
	insts := publishedInstances(b, nil)
	b.ResetTimer()
	for b.Loop() {
		if rep := Verify(insts, Options{}); rep.Matched != len(insts) {
			b.Fatal("mismatch")
		}
	}
	b.ReportMetric(float64(len(insts)), "instances/op")
}

// BenchmarkScore parses and scores one stepwise response to a long
// red-black tree instance.
func BenchmarkScore(b *testing.B) {
	tk, _ := LookupTask("rb_tree", "compound")
	insts, err := tk.Generate(GenConfig{Level: Long, Count: 1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	resp := `{"steps": [{"explanation": "insert", "output": "…"}], "final_answer": ` + tk.Answer.Repr(insts[0].Truth) + `}`
	b.ResetTimer()
	for b.Loop() {
		if v := Score(&insts[0], resp, ScoreConfig{Strategy: Stepwise}); v.Binary != 1 {
			b.Fatal(v.Reason)
		}
	}
}
