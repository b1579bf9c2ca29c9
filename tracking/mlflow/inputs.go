package mlflow

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"unicode/utf8"
)

// Dataset is MLflow's dataset entity, logged as a run input with
// [Client.LogInputs] or [RunLogger.LogInputs]: the UI shows it in the runs
// table's Dataset column and on the run page, and MLflow's clients read it
// as run.inputs.dataset_inputs. A dataset is identified in its experiment
// by (Name, Digest): logging the same pair again reuses it.
type Dataset struct {
	Name   string `json:"name"`   // ≤ 500 characters, e.g. "clrs30/bfs/val"
	Digest string `json:"digest"` // ≤ 36 characters: a hash of the contents
	// SourceType and Source say where the data come from, e.g. "local" and
	// {"uri": "file:///…"}, or "code" and the generator's settings (JSON).
	SourceType string `json:"source_type"`
	Source     string `json:"source"`
	// Schema and Profile are optional JSON documents: the columns or
	// tensors, and summary numbers (sizes).
	Schema  string `json:"schema,omitempty"`
	Profile string `json:"profile,omitempty"`
}

// DatasetInput is a dataset as a run's input, with input tags such as
// [TagDatasetContext].
type DatasetInput struct {
	Tags    []Tag   `json:"tags,omitempty"`
	Dataset Dataset `json:"dataset"`
}

// TagDatasetContext is the input tag that says what a dataset was used for
// (train, val, test, predictions, …); the UI shows it beside the dataset.
const TagDatasetContext = "mlflow.data.context"

// RunInputs are a run's inputs as the server returns them (Run.Inputs).
type RunInputs struct {
	DatasetInputs []DatasetInput `json:"dataset_inputs"`
	ModelInputs   []ModelRef     `json:"model_inputs"`
}

// RunOutputs are a run's outputs (Run.Outputs): the logged models it
// produced.
type RunOutputs struct {
	ModelOutputs []ModelOutput `json:"model_outputs"`
}

// ModelRef names a logged model.
type ModelRef struct {
	ModelID string `json:"model_id"`
}

// ModelOutput is a logged model a run produced, at a step.
type ModelOutput struct {
	ModelID string `json:"model_id"`
	Step    Int64  `json:"step"`
}

// The limits of dataset entities (mlflow/utils/validation.py).
const (
	MaxDatasetNameLength    = 500
	MaxDatasetDigestLength  = 36
	MaxDatasetSourceLength  = 65535
	MaxDatasetSchemaLength  = 1<<20 - 1
	MaxDatasetProfileLength = 1<<24 - 1
	MaxInputTagKeyLength    = 255
	MaxInputTagValueLength  = 500
)

// Validate checks a dataset input against MLflow's limits.
func (in DatasetInput) Validate() error {
	d := in.Dataset
	what := fmt.Sprintf("dataset %q", d.Name)
	for _, f := range []struct {
		name, value string
		max         int
		required    bool
	}{{"name", d.Name, MaxDatasetNameLength, true}, {"digest", d.Digest, MaxDatasetDigestLength, true},
		{"source_type", d.SourceType, 0, true}, {"source", d.Source, MaxDatasetSourceLength, true},
		{"schema", d.Schema, MaxDatasetSchemaLength, false}, {"profile", d.Profile, MaxDatasetProfileLength, false}} {
		if f.required && f.value == "" {
			return &ValidationError{What: what, Reason: "empty " + f.name + "; a dataset needs a name, a digest, a source type and a source"}
		}
		if f.max > 0 && len(f.value) > f.max {
			return &ValidationError{What: what, Reason: fmt.Sprintf("%s of %d bytes; at most %d", f.name, len(f.value), f.max)}
		}
		if !utf8.ValidString(f.value) {
			return &ValidationError{What: what, Reason: f.name + " is not valid UTF-8"}
		}
	}
	for _, t := range in.Tags {
		if t.Key == "" || len(t.Key) > MaxInputTagKeyLength || len(t.Value) > MaxInputTagValueLength {
			return &ValidationError{What: what, Reason: fmt.Sprintf("input tag %q=%q: keys are 1 to %d characters, values at most %d",
				t.Key, t.Value, MaxInputTagKeyLength, MaxInputTagValueLength)}
		}
	}
	return nil
}

func logInputsBody(datasets []DatasetInput) ([]byte, error) {
	if len(datasets) == 0 {
		return nil, &ValidationError{What: "log-inputs", Reason: "no datasets"}
	}
	for _, d := range datasets {
		if err := d.Validate(); err != nil {
			return nil, err
		}
	}
	return jsonMarshal(struct {
		Datasets []DatasetInput `json:"datasets"`
	}{datasets})
}

// LogInputs logs datasets as inputs of a run. Logging the same datasets
// again changes nothing (the server keeps one input per dataset), so the
// request is retried after ambiguous failures, and sent again when it lost
// a race with another run creating the same dataset.
func (c *Client) LogInputs(ctx context.Context, runID string, datasets ...DatasetInput) error {
	body, err := logInputsBody(datasets)
	if err != nil {
		return err
	}
	req := request{method: http.MethodPost, endpoint: "mlflow/runs/log-inputs", body: withRunID(body, runID), retryAmbiguous: true}
	for try := 1; ; try++ {
		err := c.call(ctx, req, nil)
		if !raced(err) || try == maxRaces {
			return err
		}
	}
}

// maxRaces bounds how often a request that lost a race (see raced) is
// sent again: each loss means another request created the row meanwhile,
// which the next attempt finds.
const maxRaces = 3

// LogOutputs records logged models as outputs of a run (what the run
// produced, at a step). It is idempotent: the server keeps one output per
// model, and answers a second one with an error, so an error is checked
// against the run's outputs (a retry of a request that was applied, its
// answer lost, finds its output there).
func (c *Client) LogOutputs(ctx context.Context, runID string, models ...ModelOutput) error {
	err := c.post(ctx, "mlflow/runs/outputs", struct {
		RunID  string        `json:"run_id"`
		Models []ModelOutput `json:"models"`
	}{runID, models}, nil, true)
	if !raced(err) {
		return err
	}
	r, gerr := c.GetRun(ctx, runID)
	if gerr != nil {
		return fmt.Errorf("%w (and reading the run's outputs: %v)", err, gerr)
	}
	for _, m := range models {
		if !slices.ContainsFunc(r.Outputs.ModelOutputs, func(o ModelOutput) bool { return o.ModelID == m.ModelID }) {
			return err
		}
	}
	return nil
}

// LogInputs queues datasets as inputs of the run (through the spool, like
// every other request of a live run).
func (r *RunLogger) LogInputs(datasets ...DatasetInput) error {
	body, err := logInputsBody(datasets)
	if err != nil {
		return err
	}
	if err := r.checkLive(); err != nil {
		return err
	}
	r.appendMu.Lock()
	defer r.appendMu.Unlock()
	if err := r.drainLocked(); err != nil {
		return err
	}
	_, err = r.s.append(record{Op: opLogInputs, Body: body})
	return err
}
