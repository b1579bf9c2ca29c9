package nn

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/compute/gobackend" // the pure-Go backend, "go"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/lib/nn/engine"
)

// Choice is the backend narlab picked and why: Config is what GoMLX is
// given (e.g. "xla:/abs/pjrt_c_api_cpu_plugin.so" or "go"), Kind one of
// "xla-cuda", "xla-cpu", "go", and Reason a sentence for the user.
type Choice struct {
	Config string `json:"config"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// Found lists what backend discovery saw: the XLA plugins on disk, whether
// a GPU is present, and whether this binary can load XLA at all.
type Found struct {
	XLACompiled bool     `json:"xla_compiled"` // the binary links go-xla (cgo, not built with -tags noxla)
	CPUPlugins  []string `json:"cpu_plugins"`
	CUDAPlugins []string `json:"cuda_plugins"`
	GPU         bool     `json:"gpu"`
}

// Environment variables that steer the choice.
const (
	// EnvBackend overrides everything: "go", "go:OPTIONS" or "xla:PLUGIN[,OPTIONS]".
	EnvBackend = "GOMLX_BACKEND"
	// EnvPlugin names an XLA PJRT plugin file to use instead of searching.
	EnvPlugin = "NARLAB_XLA_PLUGIN"
)

// nvidiaDevice is the device file whose presence means an NVIDIA GPU (a
// variable so that tests can stand a file in for it).
var nvidiaDevice = "/dev/nvidia0"

// pureGoCost is what the one-line notice says when narlab falls back.
const pureGoCost = "training is roughly 20-30x slower than on XLA"

// Discover looks for XLA PJRT plugins in the project's Python environment
// (ROOT/.venv: the CPU plugin from the lammps-jax-pjrt-cpu wheel, the CUDA
// plugin from jax-cuda12-pjrt / jax-cuda13-pjrt), in $NARLAB_XLA_PLUGIN, and
// for an NVIDIA GPU (/dev/nvidia0).
func Discover() Found {
	f := Found{XLACompiled: slices.Contains(compute.List(), "xla")}
	if p := os.Getenv(EnvPlugin); p != "" {
		if abs, err := filepath.Abs(p); err == nil {
			if strings.Contains(filepath.Base(abs), "cuda") {
				f.CUDAPlugins = append(f.CUDAPlugins, abs)
			} else {
				f.CPUPlugins = append(f.CPUPlugins, abs)
			}
		}
	}
	for _, sp := range sitePackages() {
		f.CPUPlugins = append(f.CPUPlugins, glob(filepath.Join(sp, "lammps_jax_pjrt_cpu", "pjrt_c_api_cpu_plugin.so"))...)
		f.CUDAPlugins = append(f.CUDAPlugins, glob(filepath.Join(sp, "jax_plugins", "xla_cuda1*", "xla_cuda_plugin.so"))...)
	}
	if _, err := os.Stat(nvidiaDevice); err == nil {
		f.GPU = true
	}
	return f
}

// sitePackages returns the site-packages directories of the project's
// Python environment.
func sitePackages() []string {
	root, err := project.Root()
	if err != nil {
		return nil
	}
	dirs := glob(filepath.Join(root, ".venv", "lib", "python3*", "site-packages"))
	return dirs
}

func glob(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	sort.Strings(m)
	var out []string
	for _, p := range m {
		if st, err := os.Stat(p); err == nil && (st.Mode().IsRegular() || st.IsDir()) {
			out = append(out, p)
		}
	}
	return out
}

// Choose picks the backend: an explicit config (a --backend flag), else
// $GOMLX_BACKEND, else XLA CUDA when a CUDA plugin and a GPU are present,
// else the XLA CPU plugin, else the pure-Go backend. Several processes can
// share one GPU: the CUDA plugin is asked not to preallocate memory.
func Choose(config string) Choice {
	if config == "" {
		config = os.Getenv(EnvBackend)
		if config != "" {
			return Choice{Config: config, Kind: kindOf(config), Reason: "set by $" + EnvBackend}
		}
	} else {
		return Choice{Config: config, Kind: kindOf(config), Reason: "set by --backend"}
	}
	f := Discover()
	switch {
	case f.XLACompiled && f.GPU && len(f.CUDAPlugins) > 0:
		return Choice{Config: "xla:" + f.CUDAPlugins[0] + ",preallocate=false", Kind: "xla-cuda",
			Reason: "found an NVIDIA GPU and the CUDA PJRT plugin " + f.CUDAPlugins[0]}
	case f.XLACompiled && len(f.CPUPlugins) > 0:
		return Choice{Config: "xla:" + f.CPUPlugins[0], Kind: "xla-cpu",
			Reason: "found the XLA CPU PJRT plugin " + f.CPUPlugins[0]}
	case !f.XLACompiled:
		return Choice{Config: "go", Kind: "go",
			Reason: "this binary was built without XLA (cgo off or -tags noxla; rebuild with CGO_ENABLED=1): " + pureGoCost}
	default:
		return Choice{Config: "go", Kind: "go", Reason: "no XLA PJRT plugin found (`make setup` installs the CPU one): " + pureGoCost}
	}
}

// cudaEnvironment prepares the process for a CUDA plugin installed from
// PyPI (jax-cuda12-pjrt / jax-cuda13-pjrt in site-packages/jax_plugins,
// the NVIDIA libraries in site-packages/nvidia, found by the plugin's own
// RPATH): XLA is told where ptxas is (the nvidia cuda_nvcc wheel), and
// go-xla's check, which looks for nvidia/ beside jax_plugins/, is off.
func cudaEnvironment(plugin string) {
	sp := filepath.Dir(filepath.Dir(filepath.Dir(plugin))) // …/site-packages
	if os.Getenv("GOPJRT_CUDA_CHECKS") == "" {
		os.Setenv("GOPJRT_CUDA_CHECKS", "0")
	}
	flags := os.Getenv("XLA_FLAGS")
	if strings.Contains(flags, "--xla_gpu_cuda_data_dir") {
		return
	}
	for _, d := range []string{filepath.Join(sp, "nvidia", "cuda_nvcc"), filepath.Join(sp, "nvidia", "cu13")} {
		if _, err := os.Stat(filepath.Join(d, "bin", "ptxas")); err == nil {
			os.Setenv("XLA_FLAGS", strings.TrimSpace(flags+" --xla_gpu_cuda_data_dir="+d))
			return
		}
	}
}

func kindOf(config string) string {
	name, rest, _ := strings.Cut(config, ":")
	switch {
	case name == "xla" && strings.Contains(rest, "cuda"):
		return "xla-cuda"
	case name == "xla":
		return "xla-cpu"
	}
	return name
}

// Backend returns the GoMLX backend for config ("" = [Choose]'s pick;
// "go" and "go:OPTIONS" for the pure-Go backend; "xla:/abs/plugin.so"
// for XLA). Backends are cached per config: XLA clients are expensive and
// a process needs one.
func Backend(config string) (compute.Backend, error) {
	b, _, err := BackendChoice(config)
	return b, err
}

// CheckBackend checks config ("" = [Choose]'s pick) as [Backend] does,
// without starting anything: the backend must be compiled into this binary
// and, when pluginHere, an XLA plugin given by its absolute path must exist
// on this machine. Commands call it before any work; a sweep checks cells
// meant for other machines with pluginHere false.
func CheckBackend(config string, pluginHere bool) error {
	return checkChoice(Choose(config), pluginHere)
}

func checkChoice(c Choice, pluginHere bool) error {
	name, rest, _ := strings.Cut(c.Config, ":")
	if !slices.Contains(compute.List(), name) {
		known := slices.Sorted(slices.Values(compute.List()))
		return fmt.Errorf("nn: unknown backend %q (this binary has: %s; XLA needs cgo, see `narlab backends`)",
			c.Config, strings.Join(known, ", "))
	}
	if plugin, _, _ := strings.Cut(rest, ","); name == "xla" && pluginHere && strings.HasPrefix(plugin, "/") {
		if _, err := os.Stat(plugin); err != nil {
			return fmt.Errorf("nn: backend %q: the XLA plugin %s: %w", c.Config, plugin, err)
		}
	}
	return nil
}

var (
	backendsMu sync.Mutex
	backends   = map[string]compute.Backend{}
)

// BackendChoice is [Backend] that also reports the choice made.
func BackendChoice(config string) (compute.Backend, Choice, error) {
	c := Choose(config)
	cfg := c.Config
	if cfg == "go" {
		// gomlx's pure-Go backend with sequential op scheduling (each op
		// still uses every core). Under v0.26 the parallel scheduler
		// deadlocked; under v0.28 it no longer does, but the pure-Go
		// overfit tests take 36 s with ops_parallel against 22 s
		// sequential (2 cores, 2026-11-24), so sequential stays.
		cfg = "go:ops_sequential"
	}
	if err := checkChoice(c, true); err != nil {
		return nil, c, err
	}
	if name, rest, _ := strings.Cut(cfg, ":"); name == "xla" {
		noPluginDownloads() // go-xla never downloads plugins
		if plugin, _, _ := strings.Cut(rest, ","); strings.HasPrefix(plugin, "/") && c.Kind == "xla-cuda" {
			cudaEnvironment(plugin)
		}
	}
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if b, ok := backends[cfg]; ok {
		return b, c, nil
	}
	b, err := compute.NewWithConfig(cfg)
	if err != nil {
		return nil, c, fmt.Errorf("nn: backend %q: %w", c.Config, err)
	}
	b = engine.GoClosures(b) // the pure-Go backend's loop bodies as built (see there)
	backends[cfg] = b
	return b, c, nil
}

// deviceOf is the device of a backend [BackendChoice] made (engine.DeviceGo
// for a backend made elsewhere).
func deviceOf(be compute.Backend) engine.Device {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	for config, b := range backends {
		if b == be {
			return engine.Device(kindOf(config))
		}
	}
	return engine.DeviceGo
}
