package clrs30

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"iter"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// What a training or evaluation run records in MLflow beside its metrics:
// its description, its datasets (run inputs) and its model (a logged
// model, registered on request).

// runNote is a training run's description.
func runNote(cfg Config, start int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Training of the CLRS baseline **%s** (%s, hidden %d, batch %d, seed %d) on **%s**, %d steps, "+
		"validated every %d steps on the CLRS-30 val split; the best-validation checkpoint is tested on the test split "+
		"and logged as this run's MLflow model.", cfg.Processor, cfg.HintMode, cfg.Hidden, cfg.Batch, cfg.Seed,
		cfg.Algo, cfg.Steps, cfg.EvalEvery)
	if start > 0 {
		fmt.Fprintf(&b, " This session resumed the run directory at step %d.", start)
	}
	if cfg.ParentRun != "" {
		fmt.Fprintf(&b, " A cell of the grid whose parent run is %s.", cfg.ParentRun)
	}
	fmt.Fprintf(&b, " Results: `results.md`, `results.json`; run directory `%s`.", cfg.Dir)
	return b.String()
}

// A sampleDigest digests samples' contents as they pass: SHA-256 over
// every probe's name, dtype, shape and values (float64 bits) and every
// length, the first 32 hex digits. The same samples give the same digest
// whatever the batch size or machine. It also counts the samples and
// their longest trajectory (a dataset's profile).
type sampleDigest struct {
	h              hash.Hash
	buf            [8]byte
	samples, steps int
}

func newSampleDigest() *sampleDigest { return &sampleDigest{h: sha256.New()} }

// digestOf digests a slice of samples.
func digestOf(trajs []*clrs.Trajectory) *sampleDigest {
	d := newSampleDigest()
	for _, t := range trajs {
		d.add(t)
	}
	return d
}

// digestTrajectories is digestOf's digest.
func digestTrajectories(trajs []*clrs.Trajectory) string { return digestOf(trajs).sum() }

func (d *sampleDigest) add(t *clrs.Trajectory) {
	d.samples++
	d.steps = max(d.steps, t.Length)
	d.num(uint64(t.Length))
	for _, list := range [][]clrs.DataPoint{t.Inputs, t.Hints, t.Outputs} {
		for _, p := range list {
			d.h.Write([]byte(p.Name))
			d.h.Write([]byte{0, byte(p.Stage), byte(p.Location), byte(p.Type), byte(p.DType)})
			d.num(uint64(len(p.Shape)))
			for _, s := range p.Shape {
				d.num(uint64(s))
			}
			for _, v := range p.Data {
				d.num(math.Float64bits(v))
			}
		}
	}
}

func (d *sampleDigest) num(v uint64) {
	binary.LittleEndian.PutUint64(d.buf[:], v)
	d.h.Write(d.buf[:])
}

func (d *sampleDigest) sum() string { return hex.EncodeToString(d.h.Sum(nil))[:32] }

// observe yields a stream's samples, digesting each on its way.
func (d *sampleDigest) observe(trajs iter.Seq2[*clrs.Trajectory, error]) iter.Seq2[*clrs.Trajectory, error] {
	return func(yield func(*clrs.Trajectory, error) bool) {
		for t, err := range trajs {
			if err == nil {
				d.add(t)
			}
			if !yield(t, err) {
				return
			}
		}
	}
}

// tensorSpecs describes probes as MLflow tensors: the batch and node
// dimensions are -1 (any size), a categorical's classes are kept.
// predictions gives outputs as Model.Predict returns them (float64; a
// pointer or permutation as one node index per row).
func tensorSpecs(points []clrs.DataPoint, predictions bool) []mlflow.TensorSpec {
	var out []mlflow.TensorSpec
	for _, d := range points {
		shape := slices.Clone(d.Shape)
		if predictions && d.Type == clrs.PermutationPointer && len(shape) > 0 {
			shape = shape[:len(shape)-1]
		}
		if len(shape) > 0 {
			shape[0] = -1
		}
		nodeDims := map[clrs.Location]int{clrs.Node: 1, clrs.Edge: 2}[d.Location]
		for i := 1; i <= nodeDims && i < len(shape); i++ {
			shape[i] = -1
		}
		dtype := d.DType.String()
		if predictions {
			dtype = "float64"
		}
		out = append(out, mlflow.TensorSpec{Name: d.Name, DType: dtype, Shape: shape})
	}
	return out
}

// sampleFeedback is a small batch of the algorithm, transformed as the
// model sees it, for describing shapes.
func sampleFeedback(mc nn.Config) (*clrs.Feedback, error) {
	s, err := clrs.NewSampler(mc.Algorithm, clrs.Length(5), clrs.Seed(0), clrs.NumSamples(2))
	if err != nil {
		return nil, err
	}
	fb, err := s.Next(2)
	if err != nil {
		return nil, err
	}
	return mc.Transform(fb)
}

// Signature is the MLflow signature of a model of configuration mc: what
// its python_function flavor's predict takes, a batch's features as
// dm-clrs's BaselineModel.predict takes them (FeatureNames: the
// algorithm's inputs [B, …] and hints [T, B, …] named as in a dataset
// file, in the reference's dtypes, and lengths), and the predictions it
// returns per output (output/NAME, float64, Model.Predict's encoding).
func Signature(mc nn.Config) (mlflow.Signature, error) {
	s, err := clrs.NewSampler(mc.Algorithm, clrs.Length(5), clrs.Seed(0), clrs.NumSamples(2))
	if err != nil {
		return mlflow.Signature{}, err
	}
	raw, err := s.Next(2)
	if err != nil {
		return mlflow.Signature{}, err
	}
	in := prefixed("input/", tensorSpecs(raw.Inputs, false))
	var hints []mlflow.TensorSpec
	for _, d := range raw.Hints { // [T, B, …]: time, batch and node dimensions of any size
		shape := slices.Clone(d.Shape)
		for i := 0; i < 2+locationDims(d.Location) && i < len(shape); i++ {
			shape[i] = -1
		}
		hints = append(hints, mlflow.TensorSpec{Name: "hint/" + d.Name, DType: d.DType.String(), Shape: shape})
	}
	in = append(append(in, hints...), mlflow.TensorSpec{Name: "lengths", DType: "float64", Shape: []int{-1}})
	fb, err := sampleFeedback(mc)
	if err != nil {
		return mlflow.Signature{}, err
	}
	return mlflow.Signature{Inputs: in, Outputs: prefixed("output/", tensorSpecs(fb.Outputs, true))}, nil
}

func prefixed(p string, specs []mlflow.TensorSpec) []mlflow.TensorSpec {
	for i := range specs {
		specs[i].Name = p + specs[i].Name
	}
	return specs
}

// splitDataset describes samples of a CLRS-30 split (the first n of it
// when the run capped it) as a run input: its name, the contents' digest,
// the generator's settings as its source, the tensors as its schema and
// the sizes as its profile.
func splitDataset(mc nn.Config, set clrs.Split, samples *sampleDigest, context string) (mlflow.DatasetInput, error) {
	source, _ := json.Marshal(map[string]any{"generator": "narlab lib/clrs (the CLRS-30 splits)", "algorithm": mc.Algorithm,
		"split": set.Name, "length": set.Length, "seed": set.Seed, "split_samples": set.NumSamples, "samples": samples.samples})
	profile, _ := json.Marshal(map[string]any{"samples": samples.samples, "length": set.Length, "hint_steps": samples.steps})
	schema, err := datasetSchema(mc)
	if err != nil {
		return mlflow.DatasetInput{}, err
	}
	return tracking.Dataset(fmt.Sprintf("clrs30/%s/%s", mc.Algorithm, set.Name), samples.sum(), "code",
		string(source), schema, string(profile), context), nil
}

func datasetSchema(mc nn.Config) (string, error) {
	fb, err := sampleFeedback(mc)
	if err != nil {
		return "", err
	}
	return tracking.TensorSchema(tensorSpecs(fb.Inputs, false), tensorSpecs(fb.Outputs, false))
}

// trainDataset describes a run's training data. Fixed sets (the CLRS-30
// train split, or the reduced fixed-length set) are digested by content;
// fresh samples drawn every step (lengths) by the settings that draw them.
func trainDataset(cfg Config, d *trainData) (mlflow.DatasetInput, error) {
	mc := cfg.modelConfigOf(d.algo)
	if d.fixed != nil {
		set := clrs.Split{Name: "train", NumSamples: 1000, Length: 16, Seed: 1}
		if cfg.TrainData == "fixed" {
			set = clrs.Split{Name: "train-fixed-n" + strconv.Itoa(cfg.TrainLength), NumSamples: 1000, Length: cfg.TrainLength, Seed: 1}
		}
		return splitDataset(mc, set, digestOf(d.fixed.Trajectories()), "train")
	}
	settings := map[string]any{"generator": "narlab lib/clrs samplers, fresh samples every step", "algorithm": d.algo,
		"lengths": cfg.TrainLengths, "seed": cfg.Seed, "batch": cfg.Batch, "random_pos": !cfg.FixedPos,
		"seeding": "sampler seed and pos seed derived from (seed, step) by SHA-256"}
	if d.stream > 0 { // a run's later algorithm: streams of its own
		settings["seeding"] = fmt.Sprintf("sampler seed and pos seed derived from (seed, step, streams %d and %d) by SHA-256", d.stream, d.stream+1)
	}
	source, _ := json.Marshal(settings)
	sum := sha256.Sum256(source)
	profile, _ := json.Marshal(map[string]any{"samples_per_step": cfg.Batch, "steps": cfg.Steps, "lengths": cfg.TrainLengths})
	schema, err := datasetSchema(mc)
	if err != nil {
		return mlflow.DatasetInput{}, err
	}
	return tracking.Dataset(fmt.Sprintf("clrs30/%s/train-fresh", d.algo), hex.EncodeToString(sum[:])[:32], "code",
		string(source), schema, string(profile), "train"), nil
}

// logDataInputs logs each algorithm's training set and validation split
// as the run's inputs.
func logDataInputs(run *tracking.Run, cfg Config, datas []*trainData, vals [][]*clrs.Trajectory) error {
	var inputs []mlflow.DatasetInput
	for i, d := range datas {
		trainDS, err := trainDataset(cfg, d)
		if err != nil {
			return err
		}
		valSet, err := clrs.CLRS30Split(d.algo, "val")
		if err != nil {
			return err
		}
		valDS, err := splitDataset(cfg.modelConfigOf(d.algo), valSet, digestOf(vals[i]), "val")
		if err != nil {
			return err
		}
		inputs = append(inputs, trainDS, valDS)
	}
	return run.LogInputs(inputs...)
}

// ModelType is the model_type of the logged models of CLRS baselines.
const ModelType = "clrs-baseline"

// PythonPackage is the Python package whose module PyFuncLoader loads
// the logged models in Python (python/ in the repository, the wheel of
// `make wheel`), at the version these models are made for.
const (
	PythonPackage        = "narlab"
	PythonPackageVersion = "0.1.0"
	// PyFuncLoader is the loader module of the models' python_function
	// flavor: its _load_pyfunc(path) is given the checkpoint folder and
	// predicts through the package's narlab binary (narlab eval --data
	// FEATURES --predictions OUT).
	PyFuncLoader = "narlab.pyfunc"
	// ReferenceArtifact is where a logged model keeps its checkpoint in
	// dm-clrs's format (BaselineModel.restore_model reads it).
	ReferenceArtifact = "reference/model.pkl"
)

// pythonVersion is the version of the project's Python (NARLAB_PYTHON,
// which the Python package's narlab command sets to its own), or "".
func pythonVersion() string {
	py, err := project.Python()
	if err != nil {
		return ""
	}
	out, err := exec.Command(py, "-c", "import platform; print(platform.python_version())").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// logModel logs the best checkpoint as the run's MLflow model (registered
// as cfg.Register when set): narlab's checkpoint under checkpoint/, the
// same weights as a dm-clrs checkpoint (reference, the file
// nn.Model.ExportReference wrote, "" when it could not be) under
// reference/, the python_function flavor, and the test and best
// validation scores as the model's metrics: the run's own summary points
// (scores, from logRun), so that the run keeps one point of each at step 0.
func logModel(ctx context.Context, run *tracking.Run, cfg Config, res *Result, params map[string]string, scores []mlflow.Metric, reference string, refErr error) (*tracking.LoggedModel, error) {
	// A model of several algorithms predicts one algorithm's batch at a
	// time: its signature is none of theirs.
	var sig mlflow.Signature
	if !cfg.several() {
		var err error
		if sig, err = Signature(cfg.modelConfig()); err != nil {
			return nil, err
		}
	}
	fields := map[string]string{
		"format":    "narlab lib/nn checkpoint (GoMLX variables and nn_config.json) in checkpoint/",
		"loader":    "nn.Load(backend, DIR/checkpoint) in github.com/narlab/narlab/lib/nn; or narlab eval --checkpoint DIR/checkpoint",
		"algorithm": cfg.Algo,
		"processor": cfg.Processor,
		"best_step": strconv.Itoa(res.BestStep),
		"predictions": "Model.Predict: per output probe, node indices for pointers, probabilities for masks, " +
			"class scores for mask_one and categorical, values for scalars",
	}
	tags := map[string]string{"algorithm": cfg.Algo, "processor": cfg.Processor, "settings_id": cfg.settings().ID(),
		"val_score": strconv.FormatFloat(res.BestVal, 'g', -1, 64), "test_score": strconv.FormatFloat(res.Test["score"], 'g', -1, 64)}
	var files []mlflow.ModelFile
	if reference != "" {
		files = append(files, mlflow.ModelFile{Name: ReferenceArtifact, Path: reference})
		fields["reference"] = ReferenceArtifact + ": the same weights as a dm-clrs 2.0.3 checkpoint (BaselineModel.restore_model; " +
			"build the BaselineModel with the settings of checkpoint/nn_config.json, docs/baselines.md), or narlab eval --checkpoint DIR/" + ReferenceArtifact
	} else if refErr != nil {
		tags["reference_checkpoint"] = "not exported: " + refErr.Error()
	}
	if cfg.several() {
		fields["algorithms"] = cfg.Algo
		fields["predictions"] += "; a model of several algorithms predicts each one's batches (narlab eval scores each)"
	}
	o := tracking.ModelOptions{Name: fmt.Sprintf("%s-%s", strings.Join(cfg.Algorithms(), "+"), cfg.Processor), ModelType: ModelType,
		Step: int64(res.BestStep), Params: params, Dir: res.Checkpoint, DirPrefix: "checkpoint", Files: files,
		Tags: tags, Flavor: "narlab", FlavorFields: fields,
		PythonFunction: &mlflow.PyFunc{LoaderModule: PyFuncLoader, Data: "checkpoint", PythonVersion: pythonVersion(),
			Requirements: []string{PythonPackage + "==" + PythonPackageVersion},
			Fields: map[string]string{"predict": "a batch's features as a dict of NumPy arrays named as a dataset file names them " +
				"(input/NAME, hint/NAME, lengths; narlab.pyfunc.features(dataset)) -> the predictions, output/NAME arrays, " +
				"computed by the narlab binary of the Python package (narlab eval --data --predictions)"}},
		Metrics:   scores,
		Signature: sig, Register: cfg.Register,
		Description: fmt.Sprintf("%s/%s, best validation %.4f at step %d, test %.4f (run %s)", cfg.Algo, cfg.Processor,
			res.BestVal, res.BestStep, res.Test["score"], run.ID())}
	return run.LogModel(ctx, o)
}

// EvalConfig is an evaluation of a checkpoint on a CLRS-30 split.
type EvalConfig struct {
	Checkpoint string // the checkpoint directory (train's best/)
	Split      string // train, val or test
	Limit      int    // the first Limit samples (0: all)
	Backend    string
	// Reference, when not nil, reads Checkpoint as a dm-clrs checkpoint
	// (BaselineModel.save_model's pickle, nn.LoadReference) with these
	// options.
	Reference *nn.ReferenceOptions
	// Data, when set, is an .npz file evaluated instead of Split (see
	// ReadData): a dataset file of the model's algorithm is scored (and
	// logged as the run's dataset, "data/score" its metric); a model's
	// inputs alone are only predicted, and no run is logged.
	Data string
	// Predictions, when set, is where the predictions on Data are written
	// (PredictionArrays: output/NAME arrays in an .npz file).
	Predictions string
	// Experiment, TrackingURI and NoMLflow say where the evaluation run
	// is logged (default experiment "clrs-eval").
	Experiment  string
	TrackingURI string
	NoMLflow    bool
}

// EvalResult is an evaluation's scores and its MLflow run.
type EvalResult struct {
	Scores  map[string]float64 // per output, and their mean under "score"
	Config  nn.Config          // the checkpoint's model
	Split   string             // the split scored ("data" for Data)
	Scored  bool               // false for a model's inputs alone (Data): predicted, not scored
	Samples int                // the samples scored (all algorithms')
	// SamplesByAlgorithm, for a model of several algorithms, are each
	// one's samples scored.
	SamplesByAlgorithm map[string]int
	Length             int    // the split's sample length n (nodes for most algorithms)
	Format             string // "narlab checkpoint" or "dm-clrs checkpoint"
	RunID, RunURL      string
	DatasetDigest      string
	CheckpointPath     string
}

// Eval scores a checkpoint on a CLRS-30 split and logs the evaluation as
// an MLflow run (unless NoMLflow): params (checkpoint, split, the model's
// settings), the score as the summary metric <split>/score and each
// output's in tables/<split>_outputs.json (fractions), the split as the
// run's dataset input.
func Eval(ctx context.Context, c EvalConfig) (*EvalResult, error) {
	be, err := nn.Backend(c.Backend)
	if err != nil {
		return nil, err
	}
	var m *nn.Model
	format := "narlab checkpoint"
	if c.Reference != nil {
		m, err = nn.LoadReference(be, c.Checkpoint, *c.Reference)
		format = "dm-clrs checkpoint"
	} else {
		m, err = nn.Load(be, c.Checkpoint)
	}
	if err != nil {
		return nil, err
	}
	defer m.Close()
	mc := m.Config()
	if c.Predictions != "" && c.Data == "" {
		return nil, fmt.Errorf("eval: predictions are written for a data file (--data), not for a split")
	}
	algos := mc.AlgorithmNames()
	if c.Data != "" {
		if len(algos) > 1 {
			return nil, fmt.Errorf("eval: %s is a model of several algorithms (%s); --data scores a file of one algorithm with a model of it: "+
				"score the model's splits, or load one of its algorithms from its dm-clrs export (narlab eval --checkpoint FILE.pkl --algo NAME)",
				c.Checkpoint, strings.Join(algos, ", "))
		}
		return evalData(ctx, c, m, format)
	}
	set, err := clrs.CLRS30Split(algos[0], c.Split)
	if err != nil {
		return nil, err
	}
	// The split is drawn as it is scored, never held whole; a model of
	// several algorithms is scored on each one's.
	digests := make([]*sampleDigest, len(algos))
	for i := range digests {
		digests[i] = newSampleDigest()
	}
	scores, counts, err := evaluateSplit(m, c.Split, c.Limit, digests)
	if err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(c.Checkpoint)
	res := &EvalResult{Scores: scores, Config: mc, Split: c.Split, Samples: counts[0], Length: set.Length, Format: format,
		CheckpointPath: abs, DatasetDigest: digests[0].sum(), Scored: true}
	if len(algos) > 1 {
		res.SamplesByAlgorithm, res.Samples = map[string]int{}, 0
		for i, a := range algos {
			res.SamplesByAlgorithm[a] = counts[i]
			res.Samples += counts[i]
		}
		res.DatasetDigest = ""
	}
	if c.NoMLflow {
		return res, nil
	}
	var inputs []mlflow.DatasetInput
	for i, a := range algos {
		set, err := clrs.CLRS30Split(a, c.Split)
		if err != nil {
			return res, err
		}
		ds, err := splitDataset(mc.Of(a), set, digests[i], c.Split)
		if err != nil {
			return res, err
		}
		inputs = append(inputs, ds)
	}
	return res, logEval(ctx, c, res, inputs, capName(c.Limit))
}

// evalData is Eval on a data file (c.Data).
func evalData(ctx context.Context, c EvalConfig, m *nn.Model, format string) (*EvalResult, error) {
	mc := m.Config()
	fb, scored, err := ReadData(c.Data, mc)
	if err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(c.Checkpoint)
	res := &EvalResult{Config: mc, Split: "data", Samples: fb.BatchSize(), Format: format, CheckpointPath: abs, Scored: scored}
	if pos, ok := fb.Probe("pos"); ok && len(pos.Shape) == 2 {
		res.Length = pos.Shape[1]
	}
	if c.Predictions != "" {
		p, err := m.Predict(fb)
		if err != nil {
			return nil, err
		}
		arrays, err := PredictionArrays(mc, fb, p)
		if err != nil {
			return nil, err
		}
		if err := clrs.SaveArraysNPZ(c.Predictions, arrays); err != nil {
			return nil, err
		}
	}
	if !scored {
		return res, nil
	}
	if res.Scores, err = m.Evaluate([]*clrs.Feedback{fb}); err != nil {
		return nil, err
	}
	trajs, err := fb.Trajectories()
	if err != nil {
		return nil, err
	}
	digest := digestOf(trajs)
	res.DatasetDigest = digest.sum()
	if c.NoMLflow {
		return res, nil
	}
	dataAbs, _ := filepath.Abs(c.Data)
	source, _ := json.Marshal(map[string]any{"file": dataAbs, "algorithm": mc.Algorithm, "samples": digest.samples})
	profile, _ := json.Marshal(map[string]any{"samples": digest.samples, "nodes": res.Length, "hint_steps": digest.steps})
	schema, err := datasetSchema(mc)
	if err != nil {
		return res, err
	}
	ds := tracking.Dataset(fmt.Sprintf("file/%s/%s", mc.Algorithm, filepath.Base(c.Data)), digest.sum(), "local",
		string(source), schema, string(profile), "data")
	return res, logEval(ctx, c, res, []mlflow.DatasetInput{ds}, "all")
}

// logEval logs an evaluation as an MLflow run (unless c.NoMLflow): its
// params, the dataset scored as the run's input, <split>/score and each
// output's score in tables/<split>_outputs.json.
func logEval(ctx context.Context, c EvalConfig, res *EvalResult, ds []mlflow.DatasetInput, samplesParam string) error {
	if c.NoMLflow {
		return nil
	}
	mc, abs, format, scores, split := res.Config, res.CheckpointPath, res.Format, res.Scores, res.Split
	exp := c.Experiment
	if exp == "" {
		exp = tracking.DefaultExperiment("clrs-eval")
	}
	algo := strings.Join(mc.AlgorithmNames(), ",")
	params := map[string]string{"checkpoint": abs, "split": split, "samples": samplesParam,
		"algorithm": algo, "processor": mc.Processor, "hidden_size": strconv.Itoa(mc.Hidden),
		"hint_mode": mc.HintMode, "seed": strconv.FormatInt(mc.Seed, 10), "backend": c.Backend, "checkpoint_format": format}
	if params["backend"] == "" {
		params["backend"] = "default"
	}
	what := fmt.Sprintf("the first %d samples of the CLRS-30 **%s** split", res.Samples, split)
	if c.Data != "" {
		params["data"], _ = filepath.Abs(c.Data)
		what = fmt.Sprintf("the %d samples of the file `%s`", res.Samples, params["data"])
	}
	note := fmt.Sprintf("`narlab eval`: the %s `%s` (%s on %s, hidden %d) scored on %s. "+
		"Result: the metric `%s/score` (a fraction) and each output's score in `tables/%s_outputs.json`.",
		format, abs, mc.Processor, algo, mc.Hidden, what, split, split)
	if len(mc.AlgorithmNames()) > 1 {
		note += fmt.Sprintf(" A model of several algorithms: each scored on its own split, `%s/score/ALGO` each one's, `%s/score` their mean.", split, split)
	}
	opts := []tracking.Option{tracking.RunName(tracking.RunNameFor("eval", algo+"/"+mc.Processor, split)),
		tracking.Note(note), tracking.Source("narlab eval"),
		tracking.Tags(map[string]string{"clrs.algorithm": algo, "benchmark": "CLRS-30"})}
	if c.TrackingURI != "" {
		opts = append(opts, tracking.TrackingURI(c.TrackingURI))
	}
	run, err := tracking.Start(ctx, exp, params, opts...)
	if err != nil {
		return err
	}
	logErr := func() error {
		if err := run.LogInputs(ds...); err != nil {
			return err
		}
		if err := run.LogMetric(split+"/score", 0, scores["score"]); err != nil {
			return err
		}
		for _, a := range mc.AlgorithmNames() {
			if v, ok := scores["score/"+a]; ok {
				if err := run.LogMetric(split+"/score/"+a, 0, v); err != nil {
					return err
				}
			}
		}
		var rows [][]any
		for _, k := range sortedOutputs(scores) {
			rows = append(rows, []any{k, scores[k]})
		}
		return run.LogTable("tables/"+split+"_outputs.json", []string{"output", "score"}, rows)
	}()
	res.RunID, res.RunURL = run.ID(), run.URL()
	if err := run.EndWith(ctx, logErr); err != nil {
		switch {
		case logErr == nil:
			logErr = fmt.Errorf("eval: the MLflow server did not take the whole run: %w", err)
		case errors.Is(err, mlflow.ErrLost):
			logErr = fmt.Errorf("%w; and the MLflow run: %w", logErr, err)
		}
	}
	return logErr
}

func sortedOutputs(scores map[string]float64) []string {
	var out []string
	for k := range scores {
		if k != "score" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
