package nn

import (
	"testing"
	"time"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"os"
)

func TestTmpDot(t *testing.T) {
	if os.Getenv("TMPDOT") == "" {
		t.Skip()
	}
	be, _, _ := BackendChoice("")
	store := model.NewStore()
	e, _ := model.NewExec(be, store, func(_ *model.Scope, in []*Node) *Node {
		x, w := in[0], in[1]
		for i := 0; i < 10; i++ {
			x = Max(Dot(x, w).Product(), ConstAs(x, 0))
		}
		return ReduceAllSum(x)
	})
	x := tensors.FromShape(shapeF32(131072, 128))
	w := tensors.FromShape(shapeF32(128, 128))
	e.Call(x, w)
	for i := 0; i < 3; i++ {
		t0, c0 := time.Now(), cpuTime()
		e.Call(x, w)
		t.Logf("10 dots: %.3fs wall %.3fs cpu = %.1f GFLOP/cpu-s", time.Since(t0).Seconds(), cpuTime()-c0, 10*131072*128*128*2/1e9/(cpuTime()-c0))
	}
}
