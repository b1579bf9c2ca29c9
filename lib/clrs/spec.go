package clrs

import (
	"fmt"
	"sort"
	"strings"
)

// Stage says when a probe is observed: once before the algorithm runs
// (Input), once after it ends (Output), or at every step (Hint).
type Stage uint8

// Stages of a probe.
const (
	Input Stage = iota
	Output
	Hint
)

// Location says what a probe is attached to: every node, every (ordered)
// pair of nodes, or the graph as a whole.
type Location uint8

// Locations of a probe.
const (
	Node Location = iota
	Edge
	Graph
)

// Type is the kind of value a probe holds.
type Type uint8

// Probe types. The first six appear in the reference specifications;
// PermutationPointer and SoftPointer only appear after transforms
// (Permutations) or inside models.
const (
	Scalar              Type = iota // a real number
	Categorical                     // one-hot over C classes (last axis)
	Mask                            // 0 or 1 (-1 = ignored)
	MaskOne                         // one-hot over the nodes
	Pointer                         // a node index
	ShouldBePermutation             // a pointer that encodes a permutation
	PermutationPointer              // one-hot rows of a permutation matrix
	SoftPointer                     // a distribution over nodes
)

var (
	stageNames    = [...]string{"input", "output", "hint"}
	locationNames = [...]string{"node", "edge", "graph"}
	typeNames     = [...]string{"scalar", "categorical", "mask", "mask_one", "pointer",
		"should_be_permutation", "permutation_pointer", "soft_pointer"}
)

// String returns the reference's name of the stage ("input", "output", "hint").
func (s Stage) String() string {
	if int(s) < len(stageNames) {
		return stageNames[s]
	}
	return fmt.Sprintf("Stage(%d)", s)
}

// String returns the reference's name of the location ("node", "edge", "graph").
func (l Location) String() string {
	if int(l) < len(locationNames) {
		return locationNames[l]
	}
	return fmt.Sprintf("Location(%d)", l)
}

// String returns the reference's name of the type (e.g. "mask_one").
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", t)
}

// ParseStage, ParseLocation and ParseType turn reference names back into values.
func ParseStage(s string) (Stage, error) {
	for i, n := range stageNames {
		if n == s {
			return Stage(i), nil
		}
	}
	return 0, fmt.Errorf("clrs: unknown stage %q (want one of %s)", s, strings.Join(stageNames[:], ", "))
}

// ParseLocation parses "node", "edge" or "graph".
func ParseLocation(s string) (Location, error) {
	for i, n := range locationNames {
		if n == s {
			return Location(i), nil
		}
	}
	return 0, fmt.Errorf("clrs: unknown location %q (want one of %s)", s, strings.Join(locationNames[:], ", "))
}

// ParseType parses a reference type name such as "mask_one".
func ParseType(s string) (Type, error) {
	for i, n := range typeNames {
		if n == s {
			return Type(i), nil
		}
	}
	return 0, fmt.Errorf("clrs: unknown type %q (want one of %s)", s, strings.Join(typeNames[:], ", "))
}

// Probe describes one observable of an algorithm: its name, stage,
// location and type.
type Probe struct {
	Name     string
	Stage    Stage
	Location Location
	Type     Type
}

// String formats a probe as "name (stage/location/type)".
func (p Probe) String() string {
	return fmt.Sprintf("%s (%s/%s/%s)", p.Name, p.Stage, p.Location, p.Type)
}

// Spec is an algorithm's list of probes, in the reference's order. That
// order is the order of inputs, hints and outputs in trajectories and
// feedback.
type Spec []Probe

// Find returns the probe with the given name.
func (s Spec) Find(name string) (Probe, bool) {
	for _, p := range s {
		if p.Name == name {
			return p, true
		}
	}
	return Probe{}, false
}

// Stage returns the probes of one stage, in spec order.
func (s Spec) Stage(st Stage) Spec {
	var out Spec
	for _, p := range s {
		if p.Stage == st {
			out = append(out, p)
		}
	}
	return out
}

// Clone returns a copy of the spec that can be modified freely.
func (s Spec) Clone() Spec { return append(Spec(nil), s...) }

// Specs maps every algorithm the reference specifies (the CLRS-30 list plus
// find_maximum_subarray and bipartite_matching) to its spec. It is filled
// at init and must not be modified; use Spec.Clone to derive new specs.
var Specs = specTable

// CLRS30 returns the 30 algorithms of the CLRS-30 benchmark in the
// reference's CLRS_30_ALGS order.
func CLRS30() []string { return append([]string(nil), clrs30Algorithms...) }

// Algorithms returns the names of all algorithms narlab can run and sample,
// sorted.
func Algorithms() []string {
	out := make([]string, 0, len(registry))
	for name := range registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// SampleMultiplier is the CLRS-30 num_samples_multiplier of an algorithm:
// the factor applied to the validation and test split sizes (32 for
// find_maximum_subarray_kadane; 64 for quickselect, minimum, binary_search,
// naive_string_matcher, kmp_matcher and segments_intersect; 1 otherwise).
func SampleMultiplier(algo string) int {
	if m, ok := sampleMultiplier[algo]; ok {
		return m
	}
	return 1
}

// unknownAlgorithm builds the error for a name that is not registered.
func unknownAlgorithm(name string) error {
	return fmt.Errorf("clrs: unknown algorithm %q (known: %s)", name, strings.Join(Algorithms(), ", "))
}
