package nn

import (
	"os"
	"testing"
	"time"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/clrs"
)

func TestTmpParts(t *testing.T) {
	algo := os.Getenv("ALGO")
	if algo == "" {
		t.Skip()
	}
	be, _, _ := BackendChoice("")
	te, _ := clrs.NewSplitSampler(algo, "test")
	tb, _ := clrs.Batch(te.Trajectories()[:32], 0)
	cfg := DefaultConfig(algo, os.Getenv("PROC"))
	m, _ := New(be, cfg)
	tb2, _ := clrs.Batch(te.Trajectories()[:2], 0)
	m.Predict(tb2) // create variables
	bd, _ := m.batchOf(tb)
	l := m.loopLayout()
	static := append(append([]*tensors.Tensor(nil), bd.inputs...), bd.adj)
	parts := map[string]func(scope *model.Scope, in []*Node) []*Node{
		"encode": func(scope *model.Scope, in []*Node) []*Node {
			adj := in[l.ni]
			enc := m.encodeInputs(scope, in[:l.ni], bd.B, bd.N)
			return []*Node{ReduceAllSum(enc.node), ReduceAllSum(enc.edge.full(adj.Graph()))}
		},
		"process": func(scope *model.Scope, in []*Node) []*Node {
			adj := in[l.ni]
			enc := m.encodeInputs(scope, in[:l.ni], bd.B, bd.N)
			h := Zeros(adj.Graph(), shapeF32(bd.B, bd.N, m.cfg.Hidden))
			for i := 0; i < 4; i++ {
				h, _ = m.process(scope.At("processor"), enc.node, enc.edge, enc.graph, h, adj)
			}
			return []*Node{ReduceAllSum(h)}
		},
		"step": func(scope *model.Scope, in []*Node) []*Node {
			adj := in[l.ni]
			enc := m.encodeInputs(scope, in[:l.ni], bd.B, bd.N)
			c := carry{hidden: Zeros(adj.Graph(), shapeF32(bd.B, bd.N, m.cfg.Hidden))}
			if l.nf > 0 {
				c.fed = in[l.ni+1:]
			}
			var out []*Node
			for i := 0; i < 4; i++ {
				var r readout
				c, r, _, _ = m.step(scope, enc, adj, c, nil, false)
				out = append(out, ReduceAllSum(r.h))
			}
			return out
		},
	}
	for _, name := range []string{"encode", "process", "step"} {
		e, _ := model.NewExec(be, m.store, parts[name])
		args := []any{}
		for _, x := range static {
			args = append(args, x)
		}
		if name == "step" {
			for i := 0; i < l.nf; i++ {
				args = append(args, bd.hintAt(i, 0))
			}
		}
		e.Call(args...)
		t0, c0 := time.Now(), cpuTime()
		for k := 0; k < 3; k++ {
			e.Call(args...)
		}
		t.Logf("%s: %.3fs wall %.3fs cpu per call (x4 steps inside for process/step)", name, time.Since(t0).Seconds()/3, (cpuTime()-c0)/3)
	}
}
