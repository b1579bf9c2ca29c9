package tracking

import (
	"regexp"
	"testing"
	"time"
)

func TestRunNameFor(t *testing.T) {
	at := time.Date(2026, 11, 24, 3, 15, 2, 0, time.UTC)
	for _, tc := range []struct {
		command string
		parts   []string
		want    string // a pattern
	}{
		{"spectral-eval", []string{"gnn+mean", "test 100 graphs"}, `^spectral-eval gnn\+mean test 100 graphs 20261124-031502-[0-9a-f]{6}$`},
		{"dsr score", []string{"", " bst "}, `^dsr score bst 20261124-031502-[0-9a-f]{6}$`},
		{"clrstext score", nil, `^clrstext score 20261124-031502-[0-9a-f]{6}$`},
	} {
		got := runNameAt(at, tc.command, tc.parts...)
		if !regexp.MustCompile(tc.want).MatchString(got) {
			t.Errorf("runNameAt(%q, %q) = %q, want /%s/", tc.command, tc.parts, got, tc.want)
		}
	}
	seen := map[string]bool{}
	for range 10 { // 1 in 3·10⁵ that two of 10 share their 24 random bits
		n := RunNameFor("x")
		if seen[n] {
			t.Fatalf("RunNameFor gave %q twice", n)
		}
		seen[n] = true
	}
}
