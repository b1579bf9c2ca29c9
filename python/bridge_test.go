package python

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/narlab/narlab/experiments/clrs30"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/internal/testenv"
	"github.com/narlab/narlab/lib/clrs"
)

// specsFile is the package's copy of the specs; NARLAB_UPDATE_SPECS=1
// go test -run TestSpecsJSON ./python rewrites it from lib/clrs.
const specsFile = "narlab/specs.json"

// specsJSON renders clrs.Specs as narlab/specs.json holds them.
func specsJSON() []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"about\": \"Written from narlab's Go specs (lib/clrs) by NARLAB_UPDATE_SPECS=1 go test -run TestSpecsJSON ./python; do not edit.\",\n")
	clrs30, _ := json.Marshal(clrs.CLRS30())
	fmt.Fprintf(&b, "  \"clrs30\": %s,\n  \"specs\": {\n", clrs30)
	algos := make([]string, 0, len(clrs.Specs))
	for a := range clrs.Specs {
		algos = append(algos, a)
	}
	slices.Sort(algos)
	for i, a := range algos {
		fmt.Fprintf(&b, "    %q: [", a)
		for j, p := range clrs.Specs[a] {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "[%q, %q, %q, %q]", p.Name, p.Stage, p.Location, p.Type)
		}
		b.WriteString("]")
		if i < len(algos)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  }\n}\n")
	return b.Bytes()
}

// TestSpecsJSON: the Python package's specs are narlab's Go specs (the
// bridge tests check them against dm-clrs's clrs.SPECS).
func TestSpecsJSON(t *testing.T) {
	want := specsJSON()
	if os.Getenv("NARLAB_UPDATE_SPECS") == "1" {
		if err := os.WriteFile(specsFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(specsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date with lib/clrs's specs: run NARLAB_UPDATE_SPECS=1 go test -run TestSpecsJSON ./python", specsFile)
	}
}

// testData are the files the pytest suites read, made once per test
// binary: DATA/val (narlab clrs generate --split val: all 30 algorithms),
// DATA/clrs30 (--split all for bfs and insertion_sort), DATA/custom (bfs
// at length 12, seeds 4 and 5, 9 samples each), and the official
// splits written by dm-clrs's own samplers in REF (scripts/ref-harness.sh:
// dm-clrs 2.0.3 on numpy 1.24.4, np.cos/np.sin as on the fixtures' AVX-512
// machine: time_reference.py --svml).
type testData struct {
	data, ref string
	err       error
}

var (
	dataOnce sync.Once
	shared   testData
)

// docAlgos are the algorithms of DATA/clrs30 (every split).
const docAlgos = "bfs,insertion_sort"

func prepare(t *testing.T) testData {
	t.Helper()
	dataOnce.Do(func() { shared = makeTestData() })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared
}

func makeTestData() testData {
	root, err := project.Root()
	if err != nil {
		return testData{err: err}
	}
	dir, err := os.MkdirTemp("", "narlab-python-test")
	if err != nil {
		return testData{err: err}
	}
	// Removed at the end of the test binary (TestMain).
	tempDirs = append(tempDirs, dir)
	td := testData{data: filepath.Join(dir, "data"), ref: filepath.Join(dir, "ref")}
	run := func(what string, cmd *exec.Cmd) error {
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v\n%s", what, err, tail(string(out), 4000))
		}
		timings = append(timings, fmt.Sprintf("%s: %.1fs", what, time.Since(start).Seconds()))
		return nil
	}
	// The files, written by the command users run.
	bin := filepath.Join(dir, "narlab")
	build := exec.Command("go", "build", "-o", bin, "./cmd/narlab")
	build.Dir = root
	if err := run("go build ./cmd/narlab", build); err != nil {
		return testData{err: err}
	}
	if err := run("narlab clrs generate --split val", exec.Command(bin, "clrs", "generate", "--split", "val", "--quiet", "--out", filepath.Join(td.data, "val"))); err != nil {
		return testData{err: err}
	}
	if err := run("narlab clrs generate --split all --algos "+docAlgos, exec.Command(bin, "clrs", "generate", "--split", "all", "--algos", docAlgos, "--quiet", "--out", filepath.Join(td.data, "clrs30"))); err != nil {
		return testData{err: err}
	}
	if err := run("narlab clrs generate --lengths 12 --seeds 4,5 --count 9 --algos bfs", exec.Command(bin, "clrs", "generate", "--lengths", "12", "--seeds", "4,5", "--count", "9", "--algos", "bfs", "--quiet", "--out", filepath.Join(td.data, "custom"))); err != nil {
		return testData{err: err}
	}
	// The reference's arrays for the same splits.
	refDir, err := refHarness(root)
	if err != nil {
		return testData{err: err}
	}
	refPy, err := refHarness(root, "--numpy")
	if err != nil {
		return testData{err: err}
	}
	script := filepath.Join(root, "scripts", "time_reference.py")
	if err := run("dm-clrs samplers: val split", exec.Command(refPy, script, "--ref", refDir, "--svml", "--splits", "val", "--write", filepath.Join(td.ref, "val"))); err != nil {
		return testData{err: err}
	}
	if err := run("dm-clrs samplers: train, val, test of "+docAlgos, exec.Command(refPy, script, "--ref", refDir, "--svml", "--splits", "train,val,test", "--algos", docAlgos, "--write", filepath.Join(td.ref, "clrs30"))); err != nil {
		return testData{err: err}
	}
	return td
}

// refHarness runs scripts/ref-harness.sh with args and returns what it
// prints: the prepared reference's folder, or with --numpy the python of
// its numpy 1.24.4 environment.
func refHarness(root string, args ...string) (string, error) {
	cmd := exec.Command(filepath.Join(root, "scripts", "ref-harness.sh"), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/ref-harness.sh %s: %v\n%s", strings.Join(args, " "), err, tail(stderr.String(), 4000))
	}
	return strings.TrimSpace(string(out)), nil
}

// TestSVMLEmulation: scripts/numpy_svml.py, which the reference's arrays
// above are written with (time_reference.py --svml), gives the shared
// fixtures' convex-hull points bit for bit on this machine's CPU (the
// fixtures were made with numpy 1.24 on AVX-512; elsewhere numpy rounds
// np.cos/np.sin differently in the last bit).
func TestSVMLEmulation(t *testing.T) {
	if testing.Short() {
		t.Skip("sets up the reference samplers' environment (scripts/ref-harness.sh); run without -short")
	}
	root, err := project.Root()
	if err != nil {
		t.Fatal(err)
	}
	shared := os.Getenv("NARLAB_SHARED")
	if shared == "" {
		shared = filepath.Join(filepath.Dir(root), "shared")
	}
	refDir, err := refHarness(root)
	if err != nil {
		t.Fatal(err)
	}
	refPy, err := refHarness(root, "--numpy")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ algo, length, seed string }{
		{"graham_scan", "16", "1"}, {"graham_scan", "5", "0"},
		{"jarvis_march", "16", "1"}, {"jarvis_march", "5", "0"},
	} {
		name := fmt.Sprintf("%s_n%s_s%s", tc.algo, tc.length, tc.seed)
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(shared, "fixtures", "clrs", name+".json"))
			if err != nil {
				t.Fatalf("%v (the shared fixtures beside the checkout; set NARLAB_SHARED)", err)
			}
			var want struct {
				NumSamples  int             `json:"num_samples"`
				SampledArgs json.RawMessage `json:"sampled_args"`
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(refPy, filepath.Join(root, "scripts", "numpy_svml.py"), filepath.Join(refDir, "dump.py"),
				tc.algo, tc.length, tc.seed, "--num-samples", fmt.Sprint(want.NumSamples))
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %v", cmd.Args, err)
			}
			var got struct {
				SampledArgs json.RawMessage `json:"sampled_args"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			var g, w any
			if err := json.Unmarshal(got.SampledArgs, &g); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(want.SampledArgs, &w); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(g, w) {
				t.Errorf("dump.py under numpy_svml.py: sampled_args differ from the fixture's\ngot  %.300s\nwant %.300s", got.SampledArgs, want.SampledArgs)
			}
		})
	}
}

var (
	tempDirs    []string
	timings     []string
	timingsOnce sync.Once
)

func TestMain(m *testing.M) {
	testenv.Main(m, func() {
		for _, d := range tempDirs {
			os.RemoveAll(d)
		}
	})
}

// pytest runs the given test files with py in the package directory and
// fails on a failure, an error, a skip or no test run: every test of
// these suites must run where it is run.
func pytest(t *testing.T, py string, env []string, args ...string) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	td := prepare(t)
	timingsOnce.Do(func() {
		for _, s := range timings {
			t.Log("prepared: " + s)
		}
	})
	runPytest(t, py, wd, append(os.Environ(),
		"PYTHONPATH="+strings.Join(append([]string{wd}, env...), string(os.PathListSeparator)),
		"NARLAB_TEST_DATA="+td.data, "NARLAB_TEST_REF="+td.ref), args...)
}

// runPytest runs pytest with py in dir and environment env (PYTHONDONTWRITEBYTECODE
// added), failing the test on a failure, an error, a skip or no test run.
func runPytest(t *testing.T, py, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(py, append([]string{"-m", "pytest", "-p", "no:cacheprovider", "-rA", "--color=no"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(env, "PYTHONDONTWRITEBYTECODE=1")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	text := string(out)
	summary := lastLine(text)
	t.Logf("%s -m pytest %s: %s (%.1fs)", py, strings.Join(args, " "), summary, time.Since(start).Seconds())
	if err != nil {
		t.Fatalf("pytest failed (%v):\n%s", err, tail(text, 12000))
	}
	if m := regexp.MustCompile(`(\d+) passed`).FindStringSubmatch(summary); m == nil || m[1] == "0" {
		t.Fatalf("pytest ran no test:\n%s", tail(text, 4000))
	}
	if regexp.MustCompile(`skipped|xfail|xpass|deselected`).MatchString(summary) {
		t.Fatalf("pytest skipped tests; every test must run here:\n%s", tail(text, 4000))
	}
	if testing.Verbose() {
		t.Log(tail(text, 6000))
	}
}

// TestNumpy runs the NumPy-only suites in the project's .venv (made by
// scripts/setup.sh from environment.yml, which has numpy and pytest):
// loading, errors, batching, the docs' NumPy snippets, and the arrays
// equal to those dm-clrs's samplers make for the same splits.
func TestNumpy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI, the reference samplers' environment (scripts/ref-harness.sh) and runs pytest in .venv; run without -short")
	}
	py, err := project.Python()
	if err != nil {
		t.Fatalf("%v (narlab's Python package is tested in the project's environment)", err)
	}
	if out, err := exec.Command(py, "-c", "import numpy, pytest").CombinedOutput(); err != nil {
		t.Fatalf("the project's Python environment (%s) lacks numpy or pytest: run scripts/setup.sh (make setup): %v\n%s", py, err, out)
	}
	pytest(t, py, nil, "tests/test_load.py", "tests/test_reference.py", "tests/test_docs.py", "--doc-tags=numpy")
}

// TestBridges runs the suites that need dm-clrs 2.0.3 (with JAX) and
// PyTorch Geometric, in the environment scripts/setup-pybridge.sh makes
// (make test runs it first): dm-clrs's BaselineModel trained on batches
// read from narlab's files, the Feedback equal to dm-clrs's samplers', PyG
// graphs and batches, and the docs' dm-clrs and PyG snippets.
func TestBridges(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the bridge environment of scripts/setup-pybridge.sh (dm-clrs, JAX, PyTorch Geometric); run without -short")
	}
	py, err := project.BridgePython()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	// dm-clrs imports TensorFlow and TFDS, which it uses only for its own
	// dataset files: stand-ins (tests/standins/README.md).
	pytest(t, py, []string{filepath.Join(wd, "tests", "standins")},
		"tests/test_dmclrs.py", "tests/test_pyg.py", "tests/test_docs.py", "--doc-tags=dmclrs,pyg")
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Trim(lines[len(lines)-1], "= ")
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestPackageVersion: the Python package's version is the one narlab's
// logged models require in their python_function environment
// (clrs30.PythonPackageVersion).
func TestPackageVersion(t *testing.T) {
	raw, err := os.ReadFile("pyproject.toml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^version = "([^"]+)"$`).FindSubmatch(raw)
	if m == nil {
		t.Fatal("pyproject.toml has no version line")
	}
	init, err := os.ReadFile("narlab/__init__.py")
	if err != nil {
		t.Fatal(err)
	}
	if string(m[1]) != clrs30.PythonPackageVersion || !bytes.Contains(init, []byte("__version__ = '"+clrs30.PythonPackageVersion+"'")) {
		t.Errorf("pyproject.toml says %s, narlab/__init__.py's __version__ must agree, and experiments/clrs30.PythonPackageVersion is %s: make them one",
			m[1], clrs30.PythonPackageVersion)
	}
}
