package clrstext

import (
	"math"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/clrs"
)

func TestParseAnswer(t *testing.T) {
	cases := []struct {
		name, in string
		final    string
		trace    []string
		hasTrace bool
		ok       bool
	}{
		{"plain", "[0.423 0.544]\n\n", "[0.423 0.544]", nil, false, true},
		{"trace", "[1 0], [1 1] | [0 1]\n\n", "[0 1]", []string{"[1 0]", "[1 1]"}, true, true},
		{"empty trace", " | 1\n\n", "1", nil, true, true},
		{"pairs", "(0, 1), (0, 2) | (0, 3)\n\n", "(0, 3)", []string{"(0, 1)", "(0, 2)"}, true, true},
		{"two outputs", "0, 3\n\n", "0, 3", nil, false, true},
		{"topo", "[0 1], 0, [1 0], 1 | [0 0], 1\n\n", "[0 0], 1", []string{"[0 1]", "0", "[1 0]", "1"}, true, true},
		{"surrounding text", "Sure! The answer is [1 2 3].\n\nHope this helps", "[1 2 3]", nil, false, true},
		{"echoed header", "trace | pred:\n[1 2], [2 1] | [1 2]", "[1 2]", []string{"[1 2]", "[2 1]"}, true, true},
		{"leading blank paragraph", "Answer:\n\n[[0 1], [1 0]]\n\nmore", "[[0 1], [1 0]]", nil, false, true},
		{"tight commas", "0,3", "0, 3", nil, false, true},
		{"negative and exponent", "[-0.0 1e-05 -1.5]", "[-0.0 1e-05 -1.5]", nil, false, true},
		{"words are not numbers", "step2 x3", "", nil, false, false},
		{"unbalanced", "[1 2", "", nil, false, false},
		{"mismatched", "[1 2)", "", nil, false, false},
		{"letters in list", "[see above]", "", nil, false, false},
		{"empty", "", "", nil, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := ParseAnswer(c.in)
			if a.OK != c.ok || a.Final != c.final || a.HasTrace != c.hasTrace || strings.Join(a.Trace, "|") != strings.Join(c.trace, "|") {
				t.Errorf("ParseAnswer(%q) = %+v; want final %q trace %q hasTrace %v ok %v", c.in, a, c.final, c.trace, c.hasTrace, c.ok)
			}
		})
	}
}

func TestTimeToFirstFailure(t *testing.T) {
	ref := "[1 0], [1 1], [0 1] | [0 0]\n\n"
	cases := []struct {
		name, algo, pred, ref string
		want                  float64
	}{
		{"perfect", "bfs", ref, ref, 1},
		{"first step wrong", "bfs", "[9 9], [1 1], [0 1] | [0 0]", ref, 0},
		{"third step wrong", "bfs", "[1 0], [1 1], [9 9] | [0 0]", ref, 0.5},
		{"final wrong", "bfs", "[1 0], [1 1], [0 1] | [9 9]", ref, 0.75},
		{"jumps to the answer", "bfs", "[0 0]", ref, 0},
		{"stops early", "bfs", "[1 0] | [0 0]", ref, 0.25},
		{"extra step", "bfs", "[1 0], [1 1], [0 1], [0 0] | [0 0]", ref, 0.75},
		{"no trace, right", "bfs", "[0 0]", "[0 0]\n\n", 1},
		{"no trace, wrong", "bfs", "[0 1]", "[0 0]\n\n", 0},
		{"topo pairs", "topological_sort", "[0 1], 0, [1 1], 1 | [0 0], 1", "[0 1], 0, [1 0], 1 | [0 0], 1\n\n", 1.0 / 3},
		{"garbage", "bfs", "no idea", ref, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := TimeToFirstFailure(c.algo, c.pred, c.ref); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("TTFF = %v, want %v", got, c.want)
			}
		})
	}
}

// TestRoundTrip parses every generated answer of every algorithm back to
// the ground truth: the final output is the rendered output, the trace has
// one step per printed hint frame.
func TestRoundTrip(t *testing.T) {
	for _, f := range []Format{Legacy, Current} {
		for _, hints := range []bool{false, true} {
			for _, algo := range clrs.CLRS30() {
				for _, length := range []int{4, 9, 16} {
					o := Options{Format: f, Hints: hints}
					s, err := NewSampler(algo, length, 5, o)
					if err != nil {
						t.Fatal(err)
					}
					for k := 0; k < 3; k++ {
						tr, err := s.Trajectory()
						if err != nil {
							t.Fatal(err)
						}
						ex, err := Render(tr, f, hints)
						if err != nil {
							t.Fatal(err)
						}
						body := strings.TrimSuffix(ex.Answer, "\n\n")
						a := ParseAnswer(ex.Answer)
						wantFinal := body
						if ex.Hints {
							wantFinal = body[strings.LastIndex(body, " | ")+3:]
						}
						if !a.OK || a.Final != wantFinal {
							t.Fatalf("%s L%d: final %q, want %q", algo, length, a.Final, wantFinal)
						}
						if ex.Hints != a.HasTrace {
							t.Fatalf("%s L%d: HasTrace %v, rendered with trace %v", algo, length, a.HasTrace, ex.Hints)
						}
						if ex.Hints {
							wantSteps := max(tr.Length-2, 0) + 1
							if got := len(a.Steps(algo)); got != wantSteps {
								t.Fatalf("%s L%d: %d steps, want %d (T=%d)", algo, length, got, wantSteps, tr.Length)
							}
							if tt := TimeToFirstFailure(algo, ex.Answer, ex.Answer); tt != 1 {
								t.Fatalf("%s: TTFF of the reference against itself = %v", algo, tt)
							}
						}
						if !ExactMatch("Model says:\n"+ex.Answer+"Done.", ex.Answer) {
							t.Fatalf("%s: answer with surrounding text does not match", algo)
						}
					}
				}
			}
		}
	}
}

func TestScore(t *testing.T) {
	items := []Item{
		{Algo: "bfs", Length: 4, Prediction: "[0 0] | [1 1]", Reference: "[0 0] | [1 1]\n\n"},
		{Algo: "bfs", Length: 4, Prediction: "[0 1] | [1 1]", Reference: "[0 0] | [1 1]\n\n"},
		{Algo: "bfs", Length: 5, Prediction: "nothing", Reference: "[0 0] | [1 1]\n\n"},
		{Algo: "minimum", Length: 4, Prediction: "3", Reference: "3\n\n"},
	}
	r, err := Score(items)
	if err != nil {
		t.Fatal(err)
	}
	want := []Cell{
		{Algo: "bfs", Length: 4, N: 2, Correct: 2, Accuracy: 1, TTFF: 0.5, Parsed: 1},
		{Algo: "bfs", Length: 5, N: 1, Correct: 0, Accuracy: 0, TTFF: 0, Parsed: 0},
		{Algo: "minimum", Length: 4, N: 1, Correct: 1, Accuracy: 1, TTFF: 1, Parsed: 1},
	}
	if len(r.Cells) != len(want) {
		t.Fatalf("cells %+v", r.Cells)
	}
	for i := range want {
		if r.Cells[i] != want[i] {
			t.Errorf("cell %d = %+v, want %+v", i, r.Cells[i], want[i])
		}
	}
	if r.Overall.N != 4 || r.Overall.Correct != 3 {
		t.Errorf("overall %+v", r.Overall)
	}
	if math.Abs(r.MacroAccuracy-(2.0/3+1)/2) > 1e-12 {
		t.Errorf("macro accuracy %v", r.MacroAccuracy)
	}
	if _, err := Score(nil); err == nil {
		t.Error("Score(nil) should fail")
	}
}

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{"[1 2] | [2 1]\n\n", " | 1\n\n", "(0, 1), (0, 2) | (0, 3)", "[[0 -1], [1 0]]",
		"0, 3", "The answer is [1 2 3].", "[1 2", "((]]", "-", "1e", "1e+", "[-1e-05 2.5]", "| |", "\n\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := ParseAnswer(s)
		if a.OK != (a.Final != "") {
			t.Fatalf("OK %v but final %q", a.OK, a.Final)
		}
		if a.OK {
			b := ParseAnswer(a.Final)
			if !b.OK || b.Final != a.Final {
				t.Fatalf("final %q reparses as %q", a.Final, b.Final)
			}
		}
		_ = TimeToFirstFailure("topological_sort", s, s)
		_ = TimeToFirstFailure("bfs", s, "[0 1] | [1 1]\n\n")
	})
}
