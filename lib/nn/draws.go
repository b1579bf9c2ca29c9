package nn

import (
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/jaxrand"
	"github.com/narlab/narlab/lib/nn/engine"
)

// Training's random draws — the per-sample teacher-forcing choices, the
// dropout masks of the processor's output, the Gumbel noise of
// permutation outputs — are made on the host with lib/jaxrand from one JAX
// key per training step, key by key in the order the reference's Haiku
// model takes them (hk.next_rng_key), and handed to the programs as data:
// a step given the reference's key draws the reference's numbers
// (TestReferenceOptions), and the step loop's forward and backward passes
// and the unrolled program see the same ones. A training step's key is
// stepKey's unless TrainStepKey gives one. Evaluation draws nothing, as in
// the reference.
//
// The reference's order, per algorithm step i of a training batch (after
// Net._msg_passing_step and decoders.py): when hints are decoded and
// i > 0 and teacher forcing < 1, the teacher-forcing key (a Bernoulli
// draw per sample: feed step i the ground truth); then the dropout key
// (drawn at every rate, 0 included); then one key per permutation-pointer
// output, in the order of the outputs (the uniform draw behind its Gumbel
// noise). A chunk of chunked training (NetChunked) draws the same keys
// per chunk step, but the teacher-forcing key at every step, the first
// included (drawKeys, drawChunk). A model of several algorithms draws in
// the layout of the part that trains the batch (its algorithm's outputs),
// as the reference's network called with that algorithm_index does.

// drawLayout says which draws a model's training steps take.
type drawLayout struct {
	teacher bool  // per step [B]: encoded hints and 0 < TeacherForcing
	dropout bool  // per step [B,N,H]: Dropout > 0
	perms   []int // the permutation-pointer outputs (indices into spec.outputs): [B,N,N] noise each
}

func (m *Model) drawLayout() drawLayout {
	d := drawLayout{teacher: m.encodeHints() && m.cfg.TeacherForcing > 0, dropout: m.cfg.Dropout > 0}
	for i, l := range m.spec.outputs {
		if l.Type == clrs.PermutationPointer {
			d.perms = append(d.perms, i)
		}
	}
	return d
}

// steps is the number of per-step draw tensors (engine.Layout.Draws).
func (d drawLayout) steps() int {
	n := 0
	if d.teacher {
		n++
	}
	if d.dropout {
		n++
	}
	return n
}

// stepKey is the key of training step step (0 for the first) of a model
// trained by TrainStep: jax.random.fold_in(PRNGKey(Seed), step), so that a
// run resumed from a checkpoint at any step draws what the uninterrupted
// run drew.
func (m *Model) stepKey(step int64) jaxrand.Key {
	return jaxrand.FoldIn(jaxrand.PRNGKey(m.cfg.Seed), uint32(step))
}

// batchDraws are one training batch's draws, flat, as the programs take
// them.
type batchDraws struct {
	teacher [][]float32 // per processor step s: [B], 1 where step s+1 is fed the ground truth
	dropout [][]float32 // per processor step: [B,N,H] multipliers (0 or 1/keep)
	noise   [][]float32 // per permutation output: [B,N,N], each sample's from its last step
}

// The uses of a training call's keys, named as the reference's fixtures
// name them (testdata/refoptions).
const (
	useTeacher = "teacher_forcing"
	useDropout = "dropout"
	useGumbel  = "gumbel"
)

// keyedDraw is one key of a training call's sequence: what it draws, at
// which step (the processor's step s of a batch, or the step s of a
// chunk), for gumbel which permutation output (an index into
// drawLayout.perms).
type keyedDraw struct {
	use        string
	step, perm int
	key        jaxrand.Key
}

// drawKeys is the sequence of keys a training call given key takes over
// S steps (hk.next_rng_key's, in the reference's order): per step, the
// teacher-forcing key when hints are decoded and TeacherForcing < 1 (the
// reference's Net from its second step on; NetChunked, chunked, at every
// step), the dropout key, then one key per permutation-pointer output.
func (m *Model) drawKeys(key jaxrand.Key, S int, chunked bool) []keyedDraw {
	dl := m.drawLayout()
	teacherKeys := m.decodeHints() && m.cfg.TeacherForcing < 1
	seq := jaxrand.NewSequence(key)
	var out []keyedDraw
	for s := 0; s < S; s++ {
		if teacherKeys && (s > 0 || chunked) {
			out = append(out, keyedDraw{use: useTeacher, step: s, key: seq.Next()})
		}
		out = append(out, keyedDraw{use: useDropout, step: s, key: seq.Next()})
		for p := range dl.perms {
			out = append(out, keyedDraw{use: useGumbel, step: s, perm: p, key: seq.Next()})
		}
	}
	return out
}

// draw makes a batch's draws from a training step's key.
func (m *Model) draw(key jaxrand.Key, bd *batchTensors) *batchDraws {
	dl := m.drawLayout()
	B, N, S, H := bd.B, bd.N, bd.S, m.cfg.Hidden
	last := make([]int, B) // each sample's last processor step
	for s := 0; s < S; s++ {
		for b := 0; b < B; b++ {
			if s*B+b < len(bd.outStep) && bd.outStep[s*B+b] != 0 {
				last[b] = s
			}
		}
	}
	out := &batchDraws{}
	if dl.teacher {
		// Step s's choice is made at narlab's step s−1, which feeds it;
		// at teacher forcing 1 (no key) the reference always feeds the
		// ground truth.
		out.teacher = make([][]float32, S)
		for s := range out.teacher {
			out.teacher[s] = make([]float32, B)
			if m.cfg.TeacherForcing >= 1 && s+1 < S {
				for b := range out.teacher[s] {
					out.teacher[s][b] = 1
				}
			}
		}
	}
	if dl.dropout {
		out.dropout = make([][]float32, S)
	}
	if len(dl.perms) > 0 {
		out.noise = make([][]float32, len(dl.perms))
		for p := range out.noise {
			out.noise[p] = make([]float32, B*N*N)
		}
	}
	var jobs parallel
	for _, kd := range m.drawKeys(key, S, false) {
		switch kd.use {
		case useTeacher:
			if dl.teacher {
				for b, force := range jaxrand.Bernoulli(kd.key, float32(m.cfg.TeacherForcing), B) {
					if force {
						out.teacher[kd.step-1][b] = 1
					}
				}
			}
		case useDropout:
			if dl.dropout {
				jobs.run(func() { out.dropout[kd.step] = m.dropoutMask(kd.key, B, N, H) })
			}
		case useGumbel:
			if !slices.Contains(last, kd.step) {
				continue
			}
			jobs.run(func() {
				noise := sinkhornNoise(kd.key, B, N)
				for b, s := range last {
					if s == kd.step {
						copy(out.noise[kd.perm][b*N*N:(b+1)*N*N], noise[b*N*N:(b+1)*N*N])
					}
				}
			})
		}
	}
	jobs.wait()
	return out
}

// dropoutMask is a step's dropout multipliers [B,N,H] from its key: 1/keep
// where hk.dropout keeps a value, 0 where it drops it.
func (m *Model) dropoutMask(key jaxrand.Key, B, N, H int) []float32 {
	keep, scale := dropoutKeep(m.cfg.Dropout)
	mult := make([]float32, B*N*H)
	for i, k := range jaxrand.Bernoulli(key, keep, B, N, H) {
		if k {
			mult[i] = scale
		}
	}
	return mult
}

// parallel runs the draws' functions on up to GOMAXPROCS goroutines.
type parallel struct {
	wg  sync.WaitGroup
	sem chan struct{}
}

func (p *parallel) run(f func()) {
	if p.sem == nil {
		p.sem = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.sem <- struct{}{}
		defer func() { <-p.sem }()
		f()
	}()
}

func (p *parallel) wait() { p.wg.Wait() }

// chunkDraws are one training chunk's draws (chunked.go), per chunk step
// s: the teacher-forcing choices [B] of the slice step s processes, its
// dropout multipliers [B,N,H] and, per permutation output, the Gumbel
// noise [B,N,N] of its outputs (the reference decodes and scores outputs
// at every step of a chunk). Each is stacked over the chunk's C steps.
type chunkDraws struct {
	teacher []float32   // [C,B]; nil unless drawLayout.teacher
	dropout []float32   // [C,B,N,H]; nil unless drawLayout.dropout
	noise   [][]float32 // per permutation output: [C,B,N,N]
}

// drawChunk makes a chunk's draws from its training call's key, in
// NetChunked's order (drawKeys).
func (m *Model) drawChunk(key jaxrand.Key, C, B, N int) *chunkDraws {
	dl := m.drawLayout()
	H := m.cfg.Hidden
	out := &chunkDraws{}
	if dl.teacher {
		out.teacher = make([]float32, C*B)
		if m.cfg.TeacherForcing >= 1 { // no key: always the ground truth
			for i := range out.teacher {
				out.teacher[i] = 1
			}
		}
	}
	if dl.dropout {
		out.dropout = make([]float32, C*B*N*H)
	}
	for range dl.perms {
		out.noise = append(out.noise, make([]float32, C*B*N*N))
	}
	var jobs parallel
	for _, kd := range m.drawKeys(key, C, true) {
		switch kd.use {
		case useTeacher:
			if dl.teacher {
				for b, force := range jaxrand.Bernoulli(kd.key, float32(m.cfg.TeacherForcing), B) {
					if force {
						out.teacher[kd.step*B+b] = 1
					}
				}
			}
		case useDropout:
			if dl.dropout {
				jobs.run(func() { copy(out.dropout[kd.step*B*N*H:], m.dropoutMask(kd.key, B, N, H)) })
			}
		case useGumbel:
			jobs.run(func() { copy(out.noise[kd.perm][kd.step*B*N*N:], sinkhornNoise(kd.key, B, N)) })
		}
	}
	jobs.wait()
	return out
}

// sinkhornNoise is the Gumbel noise the reference's log_sinkhorn adds in
// training, −log(−log(u + 1e-12) + 1e-12) for u = jax.random.uniform(key,
// [B,N,N]), in float32 with XLA CPU's log (jaxrand.Log32), as the
// reference computes it.
func sinkhornNoise(key jaxrand.Key, b, n int) []float32 {
	u := jaxrand.Uniform(key, 0, 1, b, n, n)
	for i, x := range u {
		u[i] = -jaxrand.Log32(-jaxrand.Log32(x+1e-12) + 1e-12)
	}
	return u
}

// DrawsAt is step s's draws (teacher forcing, dropout), zeros past the
// batch's steps; it panics when the batch was not given its draws
// (setDraws), which training always does.
func (bd *batchTensors) DrawsAt(s int) []*tensors.Tensor {
	if bd.drawn.steps() == 0 {
		return nil
	}
	if bd.draws == nil {
		panic("nn: a training batch without its random draws")
	}
	var out []*tensors.Tensor
	if bd.drawn.teacher {
		out = append(out, bd.cached(drawTeacherKey, s, func() *tensors.Tensor { return drawAt(bd.draws.teacher, s, bd.B) }))
	}
	if bd.drawn.dropout {
		out = append(out, bd.cached(drawDropoutKey, s, func() *tensors.Tensor {
			return drawAt(bd.draws.dropout, s, bd.B, bd.N, bd.hidden)
		}))
	}
	return out
}

// HeadDraws is the Gumbel noise of the permutation outputs.
func (bd *batchTensors) HeadDraws() []*tensors.Tensor {
	if len(bd.drawn.perms) == 0 {
		return nil
	}
	if bd.draws == nil {
		panic("nn: a training batch without its random draws")
	}
	var out []*tensors.Tensor
	for p := range bd.drawn.perms {
		out = append(out, bd.cached(drawNoiseKey, p, func() *tensors.Tensor {
			return tensors.FromFlatDataAndDimensions(bd.draws.noise[p], bd.B, bd.N, bd.N)
		}))
	}
	return out
}

// The step cache's keys of the draws (see lastStepsKey).
const (
	drawTeacherKey = math.MinInt32 + 1 + iota
	drawDropoutKey
	drawNoiseKey
)

// drawAt is per-step data's step s as a tensor of dims, zeros past its
// end.
func drawAt(steps [][]float32, s int, dims ...int) *tensors.Tensor {
	if s >= len(steps) {
		return engine.ZeroTensor(dims...)
	}
	return tensors.FromFlatDataAndDimensions(steps[s], dims...)
}

// stacked is per-step data as one [S, dims…] tensor (the unrolled
// program's), zeros past its steps.
func stacked(steps [][]float32, S int, dims ...int) *tensors.Tensor {
	size := 1
	for _, d := range dims {
		size *= d
	}
	flat := make([]float32, S*size)
	for s := 0; s < min(S, len(steps)); s++ {
		copy(flat[s*size:], steps[s])
	}
	return tensors.FromFlatDataAndDimensions(flat, append([]int{S}, dims...)...)
}

// setDraws gives a training batch its draws from a step's key.
func (m *Model) setDraws(bd *batchTensors, key jaxrand.Key) {
	if bd.drawn.steps() > 0 || len(bd.drawn.perms) > 0 {
		bd.draws = m.draw(key, bd)
	}
}
