package nn

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/pickle"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn/engine"
)

// dm-clrs checkpoints: the file dm-clrs 2.0.3's BaselineModel.save_model
// writes, pickle.dump({'params': params, 'opt_state': opt_state}), where
// params are Haiku's {module: {name: numpy array}} and opt_state is optax's
// state of the reference's optimizer chain: (EmptyState(),
// ScaleByAdamState(count, mu, nu), EmptyState()) for clip_by_global_norm,
// scale_by_adam, scale(−lr), or (ScaleByAdamState(…), EmptyState()) for
// optax.adam without clipping. restore_model reads the same file back.

// refOptaxClasses are the optimizer-state classes such a pickle
// instantiates (named tuples of optax 0.2).
var refOptaxClasses = []string{"optax._src.base.EmptyState", "optax._src.transform.ScaleByAdamState"}

const (
	refEncDecModule = "net/~_construct_encoders_decoders"
	refAdamScope    = "/AdamOptimizer" // GoMLX's Adam keeps its moments and step under it
)

// ReferenceOptions say what a dm-clrs checkpoint does not record.
type ReferenceOptions struct {
	// Algorithm and Processor, when set, must fit the checkpoint's
	// parameters; when empty they are inferred from the parameters' names
	// and shapes, and an error lists the candidates when several fit
	// (insertion_sort and bubble_sort have the same probes; MPNN, PGN and
	// Deep Sets the same parameters). Algorithm, for a checkpoint of
	// several algorithms, loads that one alone (a model of one algorithm:
	// the processor and its encoders and decoders).
	Algorithm, Processor string
	// Algorithms, for a checkpoint of several algorithms (a BaselineModel
	// of a list of specs, run.py --algorithms a,b,c), names them in order
	// (algo_0, algo_1, …): the checkpoint loads as one model of them all.
	// Empty: each is inferred, as Algorithm is.
	Algorithms []string
	// Config holds the settings a checkpoint does not record: the
	// training ones (LearningRate, GradClip, NoGradClip, TeacherForcing,
	// Seed, Dropout, FreezeProcessor, TrainLSTM, EncoderInit), the hint
	// re-prediction mode, MsgPassingSteps (it leaves no trace in the
	// parameters) and Exec. Nil: DefaultConfig's, those of dm-clrs's
	// run.py. Its Algorithm, Processor, Hidden, HintMode, Permutations,
	// PredAsInput, Heads, TripletFeatures, NoLayerNorm and LSTM are not
	// used: they come from the checkpoint (and the fields above).
	Config *Config
}

// LoadReference loads a dm-clrs checkpoint, the pickle dm-clrs 2.0.3's
// BaselineModel.save_model writes, into a new model on a backend.
//
// The algorithm, the processor, the hidden size, the hint mode
// (encode_hints and decode_hints), the permutation and pred_h
// transforms, the attention heads (nb_heads), the triplet features
// (nb_triplet_fts), the layer norm (use_ln) and the LSTM (use_lstm) are
// read from the parameters' names and shapes; opts names what they cannot
// say (see ReferenceOptions) and supplies the settings a checkpoint does
// not record (nb_msg_passing_steps among them: it leaves no trace in the
// parameters; run.py's 1 unless opts.Config says otherwise). Every narlab
// variable takes the value of its reference parameter, and every parameter
// must be used: a checkpoint of another architecture (Memnet, whose
// embedding narlab's differs from) is an error that names the parameter or
// module. Adam's state (opt_state's ScaleByAdamState: its step count and
// moments) becomes the model's optimizer state, so that training continues
// as the reference's would; the LSTM's moments, which the reference never
// updates (its parameters do not train), are not read.
//
// A checkpoint of several algorithms (algo_0_…, algo_1_…) loads as a model
// of them all (Config.Algorithms), with the same options, unless
// opts.Algorithm names one of them.
func LoadReference(backend compute.Backend, path string, opts ReferenceOptions) (*Model, error) {
	ck, err := readReference(path)
	if err != nil {
		return nil, err
	}
	cfg, index, err := ck.infer(opts)
	if err != nil {
		return nil, fmt.Errorf("nn: %s: %w", path, err)
	}
	m, err := New(backend, cfg)
	if err != nil {
		return nil, err
	}
	if err := m.setReference(ck, index); err != nil {
		m.Close()
		return nil, fmt.Errorf("nn: %s: %w", path, err)
	}
	return m, nil
}

// ensureVariables creates the model's variables (they are made when a
// program is first built) by predicting a small sample of each of its
// algorithms whose variables are not there yet.
func (m *Model) ensureVariables() error {
	for i, algo := range m.cfg.AlgorithmNames() {
		under := "/"
		if m.parts != nil {
			under = "/" + partPrefix(i) + "/"
		}
		made := false
		for v := range m.store.IterVariables() {
			if v.Trainable && strings.HasPrefix(v.Path(), under) && !strings.HasPrefix(v.Path(), refAdamScope+"/") {
				made = true
				break
			}
		}
		if made {
			continue
		}
		s, err := clrs.NewSampler(algo, clrs.Length(5), clrs.Seed(1), clrs.NumSamples(1))
		if err != nil {
			return err
		}
		fb, err := s.Dataset()
		if err != nil {
			return err
		}
		if _, err = m.Predict(fb); err != nil {
			return err
		}
	}
	return nil
}

// refVariables maps each trainable variable of the model to its reference
// parameter and the constant narlab adds to it.
func (m *Model) refVariables(index int) ([]*model.Variable, []string, []float64, error) {
	if m.proc.Reference == nil {
		why := ""
		if m.proc.NoReference != "" {
			why = ": " + m.proc.NoReference
		}
		return nil, nil, nil, fmt.Errorf("processor %s has no dm-clrs layout (dm-clrs cannot restore it; those it can: %s)%s",
			m.cfg.Processor, strings.Join(ReferenceProcessors(), ", "), why)
	}
	if err := m.ensureVariables(); err != nil {
		return nil, nil, nil, err
	}
	var vars []*model.Variable
	var names []string
	var shifts []float64
	prefix := fmt.Sprintf("/algo_%d_", index)
	for v := range m.store.IterVariables() {
		// The trainable variables, and the LSTM's, which are not (unless
		// TrainLSTM).
		if !(v.Trainable || strings.HasPrefix(v.Path(), "/lstm/")) || strings.HasPrefix(v.Path(), refAdamScope+"/") {
			continue
		}
		if strings.Count(v.Path(), "/") < 3 {
			return nil, nil, nil, fmt.Errorf("narlab variable %s has no dm-clrs counterpart", v.Path())
		}
		name, shift := referenceParamName(v.Path(), m.cfg.Processor)
		if strings.HasSuffix(name, "|") {
			return nil, nil, nil, fmt.Errorf("narlab variable %s has no dm-clrs counterpart", v.Path())
		}
		if m.parts == nil { // a model of one algorithm: the checkpoint's index-th
			name = strings.Replace(name, "/algo_0_", prefix, 1)
		}
		vars, names, shifts = append(vars, v), append(names, name), append(shifts, shift)
	}
	return vars, names, shifts, nil
}

// setReference sets the model's variables (and Adam's state) to a
// checkpoint's.
func (m *Model) setReference(ck *refCheckpoint, index int) error {
	vars, names, shifts, err := m.refVariables(index)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	for i, v := range vars {
		p, ok := ck.params[names[i]]
		if !ok {
			return fmt.Errorf("no parameter %s for narlab's %s %v", names[i], v.Path(), v.Shape().Dimensions)
		}
		if !slices.Equal(p.Shape, v.Shape().Dimensions) {
			return fmt.Errorf("parameter %s is %v where narlab's %s is %v", names[i], p.Shape, v.Path(), v.Shape().Dimensions)
		}
		if err := setFloat32(v, p, shifts[i]); err != nil {
			return err
		}
		used[names[i]] = true
	}
	own := fmt.Sprintf("%s/algo_%d_", refEncDecModule, index)
	var extra []string
	for k := range ck.params {
		other := m.parts == nil && strings.HasPrefix(k, refEncDecModule+"/algo_") && !strings.HasPrefix(k, own)
		if !used[k] && !other { // another algorithm's encoders and decoders are not this model's
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return fmt.Errorf("parameters narlab's %s/%s model has no place for: %s", strings.Join(m.cfg.AlgorithmNames(), ","), m.cfg.Processor, strings.Join(extra, ", "))
	}
	if ck.adam == nil {
		return nil
	}
	for i, v := range vars {
		if !v.Trainable {
			continue // the frozen LSTM: no moments
		}
		for _, mo := range []struct {
			suffix string
			src    map[string]*pickle.Array
		}{{"_1st_moment", ck.adam.mu}, {"_2nd_moment", ck.adam.nu}} {
			a := mo.src[names[i]]
			vals, err := a.Float32s()
			if err != nil {
				return err
			}
			t := tensors.FromFlatDataAndDimensions(vals, a.Shape...)
			if err := setVariable(m.store, refAdamScope+v.Path()+mo.suffix, t); err != nil {
				return err
			}
		}
	}
	if err := setVariable(m.store, refAdamScope+"/step", tensors.FromValue(float32(ck.adam.count))); err != nil {
		return err
	}
	return optimizer.GetGlobalStepVar(m.store).SetValue(tensors.FromValue(ck.adam.count))
}

func setFloat32(v *model.Variable, a *pickle.Array, shift float64) error {
	vals, err := a.Float32s()
	if err != nil {
		return err
	}
	if shift != 0 {
		for i := range vals {
			vals[i] = float32(float64(vals[i]) + shift)
		}
	}
	return v.SetValue(tensors.FromFlatDataAndDimensions(vals, a.Shape...))
}

// setVariable sets (creating it if needed) a non-trainable variable.
func setVariable(store *model.Store, path string, t *tensors.Tensor) error {
	if v := store.GetVariable(path); v != nil {
		return v.SetValue(t)
	}
	v, err := store.CreateVariable(path, t)
	if err != nil {
		return err
	}
	v.SetTrainable(false)
	return nil
}

// ExportReference writes the model as a dm-clrs checkpoint: the pickle
// BaselineModel.save_model writes and restore_model reads (dm-clrs 2.0.3,
// Haiku parameter names, NumPy float32 arrays), for a BaselineModel built
// with the model's settings (see docs/baselines.md, "dm-clrs
// checkpoints"). opt_state is optax's state of the reference's optimizer
// chain with the model's Adam state mapped into it (step count, first and
// second moments), so that dm-clrs continues training where narlab
// stopped; a model that has not been trained gets a fresh one (count 0,
// zero moments), as optax's init. The file is written atomically.
func (m *Model) ExportReference(path string) error {
	if m.store == nil {
		return errClosed
	}
	data, err := m.referencePickle()
	if err != nil {
		return fmt.Errorf("nn: exporting to %s: %w", path, err)
	}
	if err := fsutil.WriteFile(path, data, fsutil.DataMode); err != nil {
		return fmt.Errorf("nn: %w", err)
	}
	return nil
}

func (m *Model) referencePickle() ([]byte, error) {
	vars, names, shifts, err := m.refVariables(0)
	if err != nil {
		return nil, err
	}
	order := make([]int, len(vars))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	params, mu, nu := pickle.NewDict(), pickle.NewDict(), pickle.NewDict()
	// A moment comes from the store, which takes it from the checkpoint
	// the model was loaded from when no training program has made it yet
	// (GetVariable asks the loader). A variable the loader makes is
	// trainable; the optimizer's state is not.
	lookup := func(path string) (*tensors.Tensor, bool) {
		v := m.store.GetVariable(path)
		if v == nil {
			return nil, false
		}
		v.SetTrainable(false)
		t, err := v.Value()
		return t, err == nil
	}
	moments, trainable := 0, 0
	for _, i := range order {
		v := vars[i]
		module, name, _ := strings.Cut(names[i], "|")
		t, err := v.Value()
		if err != nil {
			return nil, err
		}
		vals, err := tensors.CopyFlatData[float32](t)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.Path(), err)
		}
		if shifts[i] != 0 {
			for k := range vals {
				vals[k] = float32(float64(vals[k]) - shifts[i])
			}
		}
		dims := v.Shape().Dimensions
		if err := setNested(params, module, name, pickle.Float32Array(dims, vals)); err != nil {
			return nil, err
		}
		if v.Trainable {
			trainable++
		}
		for _, mo := range []struct {
			suffix string
			dst    *pickle.Dict
		}{{"_1st_moment", mu}, {"_2nd_moment", nu}} {
			vals := make([]float32, v.Shape().Size()) // the frozen LSTM's stay zero, as the reference leaves them
			if t, ok := lookup(refAdamScope + v.Path() + mo.suffix); ok && v.Trainable {
				if vals, err = tensors.CopyFlatData[float32](t); err != nil {
					return nil, fmt.Errorf("%s%s: %w", v.Path(), mo.suffix, err)
				}
				moments++
			}
			if err := setNested(mo.dst, module, name, pickle.Float32Array(dims, vals)); err != nil {
				return nil, err
			}
		}
	}
	count := int32(0)
	switch {
	case moments == 0: // never trained: optax's init
	// A model of several algorithms has moments for the algorithms it
	// trained: optax's are zeros for the others, as here.
	case moments == 2*trainable, m.parts != nil:
		t, ok := lookup(refAdamScope + "/step")
		if !ok {
			return nil, errors.New("the model has Adam moments but no Adam step count")
		}
		step, err := engine.ToFloat(t)
		if err != nil {
			return nil, err
		}
		count = int32(step)
	default:
		return nil, fmt.Errorf("the model has Adam moments for only some of its %d trainable variables", trainable)
	}
	adam := &pickle.Object{Class: "optax._src.transform.ScaleByAdamState",
		Args: pickle.Tuple{pickle.Int32Array(nil, []int32{count}), mu, nu}}
	empty := func() *pickle.Object {
		return &pickle.Object{Class: "optax._src.base.EmptyState", Args: pickle.Tuple{}}
	}
	// dm-clrs's chain: clip_by_global_norm, scale_by_adam, scale(−lr);
	// without clipping optax.adam: scale_by_adam, scale_by_learning_rate.
	opt := pickle.Tuple{empty(), adam, empty()}
	if m.cfg.NoGradClip {
		opt = pickle.Tuple{adam, empty()}
	}
	top := pickle.NewDict()
	top.Set("params", params)
	top.Set("opt_state", opt)
	return pickle.Encode(top)
}

// setNested sets d[module][name] = v.
func setNested(d *pickle.Dict, module, name string, v any) error {
	inner, ok := d.Get(module)
	if !ok {
		inner = pickle.NewDict()
		if err := d.Set(module, inner); err != nil {
			return err
		}
	}
	return inner.(*pickle.Dict).Set(name, v)
}
