package graphtext

import (
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/metrics"
)

func TestExtractAnswer(t *testing.T) {
	cases := []struct {
		in   string
		opts ExtractOptions
		want string
		ok   bool
	}{
		{`... Therefore, the final answer is: $\boxed{0.267}$.`, ExtractOptions{}, "0.267", true},
		{`first \boxed{1} then \boxed{[1, 2, {3}]}`, ExtractOptions{}, "[1, 2, {3}]", true},
		{`\fbox{Yes}`, ExtractOptions{}, "Yes", true},
		{`so $\boxed 42$ done`, ExtractOptions{}, "42", true},
		{`The answer is: 0.25.`, ExtractOptions{}, "025", true}, // G1 quirk: "." removed
		{`The answer is: 0.25.`, ExtractOptions{KeepDecimalPoints: true}, "0.25", true},
		{"THE FINAL ANSWER IS\n[1, 3]", ExtractOptions{}, "[1, 3]", true},
		{`no answer here`, ExtractOptions{}, "", false},
		{`\boxed{unclosed`, ExtractOptions{}, "", false},
	}
	for _, c := range cases {
		got, ok := ExtractAnswer(c.in, c.opts)
		if got != c.want || ok != c.ok {
			t.Errorf("ExtractAnswer(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestStripString(t *testing.T) {
	cases := map[string]string{
		`\frac{1}{7}`:         "frac{1}{7}",
		`\dfrac{1}{7}`:        "frac{1}{7}",
		"0.5":                 "frac{1}{2}",
		"3/4":                 "frac{3}{4}",
		`[1, 2, 3]`:           "[1,2,3]",
		`\text{Yes}`:          "Yes",
		`{yes}`:               "yes",
		`x = 5`:               "5",
		`.25`:                 "0.25",
		`50\%`:                "50",
		`\left[ 1, 2 \right]`: "[1,2]",
		`12 \text{ nodes}`:    "12",
		"[(1, 2),\n (3, 4)]":  "[(1,2),(3,4)]",
		`$\mathrm{No}$`:       "No",
	}
	for in, want := range cases {
		if got := StripString(in); got != want {
			t.Errorf("StripString(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScoreOutput(t *testing.T) {
	g := pairsGraph(t, 5, paper5, false)
	box := func(s string) string { return `Reasoning... Therefore, the final answer is: $\boxed{` + s + `}$.` }
	g.Params = map[string]int{"u": 5, "source": 5, "target": 3}
	cases := []struct {
		task    string
		out     string
		parsed  bool
		correct bool
	}{
		{"degree", box("2"), true, true},
		{"degree", box("3"), true, false},
		{"degree", box("2.0"), false, false}, // G1: integers compare as strings
		{"degree_centrality", box("0.5"), true, true},
		{"degree_centrality", box(`\frac{1}{2}`), true, true},
		{"degree_centrality", box("1/2"), true, true},
		{"degree_centrality", box("0.5004"), true, true},
		{"degree_centrality", box("0.502"), true, false},
		{"degree_centrality", "The answer is 0.5.", true, false}, // G1 quirk turns it into 05
		{"has_cycle", box(`\text{Yes}`), true, true},
		{"has_cycle", box("yes."), true, true},
		{"has_cycle", box("No"), true, false},
		{"has_cycle", box("maybe"), false, false},
		{"neighbor", box("[1, 4]"), true, true},
		{"neighbor", box("[4, 1]"), true, false},
		{"shortest_path", box("[5, 1, 3]"), true, true},
		{"shortest_path", box("[5, 4, 3]"), true, true},
		{"shortest_path", box("[5, 4, 2, 3]"), true, false},
		{"bridges", box("[]"), true, true},
		{"min_vertex_cover", box("[1, 2, 4]"), true, true},
		{"min_vertex_cover", box("[1, 2, 3, 4]"), true, false},
		{"bfs", box("[(5, 1), (5, 4), (1, 2), (1, 3)]"), true, true},
		{"bfs", box("[[5, 4], [5, 1], [4, 2], [4, 3]]"), true, true},
		{"bfs", box("[(5, 1), (1, 2)"), false, false},
		{"degree", "I cannot tell.", false, false},
	}
	for _, c := range cases {
		task, err := LookupTask(c.task)
		if err != nil {
			t.Fatal(err)
		}
		gold, err := task.Truth(g)
		if err != nil {
			t.Fatal(err)
		}
		sc := task.ScoreOutput(g, gold, c.out, ExtractOptions{})
		if sc.Parsed != c.parsed || sc.Correct != c.correct {
			t.Errorf("%s %q: parsed %v correct %v (%s); want %v %v", c.task, c.out, sc.Parsed, sc.Correct, sc.Reason, c.parsed, c.correct)
		}
		if !sc.Correct && sc.Reason == "" {
			t.Errorf("%s %q: wrong answer without a reason", c.task, c.out)
		}
	}
}

func TestReadPredictions(t *testing.T) {
	good := "{\"id\": \"a\", \"answer_text\": \"x\"}\n\n{\"id\": 7, \"answer_text\": \"\\\\boxed{1}\"}\n"
	m, err := ReadPredictions(strings.NewReader(good))
	if err != nil || len(m) != 2 || m["7"] != `\boxed{1}` {
		t.Fatalf("ReadPredictions = %v, %v", m, err)
	}
	bad := []struct{ in, want string }{
		{"{\"id\": \"a\", \"answer_text\": \"x\"}\n{\"id\": \"b\"", "line 2"},
		{"{\"answer_text\": \"x\"}", "line 1: missing \"id\""},
		{"{\"id\": \"a\"}", "line 1: missing \"answer_text\""},
		{"{\"id\": \"a\", \"answer_text\": \"x\"}\n{\"id\": \"a\", \"answer_text\": \"y\"}", "line 2: id \"a\" already given on line 1"},
		{"{\"id\": [1], \"answer_text\": \"x\"}", "line 1: \"id\" is [1]"},
		{"{\"id\": \"a\", \"answer_text\": 5}", "line 1"},
		{"{\"id\": \"a\", \"answer_text\": \"x\"} {}", "line 1: extra data"},
		{"not json", "line 1"},
	}
	for _, c := range bad {
		_, err := ReadPredictions(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadPredictions(%q): %v, want error containing %q", c.in, err, c.want)
		}
	}
}

// FuzzScoreOutput: extraction, stripping, parsing and scoring never panic
// on any text, for every answer class.
func FuzzScoreOutput(f *testing.F) {
	for _, s := range []string{`\boxed{[1, 2]}`, `\boxed{{`, `\boxed{\frac}`, `\boxed{\sqrt}`, "The answer is {1, 2}\nx", `\boxed{1e200}`, `\boxed {3}$`, `the answer is [(1,2),(`, `\fbox{frac{1}{0}}`, `\boxed 1/0$`, `\boxed{-}`, "0.5", `\boxed{[(1, 2, 3), [4, 5]]}`, `\boxed{1e400}`} {
		f.Add(s)
	}
	g := &Graph{N: 5, Edges: []Edge{{U: 1, V: 2}, {U: 2, V: 3}, {U: 3, V: 4}, {U: 4, V: 5}}, Params: map[string]int{"u": 1, "v": 3, "source": 1, "target": 5}}
	var tasks []*Task
	for _, name := range []string{"degree", "density", "has_cycle", "neighbor", "shortest_path", "bfs", "dfs", "min_vertex_cover", "max_weight_matching", "bridges"} {
		task, _ := LookupTask(name)
		tasks = append(tasks, task)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, task := range tasks {
			gold, err := task.Truth(g)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []ExtractOptions{{}, {Mode: metrics.ScoreLenient}, {Mode: metrics.ScoreLenient, KeepDecimalPoints: true}} {
				sc := task.ScoreOutput(g, gold, s, o)
				if sc.Correct && !sc.Parsed {
					t.Fatalf("%v: correct but not parsed: %q", o.Mode, s)
				}
				if sc.Raised != "" && o.Mode == metrics.ScoreLenient {
					t.Fatalf("lenient score marked raised: %q", s)
				}
			}
		}
	})
}
