package clrs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

var arrSubarrayFuncs = []struct {
	name string
	run  func([]float64) (*Trajectory, error)
}{
	{"find_maximum_subarray_kadane", FindMaximumSubarrayKadane},
	{"find_maximum_subarray", FindMaximumSubarray},
}

func TestMaxSubarrayBadInput(t *testing.T) {
	cases := []struct {
		name string
		A    []float64
		want string
		only string
	}{
		{"empty", []float64{}, "want at least one element", ""},
		{"NaN", []float64{0.5, math.NaN()}, "element 1 is NaN", ""},
		{"Inf", []float64{math.Inf(-1), 0.5}, "element 0 is -Inf", ""},
		{"one key", []float64{0.5}, "needs at least 2 keys", "find_maximum_subarray"},
		{"huge key", []float64{0.5, -3e15}, "element 1 is -3e+15; want keys smaller than 2^50", "find_maximum_subarray"},
	}
	for _, f := range arrSubarrayFuncs {
		for _, c := range cases {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				_, err := f.run(c.A)
				_, errRun := Run(f.name, Args{c.A})
				if c.only != "" && c.only != f.name {
					if err != nil || errRun != nil {
						t.Fatalf("rejected a valid input: %v / %v", err, errRun)
					}
					return
				}
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("typed: got error %v; want one mentioning %q", err, c.want)
				}
				if errRun == nil || !strings.Contains(errRun.Error(), c.want) || !strings.Contains(errRun.Error(), f.name) {
					t.Errorf("Run: got error %v; want one naming %s and mentioning %q", errRun, f.name, c.want)
				}
			})
		}
	}
}

// arrBestSubarraySum is an independent brute force: the largest sum of a
// non-empty contiguous run of A.
func arrBestSubarraySum(A []float64) float64 {
	best := math.Inf(-1)
	for i := range A {
		s := 0.0
		for j := i; j < len(A); j++ {
			s += A[j]
			best = max(best, s)
		}
	}
	return best
}

// TestMaxSubarrayProperties checks both maximum-subarray algorithms
// against a brute force over all runs. Integer-valued keys make every sum
// exact, so the output run's sum must equal the best sum exactly; for
// real-valued keys, whose sums depend on the order of additions, within
// rounding.
func TestMaxSubarrayProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(51, 52))
	for trial := range 600 {
		n := 2 + rng.IntN(40)
		A := make([]float64, n)
		exact := trial%2 == 0
		for i := range A {
			if exact {
				A[i] = float64(rng.IntN(21) - 12)
			} else {
				A[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(6)-3))
			}
		}
		want := arrBestSubarraySum(A)
		for _, f := range arrSubarrayFuncs {
			before := slices.Clone(A)
			tr, err := f.run(A)
			label := fmt.Sprintf("trial %d %s(%v)", trial, f.name, A)
			arrCheckRun(t, label, tr, err, Args{A}, Args{before})
			lo, hi := arrOneHot(tr.Output("start").Data), arrOneHot(tr.Output("end").Data)
			if lo < 0 || hi < lo {
				t.Fatalf("%s: run [%d, %d]", label, lo, hi)
			}
			got := 0.0
			for _, v := range A[lo : hi+1] {
				got += v
			}
			if exact && got != want || !exact && math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("%s: run [%d, %d] sums to %v; the best sum is %v", label, lo, hi, got, want)
			}
			if f.name == "find_maximum_subarray_kadane" {
				// best_sum never decreases and ends at the answer.
				bs := tr.Hint("best_sum")
				for step := 1; step < tr.Length; step++ {
					if bs.Step(step)[0] < bs.Step(step - 1)[0] {
						t.Fatalf("%s: best_sum decreased at step %d", label, step)
					}
				}
				if exact && bs.Step(tr.Length - 1)[0] != want {
					t.Fatalf("%s: final best_sum %v; want %v", label, bs.Step(tr.Length - 1)[0], want)
				}
			}
		}
	}
}

// TestMaxSubarrayReferenceVectors compares find_maximum_subarray, which
// has no shared fixture (it is not in CLRS-30), with the reference: the
// SHA-256 of the reference JSON that clrs-ref/dump.py prints (with its
// final newline) for `find_maximum_subarray LENGTH SEED --num-samples K
// --compact`.
func TestMaxSubarrayReferenceVectors(t *testing.T) {
	cases := []struct {
		length int
		seed   int64
		num    int
		sha256 string
	}{
		{2, 0, 3, "d06647761c6cbe54d9c1f169f775c0254b4e8754df8d4fc8e73a7e661b26c707"},
		{3, 1, 2, "406bdc0e8eb1d479271f0bfbf603721544c792ccf543e0fbc332e911139a1b7a"},
		{5, 0, 2, "98d4bc567932e7842ef6b4394c89bbeb30e1896ab899dd3ea89e93ccd2fca7d5"},
		{7, 11, 3, "ecde3a6b10852068a068bb5529df97174db94e127c16a372650e6f1f0b054137"},
		{16, 1, 2, "ecd6da50c5426fae7e0c554315dc8c32468214961d1dbc718b462a8e84f96539"},
		{33, 4, 2, "f6efc3e8671152807d1a95591403b924a404d4b9a7f5a60d0f13fc36d5008cc7"},
		{64, 5, 1, "57f0fd62bae011b7db77730314d5e6f68cc4af697cf371d60a4b92517b664f32"},
		{100, 9, 1, "abc0a19b2677e36b436210b8023102d0cf1ab1412bdaab0cff8822362bf11a82"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("n%d_s%d_k%d", c.length, c.seed, c.num), func(t *testing.T) {
			s, err := NewSampler("find_maximum_subarray", Length(c.length), Seed(c.seed), NumSamples(c.num))
			if err != nil {
				t.Fatal(err)
			}
			fb, err := s.Dataset()
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			h := ReferenceHeader{Algorithm: "find_maximum_subarray", Length: c.length, Seed: c.seed, NumSamples: c.num}
			if err := WriteReferenceJSON(&buf, h, fb); err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(buf.Bytes())
			if got := hex.EncodeToString(sum[:]); got != c.sha256 {
				t.Errorf("reference JSON differs: sha256 %s, want %s", got, c.sha256)
			}
		})
	}
}
