package llmeval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// runNote is the run's description.
func (p *Prepared) runNote() string {
	cfg := p.cfg
	return fmt.Sprintf("`narlab llm run`: **%s** (model %s at %s) answered %d prompts of the **%s** suite; every answer is "+
		"scored as the suite's paper scores it. Results: the summary metrics (llm/score, …), `responses.jsonl` (each "+
		"prompt, answer and score) and the suite's tables and figures in the artifacts.",
		cfg.Label, cfg.Client.Model(), cfg.Client.BaseURL(), len(p.items), cfg.Suite)
}

// promptsDataset describes the prompts as the run's dataset input: the
// digest of every prompt (id, group, text), the suite's settings as the
// source.
func (p *Prepared) promptsDataset() mlflow.DatasetInput {
	h := sha256.New()
	for _, it := range p.items {
		fmt.Fprintf(h, "%q %q %q\n", it.id, it.group, it.prompt)
	}
	settings := map[string]any{"generator": "narlab experiments/llmeval", "suite": p.cfg.Suite, "limit": p.cfg.Limit}
	for k, v := range p.suite.params() {
		settings[k] = v
	}
	source, _ := json.Marshal(settings)
	profile, _ := json.Marshal(map[string]any{"prompts": len(p.items)})
	return tracking.Dataset("llm/"+p.cfg.Suite+"/prompts", hex.EncodeToString(h.Sum(nil))[:32], "code", string(source), "", string(profile), "eval")
}
