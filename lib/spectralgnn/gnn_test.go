package spectralgnn

import (
	"math"
	"testing"

	"github.com/narlab/narlab/lib/graphtext"
)

// graphs returns n generated graphs and their spectral ground truth.
func graphs(t testing.TB, seed uint64, n int) ([]*graphtext.Graph, map[string][]float64) {
	t.Helper()
	gs, err := graphtext.GenerateSet(seed, n, graphtext.GenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	truth := map[string][]float64{}
	for _, g := range gs {
		v, err := graphtext.Spectral(g, graphtext.SpectralOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range graphtext.SpectralTasks {
			truth[task] = append(truth[task], v[task])
		}
	}
	return gs, truth
}

// A short training lowers the loss, and relabeling a graph leaves the
// prediction unchanged up to float32 rounding. (experiments/spectral's
// tests check the trained model's error against the mean baseline.)
func TestTrainLearnsAndIsInvariant(t *testing.T) {
	gs, truth := graphs(t, 1, 64)
	task := graphtext.SumLambdaSquared
	m, err := Train(nil, []string{task}, gs, truth, Config{Steps: 60, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Tasks(); len(got) != 1 || got[0] != task {
		t.Fatalf("Tasks() = %v; want [%s]", got, task)
	}
	if first, last := m.Losses[0], m.Losses[len(m.Losses)-1]; !(last < first/2) {
		t.Fatalf("training loss went from %v to %v; want a 2× drop", first, last)
	}
	test := gs[:8]
	relabeled := make([]*graphtext.Graph, len(test))
	for i, g := range test {
		if relabeled[i], err = g.Relabel(graphtext.RandomPermutation(g.N, uint64(i)+7)); err != nil {
			t.Fatal(err)
		}
	}
	a, err := m.Predict(test)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Predict(relabeled)
	if err != nil {
		t.Fatal(err)
	}
	for i := range test {
		if d := math.Abs(a[task][i] - b[task][i]); d > 1e-4*math.Max(1, math.Abs(a[task][i])) {
			t.Errorf("graph %d: %v, relabeled %v; want the same up to float32 rounding", i, a[task][i], b[task][i])
		}
	}
}

func TestTrainErrors(t *testing.T) {
	gs, truth := graphs(t, 9, 4)
	cases := []struct {
		name  string
		tasks []string
		cfg   Config
	}{
		{"no tasks", nil, Config{Steps: 1}},
		{"unknown task", []string{"energy"}, Config{Steps: 1}},
		{"bad lr", []string{graphtext.GraphEnergy}, Config{Steps: 1, LearningRate: -1}},
		{"too many nodes", []string{graphtext.GraphEnergy}, Config{Steps: 1, MaxNodes: 3}},
	}
	for _, tc := range cases {
		if _, err := Train(nil, tc.tasks, gs, truth, tc.cfg); err == nil {
			t.Errorf("%s: Train accepted it", tc.name)
		}
	}
	if _, err := Train(nil, []string{graphtext.GraphEnergy}, nil, truth, Config{Steps: 1}); err == nil {
		t.Error("no graphs: Train accepted it")
	}
}

func BenchmarkTrainStep(b *testing.B) {
	gs, truth := graphs(b, 1, 64)
	b.ResetTimer()
	m, err := Train(nil, []string{graphtext.SumLambdaSquared}, gs, truth, Config{Steps: b.N, Seed: 1})
	if err != nil || m == nil {
		b.Fatal(err)
	}
}
