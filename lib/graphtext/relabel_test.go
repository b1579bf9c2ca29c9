package graphtext

import (
	"strings"
	"testing"
)

func TestPermutation(t *testing.T) {
	p := RandomPermutation(10, 3)
	if err := p.Check(10); err != nil {
		t.Fatal(err)
	}
	q := p.Inverse()
	for v := 1; v <= 10; v++ {
		if q.Map(p.Map(v)) != v {
			t.Fatalf("inverse fails at %d", v)
		}
	}
	if slicesEqual(RandomPermutation(10, 3), RandomPermutation(10, 4)) || !slicesEqual(RandomPermutation(10, 3), p) {
		t.Error("permutations are not a function of the seed")
	}
	bad := []struct {
		p    Permutation
		want string
	}{
		{Permutation{1, 2}, "has 2 entries"},
		{Permutation{1, 1, 2}, "maps node 2 to 1"},
		{Permutation{1, 2, 4}, "maps node 3 to 4"},
	}
	for _, c := range bad {
		if err := c.p.Check(3); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%v): %v, want %q", c.p, err, c.want)
		}
	}
	g := pairsGraph(t, 3, [][2]int{{1, 2}}, false)
	g.Params = map[string]int{"u": 7}
	if _, err := g.Relabel(Identity(3)); err == nil || !strings.Contains(err.Error(), "parameter u = 7") {
		t.Errorf("out-of-range parameter: %v", err)
	}
	g.Params = map[string]int{"u": 1, SyntheticParam: 1}
	h, err := g.Relabel(Permutation{3, 1, 2})
	if err != nil || h.Params["u"] != 3 || h.Params[SyntheticParam] != 1 || h.Edges[0] != (Edge{U: 1, V: 3}) {
		t.Errorf("Relabel = %+v, %v", h, err)
	}
}

func slicesEqual(a, b Permutation) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
