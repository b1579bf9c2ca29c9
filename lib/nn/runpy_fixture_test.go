package nn

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/jaxrand"
	"github.com/narlab/narlab/lib/nn/engine"
)

// The refoptions fixtures (testdata/refoptions, scripts/ref_options.py):
// dm-clrs 2.0.3's own code run with one option on; their README says what
// each field holds. This file reads them; runpy_test.go replays the
// run.py cases (several algorithms, chunked training) through narlab.

// refArray is an array of a fixture: shape, dtype and row-major data
// (float32 values in their shortest round-trip form).
type refArray struct {
	Shape []int
	Dtype string
	Data  []float64
}

// float32s is the array's data as float32.
func (a refArray) float32s() []float32 {
	out := make([]float32, len(a.Data))
	for i, x := range a.Data {
		out[i] = float32(x)
	}
	return out
}

// refDataPoint is a probe's data in a fixture's batch.
type refDataPoint struct {
	Name, Location, Type string
	Shape                []int
	Dtype                string
	Data                 []float64
}

// refBatch is a feedback of a fixture: inputs [B,…] (chunks: [C,B,…]),
// hints [T,B,…], outputs, and the lengths (or a chunk's is_first and
// is_last [C,B]).
type refBatch struct {
	Inputs, Hints, Outputs []refDataPoint
	Lengths                *refArray
	IsFirst                *refArray `json:"is_first"`
	IsLast                 *refArray `json:"is_last"`
}

// refDraw is one random draw the reference model made in a training call.
type refDraw struct {
	Use   string
	Key   jaxrand.Key
	Shape []int
	Rate  float64
	Kept  int
	P     float64
	Mask  []int
}

// runPyCall is one feedback call of a run.py case.
type runPyCall struct {
	Model        string
	Index        json.RawMessage // an algorithm index, or [length index, algorithm index] when chunked
	Key          jaxrand.Key
	Batch        refBatch
	RNG          []refDraw
	Grads        map[string]refArray
	Loss         float64
	ParamsDigest map[string][2]float64 `json:"params_digest"`
	// MPStateOut digests a chunk call's returned state: its latents' sum
	// and sum of squares, its is_first.
	MPStateOut *struct {
		Hiddens [2]float64
		IsFirst []int `json:"is_first"`
	} `json:"mp_state_out_digest"`
}

// algorithm is the call's algorithm index (the second of a chunked call's
// pair) and its length index (0 unless chunked).
func (c runPyCall) algorithm(t *testing.T) (algo, length int) {
	t.Helper()
	var pair []int
	if err := json.Unmarshal(c.Index, &pair); err == nil && len(pair) == 2 {
		return pair[1], pair[0]
	}
	if err := json.Unmarshal(c.Index, &algo); err != nil {
		t.Fatalf("call index %s: %v", c.Index, err)
	}
	return algo, 0
}

// runPyFixture is a run.py case: examples/run.py's main() with small flags.
type runPyFixture struct {
	Case  string
	Flags struct {
		Algorithms    []string
		TrainLengths  []string `json:"train_lengths"`
		LengthNeedle  int      `json:"length_needle"`
		Seed          int64
		RandomPos     bool    `json:"random_pos"`
		BatchSize     int     `json:"batch_size"`
		Chunked       bool    `json:"chunked_training"`
		ChunkLength   int     `json:"chunk_length"`
		TrainSteps    int     `json:"train_steps"`
		EvalEvery     int     `json:"eval_every"`
		HiddenSize    int     `json:"hidden_size"`
		ProcessorType string  `json:"processor_type"`
		LearningRate  float64 `json:"learning_rate"`
		// The model options (run.py's flags).
		NbHeads            int     `json:"nb_heads"`
		NbMsgPassingSteps  int     `json:"nb_msg_passing_steps"`
		NbTripletFts       int     `json:"nb_triplet_fts"`
		UseLn              bool    `json:"use_ln"`
		UseLSTM            bool    `json:"use_lstm"`
		DropoutProb        float64 `json:"dropout_prob"`
		HintTeacherForcing float64 `json:"hint_teacher_forcing"`
		HintRepredMode     string  `json:"hint_repred_mode"`
		HintMode           string  `json:"hint_mode"`
		EncoderInit        string  `json:"encoder_init"`
		FreezeProcessor    bool    `json:"freeze_processor"`
		GradClipMaxNorm    float64 `json:"grad_clip_max_norm"`
	}
	Init []struct {
		Seed   int64
		Params map[string]refArray
		// InitMPStates (chunked) per length, per algorithm: the state
		// every chunk starts from (its slice's inputs, hints, is_first).
		InitMPStates [][]struct {
			IsFirst       refArray `json:"is_first"`
			Inputs, Hints []refDataPoint
		} `json:"init_mp_states"`
	}
	Calls []runPyCall
	Evals []struct {
		Key         jaxrand.Key
		SampleCount int `json:"sample_count"`
		Score       float64
		Step        int
		Algorithm   string
	}
	Saves []struct {
		File         string
		AfterCall    int                   `json:"after_call"`
		ParamsDigest map[string][2]float64 `json:"params_digest"`
	}
}

// config is the narlab configuration of the case's model: its algorithms
// (several: Algorithms), processor, sizes and model options, as run.py's
// flags set them.
func (f *runPyFixture) config(t *testing.T) Config {
	t.Helper()
	fl := f.Flags
	cfg := DefaultConfig(fl.Algorithms[0], fl.ProcessorType)
	if len(fl.Algorithms) > 1 {
		cfg.Algorithm, cfg.Algorithms = "", fl.Algorithms
	}
	cfg.Hidden, cfg.LearningRate, cfg.GradClip = fl.HiddenSize, fl.LearningRate, fl.GradClipMaxNorm
	cfg.Heads, cfg.MsgPassingSteps, cfg.TripletFeatures = fl.NbHeads, fl.NbMsgPassingSteps, fl.NbTripletFts
	cfg.NoLayerNorm, cfg.LSTM, cfg.Dropout = !fl.UseLn, fl.UseLSTM, fl.DropoutProb
	cfg.TeacherForcing, cfg.HintRepred, cfg.EncoderInit = fl.HintTeacherForcing, fl.HintRepredMode, fl.EncoderInit
	cfg.FreezeProcessor = fl.FreezeProcessor
	if fl.HintMode != "encoded_decoded" {
		t.Fatalf("hint mode %s: the replays take run.py's encoded_decoded", fl.HintMode)
	}
	return cfg
}

// trainLengths are the case's --train_lengths.
func (f *runPyFixture) trainLengths(t *testing.T) []int {
	t.Helper()
	var out []int
	for _, s := range f.Flags.TrainLengths {
		var n int
		if _, err := fmt.Sscan(s, &n); err != nil {
			t.Fatalf("train length %q: %v", s, err)
		}
		out = append(out, n)
	}
	return out
}

func readGzipJSON(t *testing.T, path string, v any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(zr).Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func readRunPy(t *testing.T, name string) *runPyFixture {
	t.Helper()
	var fx runPyFixture
	readGzipJSON(t, filepath.Join("testdata", "refoptions", name+".json.gz"), &fx)
	if len(fx.Calls) == 0 || len(fx.Init) == 0 {
		t.Fatalf("%s: no calls or no init in the fixture", name)
	}
	return &fx
}

// feedbackOf is a fixture's batch as the feedback of algo (its probes in
// the batch's order, which is the spec's).
func feedbackOf(t *testing.T, algo string, b refBatch) *clrs.Feedback {
	t.Helper()
	fb := &clrs.Feedback{Algorithm: algo}
	conv := func(stage clrs.Stage, dps []refDataPoint) []clrs.DataPoint {
		var out []clrs.DataPoint
		for _, d := range dps {
			loc, err := clrs.ParseLocation(d.Location)
			if err != nil {
				t.Fatal(err)
			}
			typ, err := clrs.ParseType(d.Type)
			if err != nil {
				t.Fatal(err)
			}
			dt := clrs.Float64
			switch d.Dtype {
			case "int64", "int32":
				dt = clrs.Int64
			case "float32":
				dt = clrs.Float32
			}
			p := clrs.Probe{Name: d.Name, Stage: stage, Location: loc, Type: typ}
			fb.Spec = append(fb.Spec, p)
			out = append(out, clrs.DataPoint{Probe: p, Array: clrs.Array{Shape: slices.Clone(d.Shape), Data: d.Data, DType: dt}})
		}
		return out
	}
	fb.Inputs = conv(clrs.Input, b.Inputs)
	fb.Outputs = conv(clrs.Output, b.Outputs)
	fb.Hints = conv(clrs.Hint, b.Hints)
	if b.Lengths != nil {
		for _, l := range b.Lengths.Data {
			fb.Lengths = append(fb.Lengths, int(l))
		}
	}
	return fb
}

// sameData reports where two feedbacks' probes differ (nil when every
// probe has the same name, shape and values).
func sameData(got, want *clrs.Feedback) error {
	if !slices.Equal(got.Lengths, want.Lengths) {
		return fmt.Errorf("lengths %v, want %v", got.Lengths, want.Lengths)
	}
	for _, sec := range []struct {
		name string
		g, w []clrs.DataPoint
	}{{"inputs", got.Inputs, want.Inputs}, {"hints", got.Hints, want.Hints}, {"outputs", got.Outputs, want.Outputs}} {
		if len(sec.g) != len(sec.w) {
			return fmt.Errorf("%d %s, want %d", len(sec.g), sec.name, len(sec.w))
		}
		for i := range sec.g {
			g, w := sec.g[i], sec.w[i]
			if g.Name != w.Name || !slices.Equal(g.Shape, w.Shape) {
				return fmt.Errorf("%s %d: %s %v, want %s %v", sec.name, i, g.Name, g.Shape, w.Name, w.Shape)
			}
			for k := range g.Data {
				if g.Data[k] != w.Data[k] {
					return fmt.Errorf("%s %s[%d] = %v, want %v", sec.name, g.Name, k, g.Data[k], w.Data[k])
				}
			}
		}
	}
	return nil
}

// isModelParam reports whether a variable is one of the model's
// parameters (the reference's params): a trainable variable, or the
// LSTM's, which do not train; not the optimizer's state.
func isModelParam(v *model.Variable) bool {
	p := v.Path()
	return !strings.HasPrefix(p, refAdamScope+"/") && (v.Trainable || strings.HasPrefix(p, "/lstm/"))
}

// setParams sets every parameter (isModelParam) of m (a model of one or several
// algorithms) to the reference's parameter of its name, and requires that
// every reference parameter was used.
func setParams(t *testing.T, m *Model, params map[string]refArray) {
	t.Helper()
	used := map[string]bool{}
	for v := range m.store.IterVariables() {
		if !isModelParam(v) {
			continue
		}
		name, shift := referenceParamName(v.Path(), m.cfg.Processor)
		p, ok := params[name]
		if !ok {
			t.Fatalf("narlab variable %s: no reference parameter %q", v.Path(), name)
		}
		if !slices.Equal(p.Shape, v.Shape().Dimensions) {
			t.Fatalf("narlab variable %s %v: reference %s is %v", v.Path(), v.Shape().Dimensions, name, p.Shape)
		}
		vals := p.float32s()
		for i := range vals {
			vals[i] = float32(float64(vals[i]) + shift)
		}
		if err := v.SetValue(tensors.FromFlatDataAndDimensions(vals, p.Shape...)); err != nil {
			t.Fatal(err)
		}
		used[name] = true
	}
	if len(used) != len(params) {
		var missing []string
		for k := range params {
			if !used[k] {
				missing = append(missing, k)
			}
		}
		slices.Sort(missing)
		t.Fatalf("narlab has %d of the reference's %d parameters; no narlab variable for %v", len(used), len(params), missing)
	}
}

// digests are the float64 sum and sum of squares of each trainable
// variable of m, by reference name (as params_digest).
func digests(t *testing.T, m *Model) map[string][2]float64 {
	t.Helper()
	out := map[string][2]float64{}
	for v := range m.store.IterVariables() {
		if !isModelParam(v) {
			continue
		}
		name, shift := referenceParamName(v.Path(), m.cfg.Processor)
		tt, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		vals, err := tensors.CopyFlatData[float32](tt)
		if err != nil {
			t.Fatal(err)
		}
		var s, ss float64
		for _, x := range vals {
			y := float64(float32(float64(x) - shift))
			s += y
			ss += y * y
		}
		out[name] = [2]float64{s, ss}
	}
	return out
}

// snapshot copies every trainable variable's value (restore sets them
// back): the test's stand-in for best.pkl.
type snapshot map[string][]float32

func takeSnapshot(t *testing.T, m *Model) snapshot {
	t.Helper()
	out := snapshot{}
	for v := range m.store.IterVariables() {
		if !isModelParam(v) {
			continue
		}
		tt, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		vals, err := tensors.CopyFlatData[float32](tt)
		if err != nil {
			t.Fatal(err)
		}
		out[v.Path()] = vals
	}
	return out
}

func (s snapshot) restore(t *testing.T, m *Model) {
	t.Helper()
	for v := range m.store.IterVariables() {
		vals, ok := s[v.Path()]
		if !ok {
			continue
		}
		if err := v.SetValue(tensors.FromFlatDataAndDimensions(slices.Clone(vals), v.Shape().Dimensions...)); err != nil {
			t.Fatal(err)
		}
	}
}

// checkDrawKeys requires the keys a part draws for a training call given
// the call's key (drawKeys: over S steps, chunked or not) to be the
// reference's, use by use, in its order.
func checkDrawKeys(t *testing.T, call int, p *Model, key jaxrand.Key, S int, chunked bool, want []refDraw) {
	t.Helper()
	got := p.drawKeys(key, S, chunked)
	if len(got) != len(want) {
		t.Fatalf("call %d: narlab draws %d keys over %d steps, the reference %d", call, len(got), S, len(want))
	}
	for k, d := range want {
		if got[k].use != d.Use || got[k].key != d.Key {
			t.Fatalf("call %d: draw %d is %s %v, the reference's %s %v", call, k, got[k].use, got[k].key, d.Use, d.Key)
		}
	}
}

// partGradients are the gradients of a part's loss on fb (before
// clipping and Adam), by reference parameter name, its draws from key.
func partGradients(t *testing.T, p *Model, fb *clrs.Feedback, key jaxrand.Key) map[string][]float32 {
	t.Helper()
	bd, err := p.batchOf(fb)
	if err != nil {
		t.Fatal(err)
	}
	defer bd.Release()
	p.setDraws(bd, key)
	p.vars.Lock()
	_, gs, err := p.loop.LossAndGradients(bd, false)
	p.vars.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Free(gs...)
	vars := engine.BodyVariables(denseBody{p}, p.store.RootScope())
	if len(vars) != len(gs) {
		t.Fatalf("%d gradients for %d variables", len(gs), len(vars))
	}
	out := map[string][]float32{}
	for i, v := range vars {
		name, _ := referenceParamName(v.Path(), p.cfg.Processor)
		g, err := tensors.CopyFlatData[float32](gs[i])
		if err != nil {
			t.Fatal(err)
		}
		out[name] = g
	}
	return out
}

// closeTo reports whether got is within rel of want, relative to
// max(1, |want|).
func closeTo(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(1, math.Abs(want))
}
