package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn/engine"
)

// The expected values below were computed with numpy from the formulas of
// the reference (dm-clrs 2.0.3: decoders.log_sinkhorn, losses.output_loss
// and hint_loss, optax.clip_by_global_norm, processors.PGN's gate,
// decoders' inf_bias), written out independently of this package.

// eval runs a graph function without inputs and returns its output, flat.
func eval(t *testing.T, be compute.Backend, fn func(g *Graph) *Node) []float64 {
	t.Helper()
	out, err := ExecOnce(be, fn)
	if err != nil {
		t.Fatal(err)
	}
	var flat []float64
	out.ConstFlatData(func(f any) {
		for _, v := range f.([]float32) {
			flat = append(flat, float64(v))
		}
	})
	return flat
}

func near(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol*math.Max(1, math.Abs(want[i])) {
			t.Errorf("%s[%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

func c32(g *Graph, dims []int, v ...float32) *Node {
	x := Const(g, v)
	return Reshape(x, dims...)
}

var sinkX = []float32{0.5, -1, 2, 1, 0.3, -0.2, 0, 2, 1}

func TestLogSinkhorn(t *testing.T) {
	for name, be := range testBackends(t) {
		t.Run(name, func(t *testing.T) {
			// exp of 10 steps at temperature 0.1: a permutation matrix.
			got := eval(t, be, func(g *Graph) *Node { return Exp(logSinkhorn(c32(g, []int{1, 3, 3}, sinkX...), 10, 0.1, nil)) })
			near(t, "sinkhorn", got, []float64{0, 0, 0.999994, 1, 0, 6e-6, 0, 1, 0}, 1e-4)
			// With Gumbel noise from fixed uniforms.
			got = eval(t, be, func(g *Graph) *Node {
				u := c32(g, []int{1, 3, 3}, 0.1, 0.9, 0.5, 0.3, 0.7, 0.2, 0.6, 0.4, 0.8)
				return Exp(logSinkhorn(c32(g, []int{1, 3, 3}, sinkX...), 10, 0.1, u))
			})
			near(t, "sinkhorn with noise", got, []float64{0, 1.4e-5, 1, 0.999999, 0, 0, 1e-6, 0.999986, 0}, 1e-4)
			// Log values, temperature 1, three steps (off the diagonal).
			got = eval(t, be, func(g *Graph) *Node {
				return logSinkhorn(c32(g, []int{1, 3, 3}, 0.2, 0.1, 0, 0, 0.3, 0.25, 0.1, 0, 0.05), 3, 1, nil)
			})
			for _, i := range []int{0, 4, 8} {
				got[i] = 0 // the diagonal is pushed to −1e6
			}
			near(t, "log sinkhorn", got, []float64{0, -0.622457, -0.77157, -0.772086, 0, -0.62043, -0.619986, -0.769217, 0}, 1e-5)
		})
	}
}

func TestProbeLossReference(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	probe := func(loc clrs.Location, typ clrs.Type, classes int) probeLayout {
		return probeLayout{Probe: clrs.Probe{Name: "x", Location: loc, Type: typ}, classes: classes}
	}
	cases := []struct {
		name          string
		l             probeLayout
		hint          bool
		dims          []int
		truth, logits []float32
		w             []float32
		want          float64
	}{
		{"mask_one output, a −1 row masked", probe(clrs.Node, clrs.MaskOne, 0), false, []int{3, 3},
			[]float32{0, 1, 0, -1, -1, -1, 1, 0, 0}, []float32{0.2, 1, -0.5, 0.3, 0.1, 0, 0, 0.5, 0.5}, []float32{1, 1, 1}, 0.9861575803838325},
		{"categorical hint", probe(clrs.Node, clrs.Categorical, 3), true, []int{2, 3},
			[]float32{0, 0, 1, 0, 1, 0}, []float32{0.1, 0.2, 0.3, 1, -1, 0.5}, []float32{1, 1}, 1.7784498839356173},
		{"pointer output", probe(clrs.Node, clrs.Pointer, 0), false, []int{1, 2, 3},
			[]float32{0, 0, 1, 1, 0, 0}, []float32{1, 0, -1, 0.5, 0.5, 2}, []float32{1}, 2.1382935499228477},
		{"pointer hint, second sample done", probe(clrs.Node, clrs.Pointer, 0), true, []int{2, 2, 3},
			[]float32{0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0}, []float32{1, 0, -1, 0.5, 0.5, 2, 9, -9, 9, 3, 1, 2}, []float32{1, 0}, 2.1382935499228477},
		{"mask output, a −1 entry masked", probe(clrs.Node, clrs.Mask, 0), false, []int{1, 4},
			[]float32{1, 0, -1, 1}, []float32{0.3, -2, 5, -0.7}, []float32{1}, 0.5948231014656525},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := eval(t, be, func(g *Graph) *Node {
				s, n := probeLoss(c.l, c32(g, c.dims, c.logits...), c32(g, c.dims, c.truth...), Const(g, c.w), c.hint)
				return Div(s, n)
			})
			near(t, "loss", got, []float64{c.want}, 1e-5)
		})
	}
	t.Run("permutation pointer output", func(t *testing.T) {
		got := eval(t, be, func(g *Graph) *Node {
			logits := logSinkhorn(c32(g, []int{1, 3, 3}, sinkX...), 10, 0.1, nil)
			truth := c32(g, []int{1, 3, 3}, 0, 1, 0, 0, 0, 1, 1, 0, 0)
			s, n := probeLoss(probe(clrs.Node, clrs.PermutationPointer, 0), logits, truth, Const(g, []float32{1}), false)
			return Div(s, n)
		})
		near(t, "loss", got, []float64{20.666668715179256}, 1e-4)
	})
}

func TestClipByGlobalNorm(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		max  float64
		want []float64
	}{
		{1, []float64{3.0 / 13, 4.0 / 13, 12.0 / 13}}, // ‖g‖ = 13 > 1: scaled by 1/13
		{20, []float64{3, 4, 12}},                     // under the limit: unchanged
	} {
		got := eval(t, be, func(g *Graph) *Node {
			out := engine.ClipByGlobalNorm([]*Node{Const(g, []float32{3, 4}), Const(g, []float32{12})}, c.max)
			return Concatenate(out, 0)
		})
		near(t, "clipped", got, c.want, 1e-6)
	}
}

func TestGateAndInfBias(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	// ret·gate + hidden·(1−gate): gate 0.25 keeps three quarters of hidden.
	got := eval(t, be, func(g *Graph) *Node {
		return gateMix(Const(g, []float32{4, 8}), Const(g, []float32{0, 4}), Const(g, []float32{0.25, 0.5}))
	})
	near(t, "gate", got, []float64{1, 6}, 1e-6)
	// Non-edges go to min(−1, sample minimum − 1).
	got = eval(t, be, func(g *Graph) *Node {
		return nonEdgesBelow(c32(g, []int{2, 2, 2}, 1, -3, 2, 0.5, 1, 2, 3, 4), c32(g, []int{2, 2, 2}, 1, 0, 1, 1, 1, 0, 0, 1))
	})
	near(t, "inf_bias", got, []float64{1, -4, 2, 0.5, 1, -1, -1, 4}, 1e-6)
}

func TestRepredict(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	mask := probeLayout{Probe: clrs.Probe{Location: clrs.Node, Type: clrs.Mask}}
	ptr := probeLayout{Probe: clrs.Probe{Location: clrs.Node, Type: clrs.Pointer}}
	x := []float32{0.5, -1, 2, 0}
	for _, c := range []struct {
		l    probeLayout
		hard bool
		want []float64
	}{
		{mask, false, []float64{1 / (1 + math.Exp(-0.5)), 1 / (1 + math.Exp(1)), 1 / (1 + math.Exp(-2)), 0.5}},
		{mask, true, []float64{1, 0, 1, 0}},
		{ptr, true, []float64{1, 0, 1, 0}},
		{ptr, false, []float64{math.Exp(1.5) / (1 + math.Exp(1.5)), 1 / (1 + math.Exp(1.5)), 0.880797, 0.119203}},
	} {
		got := eval(t, be, func(g *Graph) *Node { return repredict(c.l, c32(g, []int{2, 2}, x...), c.hard) })
		near(t, "repredict", got, c.want, 1e-5)
	}
}

// TestTruncatedNormal checks haiku's initialiser: weights within two
// standard deviations of 1/√fan_in, with the standard deviation of a
// normal truncated there (0.8796·σ); and that a variable's initial weights
// depend on the seed and its path only.
func TestTruncatedNormal(t *testing.T) {
	w := truncatedNormal(rand.New(rand.NewPCG(7, 7)), 200*100, 200, 0)
	sigma := 1 / math.Sqrt(200)
	var ss float64
	for _, v := range w {
		if math.Abs(float64(v)) > 2*sigma+1e-7 {
			t.Fatalf("weight %v beyond 2σ = %v", v, 2*sigma)
		}
		ss += float64(v) * float64(v)
	}
	if sd := math.Sqrt(ss / float64(len(w))); math.Abs(sd/sigma-0.8796) > 0.02 {
		t.Errorf("standard deviation %.4f·σ, want 0.8796·σ", sd/sigma)
	}
	store := model.NewStore()
	store.RootScope().SetParam(paramInitSeed, int64(3))
	shape := shapeF32(4, 3)
	first := func(path string) float32 {
		return initialWeights(store.RootScope(), path, shape).Value().([][]float32)[0][0]
	}
	if first("/a/weights") != first("/a/weights") {
		t.Error("the same path and seed drew different weights")
	}
	if first("/a/weights") == first("/b/weights") {
		t.Error("two paths drew the same weights")
	}
}
