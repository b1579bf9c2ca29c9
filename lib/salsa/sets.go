package salsa

import (
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"strings"

	"github.com/narlab/narlab/lib/nprand"
)

// Set is one of SALSA-CLRS's datasets (salsaclrs/data.py,
// SALSA_CLRS_DATASETS): its name, its split, the graphs it draws and
// SALSA-CLRS's number of samples.
type Set struct {
	Name    string
	Split   string // "train", "val" or "test"
	Family  Family
	Samples int
}

// ERP returns SALSA-CLRS's Erdős–Rényi p range for n nodes,
// [ln n / n, 3 ln n / n] (er_probabilities).
func ERP(n int) [2]float64 {
	base := math.Log(float64(n)) / float64(n)
	return [2]float64{base, base * 3}
}

// SALSA-CLRS's sizes and Watts–Strogatz parameters.
var (
	testSizes  = []int{16, 80, 160, 800, 1600}
	trainSizes = []int{4, 7, 11, 13, 16}
	wsK        = []int{4, 6, 8}
	wsP        = [2]float64{0.05, 0.2}
)

var sets = func() []Set {
	out := []Set{
		// SALSA-CLRS draws the training graphs' p from n = 16's range
		// whatever their n (er_probabilities(16) for n in 4 … 16).
		{Name: "train", Split: "train", Samples: 10000, Family: Family{Kind: ER, N: trainSizes, P: ERP(16)}},
		{Name: "val", Split: "val", Samples: 1000, Family: Family{Kind: ER, N: []int{16}, P: ERP(16)}},
	}
	for _, n := range testSizes {
		out = append(out, Set{Name: fmt.Sprintf("er_%d", n), Split: "test", Samples: 1000, Family: Family{Kind: ER, N: []int{n}, P: ERP(n)}})
	}
	for _, n := range testSizes {
		out = append(out, Set{Name: fmt.Sprintf("ws_%d", n), Split: "test", Samples: 1000, Family: Family{Kind: WS, N: []int{n}, P: wsP, K: wsK}})
	}
	for _, n := range testSizes {
		out = append(out, Set{Name: fmt.Sprintf("delaunay_%d", n), Split: "test", Samples: 1000, Family: Family{Kind: Delaunay, N: []int{n}}})
	}
	return out
}()

// Sets returns SALSA-CLRS's 17 datasets: train, val, then the 15 test
// sets er_N, ws_N and delaunay_N for N = 16, 80, 160, 800, 1600. They
// are copies: changing them changes nothing else.
func Sets() []Set {
	out := make([]Set, len(sets))
	for i, s := range sets {
		out[i] = s.clone()
	}
	return out
}

func (s Set) clone() Set {
	s.Family.N = slices.Clone(s.Family.N)
	s.Family.K = slices.Clone(s.Family.K)
	return s
}

// SetNames returns the names of Sets, in order.
func SetNames() []string {
	out := make([]string, len(sets))
	for i, s := range sets {
		out[i] = s.Name
	}
	return out
}

// LookupSet returns the set of the given name.
func LookupSet(name string) (Set, error) {
	for _, s := range sets {
		if s.Name == name {
			return s.clone(), nil
		}
	}
	return Set{}, fmt.Errorf("salsa: unknown set %q (known: %s)", name, strings.Join(SetNames(), ", "))
}

// SampleKey returns the numpy seed of sample i of the named set:
// numpy.random.RandomState(SampleKey(seed, set, i)) is the stream all of
// the sample's random draws come from. It is [seed, crc32(set), i], with
// zlib's CRC-32 of the set's name (Python: zlib.crc32(name.encode())).
// So a sample is the same whatever the number of samples generated, and
// sample i of a set is the same graph for every algorithm (the
// algorithm's own draws come after the graph's).
func SampleKey(seed uint32, set string, i int) []uint32 {
	return []uint32{seed, crc32.ChecksumIEEE([]byte(set)), uint32(i)}
}

// Sample draws sample i of the set for algo from the stream of
// SampleKey(seed, set.Name, i), in SALSA-CLRS's order: the graph (n,
// then k, then p, then the graph itself; see Family.Sample), then
// dijkstra's and mst_prim's weights (see the package documentation), then
// the source of bfs, dijkstra, mst_prim and eccentricity (randint(0, n)),
// then fast_mis's random numbers, n per round. hints says whether the
// trajectory keeps its hints.
func Sample(algo string, set Set, seed uint32, i int, hints bool) (*Trajectory, Params, error) {
	if err := checkAlgorithm(algo); err != nil {
		return nil, Params{}, err
	}
	if i < 0 || i > math.MaxUint32 {
		return nil, Params{}, fmt.Errorf("salsa: sample index %d is out of range [0, 2^32)", i)
	}
	rng := newKey(seed, set.Name, i)
	g, p, err := set.Family.Sample(rng)
	if err != nil {
		return nil, p, fmt.Errorf("%w (set %s, sample %d)", err, set.Name, i)
	}
	if algo == "dijkstra" || algo == "mst_prim" {
		weigh(g, rng)
	}
	src := -1
	if HasSource(algo) {
		src = rng.Intn(g.N)
	}
	var draw func() float64
	if algo == "fast_mis" {
		draw = rng.RandomSample
	}
	t, err := run(algo, g, src, draw, hints)
	if err != nil {
		return nil, p, fmt.Errorf("%w (set %s, sample %d)", err, set.Name, i)
	}
	return t, p, nil
}

func newKey(seed uint32, set string, i int) *nprand.State {
	return nprand.NewKey(SampleKey(seed, set, i))
}
