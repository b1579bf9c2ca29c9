package nn

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gomlx/compute"
	"github.com/narlab/narlab/lib/clrs"
)

// TestRunPyChunked replays the reference's run.py with --chunked_training
// (fixtures runpy-chunked-bfs-mpnn: bfs, chunks of 4 steps, lengths 4 and
// 7, 6 steps; runpy-chunked-multi-bfs-insertion_sort-mpnn: bfs and
// insertion_sort in one model, chunks of 5) through narlab's chunked
// training from the reference's initial parameters:
//
//   - the data: runPyData's batches cut by clrs.Chunker, one stream per
//     training length, fetched in run.py's order (the models' dummy
//     batches, the step-0 batches, the initialisation's extra chunk per
//     length), are the recorded chunks, is_first and is_last included;
//   - each start state is the initialisation chunk's first slice with
//     is_first set (the reference's init_mp_states, which every chunk
//     starts from);
//   - each feedback call's keys (the reference's, given to TrainChunkKey:
//     the keys narlab takes from it, teacher forcing, dropout and Gumbel
//     noise at every step of the chunk, are those the reference recorded);
//   - each feedback call's loss, the parameters after it (as in
//     TestRunPyMultiAlgorithm) and the latents the chunk ends with (the
//     state the reference returns and never uses);
//   - the validations (the non-chunked model on run.py's validation
//     batches), the best checkpoint and its test scores.
//
// As TestRunPyMultiAlgorithm, the model beyond the first call is compared
// only where lib/nn follows JAX's gradient rules at ties (jaxTieRules).
//
// The third fixture, runpy-chunked-multi-bfs-insertion_sort-mpnn-options,
// is chunked training of several algorithms with model options on (the
// LSTM, its state reset where a trajectory starts; dropout 0.1; teacher
// forcing 0.5, drawn at every step of a chunk).
func TestRunPyChunked(t *testing.T) {
	for _, name := range []string{"runpy-chunked-bfs-mpnn", "runpy-chunked-multi-bfs-insertion_sort-mpnn",
		"runpy-chunked-multi-bfs-insertion_sort-mpnn-options"} {
		fx := readRunPy(t, name)
		for bname, be := range testBackends(t) {
			if bname != "go" && len(fx.Flags.Algorithms) > 1 {
				continue // one fixture keeps the XLA path checked
			}
			t.Run(name+"/"+bname, func(t *testing.T) {
				replayRunPyChunked(t, fx, be, fx.config(t))
			})
		}
	}
}

func replayRunPyChunked(t *testing.T, fx *runPyFixture, be compute.Backend, cfg Config) {
	t.Helper()
	algos := cfg.AlgorithmNames()
	lengths := fx.trainLengths(t)
	C := fx.Flags.ChunkLength
	data, err := newRunPyData(algos, lengths, fx.Flags.Seed, fx.Flags.BatchSize, fx.Flags.LengthNeedle, fx.Flags.RandomPos)
	if err != nil {
		t.Fatal(err)
	}
	// One chunked stream per algorithm and training length; run.py's
	// multi-sampler cycles them.
	chunkers := make([][]*clrs.Chunker, len(algos))
	cursor := make([]int, len(algos))
	for i := range algos {
		for l := range data.algos[i].train {
			c, err := clrs.NewChunker(C, func() (*clrs.Feedback, error) {
				fb, err := data.trainAt(i, l)
				if err != nil {
					return nil, err
				}
				return cfg.Transform(fb)
			})
			if err != nil {
				t.Fatal(err)
			}
			chunkers[i] = append(chunkers[i], c)
		}
	}
	next := func(i int) *clrs.Chunk {
		t.Helper()
		c := chunkers[i][cursor[i]]
		cursor[i] = (cursor[i] + 1) % len(chunkers[i])
		ch, err := c.Next()
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	round := func() []*clrs.Chunk {
		out := make([]*clrs.Chunk, len(algos))
		for i := range algos {
			out[i] = next(i)
		}
		return out
	}
	for i := range algos { // the evaluation model's dummy batches
		if _, err := data.val(i); err != nil {
			t.Fatal(err)
		}
	}
	round() // the chunked model's dummy batches
	step0 := round()
	initChunks := [][]*clrs.Chunk{step0}
	for range lengths {
		initChunks = append(initChunks, round())
	}
	initChunks = initChunks[:len(lengths)]
	m := testModel(t, be, cfg)
	part := func(i int) *Model {
		if m.parts == nil {
			return m
		}
		return m.parts[i]
	}
	states := make([][]*ChunkState, len(lengths))
	for j := range lengths {
		states[j] = make([]*ChunkState, len(algos))
		for i := range algos {
			st, err := InitialChunkState(initChunks[j][i])
			if err != nil {
				t.Fatal(err)
			}
			want := fx.Init[0].InitMPStates[j][i]
			if err := sameData(&clrs.Feedback{Inputs: st.slice.Inputs, Lengths: st.slice.Lengths},
				&clrs.Feedback{Inputs: feedbackOf(t, algos[i], refBatch{Inputs: want.Inputs}).Inputs, Lengths: st.slice.Lengths}); err != nil {
				t.Fatalf("length %d, %s: the start state's inputs differ from the reference's init_mp_state: %v", j, algos[i], err)
			}
			for k, h := range want.Hints {
				if got := st.slice.Hints[k]; got.Name != h.Name || !slices.Equal(got.Data, h.Data) {
					t.Fatalf("length %d, %s: the start state's hint %s differs from the reference's", j, algos[i], h.Name)
				}
			}
			for _, f := range want.IsFirst.Data {
				if f != 1 {
					t.Fatalf("the reference's init_mp_state has is_first %v", want.IsFirst.Data)
				}
			}
			states[j][i] = st
		}
	}
	for _, a := range algos { // creates the variables (from a sampler of its own: run.py's draw nothing here)
		s, err := clrs.NewSampler(a, clrs.Length(5), clrs.Seed(1), clrs.NumSamples(2))
		if err != nil {
			t.Fatal(err)
		}
		fb, err := s.Dataset()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Predict(fb); err != nil {
			t.Fatal(err)
		}
	}
	setParams(t, m, fx.Init[0].Params)
	invariant := lossInvariant(t, fx, algos)
	compared := func(call int) bool { return jaxTieRules || call == 0 }
	call, evalIdx, nextEval, lengthIdx := 0, 0, 0, 0
	valScores := make([]float64, len(algos))
	bestScore := -1.0
	var best snapshot
	var saves []int
	for step := 0; step < fx.Flags.TrainSteps; step++ {
		chunks := step0
		if step > 0 {
			chunks = round()
		}
		for i, ch := range chunks {
			c := fx.Calls[call]
			if ai, li := c.algorithm(t); ai != i || li != lengthIdx {
				t.Fatalf("call %d: the reference trained [length %d, algorithm %d], narlab [%d, %d]", call, li, ai, lengthIdx, i)
			}
			if err := chunkSame(ch, c.Batch); err != nil {
				t.Fatalf("call %d (%s): narlab's chunk differs from the reference's: %v", call, algos[i], err)
			}
			checkDrawKeys(t, call, part(i), c.Key, C, true, c.RNG)
			loss, out, err := m.TrainChunkKey(ch, states[lengthIdx][i], c.Key)
			if err != nil {
				t.Fatal(err)
			}
			if compared(call) {
				tol := 3e-5
				if step >= 2 {
					tol = 5e-4
				}
				if !closeTo(loss, c.Loss, tol) {
					t.Errorf("call %d (%s): loss %.7f, the reference's %.7f", call, algos[i], loss, c.Loss)
				}
				if call < fx.Saves[len(fx.Saves)-1].AfterCall {
					checkDigests(t, call, digests(t, m), c.ParamsDigest, invariant)
				}
				var s, ss float64
				H, W := cfg.Hidden, m.carryWidth()
				for k, x := range out.hidden {
					if k%W >= H { // the LSTM's cell, beside the latents
						continue
					}
					s, ss = s+float64(x), ss+float64(x)*float64(x)
				}
				if !closeTo(s, c.MPStateOut.Hiddens[0], 1e-4) || !closeTo(ss, c.MPStateOut.Hiddens[1], 1e-4) {
					t.Errorf("call %d: the latents after the chunk sum to %.6g (squares %.6g), the reference's %.6g (%.6g)",
						call, s, ss, c.MPStateOut.Hiddens[0], c.MPStateOut.Hiddens[1])
				}
			}
			for b, f := range out.isFirst {
				if f != (c.MPStateOut.IsFirst[b] != 0) {
					t.Errorf("call %d: the returned state's is_first %v, the reference's %v", call, out.isFirst, c.MPStateOut.IsFirst)
					break
				}
			}
			call++
		}
		if step >= nextEval {
			for i := range algos {
				vb, err := data.valRound(i)
				if err != nil {
					t.Fatal(err)
				}
				sc, err := m.Evaluate(vb)
				if err != nil {
					t.Fatal(err)
				}
				e := fx.Evals[evalIdx]
				evalIdx++
				if e.Algorithm != algos[i] || e.Step != step {
					t.Fatalf("evaluation %d: the reference validated %s at step %d, narlab %s at %d", evalIdx, e.Algorithm, e.Step, algos[i], step)
				}
				if n := outputCount(vb); jaxTieRules && math.Abs(sc["score"]-e.Score)*float64(n) > 2.5 {
					t.Errorf("step %d: %s validation score %.6f, the reference's %.6f (%d predictions)", step, algos[i], sc["score"], e.Score, n)
				}
				valScores[i] = sc["score"]
				if !jaxTieRules {
					valScores[i] = e.Score
				}
			}
			nextEval += fx.Flags.EvalEvery
			sum := 0.0
			for _, s := range valScores {
				sum += s
			}
			if sum > bestScore || step == 0 {
				bestScore, best = sum, takeSnapshot(t, m)
				saves = append(saves, call)
			}
		}
		lengthIdx = (lengthIdx + 1) % len(lengths)
	}
	if call != len(fx.Calls) {
		t.Fatalf("narlab made %d feedback calls, the reference %d", call, len(fx.Calls))
	}
	if len(saves) != len(fx.Saves) {
		t.Fatalf("best checkpoint saved after calls %v; the reference saved %d times", saves, len(fx.Saves))
	}
	for k, s := range fx.Saves {
		if saves[k] != s.AfterCall {
			t.Errorf("save %d after call %d, the reference's after call %d", k, saves[k], s.AfterCall)
		}
	}
	if !jaxTieRules {
		return
	}
	best.restore(t, m)
	checkDigests(t, -1, digests(t, m), fx.Saves[len(fx.Saves)-1].ParamsDigest, invariant)
	for i, a := range algos {
		s, err := clrs.NewSampler(a, clrs.Length(64), clrs.Seed(3), clrs.NumSamples(4))
		if err != nil {
			t.Fatal(err)
		}
		fb, err := s.Dataset()
		if err != nil {
			t.Fatal(err)
		}
		sc, err := m.Evaluate([]*clrs.Feedback{fb})
		if err != nil {
			t.Fatal(err)
		}
		if e := fx.Evals[evalIdx+i]; math.Abs(sc["score"]-e.Score) > 0.05 {
			t.Errorf("%s test score of the best checkpoint %.6f, the reference's %.6f", a, sc["score"], e.Score)
		}
	}
}

// chunkSame reports where a chunk differs from a recorded one.
func chunkSame(ch *clrs.Chunk, b refBatch) error {
	for _, sec := range []struct {
		name string
		g    []clrs.DataPoint
		w    []refDataPoint
	}{{"inputs", ch.Inputs, b.Inputs}, {"hints", ch.Hints, b.Hints}, {"outputs", ch.Outputs, b.Outputs}} {
		if len(sec.g) != len(sec.w) {
			return fmt.Errorf("%d %s, want %d", len(sec.g), sec.name, len(sec.w))
		}
		for i := range sec.g {
			g, w := sec.g[i], sec.w[i]
			if g.Name != w.Name || !slices.Equal(g.Shape, w.Shape) || !slices.Equal(g.Data, w.Data) {
				return fmt.Errorf("%s %s %v differs from the reference's %s %v", sec.name, g.Name, g.Shape, w.Name, w.Shape)
			}
		}
	}
	for _, m := range []struct {
		name string
		g    []bool
		w    *refArray
	}{{"is_first", ch.IsFirst, b.IsFirst}, {"is_last", ch.IsLast, b.IsLast}} {
		if m.w == nil || len(m.w.Data) != len(m.g) {
			return fmt.Errorf("%s: %d marks, the reference's %v", m.name, len(m.g), m.w)
		}
		for k, v := range m.g {
			if v != (m.w.Data[k] != 0) {
				return fmt.Errorf("%s[%d] = %v, the reference's %v", m.name, k, v, m.w.Data[k])
			}
		}
	}
	return nil
}
