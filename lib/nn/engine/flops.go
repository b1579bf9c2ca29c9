package engine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
)

// How much arithmetic a training step does is counted in its matrix
// products: every DotGeneral of the compiled graphs costs 2·|output|·K
// floating-point operations, K the product of its contracted dimensions
// (one multiply and one add per term). Elementwise operations, reductions
// (the max aggregations, the triplet max-plus product), gathers and
// transposes are not counted: at the paper's sizes the products are most
// of the arithmetic, and what the count is for is the achieved rate beside
// the machine's matrix-product peak (BenchmarkMatmulPeak).

var contractingAxes = regexp.MustCompile(`lhsContractingAxes=\[([0-9 ]*)\]`)

// GraphFLOPs is the FLOP count of the matrix products of a built graph
// (its main function and every loop body, each once).
func GraphFLOPs(g *Graph) (int64, error) {
	var total int64
	for _, n := range g.Nodes() {
		if n.Type() != NodeTypeDotGeneral {
			continue
		}
		m := contractingAxes.FindStringSubmatch(n.String())
		if m == nil {
			return 0, fmt.Errorf("engine: cannot read the contracted axes of %s", n)
		}
		lhs := n.Inputs()[0].Shape().Dimensions
		k := int64(1)
		for _, a := range strings.Fields(m[1]) {
			i, err := strconv.Atoi(a)
			if err != nil || i < 0 || i >= len(lhs) {
				return 0, fmt.Errorf("engine: contracted axis %q of %s", a, n)
			}
			k *= int64(lhs[i])
		}
		total += 2 * int64(n.Shape().Size()) * k
	}
	return total, nil
}

// StepFLOPs are the matrix-product FLOPs (GraphFLOPs) of the step loop's
// programs for a batch: a forward step, the head, a backward step (which
// recomputes its forward step) and the update.
type StepFLOPs struct {
	Forward, Head, Backward, Update int64
}

// Training is a training step's count for a batch of S algorithm steps:
// S forward and S backward steps, the head and the update (k steps a call
// count k steps per program; the one-program step does the same work).
func (f StepFLOPs) Training(S, k int) int64 {
	calls := int64((S + k - 1) / k)
	return calls*(f.Forward+f.Backward) + f.Head + f.Update
}

// FLOPs builds the step loop's training programs for a batch on the
// pure-Go backend (building, no running) and counts their matrix products.
func (sl *Loop) FLOPs(b Batch) (StepFLOPs, error) {
	if err := sl.createVariables(b); err != nil {
		return StepFLOPs{}, err
	}
	dry, err := dryBackend()
	if err != nil {
		return StepFLOPs{}, err
	}
	var out StepFLOPs
	for i, dst := range map[int]*int64{progStepFwd: &out.Forward, progHead: &out.Head, progStepBwd: &out.Backward, progUpdate: &out.Update} {
		e, err := model.NewExec(dry, sl.store, sl.progs.fns[i])
		if err != nil {
			return StepFLOPs{}, fmt.Errorf("engine: %w", err)
		}
		g, err := e.Compile(sl.programShapes(i, b)...)
		if err == nil {
			*dst, err = GraphFLOPs(g)
		}
		e.Finalize()
		if err != nil {
			return StepFLOPs{}, fmt.Errorf("engine: counting FLOPs: %w", err)
		}
	}
	return out, nil
}
