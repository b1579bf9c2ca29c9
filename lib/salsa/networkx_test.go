package salsa

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/narlab/narlab/internal/project"
)

// salsaPython returns the Python of the test environment that
// scripts/setup-pybridge.sh makes (NetworkX, SciPy, PyTorch Geometric
// among its packages; `make test` sets it up). A missing environment fails
// the test with the command to run: the checks it runs are not optional.
func salsaPython(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skips the checks that need scripts/setup-pybridge.sh's Python environment (NetworkX, SciPy, PyTorch Geometric)")
	}
	py, err := project.BridgePython()
	if err != nil {
		t.Fatalf("the checks need the Python test environment (NetworkX, SciPy, PyTorch Geometric): %v", err)
	}
	return py
}

// checkSeed is the seed of the data TestNetworkX checks; set
// NARLAB_SALSA_SEED to check other graphs.
func checkSeed(t *testing.T) uint32 {
	if s := os.Getenv("NARLAB_SALSA_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			t.Fatalf("NARLAB_SALSA_SEED=%q: %v", s, err)
		}
		return uint32(v)
	}
	return 20261126
}

// TestNetworkX writes every algorithm on every set, as `narlab salsa
// generate` does (6 samples per set with all hints up to 160 nodes; 2
// samples without hints on 800 and 1,600 nodes), and has
// testdata/check_networkx.py check the files against NetworkX and SciPy:
// each graph drawn again by NetworkX's and SciPy's own generators from
// the sample's numpy stream, the inputs, every output, and the hints
// NetworkX can tell (see the script).
func TestNetworkX(t *testing.T) {
	py := salsaPython(t)
	seed := checkSeed(t)
	small, large := t.TempDir(), t.TempDir()
	var smallSets, largeSets []string
	for _, s := range sets {
		if s.Family.N[0] >= 800 {
			largeSets = append(largeSets, s.Name)
		} else {
			smallSets = append(smallSets, s.Name)
		}
	}
	ctx := context.Background()
	if _, err := Generate(ctx, Config{Out: small, Sets: smallSets, Seed: seed, Count: 6, Hints: HintsAll, Compress: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(ctx, Config{Out: large, Sets: largeSets, Seed: seed, Count: 2, Hints: HintsNone}); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(py, "testdata/check_networkx.py", small, large)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("check_networkx.py (seed %d): %v\n%s", seed, err, stderr.Bytes())
	}
	var summary map[string]map[string]struct {
		Samples     int `json:"samples"`
		HintSamples int `json:"hint_samples"`
		MaxN        int `json:"max_n"`
	}
	if err := json.Unmarshal(out, &summary); err != nil {
		t.Fatalf("check_networkx.py printed %q: %v", out, err)
	}
	for _, algo := range algorithms {
		for _, kind := range kindNames {
			c := summary[algo][kind]
			if c.Samples == 0 || c.HintSamples == 0 || c.MaxN != 1600 {
				t.Errorf("%s on %s: %d samples checked, %d with hints, largest n %d; want some of each, up to 1600 nodes", algo, kind, c.Samples, c.HintSamples, c.MaxN)
			}
		}
	}
	t.Logf("seed %d: %s", seed, out)
}
