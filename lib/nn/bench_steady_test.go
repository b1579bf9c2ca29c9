package nn

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // as in the package
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn/engine"
)

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// peakRSSMB is the process's peak resident memory in MB.
func peakRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024
}

// BenchmarkSteady is narlab's side of scripts/bench_steady.sh: the steady
// state of a CLRS-30 protocol row's training (NARLAB_BENCH_ROWS,
// algo/processor; default bfs/mpnn) at the paper's size, as
// BenchmarkProtocol trains it (the train split's first eight batches of
// 32, hidden 128, the reference's run.py settings), without the
// evaluations:
//
//   - first_step_s: building the model and its first training step;
//   - steps/s over NARLAB_BENCH_STEPS steps (default 10) cycling through
//     the eight batches, after one pass over them and, where auto trains
//     them unrolled, after the switch (warmUp); cpu_s/step, the process's
//     CPU time per step (user and system: on a shared machine the figure
//     that load changes least); host_ms/step;
//   - mflop/step: the matrix-product FLOPs of a training step (counted in
//     the step loop's programs: engine.GraphFLOPs), the mean over the timed
//     steps' batches; gflop/s, that times steps/s;
//   - peak_rss_mb after the steady-state steps;
//   - program/step, unrolled/step: the share of the timed steps trained
//     as one program (engine.StepLoopProgram) and unrolled.
//
// NARLAB_STEP_LOOP, NARLAB_STEPS_PER_CALL set Config.Exec as in
// BenchmarkProtocol.
func BenchmarkSteady(b *testing.B) {
	steps := 10
	if s := os.Getenv("NARLAB_BENCH_STEPS"); s != "" {
		if _, err := fmt.Sscan(s, &steps); err != nil || steps < 1 {
			b.Fatalf("NARLAB_BENCH_STEPS=%q: want a positive number", s)
		}
	}
	benchRows(b, []string{"bfs/mpnn"}, func(b *testing.B, be compute.Backend, algo, proc string) {
		s, err := clrs.NewSplitSampler(algo, "train")
		if err != nil {
			b.Fatal(err)
		}
		train := firstBatches(b, s)
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			cfg := DefaultConfig(algo, proc)
			cfg.Exec.StepLoop = os.Getenv("NARLAB_STEP_LOOP") // "" = auto
			cfg.Exec.StepsPerCall = stepsPerCallEnv(b)
			m, err := New(be, cfg)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := m.TrainStep(train[0]); err != nil {
				b.Fatal(err)
			}
			first := time.Since(t0)
			for _, fb := range train[1:] {
				if _, err := m.TrainStep(fb); err != nil {
					b.Fatal(err)
				}
			}
			warmUp(b, m, train)
			fmt.Fprintf(os.Stderr, "%s/%s: first step %.1f s, warm after %.1f s\n", algo, proc, first.Seconds(), time.Since(t0).Seconds())
			flops := map[int]int64{} // per batch
			var totalFLOPs float64
			program, unrolled := 0, 0
			for k := 0; k < steps; k++ {
				j := k % len(train)
				if _, ok := flops[j]; !ok {
					bd, err := m.batchOf(train[j])
					if err != nil {
						b.Fatal(err)
					}
					m.setDraws(bd, m.stepKey(m.Step())) // the programs take the draws (their shapes only matter here)
					f, err := m.loop.FLOPs(bd)
					if err != nil {
						b.Fatal(err)
					}
					flops[j] = f.Training(bd.S, 1)
					sc := m.plan(engine.Shape{Graphs: bd.B, AlgorithmSteps: bd.S, StepBytes: m.evalStepBytes(bd.N)}, m.Step())
					if sc.Program {
						program++
					} else if sc.Unrolled {
						unrolled++
					}
					bd.Release()
				}
				totalFLOPs += float64(flops[j])
			}
			runtime.GC()
			host0, cpu0, ts := m.hostPrep.Load(), cpuSeconds(), time.Now()
			for k := 0; k < steps; k++ {
				if _, err := m.TrainStep(train[k%len(train)]); err != nil {
					b.Fatal(err)
				}
			}
			wall := time.Since(ts).Seconds()
			cpu := cpuSeconds() - cpu0
			hostMS := float64(m.hostPrep.Load()-host0) / 1e6 / float64(steps)
			m.Close()
			b.ReportMetric(first.Seconds(), "first_step_s")
			b.ReportMetric(float64(steps)/wall, "steps/s")
			b.ReportMetric(cpu/float64(steps), "cpu_s/step")
			b.ReportMetric(hostMS, "host_ms/step")
			b.ReportMetric(totalFLOPs/float64(steps)/1e6, "mflop/step")
			b.ReportMetric(totalFLOPs/wall/1e9, "gflop/s")
			b.ReportMetric(peakRSSMB(), "peak_rss_mb")
			b.ReportMetric(float64(program)/float64(min(steps, len(train))), "program/step")
			b.ReportMetric(float64(unrolled)/float64(min(steps, len(train))), "unrolled/step")
		}
	})
}

// BenchmarkMatmulPeak measures the float32 matrix-product rate of
// narlab's backend on this machine's cores: a square product of 1024
// (the machine's practical peak) and the model's own shape, a message MLP
// layer at the paper's size ([B·N·N, H]×[H, H] with B = 32, N = 16,
// H = 128). Each product runs NARLAB_BENCH_REPEATS times (default 20)
// after a first call that compiles it; gflop/s is the best call's rate,
// gflop/s_median the median's. Beside BenchmarkSteady's gflop/s it says
// how close a training step comes to what the cores can do.
func BenchmarkMatmulPeak(b *testing.B) {
	repeats := 20
	if s := os.Getenv("NARLAB_BENCH_REPEATS"); s != "" {
		if _, err := fmt.Sscan(s, &repeats); err != nil || repeats < 1 {
			b.Fatalf("NARLAB_BENCH_REPEATS=%q: want a positive number", s)
		}
	}
	be, choice, err := BackendChoice("")
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("backend %s (%s)", choice.Kind, choice.Config)
	for _, c := range []struct {
		name    string
		m, k, n int
	}{{"square1024", 1024, 1024, 1024}, {"message_mlp", 32 * 16 * 16, 128, 128}} {
		b.Run(c.name, func(b *testing.B) {
			exec := MustNewExec(be, func(x, y *Node) *Node { return Dot(x, y).Product() })
			defer exec.Finalize()
			x := tensors.FromShape(shapes.Make(dtypes.Float32, c.m, c.k))
			y := tensors.FromShape(shapes.Make(dtypes.Float32, c.k, c.n))
			x.MutableFlatData(func(f any) {
				for i := range f.([]float32) {
					f.([]float32)[i] = float32(i%7) * 0.1
				}
			})
			y.MutableFlatData(func(f any) {
				for i := range f.([]float32) {
					f.([]float32)[i] = float32(i%5) * 0.1
				}
			})
			call := func() time.Duration {
				t0 := time.Now()
				out, err := exec.Exec(x, y)
				if err != nil {
					b.Fatal(err)
				}
				if err := out[0].ConstFlatData(func(any) {}); err != nil { // on the host: finished
					b.Fatal(err)
				}
				d := time.Since(t0)
				out[0].FinalizeAll()
				return d
			}
			for i := 0; i < b.N; i++ {
				call() // compilation
				ds := make([]time.Duration, repeats)
				for r := range ds {
					ds[r] = call()
				}
				slices.Sort(ds)
				flop := 2 * float64(c.m) * float64(c.k) * float64(c.n)
				b.ReportMetric(flop/ds[0].Seconds()/1e9, "gflop/s")
				b.ReportMetric(flop/ds[len(ds)/2].Seconds()/1e9, "gflop/s_median")
			}
		})
	}
}
