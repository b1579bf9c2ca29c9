package mlflow

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
)

// MLflow 3's logged models (/api/2.0/mlflow/logged-models) and its model
// registry (/api/2.0/mlflow/registered-models, model-versions).

// LoggedModelStatus is the upload state of a logged model.
type LoggedModelStatus string

// The logged-model statuses.
const (
	ModelPending      LoggedModelStatus = "LOGGED_MODEL_PENDING"
	ModelReady        LoggedModelStatus = "LOGGED_MODEL_READY"
	ModelUploadFailed LoggedModelStatus = "LOGGED_MODEL_UPLOAD_FAILED"
)

// LoggedModel is an MLflow 3 logged model: a model a run produced, with
// its own artifacts (the model files, an MLmodel file), params and tags.
type LoggedModel struct {
	Info LoggedModelInfo `json:"info"`
	Data struct {
		Params []Param `json:"params"`
	} `json:"data"`
}

// LoggedModelInfo is a logged model's metadata.
type LoggedModelInfo struct {
	ModelID      string            `json:"model_id"`
	ExperimentID string            `json:"experiment_id"`
	Name         string            `json:"name"`
	ArtifactURI  string            `json:"artifact_uri"`
	Status       LoggedModelStatus `json:"status"`
	ModelType    string            `json:"model_type"`
	SourceRunID  string            `json:"source_run_id"`
	Created      Int64             `json:"creation_timestamp_ms"`
	Tags         []Tag             `json:"tags"`
}

// CreateLoggedModelOptions describe a new logged model.
type CreateLoggedModelOptions struct {
	ExperimentID string
	Name         string // shown in the UI's Models tab
	ModelType    string // a free label to search by, e.g. "clrs-baseline"
	SourceRunID  string // the run that produced it
	Params       []Param
	Tags         []Tag
}

// CreateLoggedModel creates a logged model in status PENDING (upload its
// files to Info.ArtifactURI, then [Client.FinalizeLoggedModel]). It is
// not retried after ambiguous failures: a retry could create a second one.
func (c *Client) CreateLoggedModel(ctx context.Context, o CreateLoggedModelOptions) (*LoggedModel, error) {
	if o.ExperimentID == "" {
		return nil, &ValidationError{What: "logged model", Reason: "no experiment id"}
	}
	for _, p := range o.Params {
		if err := ValidateParam(p.Key, p.Value); err != nil {
			return nil, err
		}
	}
	for _, t := range o.Tags {
		if err := ValidateTag(t.Key, t.Value); err != nil {
			return nil, err
		}
	}
	in := struct {
		ExperimentID string  `json:"experiment_id"`
		Name         string  `json:"name,omitempty"`
		ModelType    string  `json:"model_type,omitempty"`
		SourceRunID  string  `json:"source_run_id,omitempty"`
		Params       []Param `json:"params,omitempty"`
		Tags         []Tag   `json:"tags,omitempty"`
	}{o.ExperimentID, o.Name, o.ModelType, o.SourceRunID, o.Params, o.Tags}
	var out struct {
		Model LoggedModel `json:"model"`
	}
	if err := c.post(ctx, "mlflow/logged-models", in, &out, false); err != nil {
		return nil, err
	}
	return &out.Model, nil
}

// FinalizeLoggedModel sets a logged model's status (READY once its files
// are uploaded, UPLOAD_FAILED otherwise).
func (c *Client) FinalizeLoggedModel(ctx context.Context, modelID string, status LoggedModelStatus) (*LoggedModel, error) {
	b, err := json.Marshal(map[string]any{"model_id": modelID, "status": status})
	if err != nil {
		return nil, err
	}
	var out struct {
		Model LoggedModel `json:"model"`
	}
	err = c.call(ctx, request{method: http.MethodPatch, endpoint: "mlflow/logged-models/" + url.PathEscape(modelID), body: b, retryAmbiguous: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out.Model, nil
}

// GetLoggedModel returns a logged model.
func (c *Client) GetLoggedModel(ctx context.Context, modelID string) (*LoggedModel, error) {
	var out struct {
		Model LoggedModel `json:"model"`
	}
	if err := c.get(ctx, "mlflow/logged-models/"+url.PathEscape(modelID), nil, &out); err != nil {
		return nil, err
	}
	return &out.Model, nil
}

// TensorSpec is one named tensor of a model signature: a numpy dtype name
// ("float32", "int64", …) and a shape, -1 for a dimension of any size.
type TensorSpec struct {
	Name  string
	DType string
	Shape []int
}

// Signature is an MLflow model signature of tensors: what the model takes
// and what it returns (the MLmodel file's signature, which the UI shows
// and mlflow.models.get_model_info(…).signature reads).
type Signature struct {
	Inputs, Outputs []TensorSpec
}

// TensorSpecsJSON encodes tensors as MLflow does in an MLmodel signature
// and a dataset's tensor schema: a JSON list of {"type": "tensor",
// "tensor-spec": {"dtype", "shape"}, "name"}.
func TensorSpecsJSON(specs []TensorSpec) (string, error) {
	type tensorSpec struct {
		DType string `json:"dtype"`
		Shape []int  `json:"shape"`
	}
	type entry struct {
		Type string     `json:"type"`
		Spec tensorSpec `json:"tensor-spec"`
		Name string     `json:"name"`
	}
	out := make([]entry, len(specs))
	for i, t := range specs {
		if t.Name == "" || t.DType == "" {
			return "", &ValidationError{What: "tensor spec", Reason: fmt.Sprintf("tensor %d has no name or dtype", i)}
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		out[i] = entry{Type: "tensor", Spec: tensorSpec{t.DType, shape}, Name: t.Name}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// ModelFile is one file of a logged model: a local file (Path) or bytes.
type ModelFile struct {
	Name string // the artifact path inside the model, e.g. "checkpoint/nn_config.json"
	Path string
	Data []byte
}

// LogModelOptions describe a model to log with [Client.LogModel].
type LogModelOptions struct {
	CreateLoggedModelOptions
	// Step is the run's step the model comes from (the run's output).
	Step int64
	// Flavor names the format of the files in the MLmodel file's flavors
	// (e.g. "narlab"), FlavorFields describe it (loader, format, …).
	Flavor       string
	FlavorFields map[string]string
	Signature    Signature
	Files        []ModelFile
	// PythonFunction, when set, adds MLflow's python_function flavor, so
	// that mlflow.pyfunc.load_model loads the model in Python.
	PythonFunction *PyFunc
	// Metrics are the model's own metrics (MLflow 3 logged-model metrics,
	// which search_logged_models filters on), logged with the source run
	// once the model is READY.
	Metrics []Metric
}

// PyFunc describes MLflow's python_function flavor of a model (a custom
// flavor in MLflow's terms): mlflow.pyfunc.load_model imports
// LoaderModule, calls its _load_pyfunc with the local path of the model's
// file or folder Data, and calls predict(model_input) on what it returns.
// LogModel writes the environment files that the flavor's env entry names
// (requirements.txt, python_env.yaml, conda.yaml) from Requirements.
type PyFunc struct {
	LoaderModule string   // e.g. "narlab.pyfunc"
	Data         string   // the artifact path inside the model given to _load_pyfunc, e.g. "checkpoint"
	Requirements []string // pip requirements of the environment that loads it, e.g. "narlab==0.1.0"
	// PythonVersion is the Python the model was made for (e.g. "3.11.7"),
	// recorded as MLflow records it; empty when unknown.
	PythonVersion string
	// Fields are more entries of the flavor, written as strings.
	Fields map[string]string
}

// pyFuncFiles are the environment files of a python_function flavor.
func (p *PyFunc) files() []ModelFile {
	var req bytes.Buffer
	for _, r := range p.Requirements {
		req.WriteString(r + "\n")
	}
	py := p.PythonVersion
	var env bytes.Buffer
	if py != "" {
		fmt.Fprintf(&env, "python: %s\n", py)
	}
	env.WriteString("build_dependencies:\n- pip\ndependencies:\n- -r requirements.txt\n")
	var conda bytes.Buffer
	conda.WriteString("channels:\n- conda-forge\ndependencies:\n")
	if py != "" {
		fmt.Fprintf(&conda, "- python=%s\n", py)
	}
	conda.WriteString("- pip\n- pip:\n")
	for _, r := range p.Requirements {
		fmt.Fprintf(&conda, "  - %s\n", r)
	}
	conda.WriteString("name: mlflow-env\n")
	return []ModelFile{{Name: "requirements.txt", Data: req.Bytes()}, {Name: "python_env.yaml", Data: env.Bytes()},
		{Name: "conda.yaml", Data: conda.Bytes()}}
}

// LogModel logs a model as MLflow's Python client's log_model does: it
// creates a logged model linked to the source run, uploads the files and
// an MLmodel file (flavor, signature, ids) to the model's artifacts,
// finalizes it READY (UPLOAD_FAILED if an upload fails) and records it as
// the run's output at o.Step.
func (c *Client) LogModel(ctx context.Context, o LogModelOptions) (*LoggedModel, error) {
	if o.Flavor == "" {
		return nil, &ValidationError{What: "model", Reason: "no flavor; name the format of the model's files"}
	}
	if o.Flavor == PyFuncFlavor {
		return nil, &ValidationError{What: "model", Reason: "the python_function flavor is described by PythonFunction, beside the model's own flavor"}
	}
	if p := o.PythonFunction; p != nil {
		if p.LoaderModule == "" {
			return nil, &ValidationError{What: "python_function flavor", Reason: "no loader module"}
		}
		if p.Data != "" {
			if err := ValidateArtifactPath(p.Data); err != nil {
				return nil, err
			}
		}
		o.Files = append(slices.Clone(o.Files), p.files()...)
	}
	for _, m := range o.Metrics {
		if err := ValidateMetric(m); err != nil {
			return nil, err
		}
	}
	inputs, err := TensorSpecsJSON(o.Signature.Inputs)
	if err != nil {
		return nil, err
	}
	outputs, err := TensorSpecsJSON(o.Signature.Outputs)
	if err != nil {
		return nil, err
	}
	for _, f := range o.Files {
		if err := ValidateArtifactPath(f.Name); err != nil {
			return nil, err
		}
		if f.Name == MLmodelFile {
			return nil, &ValidationError{What: "model file " + f.Name, Reason: "LogModel writes the MLmodel file itself"}
		}
	}
	seen := map[string]bool{}
	for _, f := range o.Files {
		if seen[f.Name] {
			return nil, &ValidationError{What: "model file " + f.Name, Reason: "given twice (the python_function flavor writes requirements.txt, python_env.yaml and conda.yaml)"}
		}
		seen[f.Name] = true
	}
	m, err := c.CreateLoggedModel(ctx, o.CreateLoggedModelOptions)
	if err != nil {
		return nil, fmt.Errorf("mlflow: creating the logged model: %w", err)
	}
	id := m.Info.ModelID
	mlmodel := mlmodelYAML(m.Info, o.SourceRunID, o.Flavor, o.FlavorFields, o.PythonFunction, inputs, outputs, time.Now().UTC())
	upload := func() error {
		for _, f := range o.Files {
			var err error
			if f.Path != "" {
				err = c.UploadArtifactFile(ctx, m.Info.ArtifactURI, f.Name, f.Path)
			} else {
				err = c.UploadArtifact(ctx, m.Info.ArtifactURI, f.Name, f.Data)
			}
			if err != nil {
				return err
			}
		}
		return c.UploadArtifact(ctx, m.Info.ArtifactURI, MLmodelFile, mlmodel)
	}
	if err := upload(); err != nil {
		_, ferr := c.FinalizeLoggedModel(context.WithoutCancel(ctx), id, ModelUploadFailed)
		if ferr != nil {
			err = fmt.Errorf("%w (and marking the model UPLOAD_FAILED: %v)", err, ferr)
		}
		return nil, fmt.Errorf("mlflow: logged model %s: %w", id, err)
	}
	if m, err = c.FinalizeLoggedModel(ctx, id, ModelReady); err != nil {
		return nil, fmt.Errorf("mlflow: finalizing logged model %s: %w", id, err)
	}
	for _, mt := range o.Metrics {
		if err := c.LogModelMetric(ctx, o.SourceRunID, id, mt); err != nil {
			return m, fmt.Errorf("mlflow: logged model %s: metric %s: %w", id, mt.Key, err)
		}
	}
	if o.SourceRunID != "" {
		if err := c.LogOutputs(ctx, o.SourceRunID, ModelOutput{ModelID: id, Step: Int64(o.Step)}); err != nil {
			return m, fmt.Errorf("mlflow: recording logged model %s as an output of run %s: %w", id, o.SourceRunID, err)
		}
	}
	return m, nil
}

// LogModelMetric logs a metric of a logged model (MLflow 3: log-metric
// with the model's id, the run it comes from as the run). The point's time
// is fixed before the first attempt (now, when m has none), so a retry
// after an ambiguous failure logs the same point, which the server keeps
// once.
func (c *Client) LogModelMetric(ctx context.Context, runID, modelID string, m Metric) error {
	if err := ValidateMetric(m); err != nil {
		return err
	}
	if m.Timestamp == 0 {
		m.Timestamp = Millis(time.Now())
	}
	ids, _ := json.Marshal(map[string]string{"run_id": runID, "model_id": modelID})
	// The metric in MLflow's encoding (NaN and ±Inf as strings), with the ids.
	body := append(ids[:len(ids)-1:len(ids)-1], ',')
	body = append(body, appendMetric(nil, m)[1:]...)
	return c.call(ctx, request{method: http.MethodPost, endpoint: "mlflow/runs/log-metric", body: body, retryAmbiguous: true}, nil)
}

// MLmodelFile is the name of the file that describes an MLflow model.
const MLmodelFile = "MLmodel"

// PyFuncFlavor is the name of MLflow's python_function flavor.
const PyFuncFlavor = "python_function"

// mlmodelYAML writes the MLmodel file of a logged model (YAML, every
// string double-quoted).
func mlmodelYAML(info LoggedModelInfo, runID, flavor string, fields map[string]string, pyfunc *PyFunc, inputs, outputs string, now time.Time) []byte {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var b bytes.Buffer
	fmt.Fprintf(&b, "artifact_path: %s\n", q(info.ArtifactURI))
	fmt.Fprintf(&b, "flavors:\n  %s:\n", flavor)
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "    %s: %s\n", k, q(fields[k]))
	}
	if len(keys) == 0 {
		b.Truncate(b.Len() - 1)
		b.WriteString(" {}\n")
	}
	if p := pyfunc; p != nil {
		fmt.Fprintf(&b, "  %s:\n", PyFuncFlavor)
		entries := map[string]string{"loader_module": p.LoaderModule}
		if p.Data != "" {
			entries["data"] = p.Data
		}
		if p.PythonVersion != "" {
			entries["python_version"] = p.PythonVersion
		}
		for k, v := range p.Fields {
			if _, taken := entries[k]; !taken && k != "env" {
				entries[k] = v
			}
		}
		entries["env"] = "" // a mapping, written below in its place
		keys := make([]string, 0, len(entries))
		for k := range entries {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "env" {
				b.WriteString("    env:\n      conda: \"conda.yaml\"\n      virtualenv: \"python_env.yaml\"\n")
				continue
			}
			fmt.Fprintf(&b, "    %s: %s\n", k, q(entries[k]))
		}
	}
	fmt.Fprintf(&b, "model_id: %s\n", q(info.ModelID))
	fmt.Fprintf(&b, "model_uuid: %s\n", q(info.ModelID))
	if runID != "" {
		fmt.Fprintf(&b, "run_id: %s\n", q(runID))
	}
	fmt.Fprintf(&b, "signature:\n  inputs: %s\n  outputs: %s\n  params: null\n", q(inputs), q(outputs))
	fmt.Fprintf(&b, "utc_time_created: %s\n", q(now.Format("2006-01-02 15:04:05.000000")))
	return b.Bytes()
}

// RegisteredModel is a model of the registry.
type RegisteredModel struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	UserID      string `json:"user_id"`
	Created     Int64  `json:"creation_timestamp"`
}

// ModelVersion is a version of a registered model.
type ModelVersion struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Source      string `json:"source"`
	RunID       string `json:"run_id"`
	ModelID     string `json:"model_id"`
	Status      string `json:"status"`
	Description string `json:"description"`
	UserID      string `json:"user_id"`
	Tags        []Tag  `json:"tags"`
}

// CreateRegisteredModel creates a registered model; the error satisfies
// [IsAlreadyExists] when the name is taken.
func (c *Client) CreateRegisteredModel(ctx context.Context, name, description string) (*RegisteredModel, error) {
	if strings.TrimSpace(name) == "" {
		return nil, &ValidationError{What: "registered model name", Reason: "it is empty"}
	}
	var out struct {
		Model RegisteredModel `json:"registered_model"`
	}
	in := map[string]string{"name": name}
	if description != "" {
		in["description"] = description
	}
	if err := c.post(ctx, "mlflow/registered-models/create", in, &out, false); err != nil {
		return nil, err
	}
	return &out.Model, nil
}

// CreateModelVersionOptions describe a new model version.
type CreateModelVersionOptions struct {
	Name        string // the registered model
	Source      string // e.g. "models:/<model id>"
	RunID       string
	ModelID     string
	Description string
	Tags        []Tag
}

// CreateModelVersion adds a version to a registered model.
func (c *Client) CreateModelVersion(ctx context.Context, o CreateModelVersionOptions) (*ModelVersion, error) {
	in := struct {
		Name        string `json:"name"`
		Source      string `json:"source"`
		RunID       string `json:"run_id,omitempty"`
		ModelID     string `json:"model_id,omitempty"`
		Description string `json:"description,omitempty"`
		Tags        []Tag  `json:"tags,omitempty"`
	}{o.Name, o.Source, o.RunID, o.ModelID, o.Description, o.Tags}
	var out struct {
		Version ModelVersion `json:"model_version"`
	}
	if err := c.post(ctx, "mlflow/model-versions/create", in, &out, false); err != nil {
		return nil, err
	}
	return &out.Version, nil
}

// RegisterModel registers a logged model as a new version of the
// registered model name (created if missing), as
// mlflow.register_model("models:/<id>", name) does.
func (c *Client) RegisterModel(ctx context.Context, name string, m *LoggedModel, description string) (*ModelVersion, error) {
	if _, err := c.CreateRegisteredModel(ctx, name, ""); err != nil && !IsAlreadyExists(err) {
		return nil, fmt.Errorf("mlflow: registering model %q: %w", name, err)
	}
	v, err := c.CreateModelVersion(ctx, CreateModelVersionOptions{Name: name, Source: "models:/" + m.Info.ModelID,
		RunID: m.Info.SourceRunID, ModelID: m.Info.ModelID, Description: description})
	if err != nil {
		return nil, fmt.Errorf("mlflow: registering model %q: %w", name, err)
	}
	return v, nil
}

// SearchModelVersions returns the model versions that match filter (e.g.
// "name = 'bfs-mpnn'").
func (c *Client) SearchModelVersions(ctx context.Context, filter string) ([]ModelVersion, error) {
	var all []ModelVersion
	token := ""
	for {
		q := url.Values{"max_results": {"1000"}}
		if filter != "" {
			q.Set("filter", filter)
		}
		if token != "" {
			q.Set("page_token", token)
		}
		var out struct {
			Versions []ModelVersion `json:"model_versions"`
			Next     string         `json:"next_page_token"`
		}
		if err := c.get(ctx, "mlflow/model-versions/search", q, &out); err != nil {
			return nil, err
		}
		all = append(all, out.Versions...)
		if out.Next == "" {
			return all, nil
		}
		token = out.Next
	}
}
