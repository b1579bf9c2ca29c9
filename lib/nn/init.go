package nn

import (
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/tensors"
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
	if v, ok := scope.GetParam(paramInitStddev); !ok || v != sd {
		scope.SetParam(paramInitStddev, sd)
	}
	return scope
}

// initialWeights is the initial value of the weights variable at path:
// haiku's default for Linear weights (truncatedNormal), drawn on the host
// from a random stream of its own that depends only on the model's seed
// and the path. So a variable's initial value does not depend on which
// program creates it first (unrolled or step loop, training or evaluation)
// nor on anything drawn before, and no program is compiled to initialise
// it.
func initialWeights(scope *model.Scope, path string, shape shapes.Shape) *tensors.Tensor {
	seed := model.GetParamOr(scope, paramInitSeed, int64(0))
	sd := model.GetParamOr(scope, paramInitStddev, 0.0)
	h := fnv.New64a()
	h.Write([]byte(path))
	rng := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
	data := truncatedNormal(rng, shape.Size(), shape.Dimensions[0], sd)
	return tensors.FromFlatDataAndDimensions(data, shape.Dimensions...)
}

// truncatedNormal draws n values of haiku's default initialisation of
// Linear weights of fan-in fanIn: a normal of standard deviation stddev
// (1/√fanIn when 0) truncated to two standard deviations (redrawn there up
// to four times, then clipped).
func truncatedNormal(rng *rand.Rand, n, fanIn int, stddev float64) []float32 {
	sd := stddev
	if sd == 0 {
		sd = 1 / math.Sqrt(float64(max(1, fanIn)))
	}
	out := make([]float32, n)
	for i := range out {
		x := rng.NormFloat64()
		for k := 0; k < 4 && math.Abs(x) > 2; k++ {
			x = rng.NormFloat64()
		}
		out[i] = float32(math.Max(-2, math.Min(2, x)) * sd)
	}
	return out
}
