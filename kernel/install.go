package kernel

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/project"
)

// Name and DisplayName identify narlab's kernel spec.
const (
	Name        = "narlab"
	DisplayName = "Go (narlab)"
)

// Spec is a Jupyter kernel.json.
type Spec struct {
	Argv          []string          `json:"argv"`
	DisplayName   string            `json:"display_name"`
	Language      string            `json:"language"`
	InterruptMode string            `json:"interrupt_mode"`
	Env           map[string]string `json:"env"`
}

// Paths are where an installation puts things.
type Paths struct {
	Root      string // the checkout
	Bin       string // ROOT/bin: gonb, goimports, narlab
	KernelDir string // VENV/share/jupyter/kernels/narlab
	Python    string // the project's Python (with Jupyter)
	// JupyterPath, when set, is a Jupyter data directory (JUPYTER_PATH)
	// holding KernelDir; empty for the environment's own share/jupyter.
	JupyterPath string
}

// DefaultPaths locates the checkout and its Python environment.
func DefaultPaths() (Paths, error) {
	root, err := project.Root()
	if err != nil {
		return Paths{}, err
	}
	py, err := project.Python()
	if err != nil {
		return Paths{}, err
	}
	venv := filepath.Dir(filepath.Dir(py))
	return Paths{Root: root, Bin: filepath.Join(root, "bin"), Python: py,
		KernelDir: filepath.Join(venv, "share", "jupyter", "kernels", Name)}, nil
}

// WithJupyterDir returns p with the kernel spec placed under dir/kernels,
// a Jupyter data directory outside the Python environment. Jupyter finds
// it when JUPYTER_PATH names dir; Install sets JUPYTER_PATH for its own
// check.
func (p Paths) WithJupyterDir(dir string) Paths {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	p.KernelDir = filepath.Join(dir, "kernels", Name)
	p.JupyterPath = dir
	return p
}

// Install builds GoNB, goimports and narlab into p.Bin (from the checkout,
// so the versions pinned in go.mod are used and nothing is asked of the
// module proxy but those pinned versions) and writes the kernel spec. Log
// lines go to log.
func Install(p Paths, log io.Writer) error {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("kernel: the go command is not on PATH: %w", err)
	}
	if err := os.MkdirAll(p.Bin, 0o755); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	for _, t := range []struct{ out, pkg string }{
		{"gonb", "github.com/janpfeifer/gonb"},
		{"goimports", "golang.org/x/tools/cmd/goimports"},
		{"narlab", "./cmd/narlab"},
	} {
		fmt.Fprintf(log, "building %s (%s)\n", t.out, t.pkg)
		cmd := exec.Command(goBin, "build", "-o", filepath.Join(p.Bin, t.out), t.pkg)
		cmd.Dir = p.Root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("kernel: building %s: %w\n%s", t.out, err, out)
		}
	}
	goroot := runtime.GOROOT()
	if out, err := exec.Command(goBin, "env", "GOROOT").Output(); err == nil {
		goroot = strings.TrimSpace(string(out))
	}
	path := strings.Join([]string{p.Bin, filepath.Join(goroot, "bin"), filepath.Dir(p.Python), os.Getenv("PATH")}, string(os.PathListSeparator))
	spec := Spec{
		Argv:          []string{filepath.Join(p.Bin, "gonb"), "--kernel", "{connection_file}", "--logtostderr"},
		DisplayName:   DisplayName,
		Language:      "go",
		InterruptMode: "message",
		Env: map[string]string{
			"PATH":        path,
			"NARLAB_ROOT": p.Root,
			// Resolve modules from the local cache only: a cell can never
			// reach for the network.
			"GOPROXY":     "off",
			"GOFLAGS":     "-mod=mod",
			"GOTOOLCHAIN": "local",
			// XLA's large temporary buffers as transparent huge pages
			// (internal/hugepages): a cell cannot set it for itself.
			"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1",
		},
	}
	if err := os.MkdirAll(p.KernelDir, 0o755); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	data, _ := json.MarshalIndent(spec, "", "  ")
	if err := fsutil.WriteFile(filepath.Join(p.KernelDir, "kernel.json"), append(data, '\n'), fsutil.DataMode); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	fmt.Fprintf(log, "installed kernel spec %q (%s) in %s\n", Name, DisplayName, p.KernelDir)
	// Check that Jupyter sees it.
	list := exec.Command(p.Python, "-m", "jupyter_client.kernelspecapp", "list", "--json")
	if p.JupyterPath != "" {
		list.Env = append(os.Environ(), "JUPYTER_PATH="+p.JupyterPath)
	}
	out, err := list.Output()
	if err != nil {
		return fmt.Errorf("kernel: listing Jupyter kernels: %w", err)
	}
	var listed struct {
		Kernelspecs map[string]any `json:"kernelspecs"`
	}
	if err := json.Unmarshal(out, &listed); err != nil {
		return fmt.Errorf("kernel: reading the kernel list: %w", err)
	}
	if _, ok := listed.Kernelspecs[Name]; !ok {
		return fmt.Errorf("kernel: Jupyter does not list the %q kernel after installation", Name)
	}
	return nil
}

// Prepare makes the Go module in dir (GoNB's scratch module, the working
// directory of `!*` commands) use this checkout of narlab: it requires
// github.com/narlab/narlab (replaced by root) and every module narlab
// requires, at narlab's versions, and merges narlab's go.sum, so imports
// resolve with GOPROXY=off.
func Prepare(dir, root string) error {
	goMod := filepath.Join(dir, "go.mod")
	if _, err := os.Stat(goMod); err != nil {
		return fmt.Errorf("kernel: %s has no go.mod (run this from a notebook cell as `!*narlab kernel prepare`): %w", dir, err)
	}
	reqs, err := requirements(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	args := []string{"mod", "edit",
		"-require=" + project.Module + "@v0.0.0",
		"-replace=" + project.Module + "=" + root}
	for _, r := range reqs {
		args = append(args, "-require="+r)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("kernel: go mod edit: %w\n%s", err, out)
	}
	return mergeSums(filepath.Join(dir, "go.sum"), filepath.Join(root, "go.sum"))
}

// requirements lists "module@version" of every require line of a go.mod.
func requirements(goMod string) ([]string, error) {
	cmd := exec.Command("go", "mod", "edit", "-json", goMod)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("kernel: reading %s: %w", goMod, err)
	}
	var mod struct {
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		return nil, fmt.Errorf("kernel: parsing %s: %w", goMod, err)
	}
	var reqs []string
	for _, r := range mod.Require {
		reqs = append(reqs, r.Path+"@"+r.Version)
	}
	return reqs, nil
}

// mergeSums adds the lines of src missing from dst (both go.sum files).
func mergeSums(dst, src string) error {
	lines := map[string]bool{}
	for _, f := range []string{dst, src} {
		fh, err := os.Open(f)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("kernel: %w", err)
		}
		err = fsutil.ScanLines(fh, func(_ int, l []byte) error {
			lines[string(l)] = true
			return nil
		})
		fh.Close()
		if err != nil {
			return fmt.Errorf("kernel: %s: %w", f, err)
		}
	}
	sorted := make([]string, 0, len(lines))
	for l := range lines {
		sorted = append(sorted, l)
	}
	sort.Strings(sorted)
	if err := fsutil.WriteFile(dst, []byte(strings.Join(sorted, "\n")+"\n"), fsutil.DataMode); err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	return nil
}
