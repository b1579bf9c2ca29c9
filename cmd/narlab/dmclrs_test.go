package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
)

// TestDMCLRSCheckpoints: `narlab eval` scores a checkpoint dm-clrs saved
// (lib/nn's fixture) and says what it inferred; `narlab clrs export`
// writes a narlab checkpoint in dm-clrs's layout, which eval then scores
// as the narlab checkpoint itself; the dm-clrs flags are refused for a
// narlab checkpoint; a processor dm-clrs cannot restore is not exported.
// (--no-mlflow: scores only; TestRunsAsMLflowClientSeesThem
// checks eval's run.)
func TestDMCLRSCheckpoints(t *testing.T) {
	var out strings.Builder
	stdout = &out
	defer func() { stdout = os.Stdout }()
	call := func(args ...string) string {
		t.Helper()
		out.Reset()
		if err := run(args); err != nil {
			t.Fatalf("narlab %s: %v", strings.Join(args, " "), err)
		}
		return out.String()
	}
	fixture := filepath.Join("..", "..", "lib", "nn", "testdata", "refckpt", "bfs-mpnn.pkl")
	got := call("eval", "--checkpoint", fixture, "--processor", "mpnn", "--split", "val", "--count", "8", "--backend", "go", "--no-mlflow")
	for _, want := range []string{"dm-clrs checkpoint: bfs, processor mpnn, hidden 8, hints encoded_decoded",
		"bfs/mpnn (hidden 8) on the CLRS-30 val split: 8 samples at n=16\n", "val split score "} {
		if !strings.Contains(got, want) {
			t.Errorf("eval printed %q, want %q", got, want)
		}
	}
	// The model options: those in the parameters read (heads, layer norm),
	// those not given (message-passing steps, hint re-prediction).
	opts := filepath.Join("..", "..", "lib", "nn", "testdata", "refckpt", "bfs-gat_full-heads2-noln-mp2.pkl")
	got = call("eval", "--checkpoint", opts, "--processor", "gat_full", "--nb-msg-passing-steps", "2", "--hint-repred", "hard_on_eval",
		"--split", "val", "--count", "4", "--backend", "go", "--no-mlflow")
	if want := "dm-clrs checkpoint: bfs, processor gat_full, hidden 8, hints encoded_decoded, enforce_permutations true, enforce_pred_as_input true, nb_heads 2, use_ln False, nb_msg_passing_steps 2, hint_repred_mode hard_on_eval\n"; !strings.HasPrefix(got, want) {
		t.Errorf("eval of a dm-clrs checkpoint with options printed %q, want it to start %q", got, want)
	}
	err := run([]string{"eval", "--checkpoint", fixture, "--split", "val", "--count", "8", "--backend", "go", "--no-mlflow"})
	if err == nil || !strings.Contains(err.Error(), "fit deepsets, mpnn, pgn, pgn_mask") || !strings.Contains(err.Error(), "--processor") {
		t.Errorf("eval without --processor: %v", err)
	}

	be, err := nn.Backend("go")
	if err != nil {
		t.Fatal(err)
	}
	cfg := nn.DefaultConfig("bfs", "gat")
	cfg.Hidden, cfg.Heads = 8, 2
	m, err := nn.New(be, cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "ckpt")
	s, err := clrs.NewSampler("bfs", clrs.Length(5), clrs.Seed(1), clrs.NumSamples(2))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := s.Dataset()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(fb); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(ckpt); err != nil {
		t.Fatal(err)
	}
	m.Close()
	pkl := filepath.Join(dir, "bfs-gat.pkl")
	got = call("clrs", "export", "--checkpoint", ckpt, "--out", pkl, "--backend", "go")
	for _, want := range []string{"wrote " + pkl + ": bfs, processor gat, hidden 8", `get_processor_factory("gat", use_ln=True, nb_triplet_fts=8, nb_heads=2)`,
		"hidden_dim=8, encode_hints=True, decode_hints=True", "clrs.process_permutations(spec, it, True)"} {
		if !strings.Contains(got, want) {
			t.Errorf("export printed %q, want %q", got, want)
		}
	}
	narlab := call("eval", "--checkpoint", ckpt, "--split", "val", "--count", "8", "--backend", "go", "--no-mlflow")
	dmclrs := call("eval", "--checkpoint", pkl, "--processor", "gat", "--split", "val", "--count", "8", "--backend", "go", "--no-mlflow")
	if _, scores, _ := strings.Cut(dmclrs, "\n"); scores != narlab {
		t.Errorf("the export scores\n%s\nthe checkpoint\n%s", scores, narlab)
	}
	if err := run([]string{"eval", "--checkpoint", ckpt, "--algo", "bfs"}); err == nil || !strings.Contains(err.Error(), "records them") {
		t.Errorf("--algo with a narlab checkpoint: %v", err)
	}
	if err := run([]string{"clrs", "export", "--checkpoint", pkl, "--out", filepath.Join(dir, "x.pkl")}); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("export of a file: %v", err)
	}
	// A processor dm-clrs cannot restore is refused, saying so, and nothing
	// is written.
	cfg = nn.DefaultConfig("bfs", "memnet")
	cfg.Hidden = 4
	if m, err = nn.New(be, cfg); err != nil {
		t.Fatal(err)
	}
	memnet := filepath.Join(dir, "memnet")
	if _, err := m.Predict(fb); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(memnet); err != nil {
		t.Fatal(err)
	}
	m.Close()
	err = run([]string{"clrs", "export", "--checkpoint", memnet, "--out", memnet + ".pkl", "--backend", "go"})
	if err == nil || !strings.Contains(err.Error(), "processor memnet has no dm-clrs layout") {
		t.Errorf("export of a memnet checkpoint: %v", err)
	}
	if _, err := os.Stat(memnet + ".pkl"); err == nil {
		t.Error("a refused export wrote its file")
	}
}
