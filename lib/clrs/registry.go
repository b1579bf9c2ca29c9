package clrs

import (
	"fmt"
	"math"
)

// argKind is the Go type of one positional argument of an algorithm.
type argKind uint8

const (
	argFloats argKind = iota // []float64
	argInts                  // []int
	argMatrix                // Matrix
	argNode                  // int, a node index
	argReal                  // float64
)

func (k argKind) String() string {
	return [...]string{"array of numbers", "array of integers", "square matrix", "node index", "number"}[k]
}

// argSpec names one positional argument of an algorithm.
type argSpec struct {
	name string
	kind argKind
	doc  string
}

// algorithmDef is one registered algorithm.
type algorithmDef struct {
	name    string
	args    []argSpec
	sampler *samplerKind
	// run validates the (already type-checked) arguments and runs the
	// algorithm. It must not modify args.
	run func(args Args) (*Trajectory, error)
}

var registry = map[string]*algorithmDef{}

func register(d *algorithmDef) {
	if _, dup := registry[d.name]; dup {
		panic("clrs: algorithm registered twice: " + d.name)
	}
	if _, ok := Specs[d.name]; !ok {
		panic("clrs: algorithm without spec: " + d.name)
	}
	registry[d.name] = d
}

func lookup(name string) (*algorithmDef, error) {
	d, ok := registry[name]
	if !ok {
		return nil, unknownAlgorithm(name)
	}
	return d, nil
}

// ArgNames returns the names of an algorithm's positional arguments, as the
// JSON input of Run and `narlab clrs run` names them.
func ArgNames(algo string) ([]string, error) {
	d, err := lookup(algo)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(d.args))
	for i, a := range d.args {
		out[i] = a.name
	}
	return out, nil
}

// ArgDoc describes an algorithm's arguments in one line per argument.
func ArgDoc(algo string) ([]string, error) {
	d, err := lookup(algo)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(d.args))
	for i, a := range d.args {
		out[i] = fmt.Sprintf("%s (%s): %s", a.name, a.kind, a.doc)
	}
	return out, nil
}

// Run runs an algorithm on the given positional arguments and returns its
// trajectory. Arguments are checked against what the algorithm expects
// (count, types, shapes, finiteness and algorithm-specific preconditions
// such as a sorted array for binary_search); a violation is reported as an
// error naming the argument and what is expected. Run never modifies args.
func Run(algo string, args Args) (*Trajectory, error) {
	d, err := lookup(algo)
	if err != nil {
		return nil, err
	}
	norm, err := d.coerce(args)
	if err != nil {
		return nil, fmt.Errorf("clrs: %s: %w", algo, err)
	}
	t, err := d.run(norm)
	if err != nil {
		return nil, fmt.Errorf("clrs: %s: %w", algo, err)
	}
	return t, nil
}

// coerce checks argument count and types, converting compatible
// representations ([]int to []float64, [][]float64 to Matrix, integral
// float64 to int) into the declared kinds.
func (d *algorithmDef) coerce(args Args) (Args, error) {
	if len(args) != len(d.args) {
		names := make([]string, len(d.args))
		for i, a := range d.args {
			names[i] = a.name
		}
		return nil, fmt.Errorf("got %d arguments, want %d (%v)", len(args), len(d.args), names)
	}
	out := make(Args, len(args))
	for i, a := range d.args {
		v, err := coerceArg(args[i], a.kind)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", a.name, err)
		}
		out[i] = v
	}
	return out, nil
}

func coerceArg(v any, kind argKind) (any, error) {
	switch kind {
	case argFloats:
		switch x := v.(type) {
		case []float64:
			if err := checkFinite(x); err != nil {
				return nil, err
			}
			return x, nil
		case []int:
			return intsToFloats(x), nil
		}
	case argInts:
		switch x := v.(type) {
		case []int:
			return x, nil
		case []float64:
			out := make([]int, len(x))
			for i, f := range x {
				if f != math.Trunc(f) || math.IsInf(f, 0) || math.IsNaN(f) {
					return nil, fmt.Errorf("element %d is %v; want an integer", i, f)
				}
				out[i] = int(f)
			}
			return out, nil
		}
	case argMatrix:
		switch x := v.(type) {
		case Matrix:
			if len(x.Data) != x.N*x.N {
				return nil, fmt.Errorf("matrix has %d entries for n=%d; want n*n", len(x.Data), x.N)
			}
			if err := checkFinite(x.Data); err != nil {
				return nil, err
			}
			return x, nil
		case [][]float64:
			return MatrixFromRows(x)
		case [][]int:
			rows := make([][]float64, len(x))
			for i, r := range x {
				rows[i] = intsToFloats(r)
			}
			m, err := MatrixFromRows(rows)
			m.Int = true
			return m, err
		}
	case argNode:
		switch x := v.(type) {
		case int:
			return x, nil
		case float64:
			if x != math.Trunc(x) {
				return nil, fmt.Errorf("got %v; want an integer node index", x)
			}
			return int(x), nil
		}
	case argReal:
		switch x := v.(type) {
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("got %v; want a finite number", x)
			}
			return x, nil
		case int:
			return float64(x), nil
		}
	}
	return nil, fmt.Errorf("got %T; want %s", v, kind)
}

func checkFinite(x []float64) error {
	for i, f := range x {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("element %d is %v; want a finite number", i, f)
		}
	}
	return nil
}
