package nn

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/nn/engine"
)

// The options of the reference's model (dm-clrs 2.0.3's BaselineModel and
// processor factory, run.py's flags of the same names) beyond the
// processor and the hidden size, and their defaults, which are run.py's.
const (
	DefaultHeads           = 1                   // nb_heads
	DefaultMsgPassingSteps = 1                   // nb_msg_passing_steps
	DefaultTripletFeatures = 8                   // nb_triplet_fts
	DefaultEncoderInit     = "xavier_on_scalars" // encoder_init
)

// EncoderInits are the encoder initialisations New accepts (the
// reference's encoder_init): "xavier_on_scalars" draws the hint scalar
// encoders' weights at standard deviation 1/√H, "default" at haiku's
// 1/√fan_in (1 for a scalar); every other encoder is haiku's default
// either way.
var EncoderInits = []string{"xavier_on_scalars", "default"}

// withDefaults is c with its zero model options (Heads, MsgPassingSteps,
// TripletFeatures, EncoderInit) set to the reference's defaults, so that a
// Config written as a literal, or read from a checkpoint made before these
// options, builds the reference's model.
func (c Config) withDefaults() Config {
	if c.Heads == 0 {
		c.Heads = DefaultHeads
	}
	if c.MsgPassingSteps == 0 {
		c.MsgPassingSteps = DefaultMsgPassingSteps
	}
	if c.TripletFeatures == 0 {
		c.TripletFeatures = DefaultTripletFeatures
	}
	if c.EncoderInit == "" {
		c.EncoderInit = DefaultEncoderInit
	}
	return c
}

// processorOptions are the options the processor's step is built with.
func (c Config) processorOptions() ProcessorOptions {
	c = c.withDefaults()
	return ProcessorOptions{Hidden: c.Hidden, Heads: c.Heads, TripletFeatures: c.TripletFeatures, LayerNorm: !c.NoLayerNorm}
}

// validateOptions checks the model options (after withDefaults) against
// the processor p: an option the processor does not read is refused
// unless it has its default value, so that no setting is silently
// ignored.
func (c Config) validateOptions(p Processor) error {
	switch {
	case c.Heads < 1:
		return fmt.Errorf("nn: nb_heads %d: want at least 1", c.Heads)
	case c.Heads != DefaultHeads && !p.Heads:
		return fmt.Errorf("nn: nb_heads %d: processor %s has no attention heads (those with heads: %s)", c.Heads, p.Name,
			strings.Join(processorNames(func(p Processor) bool { return p.Heads }), ", "))
	case p.Heads && c.Hidden%c.Heads != 0:
		return fmt.Errorf("nn: nb_heads %d does not divide the hidden size %d", c.Heads, c.Hidden)
	case c.MsgPassingSteps < 1:
		return fmt.Errorf("nn: nb_msg_passing_steps %d: want at least 1", c.MsgPassingSteps)
	case c.TripletFeatures < 1:
		return fmt.Errorf("nn: nb_triplet_fts %d: want at least 1", c.TripletFeatures)
	case c.TripletFeatures != DefaultTripletFeatures && !p.Triplets:
		return fmt.Errorf("nn: nb_triplet_fts %d: processor %s has no triplet messages", c.TripletFeatures, p.Name)
	case c.NoLayerNorm && !p.LayerNorm:
		return fmt.Errorf("nn: use_ln off: processor %s has no layer norm to switch off", p.Name)
	case !slices.Contains(EncoderInits, c.EncoderInit):
		return fmt.Errorf("nn: unknown encoder_init %q (want one of %v)", c.EncoderInit, EncoderInits)
	case !(c.Dropout >= 0 && c.Dropout < 1):
		return fmt.Errorf("nn: dropout_prob %v: want a probability in [0, 1)", c.Dropout)
	case c.TrainLSTM && !c.LSTM:
		return fmt.Errorf("nn: train_lstm without use_lstm (no LSTM to train)")
	}
	return nil
}

// Validate checks a configuration as New does, without building anything
// (zero options taken as the reference's defaults).
func (c Config) Validate() error { return c.withDefaults().validate() }

// dropoutKeep is float32(1 − rate), the keep probability the reference's
// hk.dropout compares its uniform draws with, and the multiplier of a kept
// value, float32(1/keep).
func dropoutKeep(rate float64) (keep, scale float32) {
	keep = float32(1 - rate)
	return keep, 1 / keep
}

// sparseOptions refuses the model options the sparse model does not
// implement (it has the reference's defaults only).
func (c Config) sparseOptions() error {
	var off []string
	if c.Heads != DefaultHeads {
		off = append(off, fmt.Sprintf("%d attention heads", c.Heads))
	}
	if c.MsgPassingSteps != DefaultMsgPassingSteps {
		off = append(off, fmt.Sprintf("%d message-passing steps", c.MsgPassingSteps))
	}
	if c.NoLayerNorm {
		off = append(off, "layer norm off")
	}
	if c.Dropout != 0 {
		off = append(off, "dropout")
	}
	if c.LSTM {
		off = append(off, "an LSTM")
	}
	if c.EncoderInit != DefaultEncoderInit {
		off = append(off, "encoder_init "+c.EncoderInit)
	}
	if c.FreezeProcessor {
		off = append(off, "a frozen processor")
	}
	if len(off) > 0 {
		return fmt.Errorf("nn: sparse: %s: the sparse model has the reference's default options only", strings.Join(off, ", "))
	}
	return nil
}

// freezeProcessor is an optimizer that leaves the processor's variables
// as they are (the reference's freeze_processor): Adam runs on every
// gradient, so the processor's moments accumulate and its gradients count
// in the clipping norm, as in the reference, but the processor's updates
// are dropped.
type freezeProcessor struct{ engine.Optimizer }

func (f freezeProcessor) UpdateGraphWithGradients(scope *model.Scope, grads []*Node, lossDType dtypes.DType) {
	g := grads[0].Graph()
	var frozen []*model.Variable
	var values []*Node
	for v := range scope.IterVariables() {
		if v.Trainable && v.InUseByGraph(g) && strings.HasPrefix(v.Path(), "/processor/") {
			frozen, values = append(frozen, v), append(values, v.NodeValue(g))
		}
	}
	f.Optimizer.UpdateGraphWithGradients(scope, grads, lossDType)
	for i, v := range frozen {
		v.SetNodeValue(values[i])
	}
}
