package nn

import (
	"hash/fnv"
	"math"

	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
)

// Scope parameters that steer the initialisation of Dense's weights.
const (
	// paramInitSeed (root scope, int64) is the model's seed.
	paramInitSeed = "narlab_init_seed"
	// paramInitStddev (float64, any scope) overrides the standard deviation
	// of the weights created under that scope (0: 1/√fan_in).
	paramInitStddev = "narlab_init_stddev"
)

// withInitStddev returns scope with the weights created under it drawn at
// standard deviation sd (the reference's xavier_on_scalars encoders).
func withInitStddev(scope *model.Scope, sd float64) *model.Scope {
	scope.SetParam(paramInitStddev, sd)
	return scope
}

// weightInitializer is the initialiser of the weights variable at path:
// haiku's default for Linear weights (a truncated normal, see
// truncatedNormal), drawn from a random state of its own that depends only
// on the model's seed and the path. So a variable's initial value does not
// depend on which program creates it first (the unrolled or the step-loop
// one, training or evaluation) nor on what was drawn before.
func weightInitializer(scope *model.Scope, path string) model.VariableInitializer {
	seed := model.GetParamOr(scope, paramInitSeed, int64(0))
	sd := model.GetParamOr(scope, paramInitStddev, 0.0)
	h := fnv.New64a()
	h.Write([]byte(path))
	key := seed ^ int64(h.Sum64())
	return func(g *Graph, shape shapes.Shape) *Node {
		return truncatedNormal(RNGStateFromSeedForGraph(g, key), shape, sd)
	}
}

// truncatedNormal draws haiku's default initialisation of Linear weights
// from the random state rng: a normal of standard deviation stddev
// (1/√fan_in when 0) truncated to two standard deviations (redrawn there,
// then clipped); biases (rank ≤ 1) are zero.
func truncatedNormal(rng *Node, shape shapes.Shape, stddev float64) *Node {
	g := rng.Graph()
	if shape.Rank() <= 1 {
		return Zeros(g, shape)
	}
	sd := stddev
	if sd == 0 {
		sd = 1 / math.Sqrt(float64(max(1, shape.Dimensions[0])))
	}
	rng, x := RandomNormal(rng, shape)
	for i := 0; i < 4; i++ {
		var redraw *Node
		rng, redraw = RandomNormal(rng, shape)
		x = Where(GreaterThan(Abs(x), ConstAs(x, 2)), redraw, x)
	}
	return MulScalar(ClipScalar(x, -2, 2), sd)
}
