package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narlab/narlab/internal/testenv"
)

// TestTrainOnXLA runs a short `narlab train` as a user would, on the
// backend narlab picks: XLA CPU after `make setup` (NARLAB_REQUIRE_XLA=1,
// set by make test, or CI=true makes any other pick a failure). The run must finish,
// say which backend it used and record it in its result file.
func TestTrainOnXLA(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles an XLA graph (make test runs it)")
	}
	bin := narlabCLI(t)
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "train", "--algo", "bfs", "--processor", "mpnn", "--steps", "12", "--hidden", "16",
		"--batch", "8", "--train-data", "split", "--eval-every", "6", "--val-samples", "8", "--test-samples", "8",
		"--tracking", "none", "--dir", dir) // --tracking none: the other spelling of --no-mlflow
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("narlab train: %v\n%s", err, out)
	}
	wantXLA := os.Getenv("NARLAB_REQUIRE_XLA") == "1" || testenv.InCI()
	if wantXLA && !strings.Contains(string(out), "on xla-cpu") {
		t.Fatalf("NARLAB_REQUIRE_XLA=1 or CI=true, but the run did not train on xla-cpu:\n%s", out)
	}
	if strings.Contains(string(out), "on go:") || strings.Contains(string(out), "pure-Go backend") {
		t.Logf("trained on the pure-Go backend (no XLA plugin found):\n%s", out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatalf("no result.json in the run directory: %v", err)
	}
	var res map[string]any
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("result.json: %v", err)
	}
	if wantXLA && !strings.Contains(string(raw), "xla") {
		t.Errorf("result.json does not record the XLA backend: %s", raw)
	}
}
