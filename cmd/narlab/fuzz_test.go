package main

import (
	"testing"

	"github.com/narlab/narlab/lib/clrs"
)

// FuzzClrsRunInput feeds `clrs run` inputs to the decoder and, when they
// decode, to the algorithm: any input must give a result or an error,
// never a panic, and an accepted argument is never longer than maxLength.
func FuzzClrsRunInput(f *testing.F) {
	algos := []string{"insertion_sort", "bfs", "dijkstra", "kmp_matcher", "binary_search", "activity_selector", "graham_scan", "matrix_chain_order", "floyd_warshall"}
	seeds := []struct {
		algo int
		in   string
	}{
		{0, `{"key": [3, 1, 2]}`},
		{0, `{"args": [[5, 4]]}`},
		{1, `{"A": [[0, 1], [1, 0]], "s": 0}`},
		{2, `{"A": [[0, 2.5], [2.5, 0]], "s": 1}`},
		{3, `{"T": [0, 1, 0, 1], "P": [0, 1]}`},
		{4, `{"args": [[1, 2, 3], 2]}`},
		{0, `{"key": []}`},
		{1, `{"A": [[0]], "s": 7}`},
		{5, `{"s": [1, 2], "f": [3]}`},
		{6, `{"xs": [0, 1, 0], "ys": [0, 0, 1]}`},
		{0, `{"key": [1e308, -1e308, 0]}`},
		{8, `{"A": [[0, -1], [-1, 0]]}`},
		{0, `[`},
	}
	for _, s := range seeds {
		f.Add(uint8(s.algo), []byte(s.in))
	}
	f.Fuzz(func(t *testing.T, ai uint8, raw []byte) {
		algo := algos[int(ai)%len(algos)]
		names, err := clrs.ArgNames(algo)
		if err != nil {
			t.Fatal(err)
		}
		args, err := decodeRunInput(raw, names)
		if err != nil {
			return
		}
		for _, a := range args {
			if err := checkRunArg(a); err != nil {
				t.Fatalf("decodeRunInput accepted %v: %v", a, err)
			}
		}
		_, _ = clrs.Run(algo, args) // an error is fine; a panic fails the fuzz test
	})
}

// FuzzKwargs: --kwargs is one complete JSON object or an error.
func FuzzKwargs(f *testing.F) {
	for _, s := range []string{`{"p": [0.5]}`, `{`, `{"p": [0.5]} x`, `{}`, `{"a": {"b": 1}}`, `[]`, `{"p": 1e400}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := parseKwargs(s)
		if err == nil && s != "" && len(ps) > len(s) {
			t.Fatalf("%d params from %q", len(ps), s)
		}
	})
}
