package nn

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/compute"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn/engine"
)

// TestCheckBackend: the pre-work check of a --backend value says what is
// wrong without starting anything; a sweep (pluginHere false) does not look
// for a plugin file meant for another machine.
func TestCheckBackend(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing_plugin.so")
	xla := slices.Contains(compute.List(), "xla")
	for _, c := range []struct {
		name, config string
		pluginHere   bool
		needsXLA     bool
		want         string // a part of the error; "" for none
	}{
		{"pure Go", "go", true, false, ""},
		{"unknown name", "foo", true, false, `unknown backend "foo" (this binary has: `},
		{"missing plugin here", "xla:" + missing, true, true, "the XLA plugin " + missing},
		{"missing plugin on another machine", "xla:" + missing, false, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.needsXLA && !xla {
				t.Skip("this binary has no XLA backend (cgo off or -tags noxla)")
			}
			err := CheckBackend(c.config, c.pluginHere)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v; want one with %q", err, c.want)
			}
		})
	}
	// The list of backends in the message is sorted (it was in map order).
	err := CheckBackend("foo", true)
	list := err.Error()[strings.Index(err.Error(), "has: ")+5:]
	list = list[:strings.Index(list, ";")]
	if names := strings.Split(list, ", "); !slices.IsSorted(names) {
		t.Errorf("backends listed out of order: %v", names)
	}
}

// TestChooseCUDA: with an NVIDIA device and a CUDA plugin in
// $NARLAB_XLA_PLUGIN, narlab's own pick (no --backend, no $GOMLX_BACKEND)
// is XLA CUDA without preallocation; without the device it is not.
func TestChooseCUDA(t *testing.T) {
	if !slices.Contains(compute.List(), "xla") {
		t.Skip("this binary has no XLA backend (cgo off or -tags noxla)")
	}
	dir := t.TempDir()
	plugin := filepath.Join(dir, "site-packages", "jax_plugins", "xla_cuda13", "xla_cuda_plugin.so")
	device := filepath.Join(dir, "nvidia0")
	if err := os.WriteFile(device, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvBackend, "")
	t.Setenv(EnvPlugin, plugin)
	defer func(d string) { nvidiaDevice = d }(nvidiaDevice)
	for _, c := range []struct {
		name, device, kind, config string
	}{
		{"device present", device, "xla-cuda", "xla:" + plugin + ",preallocate=false"},
		{"no device", filepath.Join(dir, "missing"), "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			nvidiaDevice = c.device
			got := Choose("")
			if c.kind == "" {
				if got.Kind == "xla-cuda" {
					t.Fatalf("picked %+v without a GPU", got)
				}
				return
			}
			if got.Kind != c.kind || got.Config != c.config {
				t.Fatalf("picked %+v; want kind %s, config %s", got, c.kind, c.config)
			}
		})
	}
}

// TestCUDABackend runs on a machine with an NVIDIA GPU and the CUDA plugin
// (scripts/gpu_bench_run.sh runs it there first): narlab's own pick is XLA
// CUDA and a model trains a step and predicts on it, evaluating with its
// loop on the device (EvalLoop auto's pick there), and that auto's
// step loop unrolls the Triplet processors there too. Elsewhere it is
// skipped, saying why (CI has no GPU; TestChooseCUDA covers the pick).
func TestCUDABackend(t *testing.T) {
	f := Discover()
	if !f.GPU || len(f.CUDAPlugins) == 0 || !f.XLACompiled {
		t.Skipf("needs an NVIDIA GPU, the CUDA PJRT plugin and an XLA build (found %+v)", f)
	}
	t.Setenv(EnvBackend, "")
	be, choice, err := BackendChoice("")
	if err != nil {
		t.Fatal(err)
	}
	if choice.Kind != "xla-cuda" {
		t.Fatalf("picked %+v on a GPU machine", choice)
	}
	t.Logf("picked %s: %s", choice.Config, choice.Reason)
	s, err := clrs.NewSampler("bfs", clrs.Length(8), clrs.Seed(3), clrs.NumSamples(8))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := s.Next(8)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig("bfs", "mpnn")
	cfg.Hidden = 16
	m := testModel(t, be, cfg)
	if !m.loop.EvalOnDevice() {
		t.Error("the default evaluation loop (auto) runs on the host on the GPU")
	}
	if !engine.ProgramsEver(engine.Options{RunSteps: 10}, deviceOf(be), engine.Traits{Triplets: true}) {
		t.Error("auto does not train Triplet-GMPNN as one program on the GPU")
	}
	loss, err := m.TrainStep(fb)
	if err != nil || math.IsNaN(loss) || loss <= 0 {
		t.Fatalf("train step on the GPU: loss %v, error %v", loss, err)
	}
	if n := m.ProgramStepCount(); n != 1 {
		t.Errorf("%d of 1 training steps ran as one program on the GPU", n)
	}
	if _, err := m.Predict(fb); err != nil {
		t.Fatalf("predict on the GPU: %v", err)
	}
}

// TestEvalLoopAuto checks that the CPU backends this binary has are not
// taken for an NVIDIA card (where engine.Plan runs evaluation's loop on the
// device by default; TestPlan holds the rule): a model evaluates on the
// host by default and on the device when asked.
func TestEvalLoopAuto(t *testing.T) {
	for name, be := range testBackends(t) {
		if deviceOf(be) == engine.DeviceCUDA {
			t.Errorf("%s: taken for an NVIDIA card", name)
		}
		cfg := DefaultConfig("bfs", "mpnn")
		cfg.Hidden = 4
		m, err := New(be, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if m.loop.EvalOnDevice() || m.EvalLoopUsed() != engine.EvalLoopHost {
			t.Errorf("%s: the default evaluates on the device off a GPU", name)
		}
		if err := m.SetExecution(engine.Options{EvalLoop: engine.EvalLoopDevice}); err != nil || m.EvalLoopUsed() != engine.EvalLoopDevice {
			t.Errorf("%s: SetExecution(EvalLoop device): error %v, evaluates on the %s", name, err, m.EvalLoopUsed())
		}
		m.Close()
	}
}
