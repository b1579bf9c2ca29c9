package jaxrand

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"
)

// jaxDump is testdata/jax.json, the values JAX 0.4.38 and haiku 0.0.17
// drew (scripts/jaxrand_fixtures.py). Floats are IEEE-754 bit patterns.
type jaxDump struct {
	JAX     string `json:"jax"`
	PRNGKey []struct {
		Seed int64
		Key  Key
	}
	Split []struct {
		Key  Key
		N    int
		Keys []Key
	}
	FoldIn []struct {
		Key  Key
		Data uint32
		Out  Key
	} `json:"fold_in"`
	Bits []struct {
		Key   Key
		Shape []int
		Bits  []uint32
	}
	Uniform []struct {
		Key    Key
		Shape  []int
		LoBits uint32 `json:"lo_bits"`
		HiBits uint32 `json:"hi_bits"`
		Bits   []uint32
	}
	Bernoulli []struct {
		Key    Key
		P      float64
		PBits  uint32 `json:"p_bits"`
		Shape  []int
		Values []int
	}
	Gumbel []struct {
		Key   Key
		Shape []int
		Bits  []uint32
	}
	SinkhornNoise []struct {
		Key   Key
		Shape []int
		Bits  []uint32
	} `json:"sinkhorn_noise"`
	Log struct {
		XBits   []uint32 `json:"x_bits"`
		LogBits []uint32 `json:"log_bits"`
	}
	Haiku []struct {
		ApplyKey    Key `json:"apply_key"`
		Keys        []Key
		Take3       []Key
		DropoutRate float64  `json:"dropout_rate"`
		XShape      []int    `json:"x_shape"`
		XBits       []uint32 `json:"x_bits"`
		DropoutBits []uint32 `json:"dropout_bits"`
	}
}

func loadDump(t *testing.T) *jaxDump {
	t.Helper()
	raw, err := os.ReadFile("testdata/jax.json")
	if err != nil {
		t.Fatal(err)
	}
	var d jaxDump
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.JAX != "0.4.38" || len(d.PRNGKey) == 0 || len(d.Haiku) == 0 {
		t.Fatalf("testdata/jax.json: JAX %q, %d keys, %d haiku cases; regenerate it with scripts/jaxrand_fixtures.py",
			d.JAX, len(d.PRNGKey), len(d.Haiku))
	}
	return &d
}

func floats(bits []uint32) []float32 {
	out := make([]float32, len(bits))
	for i, b := range bits {
		out[i] = math.Float32frombits(b)
	}
	return out
}

func bitsOf(xs []float32) []uint32 {
	out := make([]uint32, len(xs))
	for i, x := range xs {
		out[i] = math.Float32bits(x)
	}
	return out
}

// firstDiff is the index of the first element where got and want differ
// (−1: none; len(want) when only the lengths differ).
func firstDiff[T comparable](got, want []T) int {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return i
		}
	}
	if len(got) != len(want) {
		return min(len(got), len(want))
	}
	return -1
}

func TestKeysAgainstJAX(t *testing.T) {
	d := loadDump(t)
	for _, c := range d.PRNGKey {
		if got := PRNGKey(c.Seed); got != c.Key {
			t.Errorf("PRNGKey(%d) = %v, JAX %v", c.Seed, got, c.Key)
		}
	}
	for _, c := range d.Split {
		if got := Split(c.Key, c.N); !slices.Equal(got, c.Keys) {
			t.Errorf("Split(%v, %d) = %v, JAX %v", c.Key, c.N, got, c.Keys)
		}
	}
	for _, c := range d.FoldIn {
		if got := FoldIn(c.Key, c.Data); got != c.Out {
			t.Errorf("FoldIn(%v, %d) = %v, JAX %v", c.Key, c.Data, got, c.Out)
		}
	}
}

func TestDrawsAgainstJAX(t *testing.T) {
	d := loadDump(t)
	for _, c := range d.Bits {
		if i := firstDiff(Bits32(c.Key, c.Shape...), c.Bits); i >= 0 {
			t.Errorf("Bits32(%v, %v) differs from JAX's at element %d", c.Key, c.Shape, i)
		}
	}
	for _, c := range d.Uniform {
		lo, hi := math.Float32frombits(c.LoBits), math.Float32frombits(c.HiBits)
		if i := firstDiff(bitsOf(Uniform(c.Key, lo, hi, c.Shape...)), c.Bits); i >= 0 {
			t.Errorf("Uniform(%v, %g, %g, %v) differs from JAX's at element %d", c.Key, lo, hi, c.Shape, i)
		}
	}
	for _, c := range d.Bernoulli {
		p := math.Float32frombits(c.PBits)
		if p != float32(c.P) {
			t.Fatalf("p %v stored as %v", c.P, p)
		}
		got := Bernoulli(c.Key, p, c.Shape...)
		want := make([]bool, len(c.Values))
		for i, v := range c.Values {
			want[i] = v != 0
		}
		if i := firstDiff(got, want); i >= 0 {
			t.Errorf("Bernoulli(%v, %v, %v) differs from JAX's at element %d", c.Key, p, c.Shape, i)
		}
	}
	for _, c := range d.Gumbel {
		if i := firstDiff(bitsOf(Gumbel(c.Key, c.Shape...)), c.Bits); i >= 0 {
			t.Errorf("Gumbel(%v, %v) differs from JAX's at element %d", c.Key, c.Shape, i)
		}
	}
}

// TestSinkhornNoise rebuilds the permutation decoders' Gumbel noise,
// −log(−log(u + 1e-12) + 1e-12), from Uniform and Log32.
func TestSinkhornNoise(t *testing.T) {
	d := loadDump(t)
	for _, c := range d.SinkhornNoise {
		u := Uniform(c.Key, 0, 1, c.Shape...)
		got := make([]float32, len(u))
		for i, x := range u {
			got[i] = -Log32(-Log32(x+1e-12) + 1e-12)
		}
		if i := firstDiff(bitsOf(got), c.Bits); i >= 0 {
			t.Errorf("noise of %v differs from the decoder's at element %d: %g, JAX %g", c.Key, i, got[i],
				math.Float32frombits(c.Bits[i]))
		}
	}
}

func TestLog32AgainstXLA(t *testing.T) {
	d := loadDump(t)
	xs := floats(d.Log.XBits)
	if len(xs) != len(d.Log.LogBits) || len(xs) < 1000 {
		t.Fatalf("%d inputs, %d logs", len(xs), len(d.Log.LogBits))
	}
	offByOne := 0 // values where XLA's log is not the correctly rounded one
	for i, x := range xs {
		got, want := Log32(x), math.Float32frombits(d.Log.LogBits[i])
		if math.IsNaN(float64(want)) {
			if !math.IsNaN(float64(got)) {
				t.Errorf("Log32(%g) = %g, XLA NaN", x, got)
			}
			continue
		}
		if math.Float32bits(got) != d.Log.LogBits[i] {
			t.Errorf("Log32(%g) = %g (%#x), XLA %g (%#x)", x, got, math.Float32bits(got), want, d.Log.LogBits[i])
		}
		if want != float32(math.Log(float64(x))) {
			offByOne++
		}
	}
	// The test is only worth its name if XLA's log is not simply the
	// correctly rounded one on these inputs.
	if offByOne == 0 {
		t.Errorf("XLA's log equals the correctly rounded log on all %d inputs: the fixture tests nothing", len(xs))
	}
	t.Logf("%d of %d XLA logs differ from the correctly rounded value", offByOne, len(xs))
}

func TestHaikuSequenceAgainstHaiku(t *testing.T) {
	d := loadDump(t)
	for _, c := range d.Haiku {
		s := NewSequence(c.ApplyKey)
		for i, want := range c.Keys {
			if got := s.Next(); got != want {
				t.Fatalf("apply key %v: next_rng_key #%d = %v, haiku %v", c.ApplyKey, i+1, got, want)
			}
		}
		// The dropout took the last of those keys.
		x := floats(c.XBits)
		got := Dropout(c.Keys[len(c.Keys)-1], c.DropoutRate, x, c.XShape...)
		if i := firstDiff(bitsOf(got), c.DropoutBits); i >= 0 {
			t.Errorf("apply key %v: dropout differs from haiku's at element %d", c.ApplyKey, i)
		}
		if got := s.Take(3); !slices.Equal(got, c.Take3) {
			t.Errorf("apply key %v: next_rng_keys(3) = %v, haiku %v", c.ApplyKey, got, c.Take3)
		}
	}
}

func TestFMA32(t *testing.T) {
	tests := []struct {
		a, b, c, want float32
	}{
		{2, 3, 1, 7},
		{0.1, 10, -1, float32(float64(float32(0.1))*10 - 1)},
		// The exact value 2²⁹ + 32 + 2⁻⁴¹ lies just above the float32
		// midpoint 2²⁹ + 32, so it rounds up; its float64 rounding is the
		// midpoint itself, which float32 would round to even (2²⁹).
		{1 + 0x1p-23, -32 * (1 - 0x1p-23), 0x1p29 + 64, 0x1p29 + 64},
	}
	for _, tt := range tests {
		if got := FMA32(tt.a, tt.b, tt.c); got != tt.want {
			t.Errorf("FMA32(%g, %g, %g) = %g, want %g", tt.a, tt.b, tt.c, got, tt.want)
		}
	}
	// The last case is one that rounding the float64 sum gets wrong.
	a, b, c := float32(1+0x1p-23), float32(-32*(1-0x1p-23)), float32(0x1p29+64)
	if naive := float32(float64(a)*float64(b) + float64(c)); naive == 0x1p29+64 {
		t.Errorf("the double-rounding case is not one: float64 arithmetic gives %g", naive)
	}
}

func TestSplitPanicsOnNegative(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Split(k, -1) did not panic")
		}
	}()
	Split(PRNGKey(0), -1)
}
