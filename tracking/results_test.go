package tracking

import "testing"

func TestMarkdownTable(t *testing.T) {
	got := MarkdownTable([]string{"algorithm", "score", "paper"},
		[][]any{{"bfs", 99.456, nil}, {"a|b", 3.0, float32(0.5)}})
	want := "| algorithm | score | paper |\n|---|---|---|\n| bfs | 99.46 | — |\n| a\\|b | 3 | 0.50 |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
