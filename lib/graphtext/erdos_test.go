package graphtext

import (
	"strings"
	"testing"
)

// erdosSample mimics two Erdős test records (field layout of HF
// PKU-ML/Erdos; the 19-node prompt is the paper's App. E example).
func erdosSample(t *testing.T) string {
	e0 := goldenString(t, goldenPaper(t), "E0")
	var edges []string
	for _, p := range paper19 {
		edges = append(edges, "("+itoa(p[0])+", "+itoa(p[1])+")")
	}
	prompt := "The task is to determine the shortest path between two nodes. The input nodes are guaranteed to be connected. " + e0 +
		" Question: What is the shortest path between node 12 and node 19? You need to format your answer as a list of nodes, e.g., [node-1, node-2, ..., node-n]."
	rec1 := `{"task": "shortest_path", "prompt": ` + quote(prompt) + `, "answer": "[12, 1, 6, 9, 19]", "direction": "undirected", "nodes": "(1, 19)", "edges": "[` + strings.Join(edges, ", ") + `]", "samples": "(12, 19)", "answer_type": "ordered_node_list"}`
	rec2 := `{"task": "isomorphic_mapping", "prompt": "x", "answer": "{}", "direction": "undirected", "nodes": "(1, 2)", "edges": "[]", "samples": "", "answer_type": "dict"}`
	rec3 := `{"task": "degree", "prompt": "The task is to determine the degree of a node in the graph.\n\nHere is a directed graph containing nodes from 1 to 3. The edges are: (1, 2, 5), (2, 3, 1).\n\nQuestion: What is the degree of node 2 in the graph?", "answer": "2", "direction": "undirected", "nodes": "(1, 3)", "edges": "[(1, 2), (2, 3)]", "samples": "2", "answer_type": "integer"}`
	return rec1 + "\n\n" + rec2 + "\n" + rec3 + "\n"
}

func itoa(i int) string { return fmtInt(i) }

func TestReadErdos(t *testing.T) {
	insts, skipped, err := ReadErdos(strings.NewReader(erdosSample(t)))
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 2 || skipped != 1 {
		t.Fatalf("%d instances, %d skipped; want 2, 1", len(insts), skipped)
	}
	sp := insts[0]
	if sp.Graph.N != 19 || len(sp.Graph.Edges) != 33 || sp.Graph.Params["source"] != 12 || sp.Graph.Params["target"] != 19 {
		t.Fatalf("graph %+v", sp.Graph)
	}
	if err := sp.Task.Validate(sp.Graph, sp.Answer); err != nil {
		t.Errorf("stored answer invalid: %v", err)
	}
	// Re-serializing with the baseline encoding reproduces the record's prompt.
	if got := sp.Prompt(sp.Graph.ErdosText()); !strings.Contains(erdosSample(t), quoteInner(got)) {
		t.Errorf("re-serialized prompt differs from the record:\n%s", got)
	}
	a1, _ := sp.Graph.Encode(AdjSorted, EncodeOptions{})
	if p := sp.Prompt(a1); !strings.Contains(p, "The adjacency list is: node 1 is connected to (2, 3, 6, 7, 12)") || !strings.HasSuffix(p, "e.g., [node-1, node-2, ..., node-n].") {
		t.Errorf("A1 prompt %q", p)
	}
	deg := insts[1]
	if deg.Before != "The task is to determine the degree of a node in the graph.\n\n" || deg.After != "\n\nQuestion: What is the degree of node 2 in the graph?" {
		t.Errorf("split %q | %q", deg.Before, deg.After)
	}
}

func TestReadErdosErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"task": "degree", "nodes": "(1, 3)", "edges": "[(1, 2)]", "samples": "", "answer": "1"}`, "record 1: task degree needs 1 parameters"},
		{"\n" + `{"task": "nope", "nodes": "(1, 3)"}`, "record 2: graphtext: unknown task"},
		{`{"task": "degree", "nodes": "1..3", "edges": "[]", "samples": "1", "answer": "1"}`, "not a range"},
		{`{"task": "degree", "nodes": "(1, 3)", "edges": "[(1, 9)]", "samples": "1", "answer": "1"}`, "outside 1..3"},
		{`{"task": "degree", "nodes": "(1, 3)", "edges": "[(1, 2)]", "samples": "1", "answer": "one"}`, "stored answer"},
		{`{"task": `, "line 1"},
	}
	for _, c := range cases {
		_, _, err := ReadErdos(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadErdos(%q): %v, want %q", c.in, err, c.want)
		}
	}
}
