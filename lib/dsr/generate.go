package dsr

import (
	"fmt"
	"io"
	"slices"
)

// GenConfig says which instances Generate draws.
type GenConfig struct {
	Level Level
	Count int    // number of instances (the reference draws 30 per task and level)
	Seed  uint64 // every random choice derives from it
	// Dim is the dimension of spatial tasks (0: 2).
	Dim int
	// Dist is the K-D tree point distribution: uniform (default), circle,
	// moon or blob (2-D only).
	Dist string
	// Options are recorded with the instances and used for their truths.
	Options Options
}

// SpatialDims lists the dimensions of the spatial probe (paper Fig. 4).
func SpatialDims() []int { return []int{1, 2, 3, 5} }

// Generate draws cfg.Count instances of a task and computes their truths.
// Instance i depends only on (seed, task, level, variant, i), so a larger
// count extends a smaller one.
func (t *Task) Generate(cfg GenConfig) ([]Instance, error) {
	if cfg.Count < 0 {
		return nil, fmt.Errorf("dsr: %s: count %d: expected a non-negative number", t.Name(), cfg.Count)
	}
	if cfg.Level < Short || cfg.Level > Long {
		return nil, fmt.Errorf("dsr: %s: unknown level %d", t.Name(), int(cfg.Level))
	}
	if t.generate == nil {
		return nil, fmt.Errorf("dsr: %s has no generator", t.Name())
	}
	v := variant{dim: cfg.Dim, dist: cfg.Dist}
	if !t.Spatial {
		if cfg.Dim != 0 || cfg.Dist != "" {
			return nil, fmt.Errorf("dsr: %s: dimension and distribution apply only to the spatial tasks (kd_tree, kd_heap, geom_graph)", t.Name())
		}
	} else {
		if cfg.Dim < 0 || cfg.Dim > 64 {
			return nil, fmt.Errorf("dsr: %s: dimension %d: expected 1 to 64", t.Name(), cfg.Dim)
		}
		v.dim = v.dimOr(2)
		if cfg.Dist != "" && t.Structure != "kd_tree" {
			return nil, fmt.Errorf("dsr: %s: distributions apply only to kd_tree", t.Name())
		}
		if cfg.Dist != "" && !slices.Contains(Distributions(), cfg.Dist) {
			return nil, fmt.Errorf("dsr: %s: unknown distribution %q (expected uniform, circle, moon or blob)", t.Name(), cfg.Dist)
		}
		if cfg.Dist == DistUniform {
			v.dist = ""
		}
	}
	key := fmt.Sprintf("%s/%s/%d/%s", t.Name(), cfg.Level, v.dim, v.dist)
	out := make([]Instance, 0, cfg.Count)
	for i := range cfg.Count {
		r := newRNG(cfg.Seed, key, i)
		in, err := t.generate(r, cfg.Level, v)
		if err != nil {
			return nil, fmt.Errorf("dsr: %s: %w", t.Name(), err)
		}
		truth, err := t.Truth(&in, cfg.Options)
		if err != nil {
			return nil, err
		}
		seed := cfg.Seed
		inst := Instance{Structure: t.Structure, Operation: t.Operation, Level: cfg.Level, Index: i,
			Seed: &seed, Options: cfg.Options.NonDefault(), Input: in, Truth: truth}
		if t.Spatial {
			inst.Dim = v.dim
			inst.Dist = v.dist
		}
		inst.ID = makeID(t.Structure, t.Operation, inst.Variant(), cfg.Level, i)
		out = append(out, inst)
	}
	return out, nil
}

// Check generates one instance with cfg (of its Level), so that bad
// settings (a dimension or distribution the task does not take, a bad
// option) fail before anything is written.
func (t *Task) Check(cfg GenConfig) error {
	cfg.Count = 1
	_, err := t.Generate(cfg)
	return err
}

// WriteLevels generates cfg.Count instances of the task at each level (in
// order, cfg.Level ignored) and writes them as JSON lines (WriteJSONL), one
// level at a time, so that memory holds one level's instances. It returns
// the number of instances written.
func (t *Task) WriteLevels(w io.Writer, levels []Level, cfg GenConfig) (int, error) {
	n := 0
	for _, l := range levels {
		cfg.Level = l
		insts, err := t.Generate(cfg)
		if err != nil {
			return n, err
		}
		if err := WriteJSONL(w, insts); err != nil {
			return n, err
		}
		n += len(insts)
	}
	return n, nil
}
