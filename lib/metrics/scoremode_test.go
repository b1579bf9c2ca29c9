package metrics

import "testing"

func TestParseScoreMode(t *testing.T) {
	for _, c := range []struct {
		in   string
		want ScoreMode
		err  bool
	}{
		{"paper", ScorePaper, false},
		{"", ScorePaper, false},
		{"lenient", ScoreLenient, false},
		{"strict", 0, true},
		{"Paper", 0, true}, // spelled as the flag takes it, lower-case
		{"g1", 0, true},
	} {
		got, err := ParseScoreMode(c.in)
		if (err != nil) != c.err || (err == nil && got != c.want) {
			t.Errorf("ParseScoreMode(%q) = %v, %v", c.in, got, err)
		}
		if err == nil && got.String() != map[ScoreMode]string{ScorePaper: "paper", ScoreLenient: "lenient"}[got] {
			t.Errorf("%v.String() = %q", got, got.String())
		}
		if err != nil && got != 0 {
			t.Errorf("ParseScoreMode(%q) failed but returned %v", c.in, got)
		}
	}
	if s := ScoreMode(7).String(); s != "ScoreMode(7)" {
		t.Errorf("ScoreMode(7).String() = %q", s)
	}
}
