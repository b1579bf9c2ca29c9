package nn

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/compute"
	"github.com/narlab/narlab/lib/clrs"
)

func fixedBatch(t *testing.T, algo string, n, b int) *clrs.Feedback {
	t.Helper()
	s, err := clrs.NewSampler(algo, clrs.Length(n), clrs.Seed(3), clrs.NumSamples(b))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := s.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	return fb
}

// testModel is New(be, cfg) for a test: a failure ends the test, and the
// model is closed when the test ends.
func testModel(t testing.TB, be compute.Backend, cfg Config) *Model {
	t.Helper()
	m, err := New(be, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	return m
}

// testBackends returns the backends every model test runs on: the pure-Go
// one, and XLA CPU when its plugin is installed (`make setup`) and the
// tests are not -short. With
// NARLAB_REQUIRE_XLA=1 (set by `make test`) a missing XLA plugin fails the
// test instead of narrowing it to pure Go.
func testBackends(t *testing.T) map[string]compute.Backend {
	t.Helper()
	out := map[string]compute.Backend{}
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	out["go"] = be
	if testing.Short() {
		t.Log("-short: XLA CPU not tested (make test runs it)")
		return out
	}
	c := Choose("")
	if os.Getenv(EnvBackend) == "" && c.Kind == "xla-cpu" {
		be, err := Backend(c.Config)
		if err != nil {
			t.Fatalf("the XLA CPU plugin was found but does not start: %v", err)
		}
		out["xla"] = be
	} else if os.Getenv("NARLAB_REQUIRE_XLA") == "1" {
		t.Fatalf("NARLAB_REQUIRE_XLA=1 but narlab picks %s: %s", c.Kind, c.Reason)
	} else {
		t.Logf("XLA CPU not tested: %s", c.Reason)
	}
	return out
}

// TestOverfit trains each processor on one small fixed batch, on the
// pure-Go backend (and one case on XLA: see testOverfit): the loss must fall by an order of magnitude and the
// batch's score reach 0.95. The algorithms cover node pointers
// (insertion_sort), masks (bfs... via reach in dfs-like outputs), mask_one
// (minimum), and graph-level outputs.
func TestOverfit(t *testing.T) {
	for name, be := range testBackends(t) {
		t.Run(name, func(t *testing.T) { testOverfit(t, be, name == "go") })
	}
}

// testOverfit overfits each case on be: every case on the pure-Go backend
// (all), and on XLA, which computes the same function
// (TestStepLoopSameFunction, TestOneProgramSameFunction,
// TestReferenceOptions) and spends most of a case compiling, one:
// insertion_sort/mpnn (node pointers under permutations, whose training
// draws Gumbel noise and whose evaluation runs Sinkhorn). The other two
// -short cases (triplets and the gate, a memory network) overfit on the
// pure-Go backend.
func testOverfit(t *testing.T, be compute.Backend, all bool) {
	cases := []struct {
		algo, processor string
		steps           int
		hintMode        string // default decoded_only
	}{
		{"insertion_sort", "mpnn", 200, ""},
		{"minimum", "pgn", 200, ""},
		{"bfs", "deepsets", 200, ""},
		{"activity_selector", "gat", 200, ""},
		{"find_maximum_subarray_kadane", "gatv2", 200, ""},
		{"bfs", "triplet_gmpnn", 200, ""},       // triplets and the gated update
		{"bfs", "pgn_mask", 200, ""},            // non-edge pointer logits pushed down (inf_bias)
		{"matrix_chain_order", "mpnn", 200, ""}, // edge pointers
		// A memory network ignores its previous latents, so with hints only
		// decoded its latents are the same at every step and cannot follow
		// a hint trajectory: train it on the outputs, as the paper's memnet
		// is compared on.
		{"insertion_sort", "memnet", 200, "none"},
		{"minimum", "memnet_full", 200, "none"},
	}
	// -short keeps three cases: node pointers under permutations, triplets
	// and the gate, a memory network.
	short := map[string]bool{"insertion_sort/mpnn": true, "bfs/triplet_gmpnn": true, "minimum/memnet_full": true}
	for _, c := range cases {
		t.Run(c.algo+"/"+c.processor, func(t *testing.T) {
			if testing.Short() && !short[c.algo+"/"+c.processor] {
				t.Skip("-short: one of the 200-step overfit runs left to make test")
			}
			if !all && c.algo+"/"+c.processor != "insertion_sort/mpnn" {
				t.Skip("run on the pure-Go backend; XLA overfits insertion_sort/mpnn")
			}
			fb := fixedBatch(t, c.algo, 5, 4)
			cfg := DefaultConfig(c.algo, c.processor)
			cfg.Hidden, cfg.LearningRate, cfg.HintMode = 32, 3e-3, "decoded_only"
			if c.hintMode != "" {
				cfg.HintMode = c.hintMode
			}
			m, err := New(be, cfg)
			if err != nil {
				t.Fatal(err)
			}
			first, last := 0.0, 0.0
			for i := 0; i < c.steps; i++ {
				l, err := m.TrainStep(fb)
				if err != nil {
					t.Fatal(err)
				}
				if math.IsNaN(l) {
					t.Fatalf("loss is NaN at step %d", i)
				}
				if i == 0 {
					first = l
				}
				last = l
			}
			sc, err := m.Evaluate([]*clrs.Feedback{fb})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("loss %.4f → %.4f, scores %v", first, last, sc)
			if last > first/10 {
				t.Errorf("loss fell from %.4f to %.4f; want at least 10× lower", first, last)
			}
			if sc["score"] < 0.95 {
				t.Errorf("score %.3f on the training batch; want ≥ 0.95", sc["score"])
			}
		})
	}
}

// TestCheckpointRoundTrip saves a trained model and loads it back: the
// scores on a batch are identical.
func TestCheckpointRoundTrip(t *testing.T) {
	for name, be := range testBackends(t) {
		t.Run(name, func(t *testing.T) { testCheckpointRoundTrip(t, be) })
	}
}

func testCheckpointRoundTrip(t *testing.T, be compute.Backend) {
	fb := fixedBatch(t, "insertion_sort", 5, 4)
	cfg := DefaultConfig("insertion_sort", "mpnn")
	cfg.Hidden = 16
	m, err := New(be, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := m.TrainStep(fb); err != nil {
			t.Fatal(err)
		}
	}
	want, err := m.Evaluate([]*clrs.Feedback{fb})
	if err != nil {
		t.Fatal(err)
	}
	wantPred, _ := m.Predict(fb)
	dir := filepath.Join(t.TempDir(), "ckpt")
	if err := m.Save(dir); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(dir); err != nil { // overwriting works too
		t.Fatal(err)
	}
	m2, err := Load(be, dir)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Step() != 20 {
		t.Errorf("restored step %d, want 20", m2.Step())
	}
	got, err := m2.Evaluate([]*clrs.Feedback{fb})
	if err != nil {
		t.Fatal(err)
	}
	gotPred, _ := m2.Predict(fb)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %v after reload, %v before", k, got[k], v)
		}
	}
	for k, v := range wantPred {
		for i := range v {
			if gotPred[k][i] != v[i] {
				t.Fatalf("prediction %s[%d] differs after reload: %v vs %v", k, i, gotPred[k][i], v[i])
			}
		}
	}

	// Closing a model frees its programs and variables and nothing of
	// another model on the same backend; a closed model says so.
	m.Close()
	m.Close()
	if again, err := m2.Evaluate([]*clrs.Feedback{fb}); err != nil || again["score"] != want["score"] {
		t.Errorf("after closing the first model, the reloaded one scores %v (%v), want %v", again, err, want)
	}
	if _, err := m.TrainStep(fb); !errors.Is(err, errClosed) {
		t.Errorf("TrainStep on a closed model: %v, want %v", err, errClosed)
	}
	if _, err := m.Predict(fb); !errors.Is(err, errClosed) {
		t.Errorf("Predict on a closed model: %v, want %v", err, errClosed)
	}
	if err := m.Save(filepath.Join(t.TempDir(), "closed")); !errors.Is(err, errClosed) {
		t.Errorf("Save of a closed model: %v, want %v", err, errClosed)
	}
	m2.Close()
}

func TestConfigErrors(t *testing.T) {
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mut  func(*Config)
		want string
	}{
		{func(c *Config) { c.Processor = "transformer" }, "unknown processor"},
		{func(c *Config) { c.HintMode = "all" }, "unknown hint mode"},
		{func(c *Config) { c.Hidden = 0 }, "hidden size"},
		{func(c *Config) { c.Algorithm = "bogosort" }, "unknown algorithm"},
	} {
		cfg := DefaultConfig("bfs", "mpnn")
		c.mut(&cfg)
		if _, err := New(be, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}
