package nn

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nprand"
)

// runPyData replays the data of the reference's examples/run.py with
// lib/clrs's samplers: create_samplers (one RandomState(seed) shared by
// everything: the model key's seed first, then for each algorithm in order
// a seed per training length, then the validation sampler's; on-the-fly
// training samplers, a validation set of 32·2·multiplier samples at the
// longest training length, the string matchers trained at 5/4 of the
// longest length, a length that carries over to the algorithms after them,
// p = 0.1…0.9 halved for four algorithms, length_needle unless 0) and the
// random positions drawn from the shared RandomState at each batch fetch.
// The caller fetches batches in run.py's order; the fixtures' recorded
// batches check that this is run.py's data.
type runPyData struct {
	rng       *nprand.State
	modelSeed uint32 // the PRNGKey seed of the model's key
	batch     int
	randomPos bool
	algos     []*runPyAlgo
}

// runPyAlgo is one algorithm's samplers.
type runPyAlgo struct {
	name     string
	lengths  []int           // its training lengths
	train    []*clrs.Sampler // one per training length, cycled
	next     int
	val      *clrs.Sampler
	valCount int
}

// runPyHalfP are the algorithms run.py samples with half the edge
// probabilities (their trajectories are long otherwise).
var runPyHalfP = []string{"articulation_points", "bridges", "mst_kruskal", "bipartite_matching"}

func newRunPyData(algos []string, trainLengths []int, seed int64, batch, lengthNeedle int, randomPos bool) (*runPyData, error) {
	d := &runPyData{rng: nprand.New(seed), batch: batch, randomPos: randomPos}
	d.modelSeed = uint32(d.rng.Intn(1 << 32))
	lengths := slices.Clone(trainLengths)
	valLength := slices.Max(trainLengths) // main() passes val_lengths=[max(train_lengths)]
	for _, name := range algos {
		if name == "naive_string_matcher" || name == "kmp_matcher" {
			lengths = []int{slices.Max(lengths) * 5 / 4} // and so for the algorithms after it
		}
		p := make([]float64, 9)
		for i := range p {
			p[i] = 0.1 + 0.1*float64(i)
			if slices.Contains(runPyHalfP, name) {
				p[i] /= 2
			}
		}
		_, params, err := clrs.SamplerParams(name)
		if err != nil {
			return nil, err
		}
		// build_sampler drops (with a warning) the arguments a sampler
		// lacks; lib/clrs refuses them, so only those it has are given.
		var kw []clrs.Option
		if _, ok := params["p"]; ok {
			kw = append(kw, clrs.P(p...))
		}
		if _, ok := params["length_needle"]; ok && lengthNeedle != 0 {
			kw = append(kw, clrs.Kwarg("length_needle", lengthNeedle))
		}
		a := &runPyAlgo{name: name, lengths: slices.Clone(lengths)}
		for _, l := range lengths {
			s, err := clrs.NewSampler(name, append([]clrs.Option{clrs.Length(l), clrs.Seed(int64(d.rng.Intn(1 << 32))),
				clrs.NumSamples(-1)}, kw...)...)
			if err != nil {
				return nil, fmt.Errorf("%s train sampler (length %d): %w", name, l, err)
			}
			a.train = append(a.train, s)
		}
		a.valCount = 32 * 2 * clrs.SampleMultiplier(name)
		s, err := clrs.NewSampler(name, append([]clrs.Option{clrs.Length(valLength), clrs.Seed(int64(d.rng.Intn(1 << 32))),
			clrs.NumSamples(a.valCount)}, kw...)...)
		if err != nil {
			return nil, fmt.Errorf("%s val sampler (length %d): %w", name, valLength, err)
		}
		a.val = s
		d.algos = append(d.algos, a)
	}
	return d, nil
}

// withPos draws the batch's random positions, when run.py does.
func (d *runPyData) withPos(fb *clrs.Feedback, err error) (*clrs.Feedback, error) {
	if err != nil || !d.randomPos {
		return fb, err
	}
	return clrs.RandomPos(fb, d.rng)
}

// train fetches algorithm i's next training batch (its lengths cycled).
func (d *runPyData) train(i int) (*clrs.Feedback, error) {
	a := d.algos[i]
	s := a.train[a.next]
	a.next = (a.next + 1) % len(a.train)
	return d.withPos(s.Next(d.batch))
}

// val fetches algorithm i's next validation batch (32 samples drawn from
// its validation set).
func (d *runPyData) val(i int) (*clrs.Feedback, error) {
	return d.withPos(d.algos[i].val.Next(32))
}

// valRound fetches the batches of one validation of algorithm i, as
// collect_and_eval does: batches until valCount samples.
func (d *runPyData) valRound(i int) ([]*clrs.Feedback, error) {
	var out []*clrs.Feedback
	for n := 0; n < d.algos[i].valCount; n += 32 {
		fb, err := d.val(i)
		if err != nil {
			return nil, err
		}
		out = append(out, fb)
	}
	return out, nil
}

// TestRunPyStringMatcherData replays run.py's create_samplers for the
// string matchers under --length_needle (fixtures data-length_needle-*:
// the reference's own batches) with lib/clrs's samplers: the model key's
// seed, the first two training batches of each algorithm (length 5/4 of
// the longest training length, needles drawn as the setting says, random
// positions from the shared RandomState) and the first validation batch's
// lengths and strings, bit for bit. run.py's defaults (-8 with lengths up
// to 16) fail inside the reference itself (its validation sampler at
// length 16 cannot hold a needle of 8): the -8 case trains up to 17.
func TestRunPyStringMatcherData(t *testing.T) {
	files, err := filepath.Glob("testdata/refoptions/data-length_needle-*.json.gz")
	if err != nil || len(files) != 3 {
		t.Fatalf("want 3 data-length_needle fixtures, found %v (%v)", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			var fx struct {
				Flags struct {
					Algorithms   []string
					TrainLengths []string `json:"train_lengths"`
					LengthNeedle int      `json:"length_needle"`
					Seed         int64
					BatchSize    int  `json:"batch_size"`
					RandomPos    bool `json:"random_pos"`
				}
				ModelKeySeed uint32 `json:"model_key_seed"`
				Algorithms   map[string]struct {
					Train          []refBatch
					ValSampleCount int `json:"val_sample_count"`
					ValFirstBatch  struct {
						Lengths refArray
						Inputs  []refDataPoint
					} `json:"val_first_batch"`
				}
			}
			readGzipJSON(t, f, &fx)
			var lengths []int
			for _, s := range fx.Flags.TrainLengths {
				n, err := strconv.Atoi(s)
				if err != nil {
					t.Fatal(err)
				}
				lengths = append(lengths, n)
			}
			d, err := newRunPyData(fx.Flags.Algorithms, lengths, fx.Flags.Seed, fx.Flags.BatchSize, fx.Flags.LengthNeedle, fx.Flags.RandomPos)
			if err != nil {
				t.Fatal(err)
			}
			if d.modelSeed != fx.ModelKeySeed {
				t.Errorf("model key seed %d, the reference's %d", d.modelSeed, fx.ModelKeySeed)
			}
			cfg := DefaultConfig("bfs", "mpnn")
			for i, a := range fx.Flags.Algorithms {
				want := fx.Algorithms[a]
				if len(want.Train) != 2 {
					t.Fatalf("%s: %d training batches in the fixture", a, len(want.Train))
				}
				for k, wb := range want.Train {
					fb, err := d.train(i)
					if err != nil {
						t.Fatal(err)
					}
					if fb, err = cfg.Transform(fb); err != nil {
						t.Fatal(err)
					}
					if err := sameData(fb, feedbackOf(t, a, wb)); err != nil {
						t.Errorf("%s training batch %d: %v", a, k, err)
					}
				}
				if d.algos[i].valCount != want.ValSampleCount {
					t.Errorf("%s: %d validation samples, the reference's %d", a, d.algos[i].valCount, want.ValSampleCount)
				}
				vb, err := d.val(i)
				if err != nil {
					t.Fatal(err)
				}
				var gotLengths []float64
				for _, l := range vb.Lengths {
					gotLengths = append(gotLengths, float64(l))
				}
				if !slices.Equal(gotLengths, want.ValFirstBatch.Lengths.Data) {
					t.Errorf("%s validation lengths %v, the reference's %v", a, gotLengths, want.ValFirstBatch.Lengths.Data)
				}
				for _, w := range want.ValFirstBatch.Inputs {
					got, ok := vb.Probe(w.Name)
					if !ok || !slices.Equal(got.Shape, w.Shape) || !slices.Equal(got.Data, w.Data) {
						t.Errorf("%s validation input %s differs from the reference's (shape %v, want %v)", a, w.Name, got.Shape, w.Shape)
					}
				}
			}
		})
	}
}

// trainAt fetches algorithm i's next training batch of its l-th length
// (a chunked run's stream per length).
func (d *runPyData) trainAt(i, l int) (*clrs.Feedback, error) {
	return d.withPos(d.algos[i].train[l].Next(d.batch))
}
