package graphtext

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadJSON: any graph JSON is a validated graph of at most MaxNodes
// nodes or an error, never a panic; an accepted graph survives WriteJSON
// and ReadJSON unchanged, and every task either answers it or says why not.
func FuzzReadJSON(f *testing.F) {
	for _, s := range []string{
		`{"n": 3, "edges": [[1, 2], [2, 3]]}`,
		`{"n": 3, "edges": [[1, 2, 0.5], [2, 3, -1]], "directed": true, "params": {"source": 1, "target": 3}}`,
		`{"n": 9223372036854775807, "edges": []}`,
		`{"n": 2, "edges": [[1, 1e300]]}`,
		`{"n": 1, "edges": []}`,
		`{"n": 4, "edges": [[1, 2], [2, 1]], "params": {"u": 1, "v": 2}}`,
		`{"n":`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	tasks := []string{"node_number", "maximum_flow", "shortest_path", "weighted_shortest_path", "degree", "has_cycle", "diameter", "bfs"}
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ReadJSON(bytes.NewReader(b))
		if err != nil {
			return
		}
		if g.N < 1 || g.N > MaxNodes {
			t.Fatalf("accepted n = %d", g.N)
		}
		if err := g.Validate(false); err != nil {
			t.Fatalf("accepted an invalid graph: %v", err)
		}
		var buf bytes.Buffer
		if err := g.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		h, err := ReadJSON(&buf)
		if err != nil || h.N != g.N || len(h.Edges) != len(g.Edges) {
			t.Fatalf("round trip: %v", err)
		}
		if g.N > 32 {
			return // keep each input fast
		}
		for _, name := range tasks {
			task, err := LookupTask(name)
			if err != nil {
				t.Fatal(err)
			}
			if task.Check(g) != nil {
				continue
			}
			a, err := task.Truth(g)
			if err == nil && name == "maximum_flow" && strings.HasPrefix(a.String(), "-") {
				t.Fatalf("maximum_flow answered %v", a)
			}
		}
	})
}

// FuzzReadPredictions: a predictions file is read or refused with an error.
func FuzzReadPredictions(f *testing.F) {
	for _, s := range []string{"{\"id\": \"a\", \"answer_text\": \"1\"}\n", "{\"id\": 1}\n", "\n\n", "{", "{\"id\": \"a\", \"answer_text\": \"1\"}\n{\"id\": \"a\", \"answer_text\": \"2\"}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ReadPredictions(bytes.NewReader(b))
	})
}
