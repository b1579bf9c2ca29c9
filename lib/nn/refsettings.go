package nn

import (
	"fmt"
	"slices"
	"strings"

	"github.com/narlab/narlab/lib/clrs"
)

// A configuration in the reference's terms: what `narlab clrs export` and
// `narlab train` print beside a dm-clrs checkpoint.

// ReferenceDescription is the model's configuration in a line, in the
// reference's (dm-clrs 2.0.3's) terms where they differ from narlab's.
func (c Config) ReferenceDescription() string {
	s := fmt.Sprintf("%s, processor %s, hidden %d, hints %s, enforce_permutations %v, enforce_pred_as_input %v",
		strings.Join(c.AlgorithmNames(), ","), c.Processor, c.Hidden, c.HintMode, c.Permutations, c.PredAsInput)
	if p, ok := LookupProcessor(c.Processor); ok && p.Heads {
		s += fmt.Sprintf(", nb_heads %d", c.Heads)
	}
	if p, ok := LookupProcessor(c.Processor); ok && p.Triplets {
		s += fmt.Sprintf(", nb_triplet_fts %d", c.TripletFeatures)
	}
	if c.NoLayerNorm {
		s += ", use_ln False"
	}
	if c.LSTM {
		s += ", use_lstm True"
	}
	if c.MsgPassingSteps > 1 {
		s += fmt.Sprintf(", nb_msg_passing_steps %d", c.MsgPassingSteps)
	}
	if c.HintRepred != "soft" {
		s += ", hint_repred_mode " + c.HintRepred
	}
	return s
}

// ReferenceSettings are the settings of dm-clrs 2.0.3's BaselineModel that
// a checkpoint of c restores into (the names of its constructor and of
// run.py), a line each, then the spec's transforms as run.py makes them.
func (c Config) ReferenceSettings() []string {
	encode, decode := "True", "True"
	switch c.HintMode {
	case "decoded_only":
		encode = "False"
	case "none":
		encode, decode = "False", "False"
	}
	py := func(b bool) string {
		if b {
			return "True"
		}
		return "False"
	}
	transforms := []string{fmt.Sprintf("spec, it = clrs.process_permutations(spec, it, %s)", py(c.Permutations))}
	var pai []string
	for _, a := range c.AlgorithmNames() {
		if c.PredAsInput && slices.Contains(clrs.PredAsInputAlgorithms, a) {
			pai = append(pai, a)
		}
	}
	switch {
	case len(c.Algorithms) > 0 && len(pai) > 0:
		transforms = append(transforms, "spec, it = clrs.process_pred_as_input(spec, it)  # for "+strings.Join(pai, ", "))
	case len(pai) > 0:
		transforms = append(transforms, "spec, it = clrs.process_pred_as_input(spec, it)")
	}
	if len(c.Algorithms) > 0 {
		transforms = append(transforms, fmt.Sprintf("spec=[the specs of %s, in this order] (algorithm_index i is the i-th): one processor, each algorithm's encoders and decoders algo_<i>_…",
			strings.Join(c.Algorithms, ", ")))
	}
	clip := c.GradClip
	if c.NoGradClip {
		clip = 0 // the reference's "no clipping"
	}
	lines := []string{
		fmt.Sprintf("processor_factory=clrs.get_processor_factory(%q, use_ln=%s, nb_triplet_fts=%d, nb_heads=%d)", c.Processor,
			py(!c.NoLayerNorm), c.TripletFeatures, c.Heads),
		fmt.Sprintf("hidden_dim=%d, encode_hints=%s, decode_hints=%s, hint_repred_mode=%q,", c.Hidden, encode, decode, c.HintRepred),
		fmt.Sprintf("learning_rate=%g, grad_clip_max_norm=%g, hint_teacher_forcing=%g, nb_msg_passing_steps=%d,", c.LearningRate, clip,
			c.TeacherForcing, c.MsgPassingSteps),
		fmt.Sprintf("use_lstm=%s, dropout_prob=%g, encoder_init=%q, freeze_processor=%s,", py(c.LSTM), c.Dropout, c.EncoderInit,
			py(c.FreezeProcessor)),
	}
	if c.TrainLSTM {
		lines = append(lines, "(narlab trained the LSTM, which dm-clrs never trains: it restores its values and keeps them)")
	}
	lines = append(lines, "its spec and dummy_trajectory transformed as run.py does:")
	return append(lines, transforms...)
}
