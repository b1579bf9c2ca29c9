package tracking

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strings"

	"github.com/narlab/narlab/tracking/mlflow"
)

// MLflow's conventions, as its own Python client follows them: who ran a
// run, where it came from (a command or a notebook), which experiment and
// run the environment names, datasets as run inputs, models as logged
// models.

// CurrentUser is the user a run is recorded under (the mlflow.user tag and
// the run's user_id), found as Python's getpass.getuser(), which MLflow's
// client uses: $LOGNAME, $USER, $LNAME, $USERNAME, then the account
// database; "unknown" when none answers.
func CurrentUser() string {
	for _, v := range []string{"LOGNAME", "USER", "LNAME", "USERNAME"} {
		if u := strings.TrimSpace(os.Getenv(v)); u != "" {
			return u
		}
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "unknown"
}

// Environment variables of GoNB and Jupyter that say a program runs in a
// notebook cell.
const (
	// envGoNBPipe is set by the GoNB kernel for every cell it runs (what
	// gonbui.IsNotebook checks).
	envGoNBPipe = "GONB_PIPE"
	// envGoNBDir is the kernel's working directory (the notebook's).
	envGoNBDir = "GONB_DIR"
	// envJupyterSession is the notebook's path, set by Jupyter's server
	// for the kernels it starts.
	envJupyterSession = "JPY_SESSION_NAME"
)

// InNotebook reports whether the program runs in a cell of the GoNB
// kernel (the test gonbui.IsNotebook makes, without importing GoNB).
func InNotebook() bool { return os.Getenv(envGoNBPipe) != "" }

// notebookName names the notebook a cell belongs to: Jupyter's session
// name (the notebook's path) when the kernel was started by a Jupyter
// server, else the kernel's directory.
func notebookName() string {
	if s := os.Getenv(envJupyterSession); s != "" {
		return s
	}
	if d := os.Getenv(envGoNBDir); d != "" {
		return "GoNB notebook in " + d
	}
	return "GoNB notebook"
}

// SystemTags are the tags MLflow's clients set on every run they create:
// mlflow.source.type (NOTEBOOK in a GoNB cell, else LOCAL),
// mlflow.source.name (the notebook, or source: the program and its
// subcommand when empty), mlflow.user ([CurrentUser]) and
// mlflow.source.git.commit (the checkout's HEAD, when there is one). In a
// notebook, a source that names a command is kept in narlab.source.
func SystemTags(source string) []mlflow.Tag {
	tags := []mlflow.Tag{{Key: mlflow.TagUser, Value: CurrentUser()}}
	if InNotebook() {
		tags = append(tags, mlflow.Tag{Key: mlflow.TagSourceType, Value: mlflow.SourceNotebook},
			mlflow.Tag{Key: mlflow.TagSourceName, Value: notebookName()})
		if source != "" {
			tags = append(tags, mlflow.Tag{Key: "narlab.source", Value: source})
		}
	} else {
		tags = append(tags, mlflow.Tag{Key: mlflow.TagSourceType, Value: mlflow.SourceLocal},
			mlflow.Tag{Key: mlflow.TagSourceName, Value: sourceName(source)})
	}
	if commit := gitCommit(); commit != "" {
		tags = append(tags, mlflow.Tag{Key: mlflow.TagGitCommit, Value: commit})
	}
	return tags
}

// DefaultExperiment is the experiment of a command's runs when its
// --experiment flag is not given: $MLFLOW_EXPERIMENT_NAME, as MLflow's
// clients read it, else the command's own default. Commands use it as the
// flag's default value, so an explicit flag wins.
func DefaultExperiment(commandDefault string) string {
	if e := strings.TrimSpace(os.Getenv(mlflow.EnvExperimentName)); e != "" {
		return e
	}
	return commandDefault
}

// defaultNote is the description of a run whose caller gave none.
func defaultNote(source, experiment string, params map[string]string) string {
	return fmt.Sprintf("A run of `%s` in experiment **%s** (%d parameters; the results are its metrics and artifacts). "+
		"narlab wrote this description because the caller gave none: edit it here.", source, experiment, len(params))
}

// takeRunID returns the run to resume, $MLFLOW_RUN_ID, and unsets the
// variable, as mlflow.start_run does: only the first run a process starts
// resumes it, and the commands this process starts (a sweep's cells) do
// not inherit it.
func takeRunID() string {
	id := strings.TrimSpace(os.Getenv(mlflow.EnvRunID))
	if id != "" {
		os.Unsetenv(mlflow.EnvRunID)
	}
	return id
}

// FileDataset describes a file read by a run as an MLflow dataset input:
// name (e.g. "dsr/instances"), the digest (the first 32 hex digits of the
// file's SHA-256), source type "local" with the file's absolute path as
// its URI, and a profile holding the whole SHA-256 and the size. context
// is the input's mlflow.data.context tag (e.g. "eval", "predictions").
func FileDataset(name, path, context string) (mlflow.DatasetInput, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return mlflow.DatasetInput{}, fmt.Errorf("tracking: dataset %s: %w", name, err)
	}
	f, err := os.Open(abs)
	if err != nil {
		return mlflow.DatasetInput{}, fmt.Errorf("tracking: dataset %s: %w", name, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return mlflow.DatasetInput{}, fmt.Errorf("tracking: dataset %s: reading %s: %w", name, abs, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	source, _ := json.Marshal(map[string]string{"uri": "file://" + filepath.ToSlash(abs)})
	profile, _ := json.Marshal(map[string]any{"sha256": sum, "bytes": n})
	return Dataset(name, sum[:32], "local", string(source), "", string(profile), context), nil
}

// Dataset builds a dataset input (see [mlflow.Dataset]) with the
// mlflow.data.context tag context (none when empty).
func Dataset(name, digest, sourceType, source, schema, profile, context string) mlflow.DatasetInput {
	in := mlflow.DatasetInput{Dataset: mlflow.Dataset{Name: name, Digest: digest, SourceType: sourceType,
		Source: source, Schema: schema, Profile: profile}}
	if context != "" {
		in.Tags = []mlflow.Tag{{Key: mlflow.TagDatasetContext, Value: context}}
	}
	return in
}

// TensorSchema is a dataset schema in MLflow's tensor form
// ({"mlflow_tensorspec": {"features": …, "targets": …}}), which the UI
// shows as the dataset's schema.
func TensorSchema(features, targets []mlflow.TensorSpec) (string, error) {
	f, err := mlflow.TensorSpecsJSON(features)
	if err != nil {
		return "", err
	}
	t, err := mlflow.TensorSpecsJSON(targets)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]map[string]string{"mlflow_tensorspec": {"features": f, "targets": t}})
	return string(b), err
}

// LogInputs records datasets as the run's inputs (MLflow's log-inputs;
// through the spool like every other request of the run).
func (r *Run) LogInputs(datasets ...mlflow.DatasetInput) error {
	return r.logger.LogInputs(datasets...)
}

// ModelOptions describe a model a run logs with [Run.LogModel].
type ModelOptions struct {
	Name      string // the logged model's name (the UI's Models tab)
	ModelType string // a label to search by, e.g. "clrs-baseline"
	Step      int64  // the run's step the model comes from
	Params    map[string]string
	Tags      map[string]string
	// Flavor and FlavorFields describe the files' format in the MLmodel
	// file; Signature the model's inputs and outputs.
	Flavor       string
	FlavorFields map[string]string
	Signature    mlflow.Signature
	// Dir is a directory whose regular files are the model's files,
	// uploaded under DirPrefix/ (e.g. "checkpoint").
	Dir, DirPrefix string
	// Files are more files of the model (e.g. a checkpoint in another
	// format under reference/).
	Files []mlflow.ModelFile
	// PythonFunction, when set, gives the model MLflow's python_function
	// flavor (mlflow.pyfunc.load_model loads it).
	PythonFunction *mlflow.PyFunc
	// Metrics are the model's own metrics (search_logged_models filters
	// on them), e.g. its test score. MLflow records a model's metric in
	// the run's history too, so give the points the run logged itself
	// (the same key, step, value and time: [Run.LogMetricAt]): MLflow
	// keeps a run's points unique, and the run's history keeps one point
	// each, now linked to the model. Each point keeps its own step (a
	// summary metric's is 0, docs/mlflow.md), not Step; a point with no
	// time is stamped now.
	Metrics []mlflow.Metric
	// Register, when set, registers the model in the model registry as a
	// new version of this registered model (created if missing).
	Register string
	// Description is the registered version's description.
	Description string
}

// LoggedModel is what [Run.LogModel] logged.
type LoggedModel struct {
	ID          string // the logged model's id (m-…); its URI is models:/ID
	ArtifactURI string
	// Registered and Version name the registry entry (empty when the model
	// was not registered).
	Registered, Version string
}

// LogModel logs a model the run produced as an MLflow 3 logged model
// linked to the run (see [mlflow.Client.LogModel]: its files, an MLmodel
// file with the flavor and the signature, the run's output at o.Step),
// and registers it when o.Register is set. It talks to the server directly
// (the run must have reached it), after delivering what the run logged so
// far (waiting at most NARLAB_MLFLOW_TIMEOUT for that).
func (r *Run) LogModel(ctx context.Context, o ModelOptions) (*LoggedModel, error) {
	runID, expID := r.logger.RunID(), r.logger.ExperimentID()
	if runID == "" || expID == "" {
		return nil, fmt.Errorf("tracking: logging model %s: the run is not on the tracking server (it is logged offline, into its spool)", o.Name)
	}
	wait, err := TrackingTimeout()
	if err != nil {
		return nil, err
	}
	fctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := r.Flush(fctx); err != nil {
		return nil, fmt.Errorf("tracking: logging model %s: %w", o.Name, err)
	}
	opts := mlflow.LogModelOptions{Step: o.Step, Flavor: o.Flavor, FlavorFields: o.FlavorFields, Signature: o.Signature,
		PythonFunction: o.PythonFunction}
	opts.Metrics = o.Metrics
	opts.ExperimentID, opts.Name, opts.ModelType, opts.SourceRunID = expID, o.Name, o.ModelType, runID
	for _, k := range sortedKeys(o.Params) {
		opts.Params = append(opts.Params, mlflow.Param{Key: k, Value: o.Params[k]})
	}
	for _, k := range sortedKeys(o.Tags) {
		opts.Tags = append(opts.Tags, mlflow.Tag{Key: k, Value: o.Tags[k]})
	}
	if o.Dir != "" {
		ents, err := os.ReadDir(o.Dir)
		if err != nil {
			return nil, fmt.Errorf("tracking: logging model %s: %w", o.Name, err)
		}
		for _, e := range ents {
			if e.Type().IsRegular() {
				name := e.Name()
				if o.DirPrefix != "" {
					name = o.DirPrefix + "/" + name
				}
				opts.Files = append(opts.Files, mlflow.ModelFile{Name: name, Path: filepath.Join(o.Dir, e.Name())})
			}
		}
		if len(opts.Files) == 0 {
			return nil, fmt.Errorf("tracking: logging model %s: %s holds no files", o.Name, o.Dir)
		}
	}
	opts.Files = append(opts.Files, o.Files...)
	c := r.logger.Client()
	m, err := c.LogModel(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("tracking: %w", err)
	}
	out := &LoggedModel{ID: m.Info.ModelID, ArtifactURI: m.Info.ArtifactURI}
	if o.Register != "" {
		v, err := c.RegisterModel(ctx, o.Register, m, o.Description)
		if err != nil {
			return out, fmt.Errorf("tracking: %w", err)
		}
		out.Registered, out.Version = v.Name, v.Version
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
