// Package spectralgnn is the graph network that regresses the spectral
// graph tasks of "Lost in Serialization" (App. H; lib/graphtext's
// [graphtext.Spectral] gives their ground truth): structural node
// features, rounds of sum and mean neighbour aggregation and a readout into
// one output per task, so that relabeling a graph changes its output only
// by float rounding. It lives beside lib/nn, narlab's other GoMLX model,
// and trains through lib/trainloop; the evaluation protocol around it (the
// datasets, the other predictors, the paper's metrics, tables, figures and
// MLflow logging) is experiments/spectral, whose GNNPredictor wraps it:
//
//	m, err := spectralgnn.Train(nil, tasks, graphs, truth, spectralgnn.Config{Steps: 300, Seed: 1})
//	values, err := m.Predict(testGraphs) // task → one value per graph
package spectralgnn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/compute/gobackend" // the pure-Go backend, "go"
	. "github.com/gomlx/gomlx/core/graph"  //nolint:revive // GoMLX graph building reads best unqualified
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/loss"
	"github.com/gomlx/gomlx/ml/train/optimizer"
	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/metrics"
	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/lib/trainloop"
)

// Config holds the hyper-parameters of the graph-network regressor.
type Config struct {
	// Hidden is the node-state width. Default 16.
	Hidden int
	// Layers is the number of message-passing rounds. Default 2.
	Layers int
	// Steps is the number of Adam steps. Default 300.
	Steps int
	// Batch is the number of graphs per step. Default 16.
	Batch int
	// LearningRate of Adam. Default 3e-3.
	LearningRate float64
	// MaxNodes is the padded graph size; larger graphs are rejected.
	// Default 35.
	MaxNodes int
	// Seed seeds the initialisation and the batch draws.
	Seed int64
	// Observers are told of the training steps (see trainloop; e.g.
	// trainloop.Terminal for a progress bar). Not a hyper-parameter.
	Observers []trainloop.Observer `json:"-"`
}

func (c Config) withDefaults() (Config, error) {
	if c.Hidden == 0 {
		c.Hidden = 16
	}
	if c.Layers == 0 {
		c.Layers = 2
	}
	if c.Steps == 0 {
		c.Steps = 300
	}
	if c.Batch == 0 {
		c.Batch = 16
	}
	if c.LearningRate == 0 {
		c.LearningRate = 3e-3
	}
	if c.MaxNodes == 0 {
		c.MaxNodes = 35
	}
	switch {
	case c.Hidden < 1 || c.Layers < 1 || c.Steps < 0 || c.Batch < 1 || c.MaxNodes < 1:
		return c, fmt.Errorf("spectralgnn: config %+v; want positive Hidden, Layers, Batch, MaxNodes and Steps ≥ 0", c)
	case !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0):
		return c, fmt.Errorf("spectralgnn: learning rate %v; want a finite positive number", c.LearningRate)
	}
	return c, nil
}

// Params returns the configuration as run parameters: gnn.<name>, with the
// names `narlab train` logs for the same settings (hidden_size,
// train_steps, batch_size, learning_rate, seed; docs/mlflow.md).
func (c Config) Params() map[string]string {
	d, _ := c.withDefaults()
	return map[string]string{
		"gnn.hidden_size": fmt.Sprint(d.Hidden), "gnn.layers": fmt.Sprint(d.Layers), "gnn.train_steps": fmt.Sprint(d.Steps),
		"gnn.batch_size": fmt.Sprint(d.Batch), "gnn.learning_rate": fmt.Sprint(d.LearningRate),
		"gnn.max_nodes": fmt.Sprint(d.MaxNodes), "gnn.seed": fmt.Sprint(d.Seed),
	}
}

// numNodeFeatures is the width of the structural node features (see
// nodeFeatures).
const numNodeFeatures = 7

// Model is a permutation-invariant graph network that regresses spectral
// task values: structural node features (degree, closed walks of length
// 2–4, which carry the spectral moments tr Aᵏ), rounds of sum and mean
// neighbour aggregation, and a sum-and-mean readout into an MLP with one
// output per task. Node ids never enter the model, and every aggregation
// is a sum or a mean, so relabeling a graph changes its output only by
// float rounding. Train one model per task (the default of the eval
// command) or one model for several tasks (a shared trunk; faster).
//
// Targets are standardized per task (log-transformed first for the
// Estrada index, which is heavy-tailed) with training-set statistics.
type Model struct {
	tasks    []string
	cfg      Config
	logY     []bool
	mu, sd   []float64
	backend  compute.Backend
	store    *model.Store
	trainFn  *model.Exec
	predFn   *model.Exec
	rng      *rand.Rand
	maxNodes int
	// Losses is the training loss (mean squared error of standardized
	// targets) per step.
	Losses []float64
}

// Tasks returns the tasks the model regresses, in output order.
func (m *Model) Tasks() []string { return m.tasks }

// Train trains a GNN for tasks on graphs gs with ground truth
// truth[task][i]. backend may be nil for the pure-Go backend.
func Train(backend compute.Backend, tasks []string, gs []*graphtext.Graph, truth map[string][]float64, cfg Config) (*Model, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("spectralgnn: no tasks to train on")
	}
	if len(gs) == 0 {
		return nil, fmt.Errorf("spectralgnn: no training graphs")
	}
	for _, task := range tasks {
		if !graphtext.IsSpectralTask(task) {
			return nil, fmt.Errorf("spectralgnn: unknown task %q; want one of %v", task, graphtext.SpectralTasks)
		}
		if len(truth[task]) != len(gs) {
			return nil, fmt.Errorf("spectralgnn: %d graphs but %d targets for %s", len(gs), len(truth[task]), task)
		}
	}
	if backend == nil {
		// nn.Backend runs the pure-Go backend with sequential op scheduling:
		// its parallel scheduler can deadlock (see nn.Backend).
		if backend, err = nn.Backend("go"); err != nil {
			return nil, fmt.Errorf("spectralgnn: pure-Go backend: %w", err)
		}
	}
	T := len(tasks)
	m := &Model{tasks: slices.Clone(tasks), cfg: c, backend: backend, logY: make([]bool, T), mu: make([]float64, T), sd: make([]float64, T),
		store: model.NewStore(), rng: rand.New(rand.NewPCG(uint64(c.Seed), 0x676e6e)), maxNodes: c.MaxNodes}
	if err := m.store.SetRNGStateFromSeed(c.Seed); err != nil {
		return nil, err
	}
	t := make([][]float64, T) // t[k][i]: standardized target
	for k, task := range tasks {
		m.logY[k] = task == graphtext.EstradaIndex
		t[k] = make([]float64, len(gs))
		for i, v := range truth[task] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("spectralgnn: %s target %d is %v; want finite values", task, i, v)
			}
			t[k][i] = m.forwardTransform(k, v)
		}
		m.mu[k], m.sd[k] = metrics.MeanStd(t[k])
		if !(m.sd[k] > 0) {
			m.sd[k] = 1
		}
	}
	feats := make([]graphFeatures, len(gs))
	for i, g := range gs {
		if feats[i], err = featurize(g, c.MaxNodes); err != nil {
			return nil, fmt.Errorf("spectralgnn: training graph %d: %w", i, err)
		}
	}
	opt := optimizer.Adam().LearningRate(c.LearningRate).Done()
	m.trainFn, err = model.NewExec(backend, m.store, func(scope *model.Scope, in []*Node) *Node {
		g := in[0].Graph()
		scope.Store().SetTraining(g, true)
		pred := m.model(scope, in[0], in[1], in[2], in[3])
		mse := loss.MeanSquaredError([]*Node{in[4]}, []*Node{pred})
		opt.UpdateGraph(scope, g, mse)
		return mse
	})
	if err != nil {
		return nil, fmt.Errorf("spectralgnn: %w", err)
	}
	m.predFn, err = model.NewExec(backend, m.store, func(scope *model.Scope, in []*Node) *Node {
		return m.model(scope, in[0], in[1], in[2], in[3])
	})
	if err != nil {
		return nil, fmt.Errorf("spectralgnn: %w", err)
	}
	target := make([]float64, c.Batch*T)
	batch := make([]graphFeatures, c.Batch)
	loop := trainloop.Loop{Steps: c.Steps, Observers: c.Observers,
		Step: func(_ context.Context, step int) (float64, error) {
			for b := range batch {
				i := m.rng.IntN(len(gs))
				batch[b] = feats[i]
				for k := range T {
					target[b*T+k] = (t[k][i] - m.mu[k]) / m.sd[k]
				}
			}
			in := m.tensors(batch)
			in = append(in, tensors.FromFlatDataAndDimensions(toF32(target), c.Batch, T))
			res, err := m.trainFn.Call(in...)
			if err != nil {
				return 0, fmt.Errorf("spectralgnn: train step %d: %w", step-1, err)
			}
			return scalar(res[0])
		}}
	var st trainloop.State
	_, err = loop.Run(context.Background(), &st)
	m.Losses = st.Losses
	if err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Model) forwardTransform(k int, v float64) float64 {
	if m.logY[k] {
		return math.Log(math.Max(v, 1e-12))
	}
	return v
}

func (m *Model) inverseTransform(k int, v float64) float64 {
	if m.logY[k] {
		return math.Exp(v)
	}
	return v
}

// model maps adjacency [B,N,N], node mask [B,N], node features [B,N,F]
// and graph features [B,G] to standardized predictions [B,T].
func (m *Model) model(scope *model.Scope, adj, mask, nf, gf *Node) *Node {
	H := m.cfg.Hidden
	// dense maps [B,N,F] node features to [B,N,H] (nn.Dense multiplies them
	// as one [B·N,F] matrix).
	dense := func(c *model.Scope, x *Node, bias bool) *Node { return nn.Dense(c, x, bias, H) }
	maskH := InsertAxes(mask, -1) // [B,N,1]
	deg := ReduceSum(adj, -1)     // [B,N]
	invDeg := InsertAxes(Inverse(Max(deg, OnesLike(deg))), -1)
	h := Mul(activation.Relu(dense(scope.At("embed"), nf, true)), maskH)
	for l := 0; l < m.cfg.Layers; l++ {
		c := scope.At("layer_%d", l)
		sum := DotGeneral(adj, []int{2}, []int{0}, h, []int{1}, []int{0}) // [B,N,H]: Σ_j A_ij h_j
		mean := Mul(sum, invDeg)
		sum = MulScalar(sum, 0.125) // keeps activations O(1) on graphs of degree ≲ 10
		upd := Add(Add(dense(c.At("self"), h, true), dense(c.At("sum"), sum, false)),
			dense(c.At("mean"), mean, false))
		h = Mul(Add(h, MulScalar(activation.Relu(upd), 0.5)), maskH)
	}
	n := ReduceSum(mask, -1) // [B]
	sumH := ReduceSum(h, 1)  // [B,H]
	meanH := Div(sumH, InsertAxes(n, -1))
	sumH = MulScalar(sumH, 1.0/16)
	z := Concatenate([]*Node{sumH, meanH, gf}, -1)
	z = activation.Relu(nn.Dense(scope.At("readout_1"), z, true, H))
	z = activation.Relu(nn.Dense(scope.At("readout_2"), z, true, H))
	return nn.Dense(scope.At("readout_out"), z, true, len(m.tasks))
}

// graphFeatures are one graph's padded model inputs.
type graphFeatures struct {
	adj  []float32 // N×N
	mask []float32 // N
	nf   []float32 // N×F
	gf   []float32 // numGraphFeatures
}

const numGraphFeatures = 4

// featurize computes structural features only (never node ids): per node
// 1, degree, ln(1+degree), degree/(n−1), and the closed-walk counts
// (A²)ᵥᵥ, (A³)ᵥᵥ/2 and (A⁴)ᵥᵥ scaled down; per graph ln n, ln(1+m), m/n
// and density.
func featurize(g *graphtext.Graph, maxN int) (graphFeatures, error) {
	if g == nil {
		return graphFeatures{}, fmt.Errorf("spectralgnn: nil graph")
	}
	if g.Directed {
		return graphFeatures{}, fmt.Errorf("spectralgnn: the GNN needs undirected graphs")
	}
	if g.N > maxN {
		return graphFeatures{}, fmt.Errorf("spectralgnn: graph has %d nodes; the GNN was built for at most %d (Config.MaxNodes)", g.N, maxN)
	}
	if err := g.Validate(false); err != nil {
		return graphFeatures{}, err
	}
	n := g.N
	a := g.Adjacency()
	a2 := matMul(a, a)
	a3 := matMul(a2, a)
	a4 := matMul(a2, a2)
	f := graphFeatures{adj: make([]float32, maxN*maxN), mask: make([]float32, maxN), nf: make([]float32, maxN*numNodeFeatures)}
	for i := range n {
		f.mask[i] = 1
		deg := 0.0
		for j := range n {
			f.adj[i*maxN+j] = float32(a[i][j])
			deg += a[i][j]
		}
		row := f.nf[i*numNodeFeatures : (i+1)*numNodeFeatures]
		row[0] = 1
		row[1] = float32(deg / 10)
		row[2] = float32(math.Log1p(deg))
		row[3] = float32(deg / math.Max(1, float64(n-1)))
		row[4] = float32(a2[i][i] / 10)
		row[5] = float32(a3[i][i] / 2 / 20)
		row[6] = float32(math.Log1p(a4[i][i]))
	}
	m := float64(g.M())
	dens := 0.0
	if n > 1 {
		dens = 2 * m / float64(n*(n-1))
	}
	f.gf = []float32{float32(math.Log(float64(n))), float32(math.Log1p(m)), float32(m / float64(n)), float32(dens)}
	return f, nil
}

func matMul(a, b [][]float64) [][]float64 {
	n := len(a)
	c := make([][]float64, n)
	for i := range c {
		c[i] = make([]float64, n)
		for k := range n {
			if a[i][k] == 0 {
				continue
			}
			for j := range n {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}

// tensors stacks a batch of features into the model's four inputs.
func (m *Model) tensors(batch []graphFeatures) []any {
	B, N := len(batch), m.maxNodes
	adj := make([]float32, 0, B*N*N)
	mask := make([]float32, 0, B*N)
	nf := make([]float32, 0, B*N*numNodeFeatures)
	gf := make([]float32, 0, B*numGraphFeatures)
	for _, f := range batch {
		adj = append(adj, f.adj...)
		mask = append(mask, f.mask...)
		nf = append(nf, f.nf...)
		gf = append(gf, f.gf...)
	}
	return []any{
		tensors.FromFlatDataAndDimensions(adj, B, N, N),
		tensors.FromFlatDataAndDimensions(mask, B, N),
		tensors.FromFlatDataAndDimensions(nf, B, N, numNodeFeatures),
		tensors.FromFlatDataAndDimensions(gf, B, numGraphFeatures),
	}
}

// Predict returns the model's values for each graph in task units:
// out[task][i].
func (m *Model) Predict(gs []*graphtext.Graph) (map[string][]float64, error) {
	out := map[string][]float64{}
	B, T := m.cfg.Batch, len(m.tasks)
	for s := 0; s < len(gs); s += B {
		e := min(s+B, len(gs))
		batch := make([]graphFeatures, B)
		for i := s; i < e; i++ {
			f, err := featurize(gs[i], m.maxNodes)
			if err != nil {
				return nil, fmt.Errorf("spectralgnn: graph %d: %w", i, err)
			}
			batch[i-s] = f
		}
		for i := e - s; i < B; i++ { // pad with copies of the first graph
			batch[i] = batch[0]
		}
		res, err := m.predFn.Call(m.tensors(batch)...)
		if err != nil {
			return nil, fmt.Errorf("spectralgnn: predict: %w", err)
		}
		var flat []float32
		if err := res[0].ConstFlatData(func(f any) { flat = slices.Clone(f.([]float32)) }); err != nil {
			return nil, err
		}
		for i := 0; i < e-s; i++ {
			for k, task := range m.tasks {
				out[task] = append(out[task], m.inverseTransform(k, float64(flat[i*T+k])*m.sd[k]+m.mu[k]))
			}
		}
	}
	return out, nil
}

func toF32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

func scalar(t *tensors.Tensor) (float64, error) {
	switch v := t.Value().(type) {
	case float32:
		return float64(v), nil
	case float64:
		return v, nil
	}
	return 0, fmt.Errorf("spectralgnn: unexpected loss type %T", t.Value())
}
