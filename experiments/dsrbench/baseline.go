package dsrbench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/narlab/narlab/lib/dsr"
)

// Baselines lists the baseline predictors [Baseline] knows.
func Baselines() []string { return []string{"oracle", "shuffled", "malformed"} }

// Baseline answers every instance with a simple predictor, as raw model
// responses ({"steps": [], "final_answer": …}) in the predictions format
// that `narlab dsr score` reads:
//
//   - oracle: the instance's own truth (every answer right: a check of the
//     scoring pipeline, scores 1);
//   - shuffled: the truth of the next instance of the same task, variant and
//     level (cyclically) — a well-formed answer of the right size that
//     ignores the operations, a chance-level floor for both metrics; each
//     such group needs at least two instances;
//   - malformed: responses a model could give that cannot be scored, in
//     turn empty, prose without JSON, truncated JSON and a wrong-typed
//     answer, each scoring 0 with its reason.
func Baseline(kind string, insts []dsr.Instance) ([]dsr.Prediction, error) {
	if len(insts) == 0 {
		return nil, fmt.Errorf("dsrbench: no instances to answer")
	}
	answer := func(v any) (string, error) {
		b, err := json.Marshal(map[string]any{"steps": []any{}, "final_answer": v})
		return string(b), err
	}
	out := make([]dsr.Prediction, 0, len(insts))
	add := func(id, resp string) { out = append(out, dsr.Prediction{ID: id, Response: &resp}) }
	switch kind {
	case "oracle":
		for _, in := range insts {
			r, err := answer(in.Truth)
			if err != nil {
				return nil, fmt.Errorf("dsrbench: instance %s: %w", in.ID, err)
			}
			add(in.ID, r)
		}
	case "shuffled":
		groups := map[string][]int{}
		for i, in := range insts {
			k := fmt.Sprintf("%s/%s/%s/%s/%v", in.Structure, in.Operation, in.Variant(), in.Level, in.Extra)
			groups[k] = append(groups[k], i)
		}
		next := make([]int, len(insts))
		for k, g := range groups {
			if len(g) < 2 {
				return nil, fmt.Errorf("dsrbench: the shuffled baseline needs at least 2 instances of each task and level; %s has %d", k, len(g))
			}
			for j, i := range g {
				next[i] = g[(j+1)%len(g)]
			}
		}
		for i, in := range insts {
			r, err := answer(insts[next[i]].Truth)
			if err != nil {
				return nil, fmt.Errorf("dsrbench: instance %s: %w", in.ID, err)
			}
			add(in.ID, r)
		}
	case "malformed":
		for i, in := range insts {
			var r string
			switch i % 4 {
			case 0:
				r = ""
			case 1:
				r = "I traced every operation and the final state is the one I described above."
			case 2:
				full, err := answer(in.Truth)
				if err != nil {
					return nil, fmt.Errorf("dsrbench: instance %s: %w", in.ID, err)
				}
				r = full[:len(full)/2]
			default:
				r = `{"steps": [], "final_answer": {"unexpected": "object"}}`
			}
			add(in.ID, r)
		}
	default:
		return nil, fmt.Errorf("dsrbench: unknown baseline %q (expected one of %s)", kind, strings.Join(Baselines(), ", "))
	}
	return out, nil
}

// WritePredictions writes predictions as JSONL, one per line.
func WritePredictions(preds []dsr.Prediction) ([]byte, error) {
	var b strings.Builder
	for _, p := range preds {
		line, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("dsrbench: prediction %s: %w", p.ID, err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return []byte(b.String()), nil
}
