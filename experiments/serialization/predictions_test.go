package serialization

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/graphtext"
)

// TestWritePredictions answers generated prompts with each baseline: one
// line per prompt, in order, the oracle's answers scoring right; an
// unknown predictor writes nothing.
func TestWritePredictions(t *testing.T) {
	tasks, err := graphtext.ParseTasks("node_number,edge_existence")
	if err != nil {
		t.Fatal(err)
	}
	var prompts bytes.Buffer
	if _, err := Generate(&prompts, Spec{Tasks: tasks, Instances: 2, Wrap: true}); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadPrompts(&prompts)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Predictors() {
		var out bytes.Buffer
		if err := WritePredictions(&out, recs, p, 1); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != len(recs) {
			t.Fatalf("%s: %d lines for %d prompts", p, len(lines), len(recs))
		}
		for i, l := range lines {
			var pr graphtext.Prediction
			if err := json.Unmarshal([]byte(l), &pr); err != nil || pr.ID != recs[i].ID || !strings.Contains(pr.AnswerText, `\boxed{`) {
				t.Errorf("%s: line %d %q (%v); want prompt %s's boxed answer", p, i, l, err, recs[i].ID)
			}
		}
	}
	var out bytes.Buffer
	if err := WritePredictions(&out, recs, "psychic", 1); err == nil || out.Len() != 0 {
		t.Errorf("an unknown predictor: %v, %d bytes written", err, out.Len())
	}
}

// TestCheckBoundsPrompts: a spec of more than MaxPrompts prompts is refused
// before anything is generated.
func TestCheckBoundsPrompts(t *testing.T) {
	big := Spec{Encodings: graphtext.Encodings(), Syntaxes: graphtext.Syntaxes(), Instances: 10_000, Relabel: 100, Seeds: 100}
	if err := Check(big); err == nil || !strings.Contains(err.Error(), "accepted at most 5000000") {
		t.Errorf("Check of %d instances × 101 labelings × 100 seeds: %v", big.Instances, err)
	}
	if err := Check(Spec{Instances: 10}); err != nil {
		t.Errorf("Check of the default spec: %v", err)
	}
}
