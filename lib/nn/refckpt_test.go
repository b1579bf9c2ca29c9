package nn

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/narlab/narlab/internal/pickle"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/jaxrand"
)

// refRun is what scripts/dmclrs_checkpoint.py writes: what dm-clrs's
// BaselineModel does with a checkpoint (one it saved, or one it restored)
// on the CLRS-30 train sampler's batches after the checkpoint's training
// batches: its outputs on the next batch (the decoders' raw outputs and
// predict's hard predictions), clrs.evaluate's scores of them and the
// losses of its next two training steps.
type refRun struct {
	Mode, Algorithm, Processor string
	Hidden, Batch, Steps       int
	Seed                       int64
	Options                    *refRunOptions // the model options (nil: run.py's defaults)
	Outputs                    map[string]refOutput
	Scores                     map[string]float64
	Losses                     []float64
	// AfterKeys are the keys of the training steps after the checkpoint
	// (nil in the fixtures made before the script recorded them).
	AfterKeys []jaxrand.Key `json:"after_keys"`
}

// refRunOptions are the script's model options (run.py's names).
type refRunOptions struct {
	NbHeads            int     `json:"nb_heads"`
	NbMsgPassingSteps  int     `json:"nb_msg_passing_steps"`
	NbTripletFts       int     `json:"nb_triplet_fts"`
	UseLn              bool    `json:"use_ln"`
	UseLSTM            bool    `json:"use_lstm"`
	DropoutProb        float64 `json:"dropout_prob"`
	EncoderInit        string  `json:"encoder_init"`
	FreezeProcessor    bool    `json:"freeze_processor"`
	HintRepredMode     string  `json:"hint_repred_mode"`
	HintTeacherForcing float64 `json:"hint_teacher_forcing"`
}

// config is the narlab configuration of the script's model.
func (r *refRun) config() Config {
	cfg := DefaultConfig(r.Algorithm, r.Processor)
	cfg.Hidden = r.Hidden
	if o := r.Options; o != nil {
		cfg.Heads, cfg.MsgPassingSteps, cfg.TripletFeatures = o.NbHeads, o.NbMsgPassingSteps, o.NbTripletFts
		cfg.NoLayerNorm, cfg.LSTM, cfg.Dropout, cfg.EncoderInit = !o.UseLn, o.UseLSTM, o.DropoutProb, o.EncoderInit
		cfg.FreezeProcessor, cfg.HintRepred, cfg.TeacherForcing = o.FreezeProcessor, o.HintRepredMode, o.HintTeacherForcing
	}
	return cfg.withDefaults()
}

// optionsOf is a configuration's model options in a line.
func optionsOf(c Config) string {
	c = c.withDefaults()
	return fmt.Sprintf("heads %d, steps %d, triplets %d, no ln %v, lstm %v, dropout %v, encoder init %s, freeze %v, repred %s, teacher %v",
		c.Heads, c.MsgPassingSteps, c.TripletFeatures, c.NoLayerNorm, c.LSTM, c.Dropout, c.EncoderInit, c.FreezeProcessor,
		c.HintRepred, c.TeacherForcing)
}

// scriptArgs are the script's flags for a configuration's model options.
func scriptArgs(c Config) []string {
	c = c.withDefaults()
	args := []string{"--nb-heads", fmt.Sprint(c.Heads), "--nb-msg-passing-steps", fmt.Sprint(c.MsgPassingSteps),
		"--nb-triplet-fts", fmt.Sprint(c.TripletFeatures), "--dropout-prob", fmt.Sprint(c.Dropout), "--encoder-init", c.EncoderInit,
		"--hint-repred-mode", c.HintRepred, "--hint-teacher-forcing", fmt.Sprint(c.TeacherForcing)}
	for flag, on := range map[string]bool{"--no-ln": c.NoLayerNorm, "--use-lstm": c.LSTM, "--freeze-processor": c.FreezeProcessor} {
		if on {
			args = append(args, flag)
		}
	}
	return args
}

type refOutput struct {
	Type, Location string
	Shape          []int
	Raw, Hard      []float64
}

func readRefRun(t *testing.T, path string) *refRun {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r refRun
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &r
}

// refRunBatches draws the batches the script draws from the train split's
// sampler: the run's training batches, the evaluated batch and two more.
func refRunBatches(t *testing.T, r *refRun) (train []*clrs.Feedback, eval *clrs.Feedback, after []*clrs.Feedback) {
	t.Helper()
	s, err := clrs.NewSplitSampler(r.Algorithm, "train")
	if err != nil {
		t.Fatal(err)
	}
	next := func() *clrs.Feedback {
		fb, err := s.Next(r.Batch)
		if err != nil {
			t.Fatal(err)
		}
		return fb
	}
	for range r.Steps {
		train = append(train, next())
	}
	eval = next()
	return train, eval, []*clrs.Feedback{next(), next()}
}

// Tolerances: float32 programs of two frameworks (XLA CPU under JAX; GoMLX's
// backends) round differently; a logit compares to within logitTol·max(1,
// |x|), and a hard prediction is compared wherever the reference's own
// logits do not tie within tieMargin (rows closer than that may fall either
// way under rounding).
//
// A few outputs of a long trajectory amplify that rounding: in
// kmp_matcher/GATv2's run (hidden 8, 20 steps, batch 4) one logit of the
// shortest sample moves by 2.4e-5 in the reference itself when that sample
// is predicted alone instead of in its batch (3e-6 under
// XLA_FLAGS=--xla_cpu_max_isa=SSE4_2), where the others move by at most
// 1e-6, and narlab's differs from the reference's there by 3.2e-4 on either
// backend. So up to one value in rareShare may differ by up to outlierTol
// (a parameter read wrongly moves every value, by far more).
const (
	logitTol   = 2e-4
	outlierTol = 2e-3
	rareShare  = 32
	tieMargin  = 1e-3
	lossTol    = 3e-5 // TestReferenceTrainingSteps' tolerance
)

// nearMostly is near for outputs compared with the reference: every value
// within outlierTol·max(1, |want|), all but one in rareShare (rounded up)
// within tol·max(1, |want|).
func nearMostly(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	near(t, what, got, want, outlierTol)
	var far []string
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol*math.Max(1, math.Abs(want[i])) {
			far = append(far, fmt.Sprintf("[%d] = %v, want %v", i, got[i], want[i]))
		}
	}
	if allowed := (len(got) + rareShare - 1) / rareShare; len(far) > allowed {
		t.Errorf("%s: %d of %d values beyond %g (at most %d may be): %s", what, len(far), len(got), tol, allowed, strings.Join(far, ", "))
	}
}

// compareWithReference checks that m does on the run's batches what the
// reference did: the same raw outputs, the same hard predictions, the same
// scores and the same losses on the next two training steps — the second
// after an optimizer step that starts from the checkpoint's Adam state —
// given the reference's keys (without them, in fixtures made before the
// script recorded them, only for models whose training draws nothing:
// permutation outputs draw Gumbel noise). It trains m.
func compareWithReference(t *testing.T, m *Model, r *refRun, eval *clrs.Feedback, after []*clrs.Feedback) {
	t.Helper()
	if compareOutputs(t, m, r, eval) && r.AfterKeys == nil {
		t.Logf("losses not compared: training a permutation output draws Gumbel noise, and the run has no keys")
		return
	}
	for i, fb := range after {
		var got float64
		var err error
		if r.AfterKeys != nil {
			got, err = m.TrainStepKey(fb, r.AfterKeys[i])
		} else {
			got, err = m.TrainStep(fb)
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := r.Losses[i]; math.Abs(got-want) > lossTol*math.Max(1, math.Abs(want)) {
			t.Errorf("training step %d after the checkpoint: loss %.7f, the reference's %.7f", i+1, got, want)
		}
	}
}

// compareOutputs checks that m predicts and scores eval as the reference
// did (compareWithReference) and reports whether an output is a
// permutation (whose training draws Gumbel noise).
func compareOutputs(t *testing.T, m *Model, r *refRun, eval *clrs.Feedback) (gumbel bool) {
	t.Helper()
	p, err := m.Predict(eval)
	if err != nil {
		t.Fatal(err)
	}
	compared, ties := 0, 0
	for _, name := range slices.Sorted(mapKeys(r.Outputs)) {
		o := r.Outputs[name]
		got, ok := p[name]
		if !ok {
			t.Errorf("narlab predicts no %s", name)
			continue
		}
		n := o.Shape[len(o.Shape)-1]
		switch o.Type {
		case "pointer", "permutation_pointer", "mask_one", "categorical":
			// narlab: node or class indices (pointers), scores (mask_one,
			// categorical); the reference: raw logits over the last axis and
			// predict's hard choice.
			gumbel = gumbel || o.Type == "permutation_pointer"
			rows := len(o.Raw) / n
			if o.Type == "mask_one" || o.Type == "categorical" {
				nearMostly(t, name+" logits", got, o.Raw, logitTol)
			}
			for row := range rows {
				mine := int(got[row])
				if o.Type == "mask_one" || o.Type == "categorical" {
					mine = argmax64(got[row*n : (row+1)*n])
				}
				if o.Type == "permutation_pointer" {
					// The raw output is the decoder's 10-step log-Sinkhorn
					// matrix; predict (and narlab's evaluation) run 50 more
					// steps (decoders.postprocess) and pick from that.
					if mine != int(o.Hard[row]) {
						t.Errorf("%s row %d: narlab picks %d, the reference's predict %v", name, row, mine, o.Hard[row])
					}
					compared++
					continue
				}
				raw := o.Raw[row*n : (row+1)*n]
				best, margin := top2(raw)
				if margin < tieMargin {
					ties++
					continue
				}
				if mine != best {
					t.Errorf("%s row %d: narlab picks %d, the reference's logits %d (margin %.4g)", name, row, mine, best, margin)
				}
				if int(o.Hard[row]) != best {
					t.Errorf("%s row %d: the reference's predict picks %v, its logits %d", name, row, o.Hard[row], best)
				}
				compared++
			}
		case "mask":
			want := make([]float64, len(o.Raw))
			for i, x := range o.Raw {
				want[i] = 1 / (1 + math.Exp(-x))
				if math.Abs(x) > tieMargin && (got[i] > 0.5) != (o.Hard[i] > 0.5) {
					t.Errorf("%s[%d]: narlab %.4f, the reference predicts %v", name, i, got[i], o.Hard[i])
				}
			}
			nearMostly(t, name+" probabilities", got, want, logitTol)
			compared += len(want)
		case "scalar":
			nearMostly(t, name, got, o.Raw, logitTol)
			compared += len(got)
		default:
			t.Fatalf("%s: output type %s", name, o.Type)
		}
	}
	t.Logf("%d predictions compared, %d rows within a tie skipped", compared, ties)
	if ties*20 > compared {
		t.Errorf("%d ties of %d rows: a fixture with fewer ties is needed", ties, compared)
	}
	sc, err := m.Evaluate([]*clrs.Feedback{eval})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range r.Scores {
		if math.Abs(sc[name]-want) > 1e-6 {
			t.Errorf("score %s: narlab %.6f, the reference %.6f", name, sc[name], want)
		}
	}
	return gumbel
}

// top2 returns the index of the largest value and its lead over the
// second largest.
func top2(x []float64) (int, float64) {
	best := argmax64(x)
	second := math.Inf(-1)
	for i, v := range x {
		if i != best && v > second {
			second = v
		}
	}
	return best, x[best] - second
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// refFixtureOptions names what each fixture's parameters cannot say.
var refFixtureOptions = map[string]ReferenceOptions{
	"insertion_sort-triplet_gmpnn": {Algorithm: "insertion_sort", Processor: "triplet_gmpnn"}, // bubble_sort has the same probes
	"bfs-mpnn":                     {Processor: "mpnn"},
	"kmp_matcher-gat":              {Processor: "gat"}, // gat_full has the same parameters
	// The model options: those the parameters cannot say given in Config.
	"bfs-gat_full-heads2-noln-mp2":       {Processor: "gat_full", Config: refConfig(func(c *Config) { c.MsgPassingSteps = 2 })},
	"dijkstra-gatv2-heads4-hard_on_eval": {Processor: "gatv2", Config: refConfig(func(c *Config) { c.HintRepred = "hard_on_eval" })},
	"bfs-triplet_gmpnn-tri4-lstm":        {Processor: "triplet_gmpnn"},
	"dijkstra-mpnn-dropout0.1-freeze": {Processor: "mpnn", Config: refConfig(func(c *Config) {
		c.Dropout, c.FreezeProcessor, c.EncoderInit = 0.1, true, "default"
	})},
}

// refConfig is run.py's configuration with some settings changed.
func refConfig(change func(c *Config)) *Config {
	c := DefaultConfig("", DefaultProcessor)
	change(&c)
	return &c
}

// TestLoadReferenceCheckpoint loads checkpoints dm-clrs saved
// (testdata/refckpt, made by scripts/dmclrs_checkpoint.py --save after a
// few training steps from dm-clrs's own initialisation) and requires
// narlab to do with them what dm-clrs did (compareWithReference): a
// permutation output and its mask_one (insertion_sort, Triplet-GMPNN), a
// node pointer over a graph (bfs, MPNN), and a mask_one output with graph
// masks and a constant pred_h moved to an input (kmp_matcher, GAT, whose
// configuration but the processor, gat or gat_full, is inferred from the
// parameters).
func TestLoadReferenceCheckpoint(t *testing.T) {
	files, err := filepath.Glob("testdata/refckpt/*.pkl")
	if err != nil || len(files) < len(refFixtureOptions) {
		t.Fatalf("want the %d reference checkpoints in testdata/refckpt, found %d (%v)", len(refFixtureOptions), len(files), err)
	}
	for name, be := range testBackends(t) {
		for _, f := range files {
			fixture := strings.TrimSuffix(filepath.Base(f), ".pkl")
			if strings.HasPrefix(fixture, "multi-") {
				continue // several algorithms: TestLoadReferenceSeveralAlgorithms
			}
			if name != "go" && fixture != "bfs-mpnn" {
				continue // XLA: one fixture keeps its path checked
			}
			t.Run(name+"/"+fixture, func(t *testing.T) {
				r := readRefRun(t, strings.TrimSuffix(f, ".pkl")+".json")
				opts, ok := refFixtureOptions[fixture]
				if !ok {
					t.Fatalf("no options for fixture %s", fixture)
				}
				m, err := LoadReference(be, f, opts)
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				cfg := m.Config()
				want := r.config()
				if !slices.Contains(clrs.PredAsInputAlgorithms, r.Algorithm) {
					want.PredAsInput = cfg.PredAsInput // no effect either way
				}
				if !cfg.Equal(want) {
					t.Errorf("config %+v, want %+v", cfg, want)
				}
				if got := m.Step(); got != int64(r.Steps) {
					t.Errorf("step %d after loading, want the checkpoint's Adam count %d", got, r.Steps)
				}
				_, eval, after := refRunBatches(t, r)
				compareWithReference(t, m, r, eval, after)
			})
		}
	}
}

// TestReferenceInference: what the parameters say, what they cannot, and
// the errors that name the difference.
func TestReferenceInference(t *testing.T) {
	load := func(t *testing.T, f string) *refCheckpoint {
		ck, err := readReference("testdata/refckpt/" + f + ".pkl")
		if err != nil {
			t.Fatal(err)
		}
		return ck
	}
	cases := []struct {
		name, fixture string
		opts          ReferenceOptions
		edit          func(map[string]*pickle.Array)
		want          string // the config ("algorithm/processor/hidden/hint mode/perm/pai") or an error's words
	}{
		{"pgn family needs the processor", "bfs-mpnn", ReferenceOptions{}, nil,
			"fit deepsets, mpnn, pgn, pgn_mask"},
		{"bfs inferred", "bfs-mpnn", ReferenceOptions{Processor: "pgn"}, nil,
			"bfs/pgn/8/encoded_decoded/true/true"},
		{"triplets and gates counted", "insertion_sort-triplet_gmpnn", ReferenceOptions{}, nil,
			"fit triplet_gmpnn, triplet_gpgn, triplet_gpgn_mask"},
		{"same probes, two algorithms", "insertion_sort-triplet_gmpnn", ReferenceOptions{Processor: "triplet_gpgn_mask"}, nil,
			"fit several algorithms (bubble_sort, insertion_sort)"},
		{"named algorithm", "insertion_sort-triplet_gmpnn", ReferenceOptions{Algorithm: "bubble_sort", Processor: "triplet_gmpnn"}, nil,
			"bubble_sort/triplet_gmpnn/8/encoded_decoded/true/true"},
		{"permutations off", "insertion_sort-triplet_gmpnn", ReferenceOptions{Algorithm: "insertion_sort", Processor: "triplet_gmpnn"},
			func(p map[string]*pickle.Array) { drop(p, "algo_0_pred_mask_dec") },
			"insertion_sort/triplet_gmpnn/8/encoded_decoded/false/true"},
		{"gat family needs the processor", "kmp_matcher-gat", ReferenceOptions{}, nil, "fit gat, gat_full"},
		{"gat and pred_h as input inferred", "kmp_matcher-gat", ReferenceOptions{Processor: "gat"}, nil,
			"kmp_matcher/gat/8/encoded_decoded/true/true/h1/t8/ln/nolstm"},
		{"pred_h kept a hint", "kmp_matcher-gat", ReferenceOptions{Processor: "gat_full"},
			func(p map[string]*pickle.Array) {
				// enforce_pred_as_input renames the hint pred_h to the input pred.
				rename(p, "algo_0_pred_enc", "algo_0_pred_h_enc")
				p[refEncDecModule+"/algo_0_pred_h_dec_linear|w"] = p[refEncDecModule+"/algo_0_match_dec_linear|w"]
			}, "kmp_matcher/gat_full/8/encoded_decoded/true/false"},
		{"decoded-only hints", "bfs-mpnn", ReferenceOptions{Processor: "mpnn"},
			func(p map[string]*pickle.Array) { drop(p, "algo_0_reach_h_enc", "algo_0_pi_h_enc") },
			"bfs/mpnn/8/decoded_only/true/true"},
		{"no hints: several algorithms", "bfs-mpnn", ReferenceOptions{Processor: "mpnn"},
			func(p map[string]*pickle.Array) { drop(p, "_h_enc", "_h_dec") },
			"fit several algorithms (bellman_ford, bfs, dag_shortest_paths, dijkstra, mst_prim)"},
		{"no hints", "bfs-mpnn", ReferenceOptions{Algorithm: "bfs", Processor: "mpnn"},
			func(p map[string]*pickle.Array) { drop(p, "_h_enc", "_h_dec") },
			"bfs/mpnn/8/none/true/true"},
		{"wrong processor", "bfs-mpnn", ReferenceOptions{Processor: "gat"}, nil,
			"are those of deepsets, mpnn, pgn, pgn_mask, not gat"},
		{"unknown processor", "bfs-mpnn", ReferenceOptions{Processor: "transformer"}, nil, `unknown processor "transformer"`},
		{"wrong algorithm", "bfs-mpnn", ReferenceOptions{Algorithm: "dfs", Processor: "mpnn"}, nil,
			"do not fit dfs under narlab's hint modes"},
		{"unknown algorithm", "bfs-mpnn", ReferenceOptions{Algorithm: "bogosort", Processor: "mpnn"}, nil, `unknown algorithm "bogosort"`},
		{"hints encoded, not decoded", "bfs-mpnn", ReferenceOptions{Processor: "mpnn"},
			func(p map[string]*pickle.Array) { drop(p, "_h_dec") }, "do not fit any algorithm narlab has"},
		{"an unknown module", "bfs-mpnn", ReferenceOptions{Processor: "mpnn"},
			func(p map[string]*pickle.Array) { p["net/lstm|w"] = p["net/mpnn_aggr_clrs_processor/linear|w"] },
			"net/lstm|w belongs to no part of narlab's model"},
		{"an LSTM", "bfs-mpnn", ReferenceOptions{Processor: "mpnn"},
			func(p map[string]*pickle.Array) {
				p[refLSTMModule+"/linear|w"] = p["net/mpnn_aggr_clrs_processor/linear|w"]
				p[refLSTMModule+"/linear|b"] = p["net/mpnn_aggr_clrs_processor/linear|b"]
			}, "bfs/mpnn/8/encoded_decoded/true/true/h1/t8/ln/lstm"},
		{"memnet", "bfs-mpnn", ReferenceOptions{},
			func(p map[string]*pickle.Array) { rename(p, "mpnn_aggr_clrs_processor", "memnet_clrs_processor") },
			"processor module memnet_clrs_processor: no narlab processor restores it"},
		{"no layer norm", "bfs-mpnn", ReferenceOptions{Processor: "mpnn"},
			func(p map[string]*pickle.Array) { drop(p, "layer_norm") }, "bfs/mpnn/8/encoded_decoded/true/true/h1/t8/noln"},
		{"triplet features read", "insertion_sort-triplet_gmpnn", ReferenceOptions{Algorithm: "insertion_sort", Processor: "triplet_gmpnn"}, nil,
			"insertion_sort/triplet_gmpnn/8/encoded_decoded/true/true/h1/t8/ln"},
		{"two algorithms, the same", "bfs-mpnn", ReferenceOptions{Processor: "mpnn"},
			func(p map[string]*pickle.Array) { rename(p, "algo_0_", "algo_1_", "algo_0_") },
			"algo_0 and algo_1 are both bfs"},
		{"two algorithms, one without hints", "bfs-mpnn", ReferenceOptions{Processor: "mpnn", Algorithms: []string{"bfs", "dfs"}},
			func(p map[string]*pickle.Array) { rename(p, "algo_0_", "algo_1_", "algo_0_") },
			"algo_1 (encoders A,adj,pi_h,pos,reach_h,s; decoders pi,pi_h,reach_h) fits no algorithm named: dfs"},
		{"two algorithms, three named", "bfs-mpnn", ReferenceOptions{Processor: "mpnn", Algorithms: []string{"bfs", "dfs", "bfs"}},
			func(p map[string]*pickle.Array) { rename(p, "algo_0_", "algo_1_", "algo_0_") },
			"it holds 2 algorithms; 3 named"},
		{"two algorithms, both ways", "bfs-mpnn", ReferenceOptions{Algorithm: "bfs", Algorithms: []string{"bfs", "dfs"}, Processor: "mpnn"},
			nil, "both ReferenceOptions.Algorithm (load one algorithm) and Algorithms"},
		{"two algorithms, one named", "bfs-mpnn", ReferenceOptions{Algorithm: "bfs", Processor: "mpnn"},
			func(p map[string]*pickle.Array) { rename(p, "algo_0_", "algo_1_", "algo_0_") },
			"it holds several algorithms"},
		{"seven PGN linears", "bfs-mpnn", ReferenceOptions{Processor: "mpnn"},
			func(p map[string]*pickle.Array) {
				p["net/mpnn_aggr_clrs_processor/linear_6|w"] = p["net/mpnn_aggr_clrs_processor/linear|w"]
			}, "a processor of module mpnn_aggr_clrs_processor with 7 linear layers"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ck := load(t, c.fixture)
			if c.edit != nil {
				c.edit(ck.params)
			}
			cfg, _, err := ck.infer(c.opts)
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				ln, lstm := "ln", "nolstm"
				if cfg.NoLayerNorm {
					ln = "noln"
				}
				if cfg.LSTM {
					lstm = "lstm"
				}
				got = strings.Join([]string{strings.Join(cfg.AlgorithmNames(), ","), cfg.Processor, itoa(cfg.Hidden), cfg.HintMode,
					btoa(cfg.Permutations), btoa(cfg.PredAsInput), "h" + itoa(cfg.Heads), "t" + itoa(cfg.TripletFeatures), ln, lstm}, "/")
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func btoa(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// drop deletes the parameters whose key contains any of the parts.
func drop(p map[string]*pickle.Array, parts ...string) {
	for k := range p {
		for _, s := range parts {
			if strings.Contains(k, s) {
				delete(p, k)
			}
		}
	}
}

// rename replaces old by new in every key; with keep, also keeps the
// parameters whose keys contain keep (a copy).
func rename(p map[string]*pickle.Array, old, new string, keep ...string) {
	for _, k := range slices.Collect(mapKeys(p)) {
		if !strings.Contains(k, old) {
			continue
		}
		p[strings.Replace(k, old, new, 1)] = p[k]
		if len(keep) == 0 {
			delete(p, k)
		}
	}
}

// TestLoadReferenceErrors: files that are not dm-clrs checkpoints, torn
// ones, and checkpoints whose parameters do not fit narlab's model, each
// with an error that says so.
func TestLoadReferenceErrors(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile("testdata/refckpt/bfs-mpnn.pkl")
	if err != nil {
		t.Fatal(err)
	}
	ck, err := parseReference(good)
	if err != nil {
		t.Fatal(err)
	}
	encode := func(params map[string]*pickle.Array, opt any) []byte {
		mods := pickle.NewDict()
		for _, k := range slices.Sorted(mapKeys(params)) {
			module, name, _ := strings.Cut(k, "|")
			if err := setNested(mods, module, name, params[k]); err != nil {
				t.Fatal(err)
			}
		}
		top := pickle.NewDict()
		top.Set("params", mods)
		top.Set("opt_state", opt)
		data, err := pickle.Encode(top)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	edited := func(edit func(map[string]*pickle.Array)) []byte {
		p := map[string]*pickle.Array{}
		for k, v := range ck.params {
			p[k] = v
		}
		edit(p)
		return encode(p, nil)
	}
	list, _ := pickle.Encode([]any{int64(1)})
	noParams := pickle.NewDict()
	noParams.Set("opt_state", nil)
	noParamsData, _ := pickle.Encode(noParams)
	badAdam := pickle.Tuple{&pickle.Object{Class: "optax._src.transform.ScaleByAdamState", Args: pickle.Tuple{int64(1)}}}
	sysGlobal := []byte("\x80\x02cposix\nsystem\n\x8c\x02ls\x85R.")
	cases := []struct {
		name string
		data []byte
		opts ReferenceOptions
		want string
	}{
		{"torn", good[:len(good)/3], ReferenceOptions{Processor: "mpnn"}, "a torn or truncated file"},
		{"empty", nil, ReferenceOptions{}, "an empty file"},
		{"JSON", []byte(`{"params": {}}`), ReferenceOptions{}, "not a pickle of protocol 2 or later"},
		{"a pickled list", list, ReferenceOptions{}, "not a dm-clrs checkpoint (BaselineModel.save_model's {'params', 'opt_state'} pickle): the pickle holds a list"},
		{"no params", noParamsData, ReferenceOptions{}, "its dict has no 'params'"},
		{"code", sysGlobal, ReferenceOptions{}, "refusing global posix.system"},
		{"Adam state without moments", encode(ck.params, badAdam), ReferenceOptions{Processor: "mpnn"}, "ScaleByAdamState with 1 fields, want 3"},
		{"another optimizer", encode(ck.params, pickle.Tuple{int64(3)}), ReferenceOptions{Processor: "mpnn"}, "a int in the optimizer chain's state"},
		{"a missing parameter", edited(func(p map[string]*pickle.Array) { drop(p, "processor/linear_5|b") }),
			ReferenceOptions{Processor: "mpnn"}, "no parameter net/mpnn_aggr_clrs_processor/linear_5|b for narlab's /processor/o2/dense/biases [8]"},
		{"a wrong shape", edited(func(p map[string]*pickle.Array) {
			p["net/mpnn_aggr_clrs_processor/linear_2|w"] = pickle.Float32Array([]int{8, 3}, make([]float32, 24))
		}), ReferenceOptions{Processor: "mpnn"}, "parameter net/mpnn_aggr_clrs_processor/linear_2|w is [8 3] where narlab's /processor/me/dense/weights is [8 8]"},
		{"an extra parameter", edited(func(p map[string]*pickle.Array) {
			p["net/mpnn_aggr_clrs_processor/layer_norm|extra"] = p["net/mpnn_aggr_clrs_processor/layer_norm|scale"]
		}), ReferenceOptions{Processor: "mpnn"}, "no place for: net/mpnn_aggr_clrs_processor/layer_norm|extra"},
		{"an integer parameter", edited(func(p map[string]*pickle.Array) {
			p["net/mpnn_aggr_clrs_processor/linear|b"] = pickle.Int32Array([]int{8}, make([]int32, 8))
		}), ReferenceOptions{Processor: "mpnn"}, `'params'["net/mpnn_aggr_clrs_processor/linear"]["b"] is a i4 array, not a float array`},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".pkl")
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := LoadReference(be, path, c.opts)
			if err == nil {
				m.Close()
				t.Fatal("loaded")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q, want one naming the file and saying %q", err, c.want)
			}
		})
	}
	if _, err := LoadReference(be, dir, ReferenceOptions{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
	// A narlab checkpoint is refused for export as what it is not.
	cfg := DefaultConfig("bfs", "memnet")
	cfg.Hidden = 4
	m := testModel(t, be, cfg)
	if err := m.ExportReference(filepath.Join(dir, "memnet.pkl")); err == nil || !strings.Contains(err.Error(), "no dm-clrs layout") {
		t.Errorf("memnet exported: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "memnet.pkl")); err == nil {
		t.Error("a failed export left a file")
	}
}

// TestExportReferenceRoundTrip: a narlab model exported and loaded back is
// the same model (predictions, and the losses of further training steps,
// which need the Adam state carried over); a model saved with Save and
// loaded with Load exports the same bytes; an untrained model exports
// optax's initial state.
func TestExportReferenceRoundTrip(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		proc, name string
		change     func(c *Config)
	}{
		{"triplet_gmpnn", "", nil},
		{"gatv2", "", nil},
		// The model options: heads (GATv2's one linear layer per head),
		// layer norm off, the triplet width, the LSTM (not trainable: no
		// Adam moments; zeros in the file), a frozen processor with dropout.
		{"gatv2_full", "heads4-noln", func(c *Config) { c.Heads, c.NoLayerNorm = 4, true }},
		{"gat", "heads2", func(c *Config) { c.Heads = 2 }},
		{"triplet_gmpnn", "tri4-lstm", func(c *Config) { c.TripletFeatures, c.LSTM = 4, true }},
		{"mpnn", "freeze-dropout-mp2", func(c *Config) { c.FreezeProcessor, c.Dropout, c.MsgPassingSteps = true, 0.2, 2 }},
	} {
		proc := c.proc
		t.Run(strings.TrimSuffix(proc+"-"+c.name, "-"), func(t *testing.T) {
			cfg := DefaultConfig("dijkstra", proc)
			cfg.Hidden = 8
			if c.change != nil {
				c.change(&cfg)
			}
			r := &refRun{Algorithm: cfg.Algorithm, Batch: 4, Steps: 2}
			train, eval, after := refRunBatches(t, r)
			m := testModel(t, be, cfg)
			dir := t.TempDir()
			fresh := filepath.Join(dir, "fresh.pkl")
			if err := m.ExportReference(fresh); err != nil {
				t.Fatal(err)
			}
			fck, err := readReference(fresh)
			if err != nil {
				t.Fatal(err)
			}
			if fck.adam == nil || fck.adam.count != 0 {
				t.Errorf("an untrained model's Adam state: %+v", fck.adam)
			}
			for _, fb := range train {
				if _, err := m.TrainStep(fb); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, "m.pkl")
			if err := m.ExportReference(path); err != nil {
				t.Fatal(err)
			}
			if err := m.Save(filepath.Join(dir, "ckpt")); err != nil {
				t.Fatal(err)
			}
			// What the parameters cannot say (the message-passing steps, the
			// training settings) from the model's configuration; the rest
			// read from the file.
			given := DefaultConfig("", DefaultProcessor)
			given.MsgPassingSteps, given.Dropout, given.FreezeProcessor = cfg.MsgPassingSteps, cfg.Dropout, cfg.FreezeProcessor
			loaded, err := LoadReference(be, path, ReferenceOptions{Processor: proc, Config: &given})
			if err != nil {
				t.Fatal(err)
			}
			defer loaded.Close()
			if !loaded.Config().Equal(m.Config()) {
				t.Errorf("config %+v, want %+v", loaded.Config(), m.Config())
			}
			want, err := m.Predict(eval)
			if err != nil {
				t.Fatal(err)
			}
			got, err := loaded.Predict(eval)
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range want {
				near(t, k, got[k], w, 1e-6)
			}
			// Save/Load, then export: the Adam moments come from the
			// checkpoint's loader (no training program has made them yet).
			reloaded, err := Load(be, filepath.Join(dir, "ckpt"))
			if err != nil {
				t.Fatal(err)
			}
			defer reloaded.Close()
			again := filepath.Join(dir, "again.pkl")
			if err := reloaded.ExportReference(again); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(path)
			b, _ := os.ReadFile(again)
			if string(a) != string(b) {
				t.Error("Save, Load and ExportReference wrote another file than ExportReference")
			}
			// Both train on as the original: the reloaded one after its
			// export read its Adam moments from the checkpoint's loader.
			for i, fb := range after {
				lw, err := m.TrainStep(fb)
				if err != nil {
					t.Fatal(err)
				}
				for name, other := range map[string]*Model{"LoadReference": loaded, "Load": reloaded} {
					lg, err := other.TrainStep(fb)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if math.Abs(lg-lw) > 1e-6*math.Max(1, math.Abs(lw)) {
						t.Errorf("%s: step %d after loading: loss %.7f, the original's %.7f", name, i+1, lg, lw)
					}
				}
			}
		})
	}
}
