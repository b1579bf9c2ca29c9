package nn_test

import (
	"fmt"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
)

// Train an MPNN on insertion sort for a few steps and score it.
func ExampleNew() {
	be, err := nn.Backend("go")
	if err != nil {
		panic(err)
	}
	cfg := nn.DefaultConfig("insertion_sort", "mpnn")
	cfg.Hidden = 8
	m, err := nn.New(be, cfg)
	if err != nil {
		panic(err)
	}
	s, _ := clrs.NewSampler("insertion_sort", clrs.Length(4), clrs.Seed(1), clrs.NumSamples(4))
	batch, _ := s.Dataset()
	for range 3 {
		if _, err := m.TrainStep(batch); err != nil {
			panic(err)
		}
	}
	scores, err := m.Evaluate([]*clrs.Feedback{batch})
	if err != nil {
		panic(err)
	}
	fmt.Println("steps:", m.Step(), "outputs scored:", len(scores)-1)
	_, err = nn.New(be, nn.DefaultConfig("insertion_sort", "transformer"))
	fmt.Println(err != nil)
	// Output:
	// steps: 3 outputs scored: 1
	// true
}

// Score a model on a split's samples batched as the evaluation goes, the
// split drawn as it is consumed: here a model just created, on the first
// ten samples of bellman_ford's CLRS-30 validation split (graphs of 16
// nodes) in batches of 4 (the last one of 2), never holding more than one
// batch.
func ExampleModel_EvaluateTrajectories() {
	be, err := nn.Backend("go")
	if err != nil {
		panic(err)
	}
	cfg := nn.DefaultConfig("bellman_ford", "mpnn")
	cfg.Hidden = 8
	m, err := nn.New(be, cfg)
	if err != nil {
		panic(err)
	}
	defer m.Close()
	scores, err := m.EvaluateTrajectories(clrs.SplitTrajectories("bellman_ford", "val", 10), 4)
	if err != nil {
		panic(err)
	}
	_, scored := scores["pi"]
	fmt.Println("pi scored:", scored, "score in [0, 1]:", scores["score"] >= 0 && scores["score"] <= 1)
	// Output:
	// pi scored: true score in [0, 1]: true
}
