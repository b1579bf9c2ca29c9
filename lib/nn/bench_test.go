package nn

import (
	"fmt"
	"iter"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph" //nolint:revive // as in the package
	"github.com/gomlx/gomlx/ml/model"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn/engine"
	"github.com/narlab/narlab/lib/salsa"
)

// stepsPerCallEnv is $NARLAB_STEPS_PER_CALL (0 when unset).
func stepsPerCallEnv(b *testing.B) int {
	v := os.Getenv("NARLAB_STEPS_PER_CALL")
	if v == "" {
		return 0
	}
	k, err := strconv.Atoi(v)
	if err != nil {
		b.Fatalf("NARLAB_STEPS_PER_CALL=%q: %v", v, err)
	}
	return k
}

// benchRows runs fn as a sub-benchmark for each row of NARLAB_BENCH_ROWS
// (ALGO/PROCESSOR, comma-separated; defaults when it is unset) on narlab's
// backend pick.
func benchRows(b *testing.B, defaults []string, fn func(b *testing.B, be compute.Backend, algo, proc string)) {
	rows := defaults
	if r := os.Getenv("NARLAB_BENCH_ROWS"); r != "" {
		rows = strings.Split(r, ",")
	}
	be, choice, err := BackendChoice("")
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("backend %s (%s)", choice.Kind, choice.Config)
	for _, row := range rows {
		algo, proc, ok := strings.Cut(row, "/")
		if !ok {
			b.Fatalf("NARLAB_BENCH_ROWS: %q is not ALGO/PROCESSOR", row)
		}
		b.Run(row, func(b *testing.B) { fn(b, be, algo, proc) })
	}
}

// BenchmarkTrainStep measures training steps/s at the paper's scale and in
// the reference benchmark's setting (../shared/tools/clrs-ref/refbench.py):
// batches of 32 from the CLRS-30 train-split sampler (n=16, 1000 samples,
// seed 1), eight batches cycled, hidden 128, hints encoded and decoded,
// teacher forcing 0. The first step (graph compilation) is timed apart and
// reported as first_step_s; warmup_s is the time of the steps until the
// default mode trains every batch unrolled (see warmUp); steps/s is the
// steady state after them. The backend is
// narlab's pick (XLA CPU after `make setup`; $GOMLX_BACKEND overrides).
// NARLAB_BENCH_ROWS=algo/proc,algo/proc narrows the grid. Run with
// -benchtime=Nx: a step takes from milliseconds (XLA) to seconds (pure Go).
// NARLAB_STEP_LOOP=loop|unroll forces a step-loop mode (default auto);
// NARLAB_STEPS_PER_CALL=k sets Config.Exec.StepsPerCall (default 1).
// host_ms/step is the part of a step spent preparing the batch on the
// host (converting, padding, laying out the program's arguments);
// fwd_ms/call and bwd_ms/call time the step loop's forward and backward
// step programs, called loop_steps/step times each a training step (not
// reported when every steady-state batch trains unrolled).
func BenchmarkTrainStep(b *testing.B) {
	rows := []string{"bfs/mpnn", "bfs/pgn", "bfs/triplet_mpnn",
		"floyd_warshall/mpnn", "floyd_warshall/pgn", "floyd_warshall/triplet_mpnn",
		"insertion_sort/mpnn", "insertion_sort/pgn", "insertion_sort/triplet_mpnn"}
	benchRows(b, rows, func(b *testing.B, be compute.Backend, algo, proc string) {
		batches := trainBenchBatches(b, algo)
		cfg := DefaultConfig(algo, proc)
		cfg.TeacherForcing = 0
		cfg.Exec.StepLoop = os.Getenv("NARLAB_STEP_LOOP") // "" = auto
		cfg.Exec.StepsPerCall = stepsPerCallEnv(b)
		m, err := New(be, cfg)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if _, err := m.TrainStep(batches[0]); err != nil { // compilation, outside the timing
			b.Fatal(err)
		}
		first := time.Since(t0)
		tw := time.Now()
		warmUp(b, m, batches)
		warm := time.Since(tw)
		host0 := m.hostPrep.Load()
		fwd0, fwdN0 := m.loop.CallTime(engine.ForwardStep)
		bwd0, bwdN0 := m.loop.CallTime(engine.BackwardStep)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := m.TrainStep(batches[(i+1)%len(batches)]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
		b.ReportMetric(float64(m.hostPrep.Load()-host0)/1e6/float64(b.N), "host_ms/step")
		// The step loop's forward and backward step programs, per call (in
		// the steady state; none when every batch trains unrolled).
		if fwd, n := m.loop.CallTime(engine.ForwardStep); n > fwdN0 {
			b.ReportMetric(float64((fwd-fwd0).Microseconds())/1e3/float64(n-fwdN0), "fwd_ms/call")
		}
		if bwd, n := m.loop.CallTime(engine.BackwardStep); n > bwdN0 {
			b.ReportMetric(float64((bwd-bwd0).Microseconds())/1e3/float64(n-bwdN0), "bwd_ms/call")
			b.ReportMetric(float64(n-bwdN0)/float64(b.N), "loop_steps/step")
		}
		b.ReportMetric(first.Seconds(), "first_step_s")
		b.ReportMetric(warm.Seconds(), "warmup_s")
	})
}

// trainBenchBatches are BenchmarkTrainStep's eight batches of 32 from the
// CLRS-30 train-split sampler (n=16, 1000 samples, seed 1).
func trainBenchBatches(b *testing.B, algo string) []*clrs.Feedback {
	s, err := clrs.NewSampler(algo, clrs.Length(16), clrs.Seed(1), clrs.NumSamples(1000))
	if err != nil {
		b.Fatal(err)
	}
	return firstBatches(b, s)
}

// firstBatches are a sampler's first eight batches of 32.
func firstBatches(b *testing.B, s *clrs.Sampler) []*clrs.Feedback {
	var batches []*clrs.Feedback
	for range 8 {
		fb, err := s.Next(32)
		if err != nil {
			b.Fatal(err)
		}
		batches = append(batches, fb)
	}
	return batches
}

// BenchmarkBatchPrep measures the host's part of an unrolled training step
// alone (what BenchmarkTrainStep reports as host_ms/step): laying a batch
// out as tensors, padding it to its unrolled program's length and making
// the program's arguments, on BenchmarkTrainStep's batches. No program
// runs, so it takes milliseconds a row.
func BenchmarkBatchPrep(b *testing.B) {
	benchRows(b, []string{"bfs/mpnn", "floyd_warshall/mpnn", "insertion_sort/mpnn"}, func(b *testing.B, be compute.Backend, algo, proc string) {
		batches := trainBenchBatches(b, algo)
		m, err := New(be, DefaultConfig(algo, proc))
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			bd, err := m.batchOf(batches[i%len(batches)])
			if err != nil {
				b.Fatal(err)
			}
			_ = bd.paddedTo(m.plan(engine.Shape{Graphs: bd.B, AlgorithmSteps: bd.S, StepBytes: m.evalStepBytes(bd.N)}, 0).UnrolledSteps).unrolledArgs()
			bd.Release()
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1e3/float64(b.N), "ms/batch")
	})
}

// BenchmarkPredict measures evaluation alone: one batch of 32 of the CLRS-30
// test split (its first 32 trajectories, n=64) predicted at the paper's
// size (hidden 128, hints encoded and decoded), after a first prediction
// that compiles the programs; ns/op is one batch, ms/step one step of the
// batch's longest trajectory. NARLAB_BENCH_ROWS (algo/processor, default
// find_maximum_subarray_kadane with Triplet-GMPNN and MPNN) picks the rows;
// scripts/ref_predict.py measures the reference's predict the same way.
// NARLAB_EVAL_LOOP=device evaluates with Config.Exec.EvalLoop "device".
func BenchmarkPredict(b *testing.B) {
	rows := []string{"find_maximum_subarray_kadane/triplet_gmpnn", "find_maximum_subarray_kadane/mpnn"}
	benchRows(b, rows, func(b *testing.B, be compute.Backend, algo, proc string) {
		fb := firstTestBatch(b, algo)
		cfg := DefaultConfig(algo, proc)
		cfg.Exec.EvalLoop = os.Getenv("NARLAB_EVAL_LOOP") // "" = auto
		m, err := New(be, cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		if _, err := m.Predict(fb); err != nil { // compilation, outside the timing
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := m.Predict(fb); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N)/float64(max(1, fb.MaxSteps()-1)), "ms/step")
	})
}

// firstTestBatch is the first batch of 32 of algo's CLRS-30 test split
// (n=64), the batch the evaluation benchmarks time.
func firstTestBatch(b *testing.B, algo string) *clrs.Feedback {
	s, err := clrs.NewSplitSampler(algo, "test")
	if err != nil {
		b.Fatal(err)
	}
	all := s.Trajectories()
	fb, err := clrs.Batch(all[:min(32, len(all))], 0)
	if err != nil {
		b.Fatal(err)
	}
	return fb
}

// BenchmarkStepCall splits evaluation's time on the device between the
// step program's work and the cost of calling a program at all, which the
// step loop pays once per step where a scanned model (the reference's
// jax.lax.scan) pays it once per batch. For each NARLAB_BENCH_ROWS row
// (default: Kadane Triplet-GMPNN and bfs MPNN, one test batch of 32 at
// n=64, as BenchmarkPredict) it reports call_us: one call of the
// evaluation step program with the carry donated, averaged over the
// batch's steps, the last result read back to the host so that the device
// has finished; and null_us: the same for a program that only adds one to
// a donated carry of the batch's node-latent size ([batch, n, hidden]).
// call_us less null_us is the step's own work.
func BenchmarkStepCall(b *testing.B) {
	rows := []string{"find_maximum_subarray_kadane/triplet_gmpnn", "bfs/mpnn"}
	benchRows(b, rows, func(b *testing.B, be compute.Backend, algo, proc string) {
		fb := firstTestBatch(b, algo)
		cfg := DefaultConfig(algo, proc)
		cfg.Exec.StepLoop = engine.StepLoopLoop
		m, err := New(be, cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		if _, err := m.Predict(fb); err != nil { // compilation
			b.Fatal(err)
		}
		bd, err := m.batchOf(fb)
		if err != nil {
			b.Fatal(err)
		}
		defer bd.Release()
		S := bd.Steps()
		calls0, release, err := m.loop.EvalStepCalls(bd)
		if err != nil {
			b.Fatal(err)
		}
		defer release()
		calls := func() { // S step calls, the last result read back
			if err := calls0(); err != nil {
				b.Fatal(err)
			}
		}
		n, err := nodes(fb)
		if err != nil {
			b.Fatal(err)
		}
		B, H := fb.BatchSize(), cfg.Hidden
		null, err := model.NewExec(be, model.NewStore(), func(_ *model.Scope, x *Node) *Node { return AddScalar(x, 1) })
		if err != nil {
			b.Fatal(err)
		}
		defer null.Finalize()
		nullCalls := func() {
			x := engine.ZeroTensor(B, n, H)
			for i := 0; i < S; i++ {
				d, err := DonateTensorBuffer(x, be, 0)
				if err != nil {
					b.Fatal(err)
				}
				res, err := null.Call(d)
				if err != nil {
					b.Fatal(err)
				}
				x = res[0]
			}
			x.ConstFlatData(func(any) {})
			engine.Free(x)
		}
		calls()
		nullCalls() // compilation
		b.ResetTimer()
		var inCalls, inNull time.Duration
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			calls()
			t1 := time.Now()
			nullCalls()
			inCalls += t1.Sub(t0)
			inNull += time.Since(t1)
		}
		per := float64(b.N * S)
		b.ReportMetric(float64(inCalls.Microseconds())/per, "call_us")
		b.ReportMetric(float64(inNull.Microseconds())/per, "null_us")
		b.ReportMetric(float64(S), "steps")
	})
}

// BenchmarkProtocol measures, for each NARLAB_BENCH_ROWS row (algo/processor;
// default bfs/mpnn), the CLRS-30 protocol at the paper's size (hidden 128,
// batches of 32, hints encoded and decoded) as a researcher runs it, in this
// order, everything included (compilation too):
//
//   - first_step_s: building the model and its first training step on the
//     train split (n=16), i.e. the compilation of the training programs;
//   - protocol_s: that, a second training step, then the whole val split
//     (n=16) and the whole test split (n=64) evaluated in batches of 32
//     (the test split drawn and batched as the evaluation consumes it,
//     drawing and batching included in the time, as experiments/clrs30
//     tests a trained model);
//   - val_s, test_s: the two evaluations;
//   - steps/s: steady-state training, over NARLAB_BENCH_STEPS (default 5)
//     steps after one pass over the eight batches the steps cycle through
//     (and, where engine.StepLoopAuto trains them unrolled, after the switch: see
//     warmUp); host_ms/step, the part of each of those steps spent
//     preparing the batch on the host;
//   - peak_rss_mb: the process's peak resident memory at the end of the
//     protocol, peak_rss_all_mb at the end, after the steady-state steps
//     (run one row per process for a per-row figure;
//     scripts/bench_protocol.sh does);
//   - test_processes: with NARLAB_BENCH_PROGRESS set, how many runs the
//     test split took when it took more than one (see protocolProgress).
//
// NARLAB_STEP_LOOP, NARLAB_EVAL_LOOP and NARLAB_STEPS_PER_CALL set
// Config.Exec.StepLoop, Config.Exec.EvalLoop and Config.Exec.StepsPerCall (defaults auto,
// auto and 1). scripts/ref_protocol.py
// measures the reference the same way.
func BenchmarkProtocol(b *testing.B) {
	steps := 5
	if s := os.Getenv("NARLAB_BENCH_STEPS"); s != "" {
		if _, err := fmt.Sscan(s, &steps); err != nil || steps < 1 {
			b.Fatalf("NARLAB_BENCH_STEPS=%q: want a positive number", s)
		}
	}
	benchRows(b, []string{"bfs/mpnn"}, func(b *testing.B, be compute.Backend, algo, proc string) {
		split := func(name string) []*clrs.Feedback {
			s, err := clrs.NewSplitSampler(algo, name)
			if err != nil {
				b.Fatal(err)
			}
			if name == "train" {
				return firstBatches(b, s)
			}
			all := s.Trajectories()
			var out []*clrs.Feedback
			for lo := 0; lo < len(all); lo += 32 {
				fb, err := clrs.Batch(all[lo:min(lo+32, len(all))], 0)
				if err != nil {
					b.Fatal(err)
				}
				out = append(out, fb)
			}
			return out
		}
		train, val := split("train"), split("val")
		// The test split as experiments/clrs30 evaluates it once training
		// is done: drawn as the evaluation consumes it
		// (clrs.SplitTrajectories), batched as it goes
		// (EvaluateTrajectories), never held whole; here a batch at a
		// time, for the progress file.
		testSet, err := clrs.CLRS30Split(algo, "test")
		if err != nil {
			b.Fatal(err)
		}
		numTest := (testSet.NumSamples + 31) / 32 // batches of 32
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			// Progress on stderr as each phase ends, so that a row
			// stopped by a time limit still says how far it got.
			phase := func(what string) {
				fmt.Fprintf(os.Stderr, "%s/%s: %s after %.1f s\n", algo, proc, what, time.Since(t0).Seconds())
			}
			cfg := DefaultConfig(algo, proc)
			cfg.Exec.StepLoop = os.Getenv("NARLAB_STEP_LOOP") // "" = auto
			cfg.Exec.StepsPerCall = stepsPerCallEnv(b)
			cfg.Exec.EvalLoop = os.Getenv("NARLAB_EVAL_LOOP") // "" = auto
			m, err := New(be, cfg)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := m.TrainStep(train[0]); err != nil {
				b.Fatal(err)
			}
			first := time.Since(t0)
			phase("first training step")
			if _, err := m.TrainStep(train[1]); err != nil {
				b.Fatal(err)
			}
			tv := time.Now()
			if _, err := m.Evaluate(val); err != nil {
				b.Fatal(err)
			}
			valS := time.Since(tv)
			phase("val split")
			prog, err := loadProtocolProgress(os.Getenv("NARLAB_BENCH_PROGRESS"), algo+"/"+proc, os.Getenv("NARLAB_BENCH_MACHINE"))
			if err != nil {
				b.Fatal(err)
			}
			var ru syscall.Rusage
			rssMB := func() float64 { syscall.Getrusage(syscall.RUSAGE_SELF, &ru); return float64(ru.Maxrss) / 1024 }
			next, stop := iter.Pull2(clrs.SplitTrajectories(algo, "test", 0))
			take := func() []*clrs.Trajectory { // the stream's next batch of up to 32
				var batch []*clrs.Trajectory
				for len(batch) < 32 {
					t, err, ok := next()
					if !ok {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					batch = append(batch, t)
				}
				return batch
			}
			for range prog.Batches { // the batches earlier runs evaluated: drawn, not timed
				take()
			}
			tt, saved := time.Now(), time.Now()
			for k := prog.Batches; k < numTest; k++ {
				if _, err := m.EvaluateTrajectories(clrs.Each(take()), 32); err != nil {
					b.Fatal(err)
				}
				if time.Since(saved) < progressEvery && k+1 < numTest {
					continue
				}
				if err := prog.save(k+1, prog.TestS+time.Since(tt).Seconds(), rssMB()); err != nil {
					b.Fatal(err)
				}
				saved = time.Now()
				phase(fmt.Sprintf("test split: %d of %d batches", k+1, numTest))
			}
			stop()
			here := time.Since(tt)
			testS := prog.TestS + here.Seconds() // this run's batches and the earlier runs'
			protocol := (time.Since(t0) - here).Seconds() + testS
			phase("test split (the protocol)")
			protocolRSS := max(rssMB(), prog.PeakRSSMB)
			for k := 2; k < len(train); k++ { // the remaining batches once
				if _, err := m.TrainStep(train[k]); err != nil {
					b.Fatal(err)
				}
			}
			warmUp(b, m, train)
			phase("warm-up for the steady state")
			ts, host0 := time.Now(), m.hostPrep.Load()
			for k := 0; k < steps; k++ {
				if _, err := m.TrainStep(train[k%len(train)]); err != nil {
					b.Fatal(err)
				}
			}
			rate := float64(steps) / time.Since(ts).Seconds()
			hostMS := float64(m.hostPrep.Load()-host0) / 1e6 / float64(steps)
			m.Close()
			b.ReportMetric(first.Seconds(), "first_step_s")
			b.ReportMetric(protocol, "protocol_s")
			b.ReportMetric(valS.Seconds(), "val_s")
			b.ReportMetric(testS, "test_s")
			b.ReportMetric(rate, "steps/s")
			b.ReportMetric(hostMS, "host_ms/step")
			b.ReportMetric(protocolRSS, "peak_rss_mb")
			b.ReportMetric(max(rssMB(), prog.PeakRSSMB), "peak_rss_all_mb")
			if runs := prog.runs(numTest); runs > 1 {
				b.ReportMetric(float64(runs), "test_processes")
			}
		}
	})
}

// BenchmarkSparseVsDense measures the evaluation of bfs on lib/salsa's
// Erdős–Rényi test graphs of NARLAB_BENCH_N nodes (default 160), on the
// sparse model (edge lists) or the dense one (NARLAB_BENCH_PATH=sparse or
// dense), hidden 64, NARLAB_BENCH_GRAPHS graphs (default 4) per batch, the
// dense model splitting batches beyond its evaluation budget as it does:
//
//   - first_s: the first Predict (compilation included);
//   - eval_s: a second Predict of the same graphs;
//   - peak_rss_mb: the process's peak resident memory (one row per
//     process: scripts/bench_sparse.sh).
func BenchmarkSparseVsDense(b *testing.B) {
	n, graphs := 160, 4
	path := os.Getenv("NARLAB_BENCH_PATH")
	if path == "" {
		path = "sparse"
	}
	be, choice, err := BackendChoice("")
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("backend %s", choice.Kind)
	ds := erBenchData(b, "bfs", &n, graphs, true)
	cfg := DefaultConfig("bfs", "mpnn")
	cfg.Hidden, cfg.HintMode, cfg.Exec.StepLoop = 64, "decoded_only", engine.StepLoopLoop
	b.Run(fmt.Sprintf("%s/n=%d", path, n), func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var predict func() error
			switch path {
			case "sparse":
				m, err := NewSparse(be, cfg)
				if err != nil {
					b.Fatal(err)
				}
				defer m.Close()
				batch, err := m.Batch(ds.Trajectories)
				if err != nil {
					b.Fatal(err)
				}
				defer batch.Release()
				predict = func() error { _, err := m.Predict(batch); return err }
			default:
				m, err := New(be, cfg)
				if err != nil {
					b.Fatal(err)
				}
				defer m.Close()
				fb := denseOf(b, "bfs", ds.Trajectories)
				predict = func() error { _, err := m.Predict(fb); return err }
			}
			t0 := time.Now()
			if err := predict(); err != nil {
				b.Fatal(err)
			}
			first := time.Since(t0)
			t1 := time.Now()
			if err := predict(); err != nil {
				b.Fatal(err)
			}
			again := time.Since(t1)
			var ru syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			b.ReportMetric(first.Seconds(), "first_s")
			b.ReportMetric(again.Seconds(), "eval_s")
			b.ReportMetric(float64(ru.Maxrss)/1024, "peak_rss_mb")
		}
	})
}

// warmUp trains a model on batches (cycled) until engine.StepLoopAuto has
// switched every one of them that it trains unrolled or as one program, so
// that what follows measures the steady state of a long run; it does
// nothing when none is (or in the other modes).
func warmUp(b *testing.B, m *Model, batches []*clrs.Feedback) {
	b.Helper()
	if s := m.cfg.Exec.StepLoop; s != "" && s != engine.StepLoopAuto {
		return
	}
	fits := false
	for _, fb := range batches {
		bd, err := m.batchOf(fb)
		if err != nil {
			b.Fatal(err)
		}
		sc := m.plan(engine.Shape{Graphs: bd.B, AlgorithmSteps: bd.S, StepBytes: m.evalStepBytes(bd.N)}, 0)
		fits = fits || sc.UnrolledSteps > 0 || (sc.ProgramSteps > 0 && !sc.Program)
		bd.Release()
	}
	for k := 0; fits && m.Step() < max(engine.UnrollFromTrainingStep, engine.ProgramFromTrainingStep)+int64(len(batches)); k++ {
		if _, err := m.TrainStep(batches[k%len(batches)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSparseHoist measures the sparse evaluation of dfs (PGN, hidden
// 64, no hints: SALSA-CLRS's protocol) on NARLAB_BENCH_GRAPHS (default 6)
// of lib/salsa's Erdős–Rényi test graphs of NARLAB_BENCH_N nodes (default
// 800; 2,400 steps), with the step-invariant work computed once per batch
// ("hoisted", Sparse.hoists) and at every step ("per-step"): ns/op is the
// whole evaluation (compilation included), cpu_s the process's CPU time
// during it.
func BenchmarkSparseHoist(b *testing.B) {
	n, graphs := 800, 6
	be, _, err := BackendChoice("")
	if err != nil {
		b.Fatal(err)
	}
	ds := erBenchData(b, "dfs", &n, graphs, false)
	cfg := DefaultConfig("dfs", "pgn")
	cfg.Hidden, cfg.HintMode = 64, "none"
	cpu := func() float64 {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	for _, hoist := range []bool{true, false} {
		name := map[bool]string{true: "hoisted", false: "per-step"}[hoist]
		b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
			hoistSparseEval = hoist
			defer func() { hoistSparseEval = true }()
			for range b.N {
				m, err := NewSparse(be, cfg)
				if err != nil {
					b.Fatal(err)
				}
				batch, err := m.Batch(ds.Trajectories)
				if err != nil {
					b.Fatal(err)
				}
				c0 := cpu()
				if _, err := m.Predict(batch); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(cpu()-c0, "cpu_s")
				batch.Release()
				m.Close()
			}
		})
	}
}

// erBenchData draws a sparse benchmark's graphs: graphs (NARLAB_BENCH_GRAPHS
// overrides) of lib/salsa's Erdős–Rényi test set of *n nodes
// (NARLAB_BENCH_N overrides, and *n is set to it), data seed 1.
func erBenchData(b *testing.B, algo string, n *int, graphs int, hints bool) *salsa.Dataset {
	b.Helper()
	if v := os.Getenv("NARLAB_BENCH_N"); v != "" {
		fmt.Sscan(v, n)
	}
	if v := os.Getenv("NARLAB_BENCH_GRAPHS"); v != "" {
		fmt.Sscan(v, &graphs)
	}
	set, err := salsa.LookupSet(fmt.Sprintf("er_%d", *n))
	if err != nil {
		b.Fatal(err)
	}
	ds, err := salsa.NewDataset(b.Context(), algo, set, 1, graphs, hints, salsa.DatasetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return ds
}
