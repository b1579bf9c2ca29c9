package nn

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/jaxrand"
)

// multiRefRun is what scripts/dmclrs_checkpoint.py writes for a model of
// several algorithms (--algo a,b,c): its model options, per algorithm its
// outputs and scores on its next batch, and the losses of the training
// calls after them, in call order (algorithm index, loss), with each
// call's key.
type multiRefRun struct {
	Mode, Processor      string
	Algorithms           []string
	Hidden, Batch, Steps int
	Seed                 int64
	Options              *refRunOptions
	Runs                 []struct {
		Algorithm string
		Outputs   map[string]refOutput
		Scores    map[string]float64
	}
	Calls [][2]float64
	// CallKeys are the calls' keys (nil in fixtures made before the
	// script recorded them).
	CallKeys []jaxrand.Key `json:"call_keys"`
}

// config is the narlab configuration of the script's model.
func (r *multiRefRun) config() Config {
	cfg := (&refRun{Processor: r.Processor, Hidden: r.Hidden, Options: r.Options}).config()
	cfg.Algorithm, cfg.Algorithms = "", slices.Clone(r.Algorithms)
	return cfg
}

func readMultiRefRun(t *testing.T, path string) *multiRefRun {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r multiRefRun
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(r.Runs) != len(r.Algorithms) || len(r.Algorithms) < 2 {
		t.Fatalf("%s: %d runs for algorithms %v", path, len(r.Runs), r.Algorithms)
	}
	return &r
}

// multiRefBatches draws each algorithm's batches as the script does (its
// own train-split sampler): the training batches, the evaluated one and
// two more.
func multiRefBatches(t *testing.T, r *multiRefRun) (train, after [][]*clrs.Feedback, eval []*clrs.Feedback) {
	t.Helper()
	for _, a := range r.Algorithms {
		tr, ev, af := refRunBatches(t, &refRun{Algorithm: a, Batch: r.Batch, Steps: r.Steps})
		train, eval, after = append(train, tr), append(eval, ev), append(after, af)
	}
	return train, after, eval
}

// compareSeveralWithReference checks that m, a model of several
// algorithms, does what the reference's did: each algorithm's outputs and
// scores (compareOutputs), then the losses of the training calls in the
// reference's order (each round one call per algorithm), each given the
// reference's key for its draws (dropout, teacher forcing, Gumbel noise).
// A sorting algorithm's (a permutation output's) losses after its own
// update are held to looseCases' tolerance for the sorting case.
// Without the keys (a fixture made before the script recorded them) the
// calls are compared up to the first of an algorithm with a permutation
// output (its Gumbel noise is then each framework's own, and the update it
// makes changes every later loss). It trains m.
func compareSeveralWithReference(t *testing.T, m *Model, r *multiRefRun, eval []*clrs.Feedback, after [][]*clrs.Feedback) {
	t.Helper()
	gumbel := make([]bool, len(r.Algorithms))
	for i, run := range r.Runs {
		if run.Algorithm != r.Algorithms[i] {
			t.Fatalf("run %d is %s, want %s", i, run.Algorithm, r.Algorithms[i])
		}
		t.Run(run.Algorithm, func(t *testing.T) {
			gumbel[i] = compareOutputs(t, m, &refRun{Algorithm: run.Algorithm, Outputs: run.Outputs, Scores: run.Scores}, eval[i])
		})
	}
	rounds := map[int]int{}
	compared := 0
	if r.CallKeys != nil && len(r.CallKeys) != len(r.Calls) {
		t.Fatalf("%d keys for %d calls", len(r.CallKeys), len(r.Calls))
	}
	for k, c := range r.Calls {
		i := int(c[0])
		if gumbel[i] && r.CallKeys == nil {
			break
		}
		var got float64
		var err error
		if r.CallKeys != nil {
			got, err = m.TrainStepKey(after[i][rounds[i]], r.CallKeys[k])
		} else {
			got, err = m.TrainStep(after[i][rounds[i]])
		}
		if err != nil {
			t.Fatal(err)
		}
		tol := lossTol
		if gumbel[i] && rounds[i] > 0 {
			// A sorting algorithm's loss after its own update: its
			// gradient is ill-conditioned (looseCases' gumbel case: one ulp
			// in the parameters moves the reference's own by 5e-3), so the
			// update's rounding shows in this loss as it does there.
			tol = looseCases["gumbel-mpnn-insertion_sort"].loss
		}
		rounds[i]++
		if want := c[1]; math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
			t.Errorf("call %d (%s) after the checkpoint: loss %.7f, the reference's %.7f", compared, r.Algorithms[i], got, want)
		}
		compared++
	}
	if compared < 2 {
		t.Errorf("only %d losses compared: the fixture's algorithms need two without permutations first", compared)
	}
	t.Logf("%d training calls compared", compared)
}

// TestLoadReferenceSeveralAlgorithms loads checkpoints dm-clrs saved for
// a BaselineModel of three algorithms (bfs, dijkstra, insertion_sort, two
// rounds of run.py's training: scripts/dmclrs_checkpoint.py --algo
// bfs,dijkstra,insertion_sort --save; with GAT and run.py's settings, and
// with GATv2 of 2 heads, the LSTM, dropout 0.1 and teacher forcing 0.5) as
// one narlab model of them all, its algorithms and the options its
// parameters hold (heads, LSTM) inferred, the others (dropout, teacher
// forcing) given, and requires each algorithm's outputs and scores and the
// training calls after it, given the reference's keys (the second round's
// losses read the processor after the first round's updates: the
// checkpoint's Adam state, its count shared by the algorithms), to be the
// reference's. insertion_sort's probes are also bubble_sort's: the
// algorithms must be named, and the error without them says so.
func TestLoadReferenceSeveralAlgorithms(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fixture string
		opts    ReferenceOptions
	}{
		{"multi-bfs-dijkstra-insertion_sort-gat", ReferenceOptions{Processor: "gat"}},
		{"multi-bfs-dijkstra-insertion_sort-gatv2-heads2-lstm-dropout0.1-tf0.5", ReferenceOptions{Processor: "gatv2",
			Config: refConfig(func(c *Config) { c.Dropout, c.TeacherForcing = 0.1, 0.5 })}},
	} {
		t.Run(c.fixture, func(t *testing.T) {
			fixture := filepath.Join("testdata", "refckpt", c.fixture)
			r := readMultiRefRun(t, fixture+".json")
			_, err = LoadReference(be, fixture+".pkl", c.opts)
			if want := "algo_2's probes fit several algorithms (bubble_sort, insertion_sort): name them in order"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("loading without names: %v, want %q", err, want)
			}
			opts := c.opts
			opts.Algorithms = []string{"bfs", "dijkstra", "insertion_sort"}
			m, err := LoadReference(be, fixture+".pkl", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if got, want := m.Config(), r.config(); !got.Equal(want) {
				t.Fatalf("config %+v inferred, want %+v", got, want)
			}
			if got, want := m.Step(), int64(len(r.Algorithms)*r.Steps); got != want {
				t.Errorf("step %d after loading, want the checkpoint's Adam count %d", got, want)
			}
			if r.CallKeys == nil {
				t.Fatal("the fixture has no call_keys: remake it (scripts/dmclrs_checkpoint.py records them)")
			}
			_, after, eval := multiRefBatches(t, r)
			compareSeveralWithReference(t, m, r, eval, after)
		})
	}
}

// trainable is the values of a model's trainable variables by path.
func trainable(t *testing.T, m *Model) map[string][]float32 {
	t.Helper()
	out := map[string][]float32{}
	for v := range m.store.IterVariables() {
		if !v.Trainable || strings.HasPrefix(v.Path(), refAdamScope+"/") {
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

// TestSeveralAlgorithms: a model of several algorithms shares its
// processor and keeps each algorithm's encoders and decoders apart (an
// algorithm's training step moves the processor and its own variables,
// never another algorithm's); its step count is the optimizer's updates;
// it refuses batches of other algorithms and settings that name an
// algorithm twice; it exports to the reference's format and loads back
// (LoadReference infers the algorithms) and saves and loads in narlab's,
// the same model either way (predictions, and the losses of further
// training that reads the Adam state).
func TestSeveralAlgorithms(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cfg  func(*Config)
		want string
	}{
		{func(c *Config) { c.Algorithms = []string{"bfs", "bfs"} }, "algorithm bfs listed twice"},
		{func(c *Config) { c.Algorithms = []string{"bfs"} }, "Algorithms lists 1 algorithm"},
		{func(c *Config) { c.Algorithm = "dfs" }, "both Algorithm (dfs) and Algorithms (bfs,insertion_sort) set"},
		{func(c *Config) { c.Algorithms = []string{"bfs", "bogosort"} }, `unknown algorithm "bogosort" (Algorithms[1])`},
	} {
		cfg := DefaultConfig("", "mpnn")
		cfg.Algorithms = []string{"bfs", "insertion_sort"}
		c.cfg(&cfg)
		if _, err := New(be, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%v): error %v, want %q", cfg.Algorithms, err, c.want)
		}
	}
	cfg := DefaultConfig("", "mpnn")
	cfg.Algorithms = []string{"bfs", "insertion_sort"}
	cfg.Hidden = 8
	m := testModel(t, be, cfg)
	batches := map[string][]*clrs.Feedback{}
	for _, a := range append(cfg.Algorithms, "dfs") {
		r := &refRun{Algorithm: a, Batch: 4, Steps: 3}
		tr, ev, af := refRunBatches(t, r)
		batches[a] = append(append(tr, ev), af...)
	}
	if _, err := m.TrainStep(batches["dfs"][0]); err == nil || !strings.Contains(err.Error(), "a dfs batch given to a model of bfs, insertion_sort") {
		t.Errorf("a dfs batch: %v", err)
	}
	if _, err := m.Evaluate([]*clrs.Feedback{batches["bfs"][3], batches["insertion_sort"][3]}); err == nil ||
		!strings.Contains(err.Error(), "an evaluation of bfs given a insertion_sort batch") {
		t.Errorf("an evaluation of two algorithms' batches: %v", err)
	}
	for _, a := range cfg.Algorithms { // makes the variables
		if _, err := m.Predict(batches[a][3]); err != nil {
			t.Fatal(err)
		}
	}
	for step := range 2 {
		for _, a := range cfg.Algorithms {
			before := trainable(t, m)
			if _, err := m.TrainStep(batches[a][step]); err != nil {
				t.Fatal(err)
			}
			after := trainable(t, m)
			own := "/algo_" + map[string]string{"bfs": "0", "insertion_sort": "1"}[a] + "/"
			movedOwn, movedShared := 0, 0
			for path, b := range before {
				moved := !slices.Equal(b, after[path])
				switch {
				case !moved: // (a variable whose gradient is 0, e.g. the graph features' with no graph inputs)
				case strings.HasPrefix(path, own):
					movedOwn++
				case !strings.HasPrefix(path, "/algo_"):
					movedShared++
				default:
					t.Errorf("%s's step %d moved %s, another algorithm's", a, step, path)
				}
			}
			if movedOwn == 0 || movedShared == 0 {
				t.Errorf("%s's step %d moved %d of its own variables and %d of the processor's", a, step, movedOwn, movedShared)
			}
		}
	}
	if got := m.Step(); got != 4 {
		t.Errorf("step %d after 2 rounds of 2 algorithms; want 4 updates", got)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "m.pkl")
	if err := m.ExportReference(path); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(filepath.Join(dir, "ckpt")); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadReference(be, path, ReferenceOptions{Processor: "mpnn", Algorithms: cfg.Algorithms})
	if err != nil {
		t.Fatal(err)
	}
	defer loaded.Close()
	if !loaded.Config().Equal(m.Config()) {
		t.Errorf("config %+v, want %+v", loaded.Config(), m.Config())
	}
	one, err := LoadReference(be, path, ReferenceOptions{Processor: "mpnn", Algorithm: "insertion_sort"})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	if one.Config().Algorithm != "insertion_sort" || one.Config().Algorithms != nil {
		t.Errorf("loading one algorithm of two: %+v", one.Config())
	}
	reloaded, err := Load(be, filepath.Join(dir, "ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	defer reloaded.Close()
	for _, a := range cfg.Algorithms {
		want, err := m.Predict(batches[a][3])
		if err != nil {
			t.Fatal(err)
		}
		for name, other := range map[string]*Model{"LoadReference": loaded, "Load": reloaded} {
			got, err := other.Predict(batches[a][3])
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range want {
				near(t, name+" "+a+" "+k, got[k], w, 1e-6)
			}
		}
		if a == "insertion_sort" {
			got, err := one.Predict(batches[a][3])
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range want {
				near(t, "one algorithm "+k, got[k], w, 1e-6)
			}
		}
	}
	again := filepath.Join(dir, "again.pkl")
	if err := reloaded.ExportReference(again); err != nil {
		t.Fatal(err)
	}
	if a, b := mustRead(t, path), mustRead(t, again); string(a) != string(b) {
		t.Error("Save, Load and ExportReference wrote another file than ExportReference")
	}
	// bfs draws no noise: its further training is the same in all three.
	for i := 4; i < 6; i++ {
		lw, err := m.TrainStep(batches["bfs"][i])
		if err != nil {
			t.Fatal(err)
		}
		for name, other := range map[string]*Model{"LoadReference": loaded, "Load": reloaded} {
			lg, err := other.TrainStep(batches["bfs"][i])
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if math.Abs(lg-lw) > 1e-6*math.Max(1, math.Abs(lw)) {
				t.Errorf("%s: bfs step %d after loading: loss %.7f, the original's %.7f", name, i, lg, lw)
			}
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
