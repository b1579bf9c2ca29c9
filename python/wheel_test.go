package python

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// TestWheel is docs/python.md's promise to a Python lab without Go: the
// wheel that `make wheel` builds (scripts/build-wheel.sh) is installed
// with pip into a new virtual environment and, with no go on PATH, runs
// the docs' Python examples — data made by the wheel's binary, samples of
// a chosen size, a 20-step training logged and registered in a real MLflow
// server, the registered model loaded with mlflow.pyfunc and its
// predictions equal to narlab eval's — and tests/test_wheel.py checks the
// data it makes against lib/clrs's own, bit for bit. A second new
// environment runs the Feedback and PyG example with dm-clrs and PyTorch
// Geometric.
//
// The environments' other packages are not downloaded each run: a new
// environment sees those of a prepared one (the project's .venv: numpy,
// MLflow, pytest, the XLA CPU plugin; the bridge environment of
// scripts/setup-pybridge.sh: dm-clrs, JAX, PyTorch Geometric) through a
// .pth file naming a folder of links to them, narlab's own package left
// out; pip installs the wheel with --no-index, its numpy requirement met
// there.
func TestWheel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the wheel, two virtual environments and trains a model in a real MLflow server; run without -short")
	}
	root, err := project.Root()
	if err != nil {
		t.Fatal(err)
	}
	venvPy, err := project.Python()
	if err != nil {
		t.Fatalf("%v (the wheel's environments take the project environment's packages)", err)
	}
	bridgePy, err := project.BridgePython()
	if err != nil {
		t.Fatal(err)
	}
	srv := mlflowtest.Server(t)
	work := t.TempDir()

	// The wheel, as make wheel builds it.
	build := exec.Command(filepath.Join(root, "scripts", "build-wheel.sh"), filepath.Join(work, "dist"))
	var stderr bytes.Buffer
	build.Stderr = &stderr
	out, err := build.Output()
	if err != nil {
		t.Fatalf("scripts/build-wheel.sh: %v\n%s", err, tail(stderr.String(), 4000))
	}
	wheel := lastLine(string(out))
	t.Logf("%s%s", stderr.String(), wheel)
	if !strings.HasPrefix(filepath.Base(wheel), "narlab-0.1.0-py3-none-manylinux_") {
		t.Fatalf("the wheel is %q; want narlab-0.1.0-py3-none-manylinux_…", wheel)
	}

	// lib/clrs's own arrays for what tests/test_wheel.py draws.
	goDir := filepath.Join(work, "go")
	writeGoReference(t, goDir)

	// Everything the new environments run sees no Go and no checkout.
	env := cleanEnv(work)
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, d := range filepath.SplitList(p) {
				if _, err := os.Stat(filepath.Join(d, "go")); err == nil {
					t.Fatalf("cleanEnv left %s, which holds go, on PATH", d)
				}
			}
		}
	}

	// Environment A: the wheel over the project's packages; the wheel's
	// binary makes the docs' data; test_wheel.py and the docs' NumPy and
	// wheel examples (generate, sample, train, MLflow pyfunc) run.
	a := newWheelEnv(t, filepath.Join(work, "a"), venvPy, wheel, env)
	data := filepath.Join(work, "data")
	run(t, env, work, filepath.Join(a, "bin", "narlab"), "clrs", "generate", "--split", "all", "--algos", docAlgos, "--quiet",
		"--out", filepath.Join(data, "clrs30"))
	envA := append(activated(env, a), "MLFLOW_TRACKING_URI="+srv.URL, "NARLAB_TEST_DATA="+data, "NARLAB_TEST_GO="+goDir)
	wd, _ := os.Getwd()
	runPytest(t, filepath.Join(a, "bin", "python"), work, envA,
		filepath.Join(wd, "tests", "test_wheel.py"), filepath.Join(wd, "tests", "test_docs.py"), "--doc-tags=numpy,wheel")

	// Environment B: the wheel over the bridge environment: the docs'
	// Feedback and PyG example on the wheel's samples.
	b := newWheelEnv(t, filepath.Join(work, "b"), bridgePy, wheel, env)
	envB := append(activated(env, b), "NARLAB_TEST_DATA="+data, "PYTHONPATH="+filepath.Join(wd, "tests", "standins"))
	runPytest(t, filepath.Join(b, "bin", "python"), work, envB, filepath.Join(wd, "tests", "test_docs.py"), "--doc-tags=wheel-bridges")
}

// cleanEnv is the test's environment with no Go toolchain on PATH and none
// of narlab's or MLflow's settings (a Python lab's shell), XDG_DATA_HOME
// under work.
func cleanEnv(work string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "NARLAB_"), strings.HasPrefix(k, "MLFLOW_"), strings.HasPrefix(k, "GO"),
			k == "CGO_ENABLED", k == "PYTHONPATH", k == "VIRTUAL_ENV", k == "XDG_DATA_HOME":
			continue
		case k == "PATH":
			var keep []string
			for _, d := range filepath.SplitList(v) {
				if _, err := os.Stat(filepath.Join(d, "go")); err != nil {
					keep = append(keep, d)
				}
			}
			kv = "PATH=" + strings.Join(keep, string(os.PathListSeparator))
		}
		env = append(env, kv)
	}
	return append(env, "XDG_DATA_HOME="+filepath.Join(work, "xdg"), "PYTHONWARNINGS=ignore")
}

// activated is env as `. VENV/bin/activate` leaves it: VENV/bin first on
// PATH, VIRTUAL_ENV set.
func activated(env []string, venv string) []string {
	out := []string{"VIRTUAL_ENV=" + venv}
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + filepath.Join(venv, "bin") + string(os.PathListSeparator) + p
		}
		out = append(out, kv)
	}
	return out
}

// newWheelEnv makes a virtual environment at dir with base's interpreter,
// layered on base's packages (a .pth naming a folder of links to each
// entry of its site-packages but narlab's own), installs the wheel into it
// with pip (--no-index: its requirements are met by the layer) and returns
// dir.
func newWheelEnv(t *testing.T, dir, base, wheel string, env []string) string {
	t.Helper()
	site := strings.TrimSpace(run(t, env, "", base, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"))
	layer := dir + "-layer"
	if err := os.MkdirAll(layer, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(site)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		n := e.Name()
		low := strings.ToLower(n)
		if low == "narlab" || strings.HasPrefix(low, "narlab-") || strings.Contains(low, "__editable__") && strings.Contains(low, "narlab") ||
			strings.HasSuffix(low, ".pth") || n == "__pycache__" {
			continue
		}
		if err := os.Symlink(filepath.Join(site, n), filepath.Join(layer, n)); err != nil {
			t.Fatal(err)
		}
	}
	run(t, env, "", base, "-m", "venv", dir)
	py := filepath.Join(dir, "bin", "python")
	newSite := strings.TrimSpace(run(t, env, "", py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"))
	if err := os.WriteFile(filepath.Join(newSite, "zz-narlab-test-layer.pth"), []byte(layer+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := run(t, env, "", py, "-m", "pip", "install", "--no-index", "--no-cache-dir", "--disable-pip-version-check", wheel)
	t.Logf("%s: pip install %s: %s", dir, filepath.Base(wheel), lastLine(out))
	return dir
}

// run runs a command with env in dir and returns its output, failing the
// test with its output when it fails.
func run(t *testing.T, env []string, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Dir = env, dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, tail(string(out), 4000))
	}
	return string(out)
}

// writeGoReference writes, with lib/clrs, the datasets tests/test_wheel.py
// has the wheel make: each sampler's Dataset() for the same settings.
func writeGoReference(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	save := func(name string, fb *clrs.Feedback, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if err := clrs.SaveNPZ(filepath.Join(dir, name), fb); err != nil {
			t.Fatal(err)
		}
	}
	dataset := func(algo string, opts ...clrs.Option) (*clrs.Feedback, error) {
		s, err := clrs.NewSampler(algo, opts...)
		if err != nil {
			return nil, err
		}
		return s.Dataset()
	}
	for _, c := range []struct {
		algo          string
		length, count int
		seed          int64
		p             []float64
	}{{"bfs", 24, 5, 3, []float64{0.2}}, {"jarvis_march", 9, 6, 4, nil}, {"quickselect", 33, 3, 0, nil}} {
		opts := []clrs.Option{clrs.Length(c.length), clrs.Seed(c.seed), clrs.NumSamples(c.count)}
		if c.p != nil {
			opts = append(opts, clrs.P(c.p...))
		}
		fb, err := dataset(c.algo, opts...)
		save(fmt.Sprintf("sample_%s_n%d_s%d.npz", c.algo, c.length, c.seed), fb, err)
	}
	for _, algo := range []string{"insertion_sort", "floyd_warshall", "graham_scan"} {
		for _, n := range []int{5, 12} {
			for _, seed := range []int64{2, 9} {
				fb, err := dataset(algo, clrs.Length(n), clrs.Seed(seed), clrs.NumSamples(7))
				save(fmt.Sprintf("generate_%s_n%d_s%d.npz", algo, n, seed), fb, err)
			}
		}
	}
	s, err := clrs.NewSplitSampler("dfs", "val")
	if err != nil {
		t.Fatal(err)
	}
	fb, err := s.Dataset()
	save("split_dfs_val.npz", fb, err)
}
