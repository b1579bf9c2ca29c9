package nn

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/narlab/narlab/lib/clrs"
)

// tieCase is one case of testdata/ties/ties.json (scripts/tie_fixtures.py:
// JAX 0.4.38 computes each value and gradient).
type tieCase struct {
	Name, Op string
	Params   struct {
		Axes     []int
		Segments []int32
	}
	Inputs    map[string]tieArray
	Cotangent *tieArray
	Value     tieArray
	Grads     map[string]tieArray
}

type tieArray struct {
	Shape []int
	Data  []float64
}

func (a tieArray) tensor() *tensors.Tensor {
	v := make([]float32, len(a.Data))
	for i, x := range a.Data {
		v[i] = float32(x)
	}
	if len(a.Shape) == 0 {
		return tensors.FromValue(v[0])
	}
	return tensors.FromFlatDataAndDimensions(v, a.Shape...)
}

// tieOps are, per fixture op, the inputs that are differentiated (in the
// order the op takes them; the others are constants) and narlab's
// computation; plain is GoMLX's own operation where narlab replaced one,
// which must not match the fixture (else the case does not exercise a
// tie).
var tieOps = map[string]struct {
	wrt   []string
	fn    func(c *tieCase, in map[string]*Node) *Node
	plain func(c *tieCase, in map[string]*Node) *Node
}{
	"relu": {[]string{"x"},
		func(c *tieCase, in map[string]*Node) *Node { return jaxRelu(in["x"]) },
		func(c *tieCase, in map[string]*Node) *Node { return activation.Relu(in["x"]) }},
	"leaky_relu": {[]string{"x"}, // GoMLX's own rule is JAX's: no replacement, pinned
		func(c *tieCase, in map[string]*Node) *Node { return activation.LeakyReluWith(in["x"], leakyReluSlope) }, nil},
	"reduce_max": {[]string{"x"},
		func(c *tieCase, in map[string]*Node) *Node { return jaxReduceMax(in["x"], c.Params.Axes...) },
		func(c *tieCase, in map[string]*Node) *Node { return ReduceMax(in["x"], c.Params.Axes...) }},
	"reduce_min": {[]string{"x"},
		func(c *tieCase, in map[string]*Node) *Node { return jaxReduceMin(in["x"], c.Params.Axes...) },
		func(c *tieCase, in map[string]*Node) *Node { return ReduceMin(in["x"], c.Params.Axes...) }},
	"maximum": {[]string{"a", "b"},
		func(c *tieCase, in map[string]*Node) *Node { return jaxMaximum(in["a"], in["b"]) },
		func(c *tieCase, in map[string]*Node) *Node { return Max(in["a"], in["b"]) }},
	"minimum": {[]string{"a", "b"},
		func(c *tieCase, in map[string]*Node) *Node { return jaxMinimum(in["a"], in["b"]) },
		func(c *tieCase, in map[string]*Node) *Node { return Min(in["a"], in["b"]) }},
	"one_hot_argmax": {nil, func(c *tieCase, in map[string]*Node) *Node {
		// The hard re-prediction of a mask_one hint.
		return repredict(probeLayout{Probe: clrs.Probe{Type: clrs.MaskOne}}, in["x"], true)
	}, nil},
	"triplet_max": {[]string{"t1", "t2", "t3", "te1", "te2", "te3", "tg"},
		func(c *tieCase, in map[string]*Node) *Node {
			return tripletMax(in["t1"], in["t2"], in["t3"], in["te1"], in["te2"], in["te3"], in["tg"])
		}, nil},
	"inf_bias": {[]string{"preds"},
		func(c *tieCase, in map[string]*Node) *Node { return nonEdgesBelow(in["preds"], in["adj"]) }, nil},
	"mask_loss": {[]string{"logits"}, func(c *tieCase, in map[string]*Node) *Node {
		// A mask hint's loss sum, every sample weighted 1.
		w := Ones(in["logits"].Graph(), shapeF32(in["logits"].Shape().Dimensions[0]))
		sum, _ := probeLoss(probeLayout{Probe: clrs.Probe{Type: clrs.Mask}}, in["logits"], in["truth"], w, true)
		return sum
	}, nil},
	"segment_max": {[]string{"x"}, func(c *tieCase, in map[string]*Node) *Node {
		return jaxSegmentMax(in["x"], segmentIndex(in["x"].Graph(), c.Params.Segments), numSegments(c))
	}, func(c *tieCase, in map[string]*Node) *Node {
		return segmentMax(in["x"], segmentIndex(in["x"].Graph(), c.Params.Segments), numSegments(c))
	}},
	"segment_one_hot_argmax": {nil, func(c *tieCase, in map[string]*Node) *Node {
		x := in["x"]
		pos := Iota(x.Graph(), shapeF32(x.Shape().Dimensions[0]), 0)
		return segmentOneHotArgMax(x, segmentIndex(x.Graph(), c.Params.Segments), numSegments(c), pos)
	}, nil},
}

func segmentIndex(g *Graph, seg []int32) *Node {
	return Reshape(Const(g, seg), len(seg), 1)
}

func numSegments(c *tieCase) int {
	n := 0
	for _, s := range c.Params.Segments {
		n = max(n, int(s)+1)
	}
	return n
}

// TestJAXTieRules compares narlab's operations where the reference's can
// tie (ties.go and the model functions that use them: the triplets' max,
// the decoders' inf_bias, the hard re-prediction, the mask loss, the
// sparse model's segment max) with JAX's own values and gradients at exact
// ties (testdata/ties/ties.json, made by scripts/tie_fixtures.py with JAX
// 0.4.38), on both backends. For each op narlab replaced, GoMLX's own
// operation is run on the same case and must differ from JAX's, so that
// every such case exercises a tie.
func TestJAXTieRules(t *testing.T) {
	raw, err := os.ReadFile("testdata/ties/ties.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		JAX   string
		Cases []tieCase
	}
	if err := json.Unmarshal(raw, &fx); err != nil {
		t.Fatal(err)
	}
	if fx.JAX != "0.4.38" || len(fx.Cases) == 0 {
		t.Fatalf("fixture from JAX %q with %d cases, want the reference's JAX 0.4.38", fx.JAX, len(fx.Cases))
	}
	for name, be := range testBackends(t) {
		for i := range fx.Cases {
			c := &fx.Cases[i]
			op, ok := tieOps[c.Op]
			if !ok {
				t.Fatalf("%s: no narlab op for %q", c.Name, c.Op)
			}
			t.Run(name+"/"+c.Name, func(t *testing.T) {
				value, grads := runTieCase(t, be, c, op.wrt, op.fn)
				if d := tieMismatch(value, c.Value.Data); d != "" {
					t.Errorf("value: %s", d)
				}
				for j, in := range op.wrt {
					if d := tieMismatch(grads[j], c.Grads[in].Data); d != "" {
						t.Errorf("gradient with respect to %s: %s", in, d)
					}
				}
				if op.plain == nil {
					return
				}
				value, grads = runTieCase(t, be, c, op.wrt, op.plain)
				if d := tieMismatch(value, c.Value.Data); d != "" {
					t.Errorf("GoMLX's own op: value differs from JAX's (a tie changes only gradients): %s", d)
				}
				same := true
				for j, in := range op.wrt {
					same = same && tieMismatch(grads[j], c.Grads[in].Data) == ""
				}
				if same {
					t.Errorf("GoMLX's own op gives JAX's gradients: the case exercises no tie")
				}
			})
		}
	}
}

// runTieCase evaluates fn on the case's inputs and the gradients of
// sum(cotangent · fn) with respect to the wrt inputs.
func runTieCase(t *testing.T, be compute.Backend, c *tieCase, wrt []string,
	fn func(*tieCase, map[string]*Node) *Node) ([]float64, [][]float64) {
	t.Helper()
	var names []string
	var args []any
	for n, a := range c.Inputs {
		names = append(names, n)
		args = append(args, a.tensor())
	}
	if c.Cotangent != nil {
		args = append(args, c.Cotangent.tensor())
	}
	res, err := CallOnceN(be, func(xs []*Node) []*Node {
		in := map[string]*Node{}
		for i, n := range names {
			in[n] = xs[i]
		}
		y := fn(c, in)
		out := []*Node{ConvertDType(y, dtypes.Float32)}
		if len(wrt) == 0 {
			return out
		}
		var ws []*Node
		for _, n := range wrt {
			ws = append(ws, in[n])
		}
		loss := ReduceAllSum(Mul(y, xs[len(xs)-1]))
		return append(out, Gradient(loss, ws...)...)
	}, args...)
	if err != nil {
		t.Fatal(err)
	}
	value := flat32(t, res[0])
	var grads [][]float64
	for _, g := range res[1:] {
		grads = append(grads, flat32(t, g))
	}
	return value, grads
}

// tieMismatch describes where got differs from JAX's want beyond float32
// summation order (a relative 1e-6: a tie rule moves a share of ½ or more),
// or "".
func tieMismatch(got, want []float64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d values, JAX has %d", len(got), len(want))
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-6*math.Max(1, math.Abs(want[i])) {
			return fmt.Sprintf("entry %d is %g, JAX's %g (all: %v, JAX's %v)", i, got[i], want[i], got, want)
		}
	}
	return ""
}

// TestJAXTieOpsKeepNaN checks that the tie-rule ops change gradients only:
// a NaN input gives NaN where GoMLX's own op does (a diverging model shows
// NaN losses either way).
func TestJAXTieOpsKeepNaN(t *testing.T) {
	nan := float32(math.NaN())
	for name, be := range testBackends(t) {
		for _, c := range []struct {
			op       string
			fn, want func(*Node) *Node
		}{
			{"relu", jaxRelu, activation.Relu},
			{"maximum", func(x *Node) *Node { return jaxMaximum(x, ZerosLike(x)) }, func(x *Node) *Node { return Max(x, ZerosLike(x)) }},
			{"reduce_max", func(x *Node) *Node { return jaxReduceMax(x, 0) }, func(x *Node) *Node { return ReduceMax(x, 0) }},
		} {
			x := tensors.FromValue([]float32{nan, 1, -1, 0})
			res, err := CallOnceN(be, func(xs []*Node) []*Node { return []*Node{c.fn(xs[0]), c.want(xs[0])} }, x)
			if err != nil {
				t.Fatal(err)
			}
			got, want := flat32(t, res[0]), flat32(t, res[1])
			for i := range want {
				if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && got[i] != want[i]) {
					t.Errorf("%s/%s: entry %d is %g, GoMLX's own op gives %g", name, c.op, i, got[i], want[i])
				}
			}
		}
	}
}
