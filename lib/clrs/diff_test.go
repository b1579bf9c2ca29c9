package clrs

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDiffMask checks diffMask (AVX2 where the CPU has it) and its Go
// version against a word-by-word comparison, over lengths around the
// eight-word groups, masks holding stale bits, and values that are equal
// as numbers but not as bits (±0, NaN payloads): the steps of a hint are
// compared bit for bit.
func TestDiffMask(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	values := []uint64{0, 1, math.Float64bits(1), math.Float64bits(-0.0), math.Float64bits(math.NaN()), math.Float64bits(math.NaN()) | 1, ^uint64(0)}
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 200, 1000} {
		for _, changeRate := range []float64{0, 0.05, 0.5, 1} {
			a, b := make([]uint64, n), make([]uint64, n+3)
			for k := range b {
				b[k] = values[rng.IntN(len(values))]
			}
			for k := range a {
				a[k] = b[k]
				if rng.Float64() < changeRate {
					for a[k] == b[k] {
						a[k] = values[rng.IntN(len(values))]
					}
				}
			}
			for name, f := range map[string]func(a, b, mask []uint64){
				"diffMask":   diffMask,
				"diffMaskGo": func(a, b, mask []uint64) { diffMaskGo(a, b, mask, 0) },
			} {
				mask := make([]uint64, (n+63)/64+1)
				for k := range mask {
					mask[k] = rng.Uint64() // stale bits, to be overwritten
				}
				f(a, b, mask)
				for k := range n {
					if got, want := mask[k>>6]>>(k&63)&1 == 1, a[k] != b[k]; got != want {
						t.Fatalf("%s, n=%d, rate %v: bit %d = %v, want %v (a %#x, b %#x)", name, n, changeRate, k, got, want, a[k], b[k])
					}
				}
				// nextBit finds the same changes.
				var got []int
				for k := nextBit(mask, 0, n); k < n; k = nextBit(mask, k+1, n) {
					got = append(got, k)
				}
				var want []int
				for k := range n {
					if a[k] != b[k] {
						want = append(want, k)
					}
				}
				if len(got) != len(want) {
					t.Fatalf("%s, n=%d: nextBit found %d changes, want %d", name, n, len(got), len(want))
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s, n=%d: change %d at %d, want %d", name, n, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// TestSplitFileWithoutAVX2 runs the SplitFile checks with the step
// comparison in Go, as on a CPU without AVX2 (or not amd64).
func TestSplitFileWithoutAVX2(t *testing.T) {
	if !haveAVX2 {
		t.Skip("this CPU has no AVX2: the other SplitFile tests already ran the Go comparison")
	}
	haveAVX2 = false
	defer func() { haveAVX2 = true }()
	TestSplitFileEveryAlgorithm(t)
}
