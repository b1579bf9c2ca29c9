package nn

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/project"
)

// TestExportReferenceInDMCLRS: a model narlab trained, exported with
// ExportReference, is read by dm-clrs 2.0.3's own BaselineModel.restore_model
// (scripts/dmclrs_checkpoint.py --restore, in the bridge environment that
// scripts/setup-pybridge.sh makes and `make test` sets up), and dm-clrs
// then does what narlab does (compareWithReference): the same raw outputs
// and predictions on the next batch, the same scores, and — the Adam state
// mapped into optax's — the same losses on its next two training steps.
// It fails, not skips, without that environment (except under -short).
func TestExportReferenceInDMCLRS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dm-clrs in the bridge environment (scripts/setup-pybridge.sh); run without -short")
	}
	py, err := project.BridgePython()
	if err != nil {
		t.Fatal(err)
	}
	root, err := project.Root()
	if err != nil {
		t.Fatal(err)
	}
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ algo, processor string }{
		{"insertion_sort", "triplet_gmpnn"}, // a permutation output
		{"bfs", "mpnn"},
		{"kmp_matcher", "gatv2"}, // pred_h as an input
	}
	for _, c := range cases {
		t.Run(c.algo+"-"+c.processor, func(t *testing.T) {
			cfg := DefaultConfig(c.algo, c.processor)
			cfg.Hidden, cfg.Seed = 8, 7
			m, err := New(be, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			r := &refRun{Algorithm: c.algo, Processor: c.processor, Hidden: cfg.Hidden, Batch: 4, Steps: 3}
			train, eval, after := refRunBatches(t, r)
			for _, fb := range train {
				if _, err := m.TrainStep(fb); err != nil {
					t.Fatal(err)
				}
			}
			dir := t.TempDir()
			ckpt := filepath.Join(dir, "narlab.pkl")
			if err := m.ExportReference(ckpt); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "dmclrs.json")
			cmd := exec.Command(py, "-W", "ignore", filepath.Join(root, "scripts", "dmclrs_checkpoint.py"),
				"--algo", c.algo, "--processor", c.processor, "--hidden", fmt.Sprint(r.Hidden),
				"--batch", fmt.Sprint(r.Batch), "--steps", fmt.Sprint(r.Steps), "--restore", ckpt, "--out", out)
			cmd.Env = append(os.Environ(), "JAX_PLATFORMS=cpu")
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stderr, &stderr
			start := time.Now()
			if err := cmd.Run(); err != nil {
				t.Fatalf("dm-clrs restoring narlab's checkpoint: %v\n%s", err, tail(stderr.String(), 4000))
			}
			t.Logf("dm-clrs restored, predicted and trained in %.0fs", time.Since(start).Seconds())
			ref := readRefRun(t, out)
			if ref.Mode != "restore" || ref.Algorithm != c.algo {
				t.Fatalf("the script reports %s of %s", ref.Mode, ref.Algorithm)
			}
			compareWithReference(t, m, ref, eval, after)
		})
	}
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
// the same algorithms (scripts/dmclrs_checkpoint.py --algo bfs,dijkstra,
// insertion_sort --restore), which then predicts, scores and trains as
// narlab's model does (compareSeveralWithReference). It fails, not skips,
// without the bridge environment (except under -short).
func TestExportSeveralAlgorithmsInDMCLRS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs dm-clrs in the bridge environment (scripts/setup-pybridge.sh); run without -short")
	}
	py, err := project.BridgePython()
	if err != nil {
		t.Fatal(err)
	}
	root, err := project.Root()
	if err != nil {
		t.Fatal(err)
	}
	be, err := Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig("", "gat")
	cfg.Algorithms = []string{"bfs", "dijkstra", "insertion_sort"}
	cfg.Hidden, cfg.Seed = 8, 7
	m, err := New(be, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	r := &multiRefRun{Algorithms: cfg.Algorithms, Processor: cfg.Processor, Hidden: cfg.Hidden, Batch: 4, Steps: 2}
	train, after, eval := multiRefBatches(t, r)
	for step := range r.Steps {
		for i := range cfg.Algorithms {
			if _, err := m.TrainStep(train[i][step]); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "narlab.pkl")
	if err := m.ExportReference(ckpt); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "dmclrs.json")
	cmd := exec.Command(py, "-W", "ignore", filepath.Join(root, "scripts", "dmclrs_checkpoint.py"),
		"--algo", "bfs,dijkstra,insertion_sort", "--processor", cfg.Processor, "--hidden", fmt.Sprint(r.Hidden),
		"--batch", fmt.Sprint(r.Batch), "--steps", fmt.Sprint(r.Steps), "--restore", ckpt, "--out", out)
	cmd.Env = append(os.Environ(), "JAX_PLATFORMS=cpu")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("dm-clrs restoring narlab's checkpoint: %v\n%s", err, tail(stderr.String(), 4000))
	}
	t.Logf("dm-clrs restored, predicted and trained in %.0fs", time.Since(start).Seconds())
	ref := readMultiRefRun(t, out)
	if ref.Mode != "restore" {
		t.Fatalf("the script reports %s", ref.Mode)
	}
	compareSeveralWithReference(t, m, ref, eval, after)
}
