package clrs

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// matcherFuncs are the two string matchers under their registered names.
var matcherFuncs = []struct {
	name string
	run  func(T, P []int) (*Trajectory, error)
}{
	{"naive_string_matcher", NaiveStringMatcher},
	{"kmp_matcher", KMPMatcher},
}

func TestMatcherBadInput(t *testing.T) {
	cases := []struct {
		name string
		T, P []int
		want string // a fragment the error must contain
	}{
		{"empty haystack", []int{}, []int{0}, "haystack is empty"},
		{"nil haystack", nil, []int{0}, "haystack is empty"},
		{"empty needle", []int{0, 1}, []int{}, "needle is empty"},
		{"needle longer", []int{0, 1}, []int{0, 1, 2}, "more than the haystack"},
		{"negative haystack char", []int{0, -1, 2}, []int{0}, "T: character 1 is -1"},
		{"haystack char too large", []int{0, 4}, []int{0}, "T: character 1 is 4"},
		{"negative needle char", []int{0, 1, 2}, []int{-3}, "P: character 0 is -3"},
		{"needle char too large", []int{0, 1, 2}, []int{1, 7}, "P: character 1 is 7"},
	}
	for _, m := range matcherFuncs {
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				if _, err := m.run(c.T, c.P); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("typed: got error %v; want one mentioning %q", err, c.want)
				}
				_, err := Run(m.name, Args{c.T, c.P})
				if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), m.name) {
					t.Errorf("Run: got error %v; want one naming %s and mentioning %q", err, m.name, c.want)
				}
			})
		}
		t.Run(m.name+"/non-integer character", func(t *testing.T) {
			_, err := Run(m.name, Args{[]float64{0, 1.5}, []float64{0}})
			if err == nil || !strings.Contains(err.Error(), "want an integer") {
				t.Errorf("got %v; want an error about a non-integer character", err)
			}
		})
		t.Run(m.name+"/sampler alphabet too large", func(t *testing.T) {
			// The reference one-hot encodes over 4 classes whatever `chars`
			// says, and fails on larger characters; so must narlab.
			s, err := NewSampler(m.name, Length(40), Seed(0), NumSamples(20), Kwarg("chars", 9))
			if err == nil {
				_, err = s.Dataset()
			}
			if err == nil || !strings.Contains(err.Error(), "want a character in [0, 4)") {
				t.Errorf("got %v; want an error about characters out of [0, 4)", err)
			}
		})
	}
}

// firstOccurrence is an independent search: the index where P first
// occurs in T, or -1.
func firstOccurrence(T, P []int) int {
	enc := func(s []int) string {
		b := make([]byte, len(s))
		for i, c := range s {
			b[i] = byte('a' + c)
		}
		return string(b)
	}
	return strings.Index(enc(T), enc(P))
}

// randomMatcherInput draws strings from a distribution unlike the
// sampler's: any lengths with len(P) <= len(T), alphabets of 1 to 4
// characters (small ones make repeats, borders and near misses frequent),
// the needle planted half of the time and sometimes as a prefix of a
// repeated pattern.
func randomMatcherInput(rng *rand.Rand) (T, P []int) {
	n := 1 + rng.IntN(30)
	m := 1 + rng.IntN(min(n, 8))
	a := 1 + rng.IntN(4)
	T, P = make([]int, n), make([]int, m)
	for i := range P {
		P[i] = rng.IntN(a)
	}
	if rng.IntN(3) == 0 { // a periodic needle such as abab or aaab
		period := 1 + rng.IntN(m)
		for i := period; i < m; i++ {
			P[i] = P[i-period]
		}
	}
	for i := range T {
		T[i] = rng.IntN(a)
	}
	if rng.IntN(2) == 0 {
		s := rng.IntN(n - m + 1)
		copy(T[s:], P)
	}
	return T, P
}

// oneHotIndex returns the position of the 1 of a one-hot row (or -1).
func oneHotIndex(row []float64) int {
	for i, v := range row {
		if v == 1 {
			return i
		}
	}
	return -1
}

func TestMatcherProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		T, P := randomMatcherInput(rng)
		n := len(T)
		want := firstOccurrence(T, P)
		wantNode := want
		if want < 0 {
			wantNode = n // the reference's "no match": the first needle node
		}
		for _, mf := range matcherFuncs {
			Tc, Pc := slices.Clone(T), slices.Clone(P)
			tr, err := mf.run(T, P)
			if err != nil {
				t.Fatalf("%s(%v, %v): %v", mf.name, T, P, err)
			}
			if !slices.Equal(T, Tc) || !slices.Equal(P, Pc) {
				t.Fatalf("%s modified its arguments", mf.name)
			}
			if err := tr.Validate(); err != nil {
				t.Fatalf("%s(%v, %v): %v", mf.name, T, P, err)
			}
			if got := oneHotIndex(tr.Output("match").Data); got != wantNode {
				t.Fatalf("trial %d: %s(%v, %v) matched at node %d; want %d", trial, mf.name, T, P, got, wantNode)
			}
			// pred_h is the same two chains at every step.
			pred := tr.Hint("pred_h")
			for s := range tr.Length {
				row := pred.Step(s)
				for i := range row {
					w := i - 1
					if i == 0 || i == n {
						w = i
					}
					if row[i] != float64(w) {
						t.Fatalf("%s: pred_h[%d][%d] = %v; want %d", mf.name, s, i, row[i], w)
					}
				}
			}
		}
		checkNaiveSteps(t, T, P, want)
		checkKMPPrefix(t, T, P)
	}
}

// checkNaiveSteps checks the naive matcher's trace against its definition:
// shift s contributes one step per compared position up to the first
// mismatch (a full match contributes m steps), and every step's i = s + j.
func checkNaiveSteps(t *testing.T, T, P []int, first int) {
	t.Helper()
	n, m := len(T), len(P)
	tr, _ := NaiveStringMatcher(T, P)
	var wantS, wantJ []int
	last := n - m
	if first >= 0 {
		last = first
	}
	for s := 0; s <= last; s++ {
		for j := 0; j < m; j++ {
			wantS, wantJ = append(wantS, s), append(wantJ, j)
			if T[s+j] != P[j] || j == m-1 {
				break
			}
		}
	}
	if tr.Length != len(wantS) {
		t.Fatalf("naive(%v, %v): %d steps; want %d", T, P, tr.Length, len(wantS))
	}
	hs, hi, hj := tr.Hint("s"), tr.Hint("i"), tr.Hint("j")
	for k := range wantS {
		s, i, j := oneHotIndex(hs.Step(k)), oneHotIndex(hi.Step(k)), oneHotIndex(hj.Step(k))
		if s != wantS[k] || i != wantS[k]+wantJ[k] || j != n+wantJ[k] {
			t.Fatalf("naive(%v, %v) step %d: s, i, j = %d, %d, %d; want %d, %d, %d",
				T, P, k, s, i, j, wantS[k], wantS[k]+wantJ[k], n+wantJ[k])
		}
	}
}

// checkKMPPrefix checks the KMP prefix-function hints against an
// independent quadratic computation of the longest proper border of every
// needle prefix: once phase 0 is over, is_reset marks the needle nodes
// whose border is empty, and pi points from needle node n+q to n+b-1 for a
// border of length b > 0 (to n for an empty one). It also checks the phase
// hint is 0 and then 1.
func checkKMPPrefix(t *testing.T, T, P []int) {
	t.Helper()
	n, m := len(T), len(P)
	tr, _ := KMPMatcher(T, P)
	phase := tr.Hint("phase")
	scan := -1 // the first step of phase 1
	for s := range tr.Length {
		p := phase.Step(s)[0]
		if scan < 0 && p == 1 {
			scan = s
		}
		if (scan < 0 && p != 0) || (scan >= 0 && p != 1) {
			t.Fatalf("kmp(%v, %v): phase %v at step %d; want 0 then 1", T, P, p, s)
		}
	}
	if scan < 1 {
		t.Fatalf("kmp(%v, %v): no scan phase after the prefix phase", T, P)
	}
	pi, reset := tr.Hint("pi").Step(scan), tr.Hint("is_reset").Step(scan)
	for q := range m {
		border := 0
		for b := q; b > 0; b-- {
			if slices.Equal(P[:b], P[q+1-b:q+1]) {
				border = b
				break
			}
		}
		wantPi, wantReset := n+border-1, 0.0
		if border == 0 {
			wantPi, wantReset = n, 1
		}
		if pi[n+q] != float64(wantPi) || reset[n+q] != wantReset {
			t.Fatalf("kmp(%v, %v): needle %d has pi %v, is_reset %v; want %d, %v (border %d)",
				T, P, q, pi[n+q], reset[n+q], wantPi, wantReset, border)
		}
	}
	for i := range n {
		if pi[i] != float64(i) || reset[i] != 0 {
			t.Fatalf("kmp(%v, %v): haystack node %d has pi %v, is_reset %v; want itself, 0", T, P, i, pi[i], reset[i])
		}
	}
}

// TestMatcherReferenceVectors checks a few traces against the reference
// run on the same arguments (dump.py --args), including inputs with no
// occurrence, which the reference sampler never draws.
func TestMatcherReferenceVectors(t *testing.T) {
	cases := []struct {
		algo   string
		T, P   []int
		steps  int
		match  int
		finalQ int // kmp: the q hint's node at the last step
	}{
		{"naive_string_matcher", []int{0, 0, 0, 0, 0, 1}, []int{0, 0, 1}, 12, 3, 0},
		{"naive_string_matcher", []int{1, 2, 1, 2}, []int{2, 2}, 4, 4, 0},
		{"kmp_matcher", []int{0, 0, 0, 0, 0, 1}, []int{0, 0, 1}, 13, 3, 7},
		{"kmp_matcher", []int{0, 1, 0, 1, 0, 1, 1}, []int{0, 1, 0, 1, 1}, 14, 2, 10},
		{"kmp_matcher", []int{1, 2, 1, 2}, []int{2, 2}, 7, 4, 4},
		{"kmp_matcher", []int{3}, []int{3}, 2, 0, 1},
	}
	for _, c := range cases {
		tr, err := Run(c.algo, Args{c.T, c.P})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Length != c.steps {
			t.Errorf("%s(%v, %v): %d steps; want %d", c.algo, c.T, c.P, tr.Length, c.steps)
		}
		if got := oneHotIndex(tr.Output("match").Data); got != c.match {
			t.Errorf("%s(%v, %v): match %d; want %d", c.algo, c.T, c.P, got, c.match)
		}
		if c.algo == "kmp_matcher" {
			if got := oneHotIndex(tr.Hint("q").Step(tr.Length - 1)); got != c.finalQ {
				t.Errorf("%s(%v, %v): final q %d; want %d", c.algo, c.T, c.P, got, c.finalQ)
			}
		}
	}
}
