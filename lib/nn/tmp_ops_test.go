package nn

import (
	"os"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

func TestTmpOps(t *testing.T) {
	if os.Getenv("TMPOPS") == "" {
		t.Skip()
	}
	be, _, _ := BackendChoice("")
	B, N, H := 32, 64, 128
	mlp := func(x, w1, w2 *Node) *Node {
		x = Max(x, ConstAs(x, 0))
		d := x.Shape().Dimensions
		y := Reshape(Dot(Reshape(x, d[0]*d[1]*d[2], H), w1).Product(), d...)
		y = Max(y, ConstAs(y, 0))
		return Reshape(Dot(Reshape(y, d[0]*d[1]*d[2], H), w2).Product(), d...)
	}
	cases := map[string]func(in []*Node) *Node{
		"mlp only": func(in []*Node) *Node { return ReduceAllSum(mlp(in[4], in[2], in[3])) },
		"bcast+mlp+max1": func(in []*Node) *Node {
			m := Add(InsertAxes(in[0], 2), InsertAxes(in[1], 1))
			return ReduceAllSum(ReduceMax(mlp(m, in[2], in[3]), 1))
		},
		"bcast+mlp+max2": func(in []*Node) *Node {
			m := Add(InsertAxes(in[0], 2), InsertAxes(in[1], 1))
			return ReduceAllSum(ReduceMax(mlp(m, in[2], in[3]), 2))
		},
		"bcast+edgeK1+mlp+max1": func(in []*Node) *Node {
			m := Add(InsertAxes(in[0], 2), InsertAxes(in[1], 1))
			raw := in[5]
			e := Reshape(Dot(Reshape(raw, B*N*N, 1), Slice(in[2], AxisRange(0, 1))).Product(), B, N, N, H)
			m = Add(m, e)
			return ReduceAllSum(ReduceMax(mlp(m, in[2], in[3]), 1))
		},
		"bcast+edgeMul+mlp+max1": func(in []*Node) *Node {
			m := Add(InsertAxes(in[0], 2), InsertAxes(in[1], 1))
			raw := in[5]
			e := Mul(raw, Reshape(Slice(in[2], AxisRange(0, 1)), 1, 1, 1, H))
			m = Add(m, e)
			return ReduceAllSum(ReduceMax(mlp(m, in[2], in[3]), 1))
		},
	}
	args := []any{tensors.FromShape(shapeF32(B, N, H)), tensors.FromShape(shapeF32(B, N, H)),
		tensors.FromShape(shapeF32(H, H)), tensors.FromShape(shapeF32(H, H)), tensors.FromShape(shapeF32(B, N, N, H)),
		tensors.FromShape(shapeF32(B, N, N, 1))}
	for _, name := range []string{"mlp only", "bcast+mlp+max1", "bcast+mlp+max2", "bcast+edgeK1+mlp+max1", "bcast+edgeMul+mlp+max1"} {
		fn := cases[name]
		e, _ := model.NewExec(be, model.NewStore(), func(_ *model.Scope, in []*Node) *Node { return fn(in) })
		e.Call(args...)
		c0 := cpuTime()
		for k := 0; k < 3; k++ {
			e.Call(args...)
		}
		t.Logf("%-24s %.3f cpu-s per call", name, (cpuTime()-c0)/3)
	}
}
