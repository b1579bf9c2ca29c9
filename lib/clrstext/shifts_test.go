package clrstext

import (
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nprand"
)

func TestRandomTree(t *testing.T) {
	rng := nprand.New(3)
	for n := 1; n <= 40; n++ {
		for rep := 0; rep < 5; rep++ {
			edges := RandomTree(rng, n)
			if len(edges) != max(n-1, 0) {
				t.Fatalf("n=%d: %d edges", n, len(edges))
			}
			// Union-find: n-1 edges without a cycle make a spanning tree.
			parent := make([]int, n)
			for i := range parent {
				parent[i] = i
			}
			var find func(int) int
			find = func(x int) int {
				for parent[x] != x {
					x = parent[x]
				}
				return x
			}
			for _, e := range edges {
				if e[0] == e[1] || e[0] < 0 || e[1] >= n {
					t.Fatalf("n=%d: bad edge %v", n, e)
				}
				a, b := find(e[0]), find(e[1])
				if a == b {
					t.Fatalf("n=%d: cycle through %v", n, e)
				}
				parent[a] = b
			}
		}
	}
}

func TestTreeShift(t *testing.T) {
	for algo, kind := range graphKinds {
		s, err := NewSampler(algo, 9, 1, Options{Format: Current, Decimals: 3, Shift: Shift{Trees: true, Scalars: true, Low: 1, High: 2}})
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 5; k++ {
			tr, err := s.Trajectory()
			if err != nil {
				t.Fatalf("%s: %v", algo, err)
			}
			if err := tr.Validate(); err != nil {
				t.Fatal(err)
			}
			A := tr.Input("A").Data
			edges := 0
			for i, v := range A {
				if v == 0 {
					continue
				}
				edges++
				if kind.weighted && !(v >= 1 && v <= 2.01) {
					t.Fatalf("%s: weight %v outside the shifted range", algo, v)
				}
				if !kind.weighted && v != 1 {
					t.Fatalf("%s: unweighted entry %v", algo, v)
				}
				if i/9 == i%9 {
					t.Fatalf("%s: self-loop", algo)
				}
			}
			want := 16 // 8 undirected edges
			if kind.directed {
				want = 8
			}
			if edges != want {
				t.Fatalf("%s: %d nonzero entries, want %d", algo, edges, want)
			}
		}
		ex, err := s.Next()
		if err != nil || !strings.HasPrefix(ex.Question, algo+":\n") {
			t.Fatalf("%s: %v %q", algo, err, ex.Question)
		}
	}
}

func TestScalarShift(t *testing.T) {
	cases := []struct {
		algo, probe string
	}{
		{"insertion_sort", "key"}, {"find_maximum_subarray_kadane", "key"}, {"activity_selector", "s"},
		{"task_scheduling", "w"}, {"matrix_chain_order", "p"}, {"segments_intersect", "x"}, {"binary_search", "target"},
	}
	for _, c := range cases {
		s, err := NewSampler(c.algo, 8, 0, Options{Format: Legacy, Shift: ScalarShift})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := s.Trajectory()
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range tr.Input(c.probe).Data {
			if v < 1 || v >= 2 {
				t.Errorf("%s %s: %v outside [1, 2)", c.algo, c.probe, v)
			}
		}
	}
	// Samplers without a scalar range are unchanged by the shift.
	for _, algo := range []string{"optimal_bst", "graham_scan", "lcs_length", "bfs"} {
		a, _ := Sample(algo, 6, 2, 2, Options{Format: Legacy, Shift: ScalarShift})
		b, _ := Sample(algo, 6, 2, 2, Options{Format: Legacy})
		if a[0] != b[0] || a[1] != b[1] {
			t.Errorf("%s changed under the scalar shift", algo)
		}
	}
}

func TestParseShift(t *testing.T) {
	cases := []struct {
		in   string
		want Shift
		ok   bool
	}{
		{"", Shift{}, true}, {"none", Shift{}, true}, {"trees", TreeShift, true}, {"scalars", ScalarShift, true},
		{"trees+scalars", Shift{Trees: true, Scalars: true, Low: 1, High: 2}, true},
		{"scalars:2:5", Shift{Scalars: true, Low: 2, High: 5}, true},
		{"scalars:5:2", Shift{}, false}, {"forest", Shift{}, false}, {"scalars:x", Shift{}, false},
	}
	for _, c := range cases {
		got, err := ParseShift(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseShift(%q) = %+v, %v", c.in, got, err)
		}
		if c.ok {
			back, err := ParseShift(got.String())
			if err != nil || back != got {
				t.Errorf("%q does not round-trip through String: %q", c.in, got.String())
			}
		}
	}
}

func TestRenderErrors(t *testing.T) {
	if _, err := Render(nil, Legacy, false); err == nil {
		t.Error("nil trajectory")
	}
	tr, err := clrs.Run("insertion_sort", clrs.Args{[]float64{0.3, 0.1, 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Render(tr, Format(9), false); err == nil {
		t.Error("bad format")
	}
	ex, err := Render(tr, Current, true)
	if err != nil {
		t.Fatal(err)
	}
	if want := "insertion_sort:\nkey: [0.3 0.1 0.2], initial_trace: [0.3 0.1 0.2]\ntrace | pred:\n[0.1 0.3 0.2] | [0.1 0.2 0.3]\n\n"; ex.Text() != want {
		t.Errorf("got %q\nwant %q", ex.Text(), want)
	}
	bad := *tr
	bad.Algorithm = "no_such_algo"
	if _, err := Render(&bad, Legacy, false); err == nil {
		t.Error("unknown algorithm")
	}
	if _, err := NewSampler("insertion_sort", 4, 0, Options{Format: Legacy, Decimals: 2}); err == nil {
		t.Error("legacy with decimals")
	}
	if _, err := NewSampler("sorting", 4, 0, Options{}); err == nil {
		t.Error("unknown algorithm")
	}
	if _, err := NewSampler("insertion_sort", 0, 0, Options{}); err == nil {
		t.Error("length 0")
	}
}
