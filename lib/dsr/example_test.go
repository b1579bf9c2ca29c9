package dsr_test

import (
	"fmt"

	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/metrics"
)

// Generate seeded instances of a task; each carries its ground truth.
func ExampleTask_Generate() {
	task, err := dsr.LookupTask("queue", "compound")
	if err != nil {
		panic(err)
	}
	insts, err := task.Generate(dsr.GenConfig{Level: dsr.Short, Count: 2, Seed: 1})
	if err != nil {
		panic(err)
	}
	for _, in := range insts {
		fmt.Println(in.ID, len(in.Input.Ops) >= 5 && len(in.Input.Ops) <= 10)
	}
	// Output:
	// queue/compound/short/0 true
	// queue/compound/short/1 true
}

// Compute the ground truth of given inputs: the BST of the published
// instance bst/remove/short/0 with 58 removed (its in-order successor 62
// takes its place).
func ExampleTask_Truth() {
	task, _ := dsr.LookupTask("bst", "remove")
	p := func(v int) *int { return &v }
	in := dsr.Input{
		Tree: []dsr.TreeNode{
			{Value: 13, Left: p(4), Right: p(58)}, {Value: 4},
			{Value: 58, Left: p(44), Right: p(92)},
			{Value: 44, Left: p(21), Right: p(54)}, {Value: 21}, {Value: 54},
			{Value: 92, Left: p(62)}, {Value: 62},
		},
		Value: p(58),
	}
	truth, err := task.Truth(&in, dsr.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Answer.Repr(truth))
	pred, _ := task.Truth(&in, dsr.Options{BSTDelete: dsr.PaperReading})
	fmt.Println(task.Answer.Repr(pred))
	// Output:
	// {'pre_order': [13, 4, 62, 44, 21, 54, 92], 'post_order': [4, 21, 54, 44, 92, 62, 13]}
	// {'pre_order': [13, 4, 54, 44, 21, 92, 62], 'post_order': [4, 21, 44, 62, 92, 54, 13]}
}

// Score model responses: exact match, Levenshtein partial credit, and a
// reason for every zero. The default Paper mode scores like the
// reference's evaluation script (strict JSON, str() of the answer against
// the published truth line); Lenient also reads JSON inside a code fence
// and compares structured values.
func ExampleScore() {
	task, _ := dsr.LookupTask("stack", "compound")
	in := dsr.Input{Ops: []dsr.Op{
		{Name: "push", Args: []int{5}}, {Name: "push", Args: []int{7}}, {Name: "pop"}, {Name: "push", Args: []int{9}},
	}}
	truth, _ := task.Truth(&in, dsr.Options{})
	inst := &dsr.Instance{ID: "demo", Structure: "stack", Operation: "compound", Input: in, Truth: truth}
	for _, resp := range []string{
		`{"steps": [{"explanation": "push 5, push 7, pop, push 9", "output": "[5, 9]"}], "final_answer": [5, 9]}`,
		`{"steps": [], "final_answer": [5, 7]}`,
		`{"steps": [], "final_answer": [5.0, 9.0]}`,
		"```json\n{\"steps\": [], \"final_answer\": [5, 9]}\n```",
	} {
		paper := dsr.Score(inst, resp, dsr.ScoreConfig{Strategy: dsr.Stepwise})
		lenient := dsr.Score(inst, resp, dsr.ScoreConfig{Strategy: dsr.Stepwise, Mode: metrics.ScoreLenient})
		fmt.Printf("paper %.0f (%.2f)  lenient %.0f (%.2f)\n", paper.Binary, paper.Levenshtein, lenient.Binary, lenient.Levenshtein)
	}
	// Output:
	// paper 1 (1.00)  lenient 1 (1.00)
	// paper 0 (0.83)  lenient 0 (0.83)
	// paper 0 (0.60)  lenient 1 (1.00)
	// paper 0 (0.00)  lenient 1 (1.00)
}

// Build a prompt and its response schema.
func ExampleBuildPrompt() {
	task, _ := dsr.LookupTask("array", "access")
	in := dsr.Instance{ID: "demo", Structure: "array", Operation: "access",
		Input: dsr.Input{Array: []int{65, 65, 64, 8, 0}, Index: new(int)}}
	*in.Input.Index = 2
	p, err := dsr.BuildPrompt(&in, dsr.PromptConfig{Strategy: dsr.NoReasoning, Tokens: 500})
	if err != nil {
		panic(err)
	}
	fmt.Print(p.Text)
	fmt.Println()
	fmt.Println(p.Schema["required"], task.Answer)
	// Output:
	// An array stores a sequence of elements in positions numbered from 0; the element at position i is reached directly through its index.
	//
	// Q: The array is [65, 65, 64, 8, 0].
	// Which value is stored at index 2?
	// Give only the answer, without explanation.
	// Reply with a JSON object {"final_answer": int}.
	// Keep your answer within 500 tokens.
	// A:
	// [final_answer] int
}

// Aggregate per-response results into the paper's tables.
func ExampleAggregate() {
	results := []dsr.Result{
		{Structure: "array", Operation: "access", Level: dsr.Short, Binary: 1},
		{Structure: "array", Operation: "search", Level: dsr.Short, Binary: 0},
		{Structure: "heap", Operation: "compound", Level: dsr.Long, Binary: 1},
		{Structure: "heap", Operation: "heapify", Level: dsr.Long, Binary: 0},
	}
	t := dsr.Aggregate(results)
	for _, s := range t.Structures {
		fmt.Printf("%s %.2f\n", s.Title, s.Binary)
	}
	for _, c := range t.Categories {
		fmt.Printf("%s %.2f\n", c.Name, c.Binary)
	}
	fmt.Printf("overall %.2f, challenge %.2f over %d structures\n", t.Overall.Binary, t.Challenge.Score.Binary, len(t.Challenge.Rows))
	// Output:
	// Array 0.50
	// Heap 0.50
	// Linear 0.50
	// Hierarchical 0.50
	// overall 0.50, challenge 0.50 over 1 structures
}

// Score a run both ways: ScoreAll scores in the chosen mode (Paper by
// default) and keeps each response's scores in both modes, so a run can
// report the paper's and narlab's lenient reading side by side.
func ExampleCompareModes() {
	task, _ := dsr.LookupTask("queue", "compound")
	in := dsr.Input{Ops: []dsr.Op{{Name: "enqueue", Args: []int{4}}, {Name: "enqueue", Args: []int{8}}, {Name: "dequeue"}, {Name: "enqueue", Args: []int{15}}}}
	truth, _ := task.Truth(&in, dsr.Options{})
	var insts []dsr.Instance
	for i := range 4 {
		insts = append(insts, dsr.Instance{ID: fmt.Sprint("q", i), Structure: "queue", Operation: "compound", Input: in, Truth: truth})
	}
	resp := func(s string) *string { return &s }
	preds := []dsr.Prediction{
		{ID: "q0", Response: resp(`{"final_answer": [8, 15]}`)},
		{ID: "q1", Response: resp(`{"final_answer": [8.0, 15.0]}`)},             // floats: wrong for the reference
		{ID: "q2", Response: resp("```json\n{\"final_answer\": [8, 15]}\n```")}, // a fence: not strict JSON
		{ID: "q3", Response: resp(`{"final_answer": [15, 8]}`)},
	}
	results, _ := dsr.ScoreAll(insts, preds, dsr.ScoreConfig{Strategy: dsr.NoReasoning})
	for _, r := range results {
		fmt.Printf("%s paper %.0f lenient %.0f\n", r.ID, r.Paper.Binary, r.Lenient.Binary)
	}
	c := dsr.CompareModes(results)
	fmt.Printf("paper %.2f, lenient %.2f, %d differ, %d raised\n", c.Paper.Binary, c.Lenient.Binary, c.Differ, c.Raised)
	// Output:
	// q0 paper 1 lenient 1
	// q1 paper 0 lenient 1
	// q2 paper 0 lenient 1
	// q3 paper 0 lenient 0
	// paper 0.25, lenient 0.75, 2 differ, 0 raised
}
