package clrs30

import (
	"strings"
	"testing"
)

// TestLengthNeedle: a string matcher's fresh training samples are drawn
// at 5/4 of the longest training length with the needles --length-needle
// asks for (k characters; 1..k drawn per sample for −k; the sampler's own
// rule, length/5, for none), as run.py's --length_needle; a needle that
// cannot fit is refused, and the settings the reference's run.py cannot
// run (its defaults) are named.
func TestLengthNeedle(t *testing.T) {
	needles := func(c Config, algo string) (map[int]bool, int) {
		t.Helper()
		if err := c.defaults(); err != nil {
			t.Fatal(err)
		}
		d, err := newTrainData(c, algo, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen, n := map[int]bool{}, 0
		for step := 1; step <= 4; step++ {
			fb, err := d.batch(step)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range fb.Args {
				hay, needle := a[0].([]int), a[1].([]int)
				seen[len(needle)] = true
				n = len(hay) + len(needle)
			}
		}
		return seen, n
	}
	base := Config{Algo: "kmp_matcher", Batch: 8, Seed: 3}
	c := base
	c.LengthNeedle = 3
	if seen, n := needles(c, "kmp_matcher"); len(seen) != 1 || !seen[3] || n != 20 {
		t.Errorf("--length-needle 3: needles of %v characters in strings of %d; want 3 in 20 (5/4 of 16)", seen, n)
	}
	c = base // the default, run.py's -8
	seen, n := needles(c, "naive_string_matcher")
	for k := range seen {
		if k < 1 || k > 8 {
			t.Errorf("--length-needle -8: a needle of %d characters", k)
		}
	}
	if len(seen) < 3 || n != 20 {
		t.Errorf("--length-needle -8: needles of %v characters in strings of %d; want several of 1..8 in 20", seen, n)
	}
	c = base
	c.NoLengthNeedle = true
	if seen, _ := needles(c, "kmp_matcher"); len(seen) != 1 || !seen[4] {
		t.Errorf("no needle setting: needles of %v characters; want the sampler's 20/5 = 4", seen)
	}
	c = base
	c.TrainLengths, c.LengthNeedle = []int{4, 8}, 2
	if seen, n := needles(c, "kmp_matcher"); n != 10 || !seen[2] {
		t.Errorf("--train-lengths 4,8: strings of %d; want 10 (5/4 of 8)", n)
	}

	c = base
	c.LengthNeedle = -10
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "kmp_matcher trains at length 20") {
		t.Errorf("--length-needle -10: %v; want a refusal", err)
	}
	c = base
	if why := c.ReferenceNeedleFailure(); !strings.Contains(why, "run.py cannot run these settings: it validates the string matchers at length 16") {
		t.Errorf("the reference's defaults: %q", why)
	}
	c.LengthNeedle = -7
	if why := c.ReferenceNeedleFailure(); why != "" {
		t.Errorf("--length-needle -7 runs in the reference: %q", why)
	}
	c = Config{Algo: "bfs", LengthNeedle: -20}
	if err := c.Validate(); err != nil {
		t.Errorf("a needle setting without a string matcher: %v", err)
	}
	if c.settings().LengthNeedle != nil {
		t.Errorf("bfs's settings record a needle")
	}
}
