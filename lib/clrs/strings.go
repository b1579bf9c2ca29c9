package clrs

import "fmt"

// String matching: naive_string_matcher and kmp_matcher (CLRS §32.1, §32.4).
//
// Both take a haystack T (n characters) and a needle P (m characters) and
// lay them out as n+m nodes: the haystack's characters first, then the
// needle's. The `key` input is one-hot over a fixed alphabet of
// matcherAlphabet classes — the reference sizes it with a constant, not with
// the sampler's `chars` parameter nor with the data, so every character must
// lie in [0, matcherAlphabet). The output `match` marks the haystack node
// where the first occurrence of P starts, or, when P does not occur, the
// first needle node (node n), the reference's convention for "no match".

// matcherAlphabet is the number of `key` classes of the string matchers.
const matcherAlphabet = 4

var matcherArgs = []argSpec{
	{"T", argInts, "the haystack: characters in [0, 4)"},
	{"P", argInts, "the needle: characters in [0, 4), no longer than T"},
}

func init() {
	register(&algorithmDef{name: "naive_string_matcher", args: matcherArgs, sampler: matcherSampler,
		run: func(a Args) (*Trajectory, error) { return NaiveStringMatcher(a[0].([]int), a[1].([]int)) }})
	register(&algorithmDef{name: "kmp_matcher", args: matcherArgs, sampler: matcherSampler,
		run: func(a Args) (*Trajectory, error) { return KMPMatcher(a[0].([]int), a[1].([]int)) }})
}

// checkMatcherInput checks the preconditions shared by both matchers: two
// non-empty strings over the alphabet, the needle no longer than the
// haystack (the reference records no hint step at all otherwise).
func checkMatcherInput(T, P []int) error {
	if len(T) == 0 {
		return fmt.Errorf("T: the haystack is empty; want at least one character")
	}
	if len(P) == 0 {
		return fmt.Errorf("P: the needle is empty; want at least one character")
	}
	if len(P) > len(T) {
		return fmt.Errorf("P: the needle has %d characters, more than the haystack's %d; want len(P) <= len(T)", len(P), len(T))
	}
	for _, s := range []struct {
		name string
		str  []int
	}{{"T", T}, {"P", P}} {
		for i, c := range s.str {
			if c < 0 || c >= matcherAlphabet {
				return fmt.Errorf("%s: character %d is %d; want a character in [0, %d)", s.name, i, c, matcherAlphabet)
			}
		}
	}
	return nil
}

// matcherRecorder starts a string-matcher recording: it records the three
// inputs and returns the recorder and the constant pred_h hint.
func matcherRecorder(algo string, T, P []int) (*recorder, []int) {
	n, m := len(T), len(P)
	r := newRecorder(algo, n+m)
	r.input("string", stringsID(n, m))
	r.input("pos", stringsPos(n, m))
	r.input("key", stringsCat(T, P, matcherAlphabet))
	return r, stringsPred(n, m)
}

// matcherArgsCopy returns copies of the arguments for the trajectory.
func matcherArgsCopy(T, P []int) Args {
	return Args{append([]int(nil), T...), append([]int(nil), P...)}
}

// NaiveStringMatcher looks for the first occurrence of P in T by trying
// every shift s = 0, 1, … in turn and comparing character by character
// (CLRS §32.1), stopping at the first full match.
//
// Hints (one step when a shift starts and one per matched character that
// is not the needle's last): pred_h, the two strings' predecessor chains
// (constant); s, the haystack node of the current shift; i, the haystack
// node being compared; j, the needle node being compared.
func NaiveStringMatcher(T, P []int) (*Trajectory, error) {
	if err := checkMatcherInput(T, P); err != nil {
		return nil, err
	}
	n, m := len(T), len(P)
	nodes := n + m
	r, pred := matcherRecorder("naive_string_matcher", T, P)
	hPred, hS, hI, hJ := r.hint("pred_h"), r.hint("s"), r.hint("i"), r.hint("j")
	push := func(s, i, j int) {
		r.step()
		r.pushInts(hPred, pred)
		r.pushOneHot(hS, s, nodes)
		r.pushOneHot(hI, i, nodes)
		r.pushOneHot(hJ, n+j, nodes)
	}
	match := n // the first needle node: no occurrence
	for s := 0; s <= n-m && match == n; s++ {
		push(s, s, 0)
		for j := 0; T[s+j] == P[j]; j++ {
			if j == m-1 {
				match = s
				break
			}
			push(s, s+j+1, j+1)
		}
	}
	r.outputOneHot("match", match, nodes)
	return r.finish(matcherArgsCopy(T, P)), nil
}

// KMPMatcher looks for the first occurrence of P in T with the
// Knuth–Morris–Pratt algorithm (CLRS §32.4): it first computes the prefix
// function of P (phase 0), then scans T once (phase 1), stopping at the
// first full match.
//
// The prefix function is stored in the reference's "reset" form: pi[q] is
// the needle index of the last character of the longest proper prefix of
// P[0..q] that is also its suffix, and is_reset[q] = 1 when that prefix is
// empty (pi[q] is then 0). The scan state q likewise holds the index of the
// last matched needle character, with q_reset = 1 meaning nothing matched.
//
// Hints: pred_h (constant), pi as pointers into the needle nodes,
// is_reset, k and k_reset (the prefix computation's state), q and q_reset
// (the scan's state), s (the haystack node where the current candidate
// occurrence starts), i (the haystack node being read) and phase.
func KMPMatcher(T, P []int) (*Trajectory, error) {
	if err := checkMatcherInput(T, P); err != nil {
		return nil, err
	}
	n, m := len(T), len(P)
	nodes := n + m
	r, pred := matcherRecorder("kmp_matcher", T, P)
	hPred, hPi, hReset := r.hint("pred_h"), r.hint("pi"), r.hint("is_reset")
	hK, hKReset, hQ, hQReset := r.hint("k"), r.hint("k_reset"), r.hint("q"), r.hint("q_reset")
	hS, hI, hPhase := r.hint("s"), r.hint("i"), r.hint("phase")

	// piNodes is the pi hint (every node points to itself but needle node
	// n+q, which points to n+pi[q]); resetNodes the is_reset hint over all
	// nodes. Both are updated in place as pi and is_reset change.
	pi := arange(m)
	reset := make([]bool, m)
	piNodes := arange(nodes)
	resetNodes := make([]float64, nodes)
	setPi := func(q, k int) { pi[q] = k; piNodes[n+q] = n + k }
	setReset := func(q int) { reset[q] = true; resetNodes[n+q] = 1 }

	// push records one step; kNode and qNode are needle indices.
	push := func(k int, kReset bool, q int, qReset bool, s, i int, phase float64) {
		r.step()
		r.pushInts(hPred, pred)
		r.pushInts(hPi, piNodes)
		r.pushVals(hReset, resetNodes)
		r.pushOneHot(hK, n+k, nodes)
		r.pushBool(hKReset, kReset)
		r.pushOneHot(hQ, n+q, nodes)
		r.pushBool(hQReset, qReset)
		r.pushOneHot(hS, s, nodes)
		r.pushOneHot(hI, i, nodes)
		r.pushScalar(hPhase, phase)
	}

	// Phase 0: the prefix function. The first step shows q at needle index
	// 1 (or 0 when the needle has a single character).
	setReset(0)
	k, kReset := 0, true
	push(0, true, min(1, m-1), true, 0, 0, 0)
	for q := 1; q < m; q++ {
		for !kReset && P[k+1] != P[q] {
			if reset[k] {
				k, kReset = 0, true
			} else {
				k = pi[k]
			}
			push(k, kReset, q, true, 0, 0, 0)
		}
		// k = -1 stands for the empty prefix while extending it.
		if kReset {
			k, kReset = -1, false
		}
		if P[k+1] == P[q] {
			k++
		}
		if k == -1 {
			k, kReset = 0, true
			setReset(q)
		}
		setPi(q, k)
		push(k, kReset, q, true, 0, 0, 0)
	}

	// Phase 1: scan the haystack.
	match := n // the first needle node: no occurrence
	q, qReset, s := 0, true, 0
scan:
	for i := 0; i < n; i++ {
		if i >= m {
			s++
		}
		push(k, kReset, q, qReset, s, i, 1)
		for !qReset && P[q+1] != T[i] {
			if reset[q] {
				q, qReset = 0, true
			} else {
				q = pi[q]
			}
			push(k, kReset, q, qReset, s, i, 1)
		}
		if qReset {
			q, qReset = -1, false
		}
		if P[q+1] == T[i] {
			if q == m-2 {
				match = s
				break scan
			}
			q++
		}
		if q == -1 {
			q, qReset = 0, true
		}
	}
	r.outputOneHot("match", match, nodes)
	return r.finish(matcherArgsCopy(T, P)), nil
}
