package nn

import (
	"fmt"
	"strconv"
	"strings"
)

// The parameter layout of dm-clrs's BaselineModel (Haiku module and
// parameter names), which refckpt.go reads and writes and
// TestReferenceTrainingSteps loads the reference's parameters through: the
// encoders' and decoders' here, the processor's from its definition
// (Processor.Reference).

// refLSTMModule is the Haiku module of the reference's LSTM (use_lstm).
const refLSTMModule = "net/processor_lstm"

// referenceParamName maps a narlab variable path to the reference's
// haiku parameter ("module|name") and the constant narlab adds to it
// (the gate's −3 bias, which narlab keeps outside the variable); the name
// ends in "|" for a variable without a counterpart.
//
// The encoders and decoders of a model's i-th algorithm (a model of
// several algorithms keeps them under algo_<i>/; a model of one under the
// root, its algorithm 0) are the reference's algo_<i>_… modules, as
// dm-clrs names them for BaselineModel's i-th spec.
func referenceParamName(path, processor string) (string, float64) {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	leaf := map[string]string{"weights": "w", "biases": "b", "gain": "scale", "offset": "offset"}[parts[len(parts)-1]]
	algo := 0
	if rest, ok := strings.CutPrefix(parts[0], "algo_"); ok && isDigits(rest) && len(parts) > 1 {
		algo, _ = strconv.Atoi(rest)
		parts = parts[1:]
	}
	encdec := fmt.Sprintf("net/~_construct_encoders_decoders/algo_%d_", algo)
	linear := func(i int) string {
		if i == 0 {
			return "linear"
		}
		return fmt.Sprintf("linear_%d", i)
	}
	switch {
	case strings.HasPrefix(parts[0], "enc_"):
		probe := strings.TrimPrefix(strings.TrimPrefix(parts[0], "enc_input_"), "enc_hint_")
		i := 0
		if parts[1] == "2" { // an edge pointer's second encoder
			i = 1
		}
		return encdec + probe + "_enc_" + linear(i) + "|" + leaf, 0
	case parts[0] == "lstm": // the LSTM after the processor (use_lstm)
		return refLSTMModule + "/linear|" + leaf, 0
	case strings.HasPrefix(parts[0], "dec_"):
		probe := strings.TrimPrefix(strings.TrimPrefix(parts[0], "dec_output_"), "dec_hint_")
		i := map[string]int{"l": 0, "p1": 0, "p2": 1, "p3": 2, "p4": 3, "p5": 4, "e1": 0, "e2": 1, "e3": 2,
			"g1": 0, "g2": 1, "g3": 2}[parts[1]]
		return encdec + probe + "_dec_" + linear(i) + "|" + leaf, 0
	}
	p, ok := LookupProcessor(processor)
	if !ok || p.Reference == nil {
		return "|", 0 // no counterpart
	}
	// The scope under the processor's, without the layer's own (Dense's
	// "dense", LayerNorm's "layer_normalization") and the leaf.
	scopes := parts[1 : len(parts)-1]
	if n := len(scopes); n > 0 && (scopes[n-1] == "dense" || scopes[n-1] == "layer_normalization") {
		scopes = scopes[:n-1]
	}
	sub := strings.Join(scopes, "/")
	module, shift, ok := p.Reference.Param(sub, parts[len(parts)-1])
	if !ok {
		return "|", 0
	}
	return "net/" + p.Reference.Module + "/" + module + "|" + leaf, shift
}
