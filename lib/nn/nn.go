package nn

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
	"github.com/gomlx/gomlx/ml/train/optimizer"
	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/jaxrand"
	"github.com/narlab/narlab/lib/metrics"
	"github.com/narlab/narlab/lib/nn/engine"
)

// Config holds a model's hyper-parameters.
type Config struct {
	// Algorithm is the algorithm of a model of one algorithm; empty for a
	// model of several (Algorithms).
	Algorithm string `json:"algorithm"`
	// Algorithms, for a model of several algorithms (two or more, each
	// once; the reference's run.py --algorithms a,b,c, the multi-task
	// setting), lists them in order: one processor shared by all, each
	// algorithm's own encoders and decoders (variables under algo_<i>/,
	// i its position, as the reference's haiku names are). Each training
	// step ([Model.TrainStep]) is one algorithm's batch and updates the
	// processor and that algorithm's encoders and decoders only; Adam's
	// step count is shared. Empty for a model of one algorithm.
	Algorithms []string `json:"algorithms,omitempty"`
	Processor  string   `json:"processor"` // one of Processors
	Hidden     int      `json:"hidden"`    // latent size H (paper: 128)
	HintMode   string   `json:"hint_mode"` // one of HintModes
	// TeacherForcing is the probability, per sample and step, of feeding
	// the ground-truth hint instead of the model's own prediction during
	// training (encoded_decoded mode); the reference's run.py uses 0.
	TeacherForcing float64 `json:"teacher_forcing"`
	// HintRepred is how a predicted hint is fed back (one of
	// HintRepredModes): "soft" (softmax / sigmoid, gradients flow; the
	// reference's default, in training and evaluation), "hard" (argmax /
	// threshold) or "hard_on_eval" (soft in training, hard in evaluation).
	HintRepred   string  `json:"hint_repred"`
	LearningRate float64 `json:"learning_rate"`
	// GradClip is the global norm the gradients are clipped to before
	// Adam (the reference's grad_clip_max_norm), unless NoGradClip.
	GradClip float64 `json:"grad_clip"`
	// NoGradClip turns the clipping off: Adam alone (the reference with
	// grad_clip_max_norm 0).
	NoGradClip bool `json:"no_grad_clip,omitempty"`
	// Permutations makes sorting outputs (should_be_permutation) a
	// permutation pointer plus a first-element mask_one, decoded with
	// Sinkhorn iterations (the reference's enforce_permutations); without
	// it they are plain pointers.
	Permutations bool `json:"enforce_permutations"`
	// PredAsInput moves a constant pred_h hint to an input (the
	// reference's enforce_pred_as_input; clrs.PredAsInputAlgorithms).
	PredAsInput bool  `json:"enforce_pred_as_input"`
	Seed        int64 `json:"seed"` // initialisation, and the keys of training's random draws
	// The reference's other model options (run.py's flags of the same
	// names; options.go). A zero Heads, MsgPassingSteps, TripletFeatures
	// or EncoderInit is the reference's default (DefaultHeads, …).
	//
	// Heads is the number of attention heads of gat, gat_full, gatv2 and
	// gatv2_full (nb_heads; it divides Hidden).
	Heads int `json:"nb_heads,omitempty"`
	// MsgPassingSteps is the number of times the processor runs per
	// algorithm step, with the same parameters and features
	// (nb_msg_passing_steps).
	MsgPassingSteps int `json:"nb_msg_passing_steps,omitempty"`
	// TripletFeatures is the width of the triplet processors' messages
	// (nb_triplet_fts).
	TripletFeatures int `json:"nb_triplet_fts,omitempty"`
	// NoLayerNorm drops the layer norm that ends the processor's step
	// (use_ln=False).
	NoLayerNorm bool `json:"no_layer_norm,omitempty"`
	// Dropout is the rate at which training drops the processor's output
	// latents (dropout_prob; the survivors scaled by 1/(1 − rate)).
	Dropout float64 `json:"dropout_prob,omitempty"`
	// LSTM runs the processor's output through an LSTM per node (use_lstm),
	// its state carried from step to step. As in the reference, where its
	// gradients are dropped (filter_null_grads), its parameters never
	// train: they keep their initial values, unless TrainLSTM (a narlab
	// extra) trains them like the others.
	LSTM      bool `json:"use_lstm,omitempty"`
	TrainLSTM bool `json:"train_lstm,omitempty"`
	// EncoderInit is one of EncoderInits (encoder_init).
	EncoderInit string `json:"encoder_init,omitempty"`
	// FreezeProcessor keeps the processor's parameters at their initial
	// values (freeze_processor): the gradients and Adam's moments are
	// computed for all of them, as in the reference, but the processor's
	// updates are not applied.
	FreezeProcessor bool `json:"freeze_processor,omitempty"`
	// Exec is how the model runs its steps (the execution engine's
	// options: step loop or unrolled, where evaluation loops, steps a call,
	// memory budgets). It changes speed and memory, not the function
	// computed, so it is not saved with a checkpoint: Load gives the
	// defaults, and [Model.SetExecution] changes it.
	Exec engine.Options `json:"-"`
}

// HintRepredModes are the hint re-prediction modes New accepts.
var HintRepredModes = []string{"soft", "hard", "hard_on_eval"}

// DefaultProcessor is the reference's processor (examples/run.py):
// Triplet-GMPNN.
const DefaultProcessor = "triplet_gmpnn"

// DefaultConfig is the reference's setting (examples/run.py) for an
// algorithm and processor: hidden 128, Adam with learning rate 1e-3 after
// clipping the gradients' global norm to 1, hints encoded and decoded and
// fed back soft, teacher forcing 0, permutations enforced and a constant
// pred_h moved to an input. It is the one place the model's defaults are
// written: experiments/clrs30's defaults, and so narlab train's flags, are
// derived from it.
func DefaultConfig(algo, processor string) Config {
	return Config{Algorithm: algo, Processor: processor, Hidden: 128, HintMode: "encoded_decoded",
		TeacherForcing: 0, HintRepred: "soft", LearningRate: 1e-3, GradClip: 1, Permutations: true,
		PredAsInput: true, Seed: 42, Heads: DefaultHeads, MsgPassingSteps: DefaultMsgPassingSteps,
		TripletFeatures: DefaultTripletFeatures, EncoderInit: DefaultEncoderInit}
}

// Equal reports whether two configurations are the same in every field
// (Config holds a list, so == does not compile).
func (c Config) Equal(o Config) bool { return reflect.DeepEqual(c, o) }

// AlgorithmNames are the model's algorithms: Algorithms, or Algorithm
// alone.
func (c Config) AlgorithmNames() []string {
	if len(c.Algorithms) > 0 {
		return slices.Clone(c.Algorithms)
	}
	return []string{c.Algorithm}
}

// Of is the configuration of one algorithm of the model alone: its
// transforms and probes (Algorithm algo, no Algorithms).
func (c Config) Of(algo string) Config {
	c.Algorithm, c.Algorithms = algo, nil
	return c
}

// validateAlgorithms checks Algorithm and Algorithms: one algorithm, or a
// list of two or more known algorithms, each once.
func (c Config) validateAlgorithms() error {
	if len(c.Algorithms) == 0 {
		if _, ok := clrs.Specs[c.Algorithm]; !ok {
			return fmt.Errorf("nn: unknown algorithm %q", c.Algorithm)
		}
		return nil
	}
	if c.Algorithm != "" {
		return fmt.Errorf("nn: both Algorithm (%s) and Algorithms (%s) set; a model of several algorithms names them in Algorithms only",
			c.Algorithm, strings.Join(c.Algorithms, ","))
	}
	if len(c.Algorithms) < 2 {
		return fmt.Errorf("nn: Algorithms lists %d algorithm; a model of one algorithm names it in Algorithm", len(c.Algorithms))
	}
	for i, a := range c.Algorithms {
		if _, ok := clrs.Specs[a]; !ok {
			return fmt.Errorf("nn: unknown algorithm %q (Algorithms[%d])", a, i)
		}
		if slices.Index(c.Algorithms, a) != i {
			return fmt.Errorf("nn: algorithm %s listed twice in Algorithms (%s)", a, strings.Join(c.Algorithms, ","))
		}
	}
	return nil
}

func (c Config) validate() error {
	p, err := lookupProcessor(c.Processor)
	if err != nil {
		return err
	}
	if !slices.Contains(HintModes, c.HintMode) {
		return fmt.Errorf("nn: unknown hint mode %q (want one of %v)", c.HintMode, HintModes)
	}
	if !slices.Contains(HintRepredModes, c.HintRepred) {
		return fmt.Errorf("nn: unknown hint re-prediction mode %q (want one of %v)", c.HintRepred, HintRepredModes)
	}
	if c.Hidden < 1 {
		return fmt.Errorf("nn: hidden size %d; want at least 1", c.Hidden)
	}
	if c.LearningRate <= 0 || math.IsNaN(c.LearningRate) {
		return fmt.Errorf("nn: learning rate %v; want a positive number", c.LearningRate)
	}
	if !c.NoGradClip && !(c.GradClip > 0) {
		return fmt.Errorf("nn: gradient clipping norm %v; want a positive number (NoGradClip turns clipping off)", c.GradClip)
	}
	if err := c.Exec.Validate(); err != nil {
		return fmt.Errorf("nn: %w", err)
	}
	if c.TeacherForcing < 0 || c.TeacherForcing > 1 {
		return fmt.Errorf("nn: teacher forcing %v; want a probability in [0, 1]", c.TeacherForcing)
	}
	if err := c.validateAlgorithms(); err != nil {
		return err
	}
	return c.validateOptions(p)
}

// Transform applies the configuration's data transforms (Permutations,
// PredAsInput) to a feedback: every batch given to the model must be
// transformed this way (TrainStep, Predict and Evaluate do it
// themselves; it is idempotent).
func (c Config) Transform(fb *clrs.Feedback) (*clrs.Feedback, error) {
	fb, err := clrs.Permutations(fb, c.Permutations)
	if err != nil {
		return nil, err
	}
	if c.PredAsInput && slices.Contains(clrs.PredAsInputAlgorithms, fb.Algorithm) {
		if fb, err = clrs.PredAsInput(fb); err != nil {
			return nil, err
		}
	}
	return fb, nil
}

// Model is an encode-process-decode network for one algorithm, or for
// several sharing one processor (Config.Algorithms), with its variables,
// optimizer state and compiled steps.
//
// A model of several algorithms is made of parts, one per algorithm: each
// a Model of that algorithm over the same variable store, its encoders and
// decoders scoped under algo_<i>/ (prefix), its programs training the
// processor and its own encoders and decoders (engine.VariableFilter).
// The model's methods hand a batch to the part of its algorithm.
type Model struct {
	cfg     Config
	proc    Processor // the processor's definition
	spec    modelSpec
	prefix  string   // a part's scope of its encoders and decoders (algo_<i>); "" for a model of one algorithm
	parts   []*Model // a model of several algorithms: one per algorithm, in Config.Algorithms' order
	part    bool     // a part: its store is its whole model's
	backend compute.Backend
	store   *model.Store
	device  engine.Device
	trainFn *model.Exec // unrolled programs
	predFn  *model.Exec
	loop    *engine.Loop
	unroll  engine.Unrolled // the unrolled training program's compilations
	// vars is held while training programs run (they replace the
	// variables' values) and, for reading, while the unrolled program's
	// graph is built (it reads their shapes), which may happen in the
	// background while the step loop trains. The parts of a model share
	// it, as they share the variables.
	vars *sync.RWMutex
	// build is held while a program's graph is built: programs compile in
	// parallel, and building them (GoMLX's scopes and optimizer) is not
	// safe concurrently. Shared by the parts of a model.
	build *sync.Mutex
	// opt is the optimizer (GoMLX's Adam with optax's defaults, wrapped by
	// freezeProcessor when the processor is frozen); chunkFn the chunked
	// training program (chunked.go), made on first use.
	opt     engine.Optimizer
	chunkFn *model.Exec
	// hostPrep is the time TrainStep has spent preparing batches on the
	// host (converting, padding, laying out the program's arguments), in
	// nanoseconds: the benchmarks report it per step.
	hostPrep atomic.Int64
}

// New builds a model for cfg.Algorithm, or for each of cfg.Algorithms
// sharing one processor, on a backend (see [Backend]). The probe layout
// (e.g. the number of categories) is read from a small sample of each
// algorithm's sampler.
func New(backend compute.Backend, cfg Config) (*Model, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	store := model.NewStore()
	if err := store.SetRNGStateFromSeed(cfg.Seed); err != nil {
		return nil, err
	}
	store.RootScope().SetParam(paramInitSeed, cfg.Seed)
	vars, build := &sync.RWMutex{}, &sync.Mutex{}
	if len(cfg.Algorithms) == 0 {
		return newModel(backend, cfg, store, vars, build, "")
	}
	proc, _ := LookupProcessor(cfg.Processor) // validate checked it
	m := &Model{cfg: cfg, proc: proc, backend: backend, device: deviceOf(backend), store: store, vars: vars, build: build}
	for i, a := range cfg.Algorithms {
		pc := cfg
		pc.Algorithm, pc.Algorithms = a, nil
		p, err := newModel(backend, pc, store, vars, build, partPrefix(i))
		if err != nil {
			m.Close()
			return nil, err
		}
		p.part = true
		m.parts = append(m.parts, p)
	}
	return m, nil
}

// partPrefix is the scope of the encoders and decoders of a model's i-th
// algorithm: the reference's algo_<i>.
func partPrefix(i int) string { return fmt.Sprintf("algo_%d", i) }

// newModel builds the model of one algorithm (cfg.Algorithm) over store:
// a whole model (prefix "") or a part of a model of several algorithms.
func newModel(backend compute.Backend, cfg Config, store *model.Store, vars *sync.RWMutex, build *sync.Mutex, prefix string) (*Model, error) {
	s, err := clrs.NewSampler(cfg.Algorithm, clrs.Length(5), clrs.Seed(1), clrs.NumSamples(1))
	if err != nil {
		return nil, err
	}
	fb, err := s.Dataset()
	if err != nil {
		return nil, err
	}
	if fb, err = cfg.Transform(fb); err != nil {
		return nil, err
	}
	spec, err := specOf(fb)
	if err != nil {
		return nil, err
	}
	proc, _ := LookupProcessor(cfg.Processor) // validate checked it
	m := &Model{cfg: cfg, proc: proc, spec: spec, prefix: prefix, backend: backend, device: deviceOf(backend), store: store,
		vars: vars, build: build}
	// optax's scale_by_adam defaults (the reference's optimizer chain).
	var opt engine.Optimizer = optimizer.Adam().LearningRate(cfg.LearningRate).Betas(0.9, 0.999).Epsilon(1e-8).Done().(engine.Optimizer)
	if cfg.FreezeProcessor {
		opt = freezeProcessor{opt}
	}
	m.opt = opt
	m.trainFn, err = model.NewExec(backend, m.store, func(scope *model.Scope, in []*Node) *Node {
		// Built in the background (engine.Schedule.CompileUnrolled), beside
		// training steps that replace the variables' values (see vars).
		m.vars.RLock()
		defer m.vars.RUnlock()
		m.build.Lock()
		defer m.build.Unlock()
		g := in[0].Graph()
		scope.Store().SetTraining(g, true)
		gi := splitInputs(m.spec, in, m.drawLayout(), true)
		outs, hintLoss := m.forward(scope, gi, true)
		loss := m.outputLoss(outs, gi.outputs)
		if hintLoss != nil {
			loss = Add(loss, hintLoss)
		}
		grads := scope.BuildTrainableVariablesGradientsGraph(loss)
		if !cfg.NoGradClip {
			grads = engine.ClipByGlobalNorm(grads, cfg.GradClip)
		}
		opt.UpdateGraphWithGradients(scope, grads, loss.DType())
		return loss
	})
	if err != nil {
		return nil, fmt.Errorf("nn: %w", err)
	}
	m.predFn, err = model.NewExec(backend, m.store, engine.SerialBuild(m.build, func(scope *model.Scope, in []*Node) []*Node {
		gi := splitInputs(m.spec, in, m.drawLayout(), false)
		outs, _ := m.forward(scope, gi, false)
		return outs
	}))
	if err != nil {
		return nil, fmt.Errorf("nn: %w", err)
	}
	m.loop, err = engine.NewLoop(backend, m.store, denseBody{m}, opt, m.build,
		cfg.Exec.StepsPerCall, m.plan(engine.Shape{}, 0).EvalOnDevice)
	if err != nil {
		return nil, fmt.Errorf("nn: %w", err)
	}
	m.loop.SetVariablesLock(m.vars) // one-program steps compile in the background beside training steps
	return m, nil
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// errClosed is the error of a model used after Close.
var errClosed = errors.New("nn: the model is closed")

// Close releases what the model holds on its backend: its compiled train
// and predict programs (one per batch shape seen; on XLA, executables) and
// its variables. Nothing else frees the programs, so a process that builds
// models one after another (a grid of trainings, a notebook) should close
// each when done. The model cannot be used afterwards; Close is idempotent.
func (m *Model) Close() {
	if m.store == nil {
		return
	}
	for _, p := range m.parts {
		p.Close()
	}
	m.unroll.Wait() // background compilations
	if m.trainFn != nil {
		m.trainFn.Finalize()
	}
	if m.predFn != nil {
		m.predFn.Finalize()
	}
	if m.loop != nil {
		m.loop.Close()
	}
	if m.chunkFn != nil {
		m.chunkFn.Finalize()
	}
	if !m.part { // a part's store is its whole model's
		m.store.Finalize()
	}
	m.trainFn, m.predFn, m.loop, m.store, m.chunkFn = nil, nil, nil, nil, nil
}

// partOf is the part of a model of several algorithms that runs algo's
// batches; the model itself for a model of one algorithm (which checks the
// batch's algorithm itself).
func (m *Model) partOf(algo string) (*Model, error) {
	if m.parts == nil {
		return m, nil
	}
	for _, p := range m.parts {
		if p.cfg.Algorithm == algo {
			return p, nil
		}
	}
	return nil, fmt.Errorf("nn: a %s batch given to a model of %s", algo, strings.Join(m.cfg.Algorithms, ", "))
}

// Step returns the number of training steps taken (restored from a
// checkpoint): the optimizer's updates, so for a model of several
// algorithms one per algorithm's batch (the reference's Adam count);
// 0 after Close.
func (m *Model) Step() int64 {
	if m.store == nil {
		return 0
	}
	m.build.Lock() // GetGlobalStep touches the variable's metadata, as building does
	defer m.build.Unlock()
	return optimizer.GetGlobalStep(m.store)
}

// outputLoss is the sum of the output probes' losses, each averaged as
// probeLoss says.
func (m *Model) outputLoss(outs, truth []*Node) *Node {
	B := truth[0].Shape().Dimensions[0]
	ones := Ones(truth[0].Graph(), shapeF32(B))
	var loss *Node
	for i, l := range m.spec.outputs {
		sum, count := probeLoss(l, outs[i], truth[i], ones, false)
		li := Div(sum, Max(count, OnesLike(count)))
		if loss == nil {
			loss = li
		} else {
			loss = Add(loss, li)
		}
	}
	return loss
}

func shapeF32(dims ...int) shapes.Shape { return shapes.Make(dtypes.Float32, dims...) }

// batchTensors is a feedback laid out as the model's tensors: the inputs
// and outputs [B,…] in their layouts, the processor adjacency [B,N,N],
// and the hints [T,B,…], per-step validity [T,B] and one-hot of each
// sample's last processor step [S,B] as flat data, from which the unrolled
// programs take whole tensors and the step loop one step at a time.
type batchTensors struct {
	B, N, T, S      int
	hidden          int  // the model's H
	carry           int  // the width of the carry's node state (Model.carryWidth)
	nf              int  // hints fed back (encoded)
	triplets        bool // the readout holds triplet latents
	inputs, outputT []*tensors.Tensor
	adj             *tensors.Tensor
	hints           [][]float32 // [T,B,…] per hint
	hintDims        [][]int     // per hint, without T
	valid, outStep  []float32   // [T,B], [S,B]
	// hints, valid and outStep may hold fewer steps than T and S (a
	// padded batch, paddedTo): the steps past their data are zeros.
	stepCache map[[2]int]*tensors.Tensor
	// drawn says which random draws a training step of the model takes;
	// draws are this batch's (training only: Model.setDraws).
	drawn drawLayout
	draws *batchDraws
}

// newHint is a new tensor of hint i at step t (zeros past the steps the
// batch holds data for: a step with nothing to predict, weighted 0).
func (bd *batchTensors) newHint(i, t int) *tensors.Tensor {
	return stepSlice(bd.hints[i], t, bd.hintDims[i]...)
}

// stepSlice is step t of data laid out [steps, dims…], as a new tensor of
// dims: zeros past the end of data.
func stepSlice(data []float32, t int, dims ...int) *tensors.Tensor {
	size := 1
	for _, d := range dims {
		size *= d
	}
	if (t+1)*size > len(data) {
		return engine.ZeroTensor(dims...)
	}
	return tensors.FromFlatDataAndDimensions(slices.Clone(data[t*size:(t+1)*size]), dims...)
}

// zeroPadded is a new tensor of dims holding data followed by zeros.
func zeroPadded(data []float32, dims ...int) *tensors.Tensor {
	t := engine.ZeroTensor(dims...)
	tensors.MustMutableFlatData(t, func(flat []float32) { copy(flat, data) })
	return t
}

// HintAt is hint i at step t, shared: it must not be donated.
func (bd *batchTensors) HintAt(i, t int) *tensors.Tensor {
	return bd.cached(i, t, func() *tensors.Tensor { return bd.newHint(i, t) })
}

// ValidAt is [B]: 1 where step t is within the sample's trajectory.
func (bd *batchTensors) ValidAt(t int) *tensors.Tensor {
	return bd.cached(-1, t, func() *tensors.Tensor { return stepSlice(bd.valid, t, bd.B) })
}

// OutStepAt is [B]: 1 for the samples whose last processor step is s.
func (bd *batchTensors) OutStepAt(s int) *tensors.Tensor {
	return bd.cached(-2, s, func() *tensors.Tensor { return stepSlice(bd.outStep, s, bd.B) })
}

// LastSteps is [B]: each sample's last processor step.
func (bd *batchTensors) LastSteps() *tensors.Tensor {
	return bd.cached(lastStepsKey, 0, func() *tensors.Tensor { return lastStepsOf(bd.outStep, bd.B) })
}

// lastStepsKey is lastSteps' key in a batch's step cache (the others are
// hint or probe indices and steps).
const lastStepsKey = math.MinInt32

// lastStepsOf is [graphs]: for each graph g, the step s at which
// outStep [S, graphs] is 1, or -1 where it never is.
func lastStepsOf(outStep []float32, graphs int) *tensors.Tensor {
	last := make([]float32, graphs)
	for g := range last {
		last[g] = -1
	}
	for i, x := range outStep {
		if x != 0 {
			last[i%graphs] = float32(i / graphs)
		}
	}
	return tensors.FromFlatDataAndDimensions(last, graphs)
}

func (bd *batchTensors) cached(i, t int, make func() *tensors.Tensor) *tensors.Tensor {
	if bd.stepCache == nil {
		bd.stepCache = map[[2]int]*tensors.Tensor{}
	}
	k := [2]int{i, t}
	if x, ok := bd.stepCache[k]; ok {
		return x
	}
	x := make()
	bd.stepCache[k] = x
	return x
}

// The engine.Batch methods (the step loop's view of a dense batch).

func (bd *batchTensors) Steps() int { return bd.S }

func (bd *batchTensors) ShapeKey() string { return fmt.Sprintf("dense B%d N%d", bd.B, bd.N) }

func (bd *batchTensors) Static() []*tensors.Tensor {
	return append(append([]*tensors.Tensor(nil), bd.inputs...), bd.adj)
}

func (bd *batchTensors) InitialCarry() []*tensors.Tensor {
	out := []*tensors.Tensor{engine.ZeroTensor(bd.B, bd.N, bd.carry)}
	for i := 0; i < bd.nf; i++ {
		out = append(out, bd.newHint(i, 0))
	}
	return out
}

func (bd *batchTensors) ReadoutZeros() []*tensors.Tensor {
	out := []*tensors.Tensor{engine.ZeroTensor(bd.B, bd.N, 3*bd.hidden)}
	for i := 0; i < bd.nf; i++ {
		out = append(out, engine.ZeroTensor(bd.hintDims[i]...))
	}
	if bd.triplets {
		out = append(out, engine.ZeroTensor(bd.B, bd.N, bd.N, bd.hidden))
	}
	return out
}

func (bd *batchTensors) StepInputsAt(int) []*tensors.Tensor { return nil }

func (bd *batchTensors) Outputs() []*tensors.Tensor { return bd.outputT }

// Release frees the batch's tensors.
func (bd *batchTensors) Release() {
	engine.Free(bd.inputs...)
	engine.Free(bd.outputT...)
	engine.Free(bd.adj)
	for _, x := range bd.stepCache {
		engine.Free(x)
	}
}

// unrolledArgs are the unrolled programs' inputs: inputs, hints [T,B,…],
// outputs, adjacency, outStep [S,B], validity [T,B].
func (bd *batchTensors) unrolledArgs() []any {
	var out []any
	for _, t := range bd.inputs {
		out = append(out, t)
	}
	for i, h := range bd.hints {
		out = append(out, zeroPadded(h, append([]int{bd.T}, bd.hintDims[i]...)...))
	}
	for _, t := range bd.outputT {
		out = append(out, t)
	}
	return append(out, bd.adj, zeroPadded(bd.outStep, bd.S, bd.B), zeroPadded(bd.valid, bd.T, bd.B))
}

// unrolledTrainArgs are the unrolled training program's inputs: the
// unrolled programs' and the batch's draws (teacher forcing [S,B],
// dropout [S,B,N,H], the permutation outputs' noise).
func (bd *batchTensors) unrolledTrainArgs() []any {
	out := bd.unrolledArgs()
	if bd.drawn.teacher {
		out = append(out, stacked(bd.draws.teacher, bd.S, bd.B))
	}
	if bd.drawn.dropout {
		out = append(out, stacked(bd.draws.dropout, bd.S, bd.B, bd.N, bd.hidden))
	}
	for _, t := range bd.HeadDraws() {
		out = append(out, t)
	}
	return out
}

// batchOf lays a feedback out as the model's tensors.
func (m *Model) batchOf(fb *clrs.Feedback) (*batchTensors, error) {
	if fb.Algorithm != m.cfg.Algorithm {
		return nil, fmt.Errorf("nn: a %s batch given to a %s model", fb.Algorithm, m.cfg.Algorithm)
	}
	fb, err := m.cfg.Transform(fb)
	if err != nil {
		return nil, err
	}
	n, err := nodes(fb)
	if err != nil {
		return nil, err
	}
	B := fb.BatchSize()
	l := m.loopLayout()
	bd := &batchTensors{B: B, N: n, hidden: m.cfg.Hidden, carry: m.carryWidth(), nf: l.Fed, triplets: l.Extra, drawn: m.drawLayout()}
	check := func(ls []probeLayout, dps []clrs.DataPoint, what string) error {
		if len(ls) != len(dps) {
			return fmt.Errorf("nn: %s: the batch has %d %s probes, the model %d", fb.Algorithm, len(dps), what, len(ls))
		}
		for i, l := range ls {
			if dps[i].Name != l.Name {
				return fmt.Errorf("nn: %s: %s probe %d is %s, the model expects %s", fb.Algorithm, what, i, dps[i].Name, l.Name)
			}
		}
		return nil
	}
	for _, sec := range []struct {
		ls   []probeLayout
		dps  []clrs.DataPoint
		what string
	}{{m.spec.inputs, fb.Inputs, "input"}, {m.spec.hints, fb.Hints, "hint"}, {m.spec.outputs, fb.Outputs, "output"}} {
		if err := check(sec.ls, sec.dps, sec.what); err != nil {
			return nil, err
		}
	}
	for i, l := range m.spec.inputs {
		data, shape := l.dense(fb.Inputs[i], n)
		bd.inputs = append(bd.inputs, tensors.FromFlatDataAndDimensions(data, shape...))
	}
	for i, l := range m.spec.outputs {
		data, shape := l.dense(fb.Outputs[i], n)
		bd.outputT = append(bd.outputT, tensors.FromFlatDataAndDimensions(data, shape...))
	}
	// Steps after the batch's longest trajectory change nothing (their
	// hints weigh 0 and no output is read there): they are dropped. The
	// reference runs them (its batches of a split keep the whole split's
	// length).
	T := 1
	for _, l := range fb.Lengths {
		T = max(T, l)
	}
	T = min(T, max(1, fb.MaxSteps()))
	for i, l := range m.spec.hints {
		data, shape := l.dense(fb.Hints[i], n)
		if shape[0] > T {
			data = data[:len(data)/shape[0]*T]
		}
		bd.hints = append(bd.hints, data)
		bd.hintDims = append(bd.hintDims, shape[1:])
	}
	bd.adj = tensors.FromFlatDataAndDimensions(inputAdjacency(fb.Inputs, B, n), B, n, n)
	S := max(1, T-1)
	bd.T, bd.S = T, S
	bd.outStep = make([]float32, S*B)
	bd.valid = make([]float32, T*B)
	for b, l := range fb.Lengths {
		s := min(max(l-2, 0), S-1)
		bd.outStep[s*B+b] = 1
		for t := 0; t < min(l, T); t++ {
			bd.valid[t*B+b] = 1
		}
	}
	return bd, nil
}

// inputAdjacency is the processor adjacency [B,N,N] of a batch's inputs
// ([B,…]), as the reference accumulates it: identity, edge masks in both
// directions ((M + Mᵀ) > 0) and node pointers in both directions. Hints
// add theirs per step (step).
func inputAdjacency(inputs []clrs.DataPoint, B, n int) []float32 {
	adj := make([]float32, B*n*n)
	for b := 0; b < B; b++ {
		for i := 0; i < n; i++ {
			adj[(b*n+i)*n+i] = 1
		}
	}
	for _, d := range inputs {
		switch {
		case d.Location == clrs.Edge && d.Type == clrs.Mask && len(d.Shape) == 3:
			for k, v := range d.Data {
				b, i, j := k/(n*n), k/n%n, k%n
				if v+d.Data[(b*n+j)*n+i] > 0 {
					adj[k], adj[(b*n+j)*n+i] = 1, 1
				}
			}
		case d.Location == clrs.Node && kind(d.Type) == clrs.Pointer:
			for k, v := range d.Data {
				b, i, j := k/n, k%n, int(v)
				if j >= 0 && j < n {
					adj[(b*n+i)*n+j], adj[(b*n+j)*n+i] = 1, 1
				}
			}
		}
	}
	return adj
}

// TrainStep takes one optimizer step on a batch and returns its loss. Its
// random draws (teacher forcing, dropout, Gumbel noise) come from the key
// fold_in(PRNGKey(Seed), s) of its step s, the model's Step() before it
// (for a model of several algorithms, the optimizer's updates of all its
// algorithms so far).
//
// A model of several algorithms trains the part of the batch's algorithm:
// the shared processor and that algorithm's encoders and decoders, one
// optimizer update (the reference's feedback with its algorithm_index).
func (m *Model) TrainStep(fb *clrs.Feedback) (loss float64, err error) {
	if m.store == nil {
		return 0, errClosed
	}
	return m.TrainStepKey(fb, m.stepKey(m.Step()))
}

// TrainStepKey is TrainStep with the JAX key of the step's random draws
// given: the reference's feedback(rng_key) draws the same numbers from the
// same key (draws.go), a model of several algorithms in the layout of the
// batch's algorithm.
func (m *Model) TrainStepKey(fb *clrs.Feedback, key jaxrand.Key) (loss float64, err error) {
	if m.store == nil {
		return 0, errClosed
	}
	if m.parts != nil {
		p, err := m.partOf(fb.Algorithm)
		if err != nil {
			return 0, err
		}
		return p.TrainStepKey(fb, key)
	}
	engine.KeepBuffers(true)
	t0 := time.Now()
	bd, err := m.batchOf(fb)
	if err != nil {
		return 0, err
	}
	defer bd.Release()
	m.setDraws(bd, key)
	sc := m.plan(engine.Shape{Graphs: bd.B, AlgorithmSteps: bd.S, StepBytes: m.evalStepBytes(bd.N)}, m.Step())
	ubd := bd.paddedTo(sc.UnrolledSteps) // the batch as the unrolled program takes it
	m.hostPrep.Add(int64(time.Since(t0)))
	if sc.Unrolled {
		// Before the variables are locked: building the program reads them.
		if err := m.unroll.Compile(m.trainFn, ubd.unrollShapes(), ubd.S, false); err != nil {
			return 0, fmt.Errorf("nn: %w", err)
		}
	}
	if sc.Program {
		// Before the variables are locked: building the program reads them.
		if err := m.loop.CompileProgram(bd, sc.ProgramSteps, false); err != nil {
			return 0, fmt.Errorf("nn: %w", err)
		}
	}
	m.vars.Lock()
	defer m.vars.Unlock()
	if sc.Program {
		loss, _, err := m.loop.TrainProgram(bd, sc.ProgramSteps, true)
		if err == nil {
			m.unroll.CountProgram()
		}
		return loss, err
	}
	if !sc.Unrolled {
		loss, _, err := m.loop.LossAndGradients(bd, true)
		if err == nil && sc.CompileUnrolled {
			err = m.unroll.Compile(m.trainFn, ubd.unrollShapes(), ubd.S, true) // ready by UnrollFromTrainingStep, if it can be
		}
		if err == nil && sc.CompileProgram {
			err = m.loop.CompileProgram(bd, sc.ProgramSteps, true) // ready by ProgramFromTrainingStep, if it can be
		}
		if err == nil {
			m.unroll.Count(false)
		}
		return loss, err
	}
	t1 := time.Now()
	args := ubd.unrolledTrainArgs()
	m.hostPrep.Add(int64(time.Since(t1)))
	res, err := m.trainFn.Call(args...)
	if err != nil {
		return 0, fmt.Errorf("nn: train step: %w", err)
	}
	m.unroll.Count(true)
	return engine.ToFloat(res[0])
}

// Predictions are a model's outputs for a batch, per output probe, in the
// probe's own encoding: node indices for pointers (for permutation
// pointers, the argmax of each row of the Sinkhorn-normalised matrix),
// probabilities for masks, class scores for mask_one and categorical rows,
// values for scalars; Data is flat, row-major over [B, …].
type Predictions map[string][]float64

// Predict runs the model on a batch (each sample for its own number of
// steps). A batch whose evaluation would need more memory than
// the evaluation budget (see EvalBatchSize) is run in parts; the predictions
// are the same.
func (m *Model) Predict(fb *clrs.Feedback) (Predictions, error) {
	if m.store == nil {
		return nil, errClosed
	}
	if m.parts != nil {
		p, err := m.partOf(fb.Algorithm)
		if err != nil {
			return nil, err
		}
		return p.Predict(fb)
	}
	engine.KeepBuffers(false)
	fb, err := m.cfg.Transform(fb)
	if err != nil {
		return nil, err
	}
	n, err := nodes(fb)
	if err != nil {
		return nil, err
	}
	if limit := m.EvalBatchSize(n); fb.BatchSize() > limit {
		return m.predictInParts(fb, partSize(fb.BatchSize(), limit))
	}
	bd, err := m.batchOf(fb)
	if err != nil {
		return nil, err
	}
	defer bd.Release()
	var res []*tensors.Tensor
	if m.plan(engine.Shape{}, 0).EvalUnrolled {
		res, err = m.predFn.Call(bd.unrolledArgs()...)
	} else {
		res, err = m.loop.Predict(bd)
	}
	if err != nil {
		return nil, fmt.Errorf("nn: predict: %w", err)
	}
	defer engine.Free(res...)
	p := Predictions{}
	for i, l := range m.spec.outputs {
		var flat []float32
		if err := res[i].ConstFlatData(func(f any) { flat = slices.Clone(f.([]float32)) }); err != nil {
			return nil, err
		}
		dims := res[i].Shape().Dimensions
		switch kind(l.Type) {
		case clrs.Pointer, clrs.PermutationPointer:
			n := dims[len(dims)-1]
			if l.Type == clrs.PermutationPointer {
				logSinkhornHost(flat, n, 50, 0.1)
			}
			idx := make([]float64, len(flat)/n)
			for r := range idx {
				idx[r] = float64(argmax32(flat[r*n : (r+1)*n]))
			}
			p[l.Name] = idx
		case clrs.Mask:
			v := make([]float64, len(flat))
			for i, x := range flat {
				v[i] = 1 / (1 + math.Exp(-float64(x)))
			}
			p[l.Name] = v
		default:
			v := make([]float64, len(flat))
			for i, x := range flat {
				v[i] = float64(x)
			}
			p[l.Name] = v
		}
	}
	return p, nil
}

// partSize is the number of samples a part holds when a batch of b samples
// is predicted at most limit at a time: the largest divisor of b above
// half the limit (parts of one size, none padded), else the size of the
// fewest equal parts (the last one padded by predictInParts). Padding
// costs work: a 32-sample batch in parts of 6 computes 36 samples, in
// parts of 4 none wasted.
func partSize(b, limit int) int {
	for d := limit; 2*d > limit; d-- {
		if b%d == 0 {
			return d
		}
	}
	parts := (b + limit - 1) / limit
	return (b + parts - 1) / parts
}

// predictInParts predicts a batch part samples at a time and joins the
// predictions (flat over [B, …], so parts concatenate). Every part has
// part samples, the last one repeating its last sample as needed, so that
// one program shape serves them all; the repeats' predictions are dropped.
func (m *Model) predictInParts(fb *clrs.Feedback, part int) (Predictions, error) {
	out := Predictions{}
	B := fb.BatchSize()
	for lo := 0; lo < B; lo += part {
		real := min(part, B-lo)
		idx := make([]int, part)
		for i := range idx {
			idx[i] = lo + min(i, real-1)
		}
		// One copy of the part's samples; batchOf drops the steps past
		// the part's longest trajectory.
		sub, err := fb.Select(idx...)
		if err != nil {
			return nil, err
		}
		p, err := m.Predict(sub)
		if err != nil {
			return nil, err
		}
		for k, v := range p {
			out[k] = append(out[k], v[:len(v)/part*real]...)
		}
	}
	return out, nil
}

// EvalBatchSize is the largest number of graphs of n nodes that Predict
// evaluates at once: the evaluation memory budget (Config.Exec.EvalMemory)
// divided by the bytes one sample's step needs at its widest
// (evalStepBytes), as engine.Plan schedules it.
//
// For a model of several algorithms it is the smallest of its algorithms'.
func (m *Model) EvalBatchSize(n int) int {
	if m.parts != nil {
		b := math.MaxInt
		for _, p := range m.parts {
			b = min(b, p.EvalBatchSize(n))
		}
		return b
	}
	return m.plan(engine.Shape{StepBytes: m.evalStepBytes(n)}, 0).EvalGraphs
}

// evalStepBytes estimates the bytes one sample's evaluation step needs at
// its widest on graphs of n nodes: message tensors [N,N,H], what the
// processor adds (Processor.StepBytes: Triplet-GMPNN's [N,N,N,8]), the
// edge-pointer decoders' [N,N,N,H].
func (m *Model) evalStepBytes(n int) int64 {
	H := int64(m.cfg.Hidden)
	N := int64(n)
	per := 8 * N * N * H * 4 // messages, their MLP and the decoders' edge terms
	if m.proc.StepBytes != nil {
		per += m.proc.StepBytes(n, m.processorOptions())
	}
	// Edge-pointer decoders (max(pred_ij, k) over [N,N,N,H]): the hints'
	// run in the step program, the outputs' in the head.
	widest := int64(0)
	for _, ls := range [][]probeLayout{m.spec.hints, m.spec.outputs} {
		var w int64
		for _, l := range ls {
			if l.Location == clrs.Edge && kind(l.Type) == clrs.Pointer {
				w += 2 * N * N * N * H * 4
			}
		}
		widest = max(widest, w)
	}
	return per + widest
}

// logSinkhornHost is logSinkhorn without noise on the host, in place on
// [B,N,N] logits (row-major, n = N): evaluation's hard post-processing of
// permutation pointers (the reference's 50 steps at temperature 0.1).
// Run in the compiled program, its hundred reductions made the head
// program a hundred times larger and, without XLA's YNN fusions, minutes
// long to compile; here it takes a few milliseconds per batch. Values are
// kept in float64 between steps and rounded back at the end.
func logSinkhornHost(x []float32, n, steps int, temperature float64) {
	buf := make([]float64, n*n)
	for b := 0; b < len(x)/(n*n); b++ {
		m := x[b*n*n : (b+1)*n*n]
		for i := range buf {
			buf[i] = float64(m[i]) / temperature
			if i/n == i%n {
				buf[i] -= 1e6
			}
		}
		for range steps {
			for r := 0; r < n; r++ { // rows: log-softmax over the last axis
				logSoftmaxStrided(buf, r*n, 1, n)
			}
			for c := 0; c < n; c++ { // columns
				logSoftmaxStrided(buf, c, n, n)
			}
		}
		for i := range m {
			m[i] = float32(buf[i])
		}
	}
}

// logSoftmaxStrided replaces x[off], x[off+stride], … (n values) by their
// log-softmax.
func logSoftmaxStrided(x []float64, off, stride, n int) {
	mx := math.Inf(-1)
	for k := 0; k < n; k++ {
		mx = math.Max(mx, x[off+k*stride])
	}
	var sum float64
	for k := 0; k < n; k++ {
		sum += math.Exp(x[off+k*stride] - mx)
	}
	lse := mx + math.Log(sum)
	for k := 0; k < n; k++ {
		x[off+k*stride] -= lse
	}
}

func argmax32(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// Evaluate scores the model on batches pooled together, as the
// reference's evaluation: per output probe (see metrics.CLRSOutputScore)
// and their mean under "score". A permutation pointer and its NAME_mask
// are first fused into one pointer NAME, as the reference does: the node
// the mask picks points to itself, every other node to the argmax of its
// row.
//
// A model of several algorithms scores one algorithm at a time: the
// batches must all be of one of its algorithms.
func (m *Model) Evaluate(batches []*clrs.Feedback) (map[string]float64, error) {
	ev := m.newEvaluation()
	for _, fb := range batches {
		if err := ev.add(fb); err != nil {
			return nil, err
		}
	}
	return ev.scores()
}

// EvaluateTrajectories is [Model.Evaluate] on a stream of samples,
// batched batchSize at a time as they come, each batch padded to its own
// longest trajectory and dropped once predicted: the same scores as
// Evaluate on any batching of them, holding one batch at a time. With
// [clrs.SplitTrajectories] as the stream, no split is ever held whole
// (quickselect's n=64 test split, 2,048 trajectories of up to 479 steps,
// is 2.2 GB of batches padded per batch, and its trajectories as much
// again); a slice s goes in as clrs.Each(s). The first error the stream
// yields ends the evaluation and is returned.
func (m *Model) EvaluateTrajectories(trajs iter.Seq2[*clrs.Trajectory, error], batchSize int) (map[string]float64, error) {
	if batchSize < 1 {
		return nil, fmt.Errorf("nn: batch size %d: want at least 1", batchSize)
	}
	ev := m.newEvaluation()
	batch := make([]*clrs.Trajectory, 0, batchSize)
	flush := func() error {
		fb, err := clrs.Batch(batch, 0)
		if err != nil {
			return err
		}
		clear(batch) // the trajectories go as soon as they are batched
		batch = batch[:0]
		return ev.add(fb)
	}
	for t, err := range trajs {
		if err != nil {
			return nil, err
		}
		if batch = append(batch, t); len(batch) == batchSize {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if len(batch) > 0 {
		if err := flush(); err != nil {
			return nil, err
		}
	}
	return ev.scores()
}

// evaluation pools the outputs and predictions of the batches of one
// Evaluate: of one algorithm, scored by the model (or the part of a model
// of several algorithms) of that algorithm, m, set by the first batch.
type evaluation struct {
	whole       *Model
	m           *Model
	truth, pred map[string][]float64
	classes     map[string]int
}

func (m *Model) newEvaluation() *evaluation {
	return &evaluation{whole: m, truth: map[string][]float64{}, pred: map[string][]float64{}, classes: map[string]int{}}
}

// add predicts a batch and pools its outputs with the predictions.
func (ev *evaluation) add(fb *clrs.Feedback) error {
	if ev.m == nil {
		p, err := ev.whole.partOf(fb.Algorithm)
		if err != nil {
			return err
		}
		ev.m = p
	} else if ev.m.cfg.Algorithm != fb.Algorithm {
		return fmt.Errorf("nn: an evaluation of %s given a %s batch: evaluate each algorithm on its own", ev.m.cfg.Algorithm, fb.Algorithm)
	}
	m := ev.m
	fb, err := m.cfg.Transform(fb)
	if err != nil {
		return err
	}
	p, err := m.Predict(fb)
	if err != nil {
		return err
	}
	for _, l := range m.spec.outputs {
		d, _ := fb.Probe(l.Name)
		switch kind(l.Type) {
		case clrs.PermutationPointer:
			n := d.Shape[len(d.Shape)-1]
			mask, _ := fb.Probe(l.Name + "_mask")
			tr := make([]float64, len(d.Data)/n)
			for r := range tr {
				tr[r] = float64(argmax64(d.Data[r*n : (r+1)*n]))
			}
			pr := slices.Clone(p[l.Name])
			pm := p[l.Name+"_mask"]
			for b := 0; b < len(tr)/n; b++ {
				sel := argmax64(pm[b*n : (b+1)*n])
				pr[b*n+sel] = float64(sel)
				for i := 0; i < n; i++ {
					if mask.Data[b*n+i] > 0.5 {
						tr[b*n+i] = float64(i)
					}
				}
			}
			ev.truth[l.Name] = append(ev.truth[l.Name], tr...)
			ev.pred[l.Name] = append(ev.pred[l.Name], pr...)
			continue
		case clrs.Categorical, clrs.MaskOne:
			ev.classes[l.Name] = d.Shape[len(d.Shape)-1]
		}
		ev.truth[l.Name] = append(ev.truth[l.Name], d.Data...)
		ev.pred[l.Name] = append(ev.pred[l.Name], p[l.Name]...)
	}
	return nil
}

// scores scores the pooled batches.
func (ev *evaluation) scores() (map[string]float64, error) {
	m := ev.m
	if m == nil {
		return nil, errors.New("nn: nothing to evaluate (no batches)")
	}
	scores := map[string]float64{}
	for _, l := range m.spec.outputs {
		if m.fusedMask(l) {
			continue
		}
		typ := kind(l.Type)
		if typ == clrs.PermutationPointer {
			typ = clrs.Pointer
		}
		s, err := metrics.CLRSOutputScore(typ.String(), ev.truth[l.Name], ev.pred[l.Name], ev.classes[l.Name])
		if err != nil {
			return nil, fmt.Errorf("nn: scoring %s: %w", l.Name, err)
		}
		scores[l.Name] = s
	}
	scores["score"] = metrics.CLRSScore(scores)
	return scores, nil
}

// fusedMask reports whether an output is the NAME_mask of a permutation
// pointer NAME (scored fused with it).
func (m *Model) fusedMask(l probeLayout) bool {
	if l.Type != clrs.MaskOne {
		return false
	}
	for _, o := range m.spec.outputs {
		if o.Type == clrs.PermutationPointer && o.Name+"_mask" == l.Name {
			return true
		}
	}
	return false
}

func argmax64(x []float64) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

const configFile = "nn_config.json"

// Save writes the model's variables and optimizer state as a checkpoint
// in dir (GoMLX's format), with its configuration in nn_config.json. The
// checkpoint is written beside dir and moved into place, so a crash never
// leaves a half-written one.
func (m *Model) Save(dir string) error { return m.SaveWith(dir, nil) }

// SaveWith is Save with extra files (name → content) written into the
// checkpoint directory, so that they appear together with it or not at all
// (a training loop's state beside the parameters it describes).
func (m *Model) SaveWith(dir string, files map[string][]byte) error {
	if m.store == nil {
		return errClosed
	}
	dir = filepath.Clean(dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("nn: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-*")
	if err != nil {
		return fmt.Errorf("nn: %w", err)
	}
	defer os.RemoveAll(tmp)
	// MkdirTemp makes 0700 directories; a checkpoint is data (0755 less the umask).
	if err := os.Chmod(tmp, fsutil.DirMode&^fsutil.Umask()); err != nil {
		return fmt.Errorf("nn: %w", err)
	}
	data, _ := json.MarshalIndent(m.cfg, "", "  ")
	if err := fsutil.WriteFile(filepath.Join(tmp, configFile), append(data, '\n'), fsutil.DataMode); err != nil {
		return fmt.Errorf("nn: %w", err)
	}
	for name, data := range files {
		if name != filepath.Base(name) || name == configFile {
			return fmt.Errorf("nn: checkpoint file name %q", name)
		}
		if err := fsutil.WriteFile(filepath.Join(tmp, name), data, fsutil.DataMode); err != nil {
			return fmt.Errorf("nn: %w", err)
		}
	}
	prev := m.store.Loader()
	h, err := checkpoint.Build(m.store).Dir(tmp).Keep(1).Done()
	if err != nil {
		return fmt.Errorf("nn: checkpoint %s: %w", dir, err)
	}
	err = h.Save()
	m.store.SetLoader(prev)
	if err != nil {
		return fmt.Errorf("nn: saving checkpoint %s: %w", dir, err)
	}
	old := dir + ".old"
	os.RemoveAll(old)
	if _, err := os.Stat(dir); err == nil {
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("nn: %w", err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("nn: %w", err)
	}
	os.RemoveAll(old)
	return nil
}

// Load restores a model saved with Save.
func Load(backend compute.Backend, dir string) (*Model, error) {
	data, err := os.ReadFile(filepath.Join(dir, configFile))
	if err != nil {
		return nil, fmt.Errorf("nn: %s is not a narlab checkpoint: %w", dir, err)
	}
	var cfg Config
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("nn: %s: %w", configFile, err)
	}
	m, err := New(backend, cfg)
	if err != nil {
		return nil, err
	}
	// Not Immediate(): in gomlx v0.28.2 that path looks variables up by
	// their checkpoint key and so never overwrites one that exists already,
	// such as the random-number state New seeded (Gumbel noise): the lazy
	// loader overwrites existing variables and loads the others as the
	// graphs create them, which makes a resume exact.
	if _, err := checkpoint.Build(m.store).Dir(dir).Keep(2).Done(); err != nil {
		return nil, fmt.Errorf("nn: loading checkpoint %s: %w", dir, err)
	}
	return m, nil
}
