package nn

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/lib/clrs"
)

// TestExportReferenceInDMCLRS: a model narlab trained, exported with
// ExportReference, is read by dm-clrs 2.0.3's own BaselineModel.restore_model
// (scripts/dmclrs_checkpoint.py --restore, in the bridge environment that
// scripts/setup-pybridge.sh makes and `make test` sets up; every case's
// checkpoint in one interpreter, --jobs), and dm-clrs
// then does what narlab does (compareWithReference): the same raw outputs
// and predictions on the next batch, the same scores, and — the Adam state
// mapped into optax's — the same losses on its next two training steps
// (narlab given dm-clrs's keys), with run.py's settings and with the
// reference's model options (several heads, the _full processors, layer
// norm off, several message-passing steps, the hint re-prediction of
// evaluation, triplet width, the LSTM, dropout, a frozen processor). It
// fails, not skips, without that environment (except under -short).
func TestExportReferenceInDMCLRS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dm-clrs in the bridge environment (scripts/setup-pybridge.sh); run without -short")
	}
	if _, err := project.BridgePython(); err != nil {
		t.Fatal(err) // before any training
	}
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		algo, processor, name string
		change                func(c *Config)
	}{
		{"insertion_sort", "triplet_gmpnn", "", nil}, // a permutation output
		{"bfs", "mpnn", "", nil},
		{"kmp_matcher", "gatv2", "", nil}, // pred_h as an input
		{"bfs", "gat_full", "heads2-noln-mp2", func(c *Config) { c.Heads, c.NoLayerNorm, c.MsgPassingSteps = 2, true, 2 }},
		{"dijkstra", "gatv2_full", "heads4-hard_on_eval", func(c *Config) { c.Heads, c.HintRepred = 4, "hard_on_eval" }},
		{"bfs", "triplet_gmpnn", "tri4-lstm", func(c *Config) { c.TripletFeatures, c.LSTM = 4, true }},
		{"dijkstra", "mpnn", "dropout0.1-freeze", func(c *Config) { c.Dropout, c.FreezeProcessor = 0.1, true }},
	}
	// Each case's model is trained and exported first; dm-clrs then
	// restores every checkpoint in one interpreter (--jobs: JAX's import and
	// dm-clrs's initialisation are most of a run), and each subtest
	// compares its model with what dm-clrs did.
	type exported struct {
		name  string
		cfg   Config
		m     *Model
		r     *refRun
		eval  *clrs.Feedback
		after []*clrs.Feedback
		out   string
	}
	var runs []exported
	var jobs [][]string
	dir := t.TempDir()
	for _, c := range cases {
		name := c.algo + "-" + c.processor
		if c.name != "" {
			name += "-" + c.name
		}
		cfg := DefaultConfig(c.algo, c.processor)
		cfg.Hidden, cfg.Seed = 8, 7
		if c.change != nil {
			c.change(&cfg)
		}
		m := testModel(t, be, cfg)
		r := &refRun{Algorithm: c.algo, Processor: c.processor, Hidden: cfg.Hidden, Batch: 4, Steps: 3}
		train, eval, after := refRunBatches(t, r)
		for _, fb := range train {
			if _, err := m.TrainStep(fb); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		out, job := exportForRestore(t, m, cfg, dir, name, c.algo, r.Batch, r.Steps)
		jobs = append(jobs, job)
		runs = append(runs, exported{name, cfg, m, r, eval, after, out})
	}
	restoreInDMCLRS(t, jobs)
	for _, e := range runs {
		t.Run(e.name, func(t *testing.T) {
			ref := readRefRun(t, e.out)
			if ref.Mode != "restore" || ref.Algorithm != e.r.Algorithm || optionsOf(ref.config()) != optionsOf(e.cfg) {
				t.Fatalf("the script reports %s of %s with %+v", ref.Mode, ref.Algorithm, ref.Options)
			}
			compareWithReference(t, e.m, ref, e.eval, e.after)
		})
	}
}

// restoreInDMCLRS runs scripts/dmclrs_checkpoint.py once in the bridge
// environment over jobs (each a --restore run's flags: --jobs), so that
// one Python interpreter restores every checkpoint of a test.
func restoreInDMCLRS(t *testing.T, jobs [][]string) {
	t.Helper()
	py, err := project.BridgePython()
	if err != nil {
		t.Fatal(err)
	}
	root, err := project.Root()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(jobs)
	if err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(t.TempDir(), "jobs.json")
	if err := os.WriteFile(list, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-W", "ignore", filepath.Join(root, "scripts", "dmclrs_checkpoint.py"), "--jobs", list)
	cmd.Env = append(os.Environ(), "JAX_PLATFORMS=cpu")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("dm-clrs restoring narlab's checkpoints: %v\n%s", err, tail(stderr.String(), 4000))
	}
	t.Logf("dm-clrs restored, predicted and trained %d checkpoints in %.0fs", len(jobs), time.Since(start).Seconds())
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestExportSeveralAlgorithmsInDMCLRS: a model of several algorithms narlab
// trained (two rounds of run.py's order: one batch per algorithm), exported
// with ExportReference, is restored by dm-clrs 2.0.3 into a BaselineModel of
// the same algorithms and options (scripts/dmclrs_checkpoint.py --algo
// bfs,dijkstra,insertion_sort --restore, both cases in one interpreter:
// --jobs), which then predicts, scores and
// trains as narlab's model does (compareSeveralWithReference: narlab given
// dm-clrs's keys): with run.py's settings (GAT), and with model options
// (GATv2 of 2 heads, the LSTM, dropout, teacher forcing and a frozen
// processor, each algorithm's optimizer keeping the shared processor). It
// fails, not skips, without the bridge environment (except under -short).
func TestExportSeveralAlgorithmsInDMCLRS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dm-clrs in the bridge environment (scripts/setup-pybridge.sh); run without -short")
	}
	if _, err := project.BridgePython(); err != nil {
		t.Fatal(err) // before any training
	}
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	type exported struct {
		name  string
		cfg   Config
		m     *Model
		after [][]*clrs.Feedback
		eval  []*clrs.Feedback
		out   string
	}
	var runs []exported
	var jobs [][]string
	dir := t.TempDir()
	for _, c := range []struct {
		processor, name string
		change          func(c *Config)
	}{
		{"gat", "", nil},
		{"gatv2", "heads2-lstm-dropout0.1-tf0.5-freeze", func(c *Config) {
			c.Heads, c.LSTM, c.Dropout, c.TeacherForcing, c.FreezeProcessor = 2, true, 0.1, 0.5, true
		}},
	} {
		name := strings.TrimSuffix(c.processor+"-"+c.name, "-")
		cfg := DefaultConfig("", c.processor)
		cfg.Algorithms = []string{"bfs", "dijkstra", "insertion_sort"}
		cfg.Hidden, cfg.Seed = 8, 7
		if c.change != nil {
			c.change(&cfg)
		}
		m := testModel(t, be, cfg)
		r := &multiRefRun{Algorithms: cfg.Algorithms, Processor: cfg.Processor, Hidden: cfg.Hidden, Batch: 4, Steps: 2}
		train, after, eval := multiRefBatches(t, r)
		for step := range r.Steps {
			for i := range cfg.Algorithms {
				if _, err := m.TrainStep(train[i][step]); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
		}
		out, job := exportForRestore(t, m, cfg, dir, name, strings.Join(cfg.Algorithms, ","), r.Batch, r.Steps)
		jobs = append(jobs, job)
		runs = append(runs, exported{name, cfg, m, after, eval, out})
	}
	restoreInDMCLRS(t, jobs)
	for _, e := range runs {
		t.Run(e.name, func(t *testing.T) {
			ref := readMultiRefRun(t, e.out)
			if ref.Mode != "restore" || optionsOf(ref.config()) != optionsOf(e.cfg) || ref.CallKeys == nil {
				t.Fatalf("the script reports %s with %+v (call keys: %v)", ref.Mode, ref.Options, ref.CallKeys != nil)
			}
			compareSeveralWithReference(t, e.m, ref, e.eval, e.after)
		})
	}
}

// exportForRestore exports m (trained under cfg, on algos joined by
// commas) to dir/name.pkl in the reference's format and returns the file
// that scripts/dmclrs_checkpoint.py will write its restored model's
// outputs to, with that script's arguments for the job (batch and steps:
// the run's).
func exportForRestore(t *testing.T, m *Model, cfg Config, dir, name, algos string, batch, steps int) (out string, job []string) {
	t.Helper()
	ckpt := filepath.Join(dir, name+".pkl")
	if err := m.ExportReference(ckpt); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out = filepath.Join(dir, name+".json")
	job = append([]string{"--algo", algos, "--processor", cfg.Processor, "--hidden", fmt.Sprint(cfg.Hidden),
		"--batch", fmt.Sprint(batch), "--steps", fmt.Sprint(steps), "--restore", ckpt, "--out", out}, scriptArgs(cfg)...)
	return out, job
}
