package engine

import "testing"

func TestCallSteps(t *testing.T) {
	for _, c := range []struct {
		c, k, S int
		want    string
	}{
		{2, 1, 7, "step 3 of 7"},
		{1, 4, 7, "steps 5–7 of 7"},
		{0, 4, 7, "steps 1–4 of 7"},
		{1, 3, 4, "step 4 of 4"},
		{0, 64, 5, "steps 1–5 of 5"},
	} {
		if got := callSteps(c.c, c.k, c.S); got != c.want {
			t.Errorf("callSteps(%d, %d, %d) = %q, want %q", c.c, c.k, c.S, got, c.want)
		}
	}
}
