package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // as in the package
)

func TestStepBucket(t *testing.T) {
	for _, c := range []struct{ S, want int }{
		{0, 2}, {1, 2}, {2, 2}, {3, 4}, {4, 4}, {5, 8}, {16, 16}, {17, 32}, {187, 256},
	} {
		if got := StepBucket(c.S); got != c.want {
			t.Errorf("StepBucket(%d) = %d, want %d", c.S, got, c.want)
		}
	}
}

// reverseLoop is a program with the shape of the one-program training
// step's reverse loop: a While whose body takes the gradient of
// Σ tanh(x·w) with respect to w and adds it up, x advancing to tanh(x·w),
// three times; then a scalar constant of the program (the same as the
// body's, which freshCaches keeps apart).
func reverseLoop(x, w *Node) []*Node {
	g := x.Graph()
	freshCaches(g)
	defer freshCaches(g)
	state := []*Node{Const(g, int32(0)), x, w, ZerosLike(w)}
	cond := loopClosure(g, state, func(ps []*Node) []*Node {
		return []*Node{LessThan(ps[0], Const(ps[0].Graph(), int32(3)))}
	})
	body := loopClosure(g, state, func(ps []*Node) []*Node {
		y := Tanh(Mul(ps[1], ps[2]))
		grad := Gradient(ReduceAllSum(MulScalar(y, 2)), ps[2])[0]
		return []*Node{OnePlus(ps[0]), y, ps[2], Add(ps[3], grad)}
	})
	res := While(cond, body, state...)
	return []*Node{res[1], MulScalar(res[3], 0.5)}
}

// reverseLoopWant is reverseLoop computed on the host.
func reverseLoopWant(x, w []float64) (y, sum []float64) {
	y, sum = append([]float64(nil), x...), make([]float64, len(x))
	for range 3 {
		for i := range y {
			t := math.Tanh(y[i] * w[i])
			sum[i] += 2 * (1 - t*t) * y[i] * 0.5
			y[i] = t
		}
	}
	return y, sum
}

// TestGoClosures runs gradients inside a loop's body on GoMLX's pure-Go
// backend: wrapped by GoClosures it computes what the host computes;
// unwrapped, the backend's rewriting of compiled closures breaks it (the
// reason for the wrapper: if this starts passing, compute fixed it and
// the wrapper can go).
func TestGoClosures(t *testing.T) {
	raw, err := compute.NewWithConfig("go:ops_sequential")
	if err != nil {
		t.Fatal(err)
	}
	x, w := []float32{0.1, 0.2, -0.7}, []float32{0.5, 1.5, 2}
	wantY, wantSum := reverseLoopWant([]float64{0.1, 0.2, -0.7}, []float64{0.5, 1.5, 2})
	if _, err := MustNewExec(raw, reverseLoop).Exec(x, w); err == nil {
		t.Log("the unwrapped pure-Go backend ran a gradient inside a loop: GoClosures may no longer be needed")
	}
	be := GoClosures(raw)
	if GoClosures(be) != be {
		t.Error("GoClosures wraps a wrapped backend again")
	}
	out, err := MustNewExec(be, reverseLoop).Exec(x, w)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range [][]float64{wantY, wantSum} {
		got := out[k].Value().([]float32)
		for i := range want {
			if math.Abs(float64(got[i])-want[i]) > 1e-5 {
				t.Errorf("output %d: got %v, want %v", k, got, want)
				break
			}
		}
	}
	if other := GoClosures(nil); other != nil {
		t.Errorf("GoClosures(nil) = %v", other)
	}
}

// TestFreshCaches: without freshCaches between them, a loop's body and
// the program around it share GoMLX's cached scalar constants, which the
// backend refuses.
func TestFreshCaches(t *testing.T) {
	be := GoClosures(mustGo(t))
	shared := func(x *Node) *Node {
		g := x.Graph()
		state := []*Node{Const(g, int32(0)), x}
		cond := NewClosure(g, func(g *Graph) []*Node {
			return []*Node{LessThan(Parameter(g, "i", state[0].Shape()), Const(g, int32(2)))}
		})
		body := NewClosure(g, func(g *Graph) []*Node {
			i, v := Parameter(g, "i", state[0].Shape()), Parameter(g, "v", x.Shape())
			return []*Node{OnePlus(i), MulScalar(v, 3)}
		})
		return MulScalar(While(cond, body, state...)[1], 3)
	}
	if _, err := MustNewExec(be, shared).Exec([]float32{1}); err == nil {
		t.Error("a constant shared between a loop's body and the program ran: freshCaches may no longer be needed")
	}
	fresh := func(x *Node) *Node {
		g := x.Graph()
		state := []*Node{Const(g, int32(0)), x}
		cond := loopClosure(g, state, func(ps []*Node) []*Node {
			return []*Node{LessThan(ps[0], Const(ps[0].Graph(), int32(2)))}
		})
		body := loopClosure(g, state, func(ps []*Node) []*Node {
			return []*Node{OnePlus(ps[0]), MulScalar(ps[1], 3)}
		})
		return MulScalar(While(cond, body, state...)[1], 3)
	}
	out, err := MustNewExec(be, fresh).Exec([]float32{1})
	if err != nil {
		t.Fatal(err)
	}
	if got := out[0].Value().([]float32)[0]; got != 27 {
		t.Errorf("got %v, want 27", got)
	}
}

func mustGo(t *testing.T) compute.Backend {
	t.Helper()
	be, err := compute.NewWithConfig("go:ops_sequential")
	if err != nil {
		t.Fatal(fmt.Errorf("the pure-Go backend: %w", err))
	}
	return be
}
