package nn

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn/engine"
)

// refTrace is a reference trace (scripts/parity_ref.py --trace): for each
// of the first training steps, the reference's parameters before the step,
// the step's loss and its gradient.
type refTrace struct {
	Algorithm, Processor string
	Hidden, Batch        int
	Seed                 int64
	Steps                []struct {
		Loss          float64
		Params, Grads refTensors
		// Samples, where recorded (--trace-samples), are the loss and
		// gradients of each sample of the step's batch alone.
		Samples []struct {
			Loss  float64
			Grads refTensors
		}
		// SamplesEager, where recorded (--eager-samples), are the same
		// samples' loss and gradients computed by the reference op by op
		// (jax.disable_jit), by sample index.
		SamplesEager map[string]struct {
			Loss  float64
			Grads refTensors
		} `json:"samples_eager"`
	}
}

// refTensors are a reference dump's named arrays.
type refTensors map[string]struct {
	Shape []int
	Data  []float64
}

// TestReferenceSameInitTrace is a measurement, not part of the suite: with
// NARLAB_REF_TRACE naming a reference trace, it loads each step's
// parameters (the reference's, so that nothing narlab computed at earlier
// steps enters) and compares narlab's loss and gradients of that step with
// the reference's. A difference in the function shows at the step where it
// happens, uncompounded: with the same function the gradients agree to
// float32 rounding (relative 1e-6 or so) at every step. It prints, per
// step, the loss difference and the parameters whose gradients differ most.
func TestReferenceSameInitTrace(t *testing.T) {
	path := os.Getenv("NARLAB_REF_TRACE")
	if path == "" {
		t.Skip("a measurement: set NARLAB_REF_TRACE (scripts/parity_ref.py --trace)")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr refTrace
	if err := json.Unmarshal(raw, &tr); err != nil {
		t.Fatal(err)
	}
	be, err := Backend(os.Getenv("NARLAB_REF_BACKEND"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig(tr.Algorithm, tr.Processor)
	cfg.Hidden = tr.Hidden
	m := testModel(t, be, cfg)
	s, err := clrs.NewSplitSampler(tr.Algorithm, "train")
	if err != nil {
		t.Fatal(err)
	}
	load := func(i int) {
		for _, v := range engine.TrainableVariables(m.store.RootScope()) {
			name, shift := referenceParamName(v.Path(), tr.Processor)
			p, ok := tr.Steps[i].Params[name]
			if !ok {
				t.Fatalf("narlab variable %s: no reference parameter %q", v.Path(), name)
			}
			vals := make([]float32, len(p.Data))
			for k, x := range p.Data {
				vals[k] = float32(x + shift)
			}
			if err := v.SetValue(tensors.FromFlatDataAndDimensions(vals, p.Shape...)); err != nil {
				t.Fatal(err)
			}
		}
	}
	batches := make([]*clrs.Feedback, len(tr.Steps))
	for i := range batches {
		if batches[i], err = s.Next(tr.Batch); err != nil {
			t.Fatal(err)
		}
	}
	for i, st := range tr.Steps {
		fb := batches[i]
		if i == 0 {
			if _, err := m.Predict(fb); err != nil { // creates the variables
				t.Fatal(err)
			}
		}
		load(i)
		loss, diffs, total := traceGradients(t, m, tr.Processor, fb, st.Grads)
		msg := fmt.Sprintf("step %d: loss %.7f, the reference's %.7f (relative %.1e); gradient norm %.3g, "+
			"‖Δ‖/norm %.1e; (‖Δ‖/gradient norm, ‖Δ‖/‖g‖ of the parameter) largest at",
			i+1, loss, st.Loss, math.Abs(loss-st.Loss)/math.Abs(st.Loss), total, diffNorm(diffs))
		for _, d := range diffs[:min(traceTop, len(diffs))] {
			msg += fmt.Sprintf("\n  %s %.1e %.1e", d.name, d.norm, d.rel)
		}
		t.Log(msg)
		for b, smp := range st.Samples {
			sub, err := fb.Select(b)
			if err != nil {
				t.Fatal(err)
			}
			loss, diffs, total := traceGradients(t, m, tr.Processor, sub, smp.Grads)
			t.Logf("step %d sample %d alone: loss %.7f, the reference's %.7f; gradient norm %.3g, ‖Δ‖/norm %.1e (most at %s %.1e)",
				i+1, b, loss, smp.Loss, total, diffNorm(diffs), diffs[0].name, diffs[0].norm)
			if e, ok := st.SamplesEager[fmt.Sprint(b)]; ok {
				_, diffs, total := traceGradients(t, m, tr.Processor, sub, e.Grads)
				t.Logf("step %d sample %d alone against the reference op by op: loss %.7f; gradient norm %.3g, ‖Δ‖/norm %.1e (most at %s %.1e)",
					i+1, b, e.Loss, total, diffNorm(diffs), diffs[0].name, diffs[0].norm)
			}
		}
	}
	// Then training from the first step's parameters, as the same-init
	// harness does: each step's loss against the reference's.
	load(0)
	for i, fb := range batches {
		loss, err := m.TrainStep(fb)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("trained: step %d: loss %.7f, the reference's %.7f (relative %.1e)", i+1, loss, tr.Steps[i].Loss,
			math.Abs(loss-tr.Steps[i].Loss)/math.Abs(tr.Steps[i].Loss))
	}
}

// traceTop is how many parameters TestReferenceSameInitTrace names per
// step (NARLAB_TRACE_TOP, default 4).
var traceTop = func() int {
	n := 4
	fmt.Sscan(os.Getenv("NARLAB_TRACE_TOP"), &n)
	return n
}()

// traceDiff is how a parameter's gradient differs from the reference's.
type traceDiff struct {
	name           string
	norm, rel, max float64 // ‖Δ‖ / the whole gradient's norm, ‖Δ‖ / ‖g‖, max |Δ|
}

// traceGradients computes m's loss and gradients on fb (the step loop's,
// without updating) and compares them with the reference's, largest
// difference first; total is the norm of the reference's whole gradient.
func traceGradients(t *testing.T, m *Model, processor string, fb *clrs.Feedback, ref refTensors) (float64, []traceDiff, float64) {
	t.Helper()
	bd, err := m.batchOf(fb)
	if err != nil {
		t.Fatal(err)
	}
	loss, gs, err := m.loop.LossAndGradients(bd, false)
	bd.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Free(gs...)
	var total float64
	for _, g := range ref {
		for _, x := range g.Data {
			total += x * x
		}
	}
	total = math.Sqrt(total)
	var diffs []traceDiff
	for j, v := range engine.TrainableVariables(m.store.RootScope()) {
		name, _ := referenceParamName(v.Path(), processor)
		want, ok := ref[name]
		if !ok {
			t.Fatalf("no reference gradient %q", name)
		}
		got := flat32(t, gs[j])
		var dd float64
		d := traceDiff{name: name, rel: relDiff(got, want.Data)}
		for k := range got {
			d.max = math.Max(d.max, math.Abs(got[k]-want.Data[k]))
			dd += (got[k] - want.Data[k]) * (got[k] - want.Data[k])
		}
		d.norm = math.Sqrt(dd) / total
		diffs = append(diffs, d)
	}
	sort.Slice(diffs, func(a, b int) bool { return diffs[a].norm > diffs[b].norm })
	return loss, diffs, total
}

// diffNorm is the norm of the whole gradient's difference relative to the
// whole gradient's norm.
func diffNorm(diffs []traceDiff) float64 {
	var all float64
	for _, d := range diffs {
		all += d.norm * d.norm
	}
	return math.Sqrt(all)
}
