package llmeval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/narlab/narlab/lib/llm"
)

// Sampling presets: the generation settings a run starts from.
const (
	// SamplingPaper is the default: each suite's paper's settings (see
	// [SuiteSampling] for what each paper says, and what it leaves out).
	SamplingPaper = "paper"
	// SamplingG1 is G1's evaluation of the Erdős graph tasks
	// (PKU-ML/G1, evaluation/Erdos/eval_erdos.py): temperature 0.6, top-p
	// 0.95, top-k 30, at most 4,096 new tokens.
	SamplingG1 = "g1"
)

// Samplings lists the preset names.
func Samplings() []string { return []string{SamplingPaper, SamplingG1} }

// g1MaxTokens is the limit of G1's evaluator (eval_erdos.py, for every
// model but DeepSeek-R1-Distill).
const g1MaxTokens = 4096

// Sampling is a set of generation settings and where they come from.
type Sampling struct {
	// Name is the preset's name.
	Name string
	// Temperature is sent with every prompt.
	Temperature float64
	// TopP and TopK are sent when not 0 (0: the server's default, and
	// nothing is sent).
	TopP float64
	TopK int
	// MaxTokens is the answer's limit; 0 takes the suite's own default
	// (clrstext: 512 tokens with hints, 128 without; dsr: the token budget
	// the prompt states).
	MaxTokens int
	// Source says where the values come from, and which ones the paper
	// leaves out.
	Source string
}

// SuiteSampling returns the preset name ("" for [SamplingPaper]) for the
// suite. The papers' settings:
//
//   - clrstext: CLRS-Text (Markeeva et al., TMLR 2024) states no decoding
//     settings and publishes no evaluation code; greedy decoding and the
//     limit are narlab's choices.
//   - graphs and spectral: Lost in Serialization (Herbst et al., arXiv
//     2511.10234) evaluates every model at temperature 0 (App. C, F, H) with
//     "fixed maximum output lengths" it does not give; the limit is G1's
//     evaluator's, 4,096 new tokens (its prompts and checker are the
//     suite's). The paper's own evaluation is greedy, not G1's sampling at
//     0.6: for that, use [SamplingG1].
//   - dsr: DSR-Bench (He et al., arXiv 2505.24069), evaluation/eval.py:
//     temperature --T (default 0) and the limit --token, the budget the
//     prompt states (default 1,500).
func SuiteSampling(suite, name string) (Sampling, error) {
	if !slices.Contains(Suites(), suite) {
		return Sampling{}, fmt.Errorf("llmeval: unknown suite %q; want one of %s", suite, strings.Join(Suites(), ", "))
	}
	switch name {
	case "", SamplingPaper:
		s := Sampling{Name: SamplingPaper}
		switch suite {
		case CLRSText:
			s.Source = "CLRS-Text (Markeeva et al., TMLR 2024) states no decoding settings and publishes no evaluation code: " +
				"greedy decoding (temperature 0) and the limit (512 tokens with hints, 128 without) are narlab's choices"
		case Graphs, Spectral:
			s.MaxTokens = g1MaxTokens
			s.Source = "Lost in Serialization (Herbst et al., arXiv 2511.10234, App. C and F): temperature 0 for every model; " +
				"its fixed maximum output length is not given: 4096 new tokens is G1's evaluator's (eval_erdos.py); " +
				"top-p and top-k do not matter at temperature 0 and are not sent"
		case DSR:
			s.Source = "DSR-Bench (He et al., arXiv 2505.24069), evaluation/eval.py: temperature --T (default 0) and " +
				"max tokens = --token, the budget the prompt states"
		}
		return s, nil
	case SamplingG1:
		return Sampling{Name: SamplingG1, Temperature: 0.6, TopP: 0.95, TopK: 30, MaxTokens: g1MaxTokens,
			Source: "G1 (PKU-ML/G1), evaluation/Erdos/eval_erdos.py: vLLM SamplingParams(temperature=0.6, top_p=0.95, top_k=30, " +
				"max_tokens=4096); its vLLM engine seed (42) is a server setting and is not sent"}, nil
	}
	return Sampling{}, fmt.Errorf("llmeval: unknown sampling preset %q; want one of %s", name, strings.Join(Samplings(), ", "))
}

// apply returns the parameters a run sends: the preset's, overridden field
// by field by cfg.Params (a non-zero value, or a zero one marked set), with
// the names of the fields that were overridden.
func (s Sampling) apply(cfg *Config) (llm.Params, []string) {
	o := cfg.Params
	p := llm.Params{Temperature: s.Temperature, TopP: s.TopP, TopK: s.TopK, MaxTokens: s.MaxTokens, Seed: o.Seed, Stop: o.Stop}
	var over []string
	if o.Temperature != 0 || cfg.TemperatureSet {
		p.Temperature = o.Temperature
		over = append(over, "temperature")
	}
	if o.TopP != 0 || cfg.TopPSet {
		p.TopP = o.TopP
		over = append(over, "top_p")
	}
	if o.TopK != 0 || cfg.TopKSet {
		p.TopK = o.TopK
		over = append(over, "top_k")
	}
	if o.MaxTokens != 0 {
		p.MaxTokens = o.MaxTokens
		over = append(over, "max_tokens")
	}
	if o.Seed != nil {
		over = append(over, "seed")
	}
	if o.Stop != nil {
		over = append(over, "stop")
	}
	return p, over
}
