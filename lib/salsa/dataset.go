package salsa

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/narlab/narlab/lib/clrs"
)

// Dataset is the samples of one algorithm on one set: what one .npz file
// holds.
type Dataset struct {
	Algorithm string
	Set       Set
	Seed      uint32
	// Hints says whether the trajectories kept their hints.
	Hints        bool
	Trajectories []*Trajectory
	Params       []Params
}

// DatasetOptions tunes NewDataset; the zero value is fine.
type DatasetOptions struct {
	// Workers is the number of goroutines drawing samples (0: GOMAXPROCS).
	// It changes nothing in the result.
	Workers int
	// Progress, if set, is called with the number of samples done, from
	// the sampling goroutines (one at a time).
	Progress func(done int)
}

// NewDataset draws samples 0 … count-1 of the set for algo (Sample with
// the given seed; count 0 means the set's own size, set.Samples), with or
// without hints. It stops early, returning the context's error, when ctx
// ends.
func NewDataset(ctx context.Context, algo string, set Set, seed uint32, count int, hints bool, opts DatasetOptions) (*Dataset, error) {
	if err := checkAlgorithm(algo); err != nil {
		return nil, err
	}
	if err := set.Family.Validate(); err != nil {
		return nil, fmt.Errorf("%w (set %s)", err, set.Name)
	}
	if count < 0 {
		return nil, fmt.Errorf("salsa: %d samples requested; want a count >= 0 (0: the set's own size)", count)
	}
	if count == 0 {
		count = set.Samples
	}
	if count == 0 {
		return nil, fmt.Errorf("salsa: set %s has no size of its own; give a count", set.Name)
	}
	d := &Dataset{Algorithm: algo, Set: set, Seed: seed, Hints: hints,
		Trajectories: make([]*Trajectory, count), Params: make([]Params, count)}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, count)
	var next, done atomic.Int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= count || ctx.Err() != nil {
					return
				}
				t, p, err := Sample(algo, set, seed, i, hints)
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					next.Store(int64(count)) // stop the others
					return
				}
				d.Trajectories[i], d.Params[i] = t, p
				k := done.Add(1)
				if opts.Progress != nil {
					mu.Lock()
					opts.Progress(int(k))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return d, nil
}

// Len returns the number of samples.
func (d *Dataset) Len() int { return len(d.Trajectories) }

// MaxLength returns the longest trajectory's number of hint steps.
func (d *Dataset) MaxLength() int {
	m := 0
	for _, t := range d.Trajectories {
		m = max(m, t.Length)
	}
	return m
}

// Size returns the total numbers of nodes and edges.
func (d *Dataset) Size() (nodes, edges int) {
	for _, t := range d.Trajectories {
		nodes += t.Graph.N
		edges += t.Graph.NumEdges()
	}
	return nodes, edges
}

// Arrays returns the arrays of the dataset's .npz file, in order (see the
// package documentation for the layout).
func (d *Dataset) Arrays() ([]clrs.NPZArray, error) {
	trajs := d.Trajectories
	B := len(trajs)
	if B == 0 {
		return nil, fmt.Errorf("salsa: the dataset has no samples")
	}
	for b, t := range trajs {
		if t == nil {
			return nil, fmt.Errorf("salsa: sample %d is missing", b)
		}
		if (t.Hints != nil) != d.Hints || len(t.Inputs) != len(trajs[0].Inputs) || len(t.Outputs) != len(trajs[0].Outputs) {
			return nil, fmt.Errorf("salsa: sample %d has other probes than sample 0", b)
		}
	}
	nodes, edges := d.Size()
	T := d.MaxLength()
	ints := func(name string, shape []int, each func(put func([]float64) error) error) clrs.NPZArray {
		return clrs.NPZArray{Name: name, DType: clrs.Int64, Shape: shape, Values: each}
	}
	arrays := []clrs.NPZArray{
		ints("edge_index", []int{2, edges}, func(put func([]float64) error) error {
			buf := make([]float64, 0, 1024)
			for _, side := range []func(*Graph) []int32{func(g *Graph) []int32 { return g.Src }, func(g *Graph) []int32 { return g.Dst }} {
				for _, t := range trajs {
					for _, v := range side(t.Graph) {
						if buf = append(buf, float64(v)); len(buf) == cap(buf) {
							if err := put(buf); err != nil {
								return err
							}
							buf = buf[:0]
						}
					}
				}
			}
			return put(buf)
		}),
		ints("node_ptr", []int{B + 1}, offsets(trajs, func(t *Trajectory) int { return t.Graph.N })),
		ints("edge_ptr", []int{B + 1}, offsets(trajs, func(t *Trajectory) int { return t.Graph.NumEdges() })),
		ints("lengths", []int{B}, perSample(trajs, func(t *Trajectory) float64 { return float64(t.Length) })),
	}
	param := func(name string, dt clrs.DType, f func(Params) float64) clrs.NPZArray {
		return clrs.NPZArray{Name: name, DType: dt, Shape: []int{B}, Values: func(put func([]float64) error) error {
			v := make([]float64, B)
			for b, p := range d.Params {
				v[b] = f(p)
			}
			return put(v)
		}}
	}
	switch d.Set.Family.Kind {
	case ER:
		arrays = append(arrays, param("param/p", clrs.Float64, func(p Params) float64 { return p.P }))
	case WS:
		arrays = append(arrays, param("param/p", clrs.Float64, func(p Params) float64 { return p.P }),
			param("param/k", clrs.Int64, func(p Params) float64 { return float64(p.K) }))
	}
	probeArrays := func(prefix string, get func(*Trajectory) []clrs.DataPoint) {
		for k, dp := range get(trajs[0]) {
			dt := clrs.Float64
			if prefix != "hint/" {
				dt = dp.DType
			}
			timed := prefix == "hint/" || dp.Name == "randomness"
			var shape []int
			if timed {
				shape = append(shape, T)
			}
			inner := dp.Shape
			if timed {
				inner = inner[1:]
			}
			switch dp.Location {
			case clrs.Node:
				shape = append(shape, nodes)
				shape = append(shape, inner[1:]...)
			case clrs.Edge:
				shape = append(shape, edges)
				shape = append(shape, inner[1:]...)
			default:
				shape = append(shape, B)
				shape = append(shape, inner...)
			}
			values := func(put func([]float64) error) error {
				for _, t := range trajs {
					if err := put(get(t)[k].Data); err != nil {
						return err
					}
				}
				return nil
			}
			if timed {
				values = func(put func([]float64) error) error {
					var zeros []float64
					for s := range T {
						for _, t := range trajs {
							data := get(t)[k].Data
							per := len(data) / t.Length
							if s < t.Length {
								if err := put(data[s*per : (s+1)*per]); err != nil {
									return err
								}
								continue
							}
							if len(zeros) < per {
								zeros = make([]float64, per)
							}
							if err := put(zeros[:per]); err != nil {
								return err
							}
						}
					}
					return nil
				}
			}
			arrays = append(arrays, clrs.NPZArray{Name: prefix + dp.Name, DType: dt, Shape: shape, Values: values})
		}
	}
	probeArrays("input/", func(t *Trajectory) []clrs.DataPoint { return t.Inputs })
	if d.Hints {
		probeArrays("hint/", func(t *Trajectory) []clrs.DataPoint { return t.Hints })
	}
	probeArrays("output/", func(t *Trajectory) []clrs.DataPoint { return t.Outputs })
	return arrays, nil
}

func offsets(trajs []*Trajectory, size func(*Trajectory) int) func(put func([]float64) error) error {
	return func(put func([]float64) error) error {
		v := make([]float64, len(trajs)+1)
		for b, t := range trajs {
			v[b+1] = v[b] + float64(size(t))
		}
		return put(v)
	}
}

func perSample(trajs []*Trajectory, f func(*Trajectory) float64) func(put func([]float64) error) error {
	return func(put func([]float64) error) error {
		v := make([]float64, len(trajs))
		for b, t := range trajs {
			v[b] = f(t)
		}
		return put(v)
	}
}

// WriteNPZ writes the dataset as a numpy .npz archive (see the package
// documentation for its arrays).
func (d *Dataset) WriteNPZ(w io.Writer, opts ...clrs.NPZOption) error {
	arrays, err := d.Arrays()
	if err != nil {
		return err
	}
	return clrs.WriteArraysNPZ(w, arrays, opts...)
}

// SaveNPZ writes the dataset to path atomically (fsutil.Write: a
// temporary file renamed into place), or hands it to clrs.SaveWith's
// function when that option is given.
func (d *Dataset) SaveNPZ(path string, opts ...clrs.NPZOption) error {
	arrays, err := d.Arrays()
	if err != nil {
		return err
	}
	return clrs.SaveArraysNPZ(path, arrays, opts...)
}

// EstimateBytes estimates the memory a dataset of count samples of algo
// on set takes while it is written (NewDataset holds every trajectory):
// edge lists and per-edge inputs, per-node probes and, with hints, every
// hint step. The hint steps are estimated as measured on SALSA-CLRS's
// graphs (dfs 3n, dijkstra and mst_prim n+1, bfs and eccentricity about
// 2√n, fast_mis about 2·log2 n) for the largest n of the set; it is meant
// to refuse requests that cannot fit (dfs with hints on 1,600 nodes takes
// about 740 MB a sample), not to be exact. count 0 is the set's size.
func EstimateBytes(algo string, set Set, count int, hints bool) (float64, error) {
	if err := checkAlgorithm(algo); err != nil {
		return 0, err
	}
	if err := set.Family.Validate(); err != nil {
		return 0, err
	}
	if count == 0 {
		count = set.Samples
	}
	n := float64(slices.Max(set.Family.N))
	var degree float64
	switch f := set.Family; f.Kind {
	case ER:
		degree = (n - 1) * (f.P[0] + f.P[1]) / 2
	case WS:
		degree = float64(slices.Max(f.K))
	default:
		degree = 6
	}
	E := n * (degree + 1)
	logn := math.Log2(n)
	var T, perStep float64
	switch algo {
	case "bfs":
		T, perStep = 2*math.Sqrt(n)+2, 2*n
	case "dfs":
		T, perStep = 3*n, 12*n+1
	case "dijkstra", "mst_prim":
		T, perStep = n+1, 5*n
	case "fast_mis":
		T, perStep = 2*logn+4, E+2*n+1
	case "eccentricity":
		T, perStep = 2*math.Sqrt(n)+4, 5*n+E+1
	}
	per := 16*E + 32*n // edge list (int32 pairs), A, node inputs and outputs
	if algo == "fast_mis" {
		per += 8 * T * n // randomness
	}
	if hints {
		per += 8 * T * perStep
	}
	return float64(count) * per, nil
}
