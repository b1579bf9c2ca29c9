package nn_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
)

// Load a checkpoint that dm-clrs's BaselineModel.save_model wrote (bfs,
// MPNN, hidden 8, after 3 training steps in JAX) and score it. Its
// parameters say the algorithm and the hidden size but not whether the
// processor aggregates over all nodes (MPNN), the graph (PGN) or each
// node itself (Deep Sets): that is named.
func ExampleLoadReference() {
	be, err := nn.Backend("go")
	if err != nil {
		panic(err)
	}
	_, err = nn.LoadReference(be, "testdata/refckpt/bfs-mpnn.pkl", nn.ReferenceOptions{})
	fmt.Println(err)
	m, err := nn.LoadReference(be, "testdata/refckpt/bfs-mpnn.pkl", nn.ReferenceOptions{Processor: "mpnn"})
	if err != nil {
		panic(err)
	}
	defer m.Close()
	cfg := m.Config()
	fmt.Println(cfg.Algorithm, cfg.Processor, cfg.Hidden, cfg.HintMode, "Adam step", m.Step())
	s, _ := clrs.NewSplitSampler("bfs", "val")
	batch, _ := s.Next(32)
	scores, err := m.Evaluate([]*clrs.Feedback{batch})
	if err != nil {
		panic(err)
	}
	fmt.Printf("score %.4f\n", scores["score"])
	// Output:
	// nn: testdata/refckpt/bfs-mpnn.pkl: its processor parameters fit deepsets, mpnn, pgn, pgn_mask (dm-clrs checkpoints do not record which adjacency the processor aggregates over): name the processor (ReferenceOptions.Processor, narlab eval --processor)
	// bfs mpnn 8 encoded_decoded Adam step 3
	// score 0.1387
}

// Export a narlab model for dm-clrs's BaselineModel.restore_model, with its
// Adam state, and read the file back.
func ExampleModel_ExportReference() {
	be, err := nn.Backend("go")
	if err != nil {
		panic(err)
	}
	cfg := nn.DefaultConfig("insertion_sort", "triplet_gmpnn")
	cfg.Hidden = 8
	m, err := nn.New(be, cfg)
	if err != nil {
		panic(err)
	}
	defer m.Close()
	s, _ := clrs.NewSplitSampler("insertion_sort", "train")
	for range 2 {
		batch, _ := s.Next(4)
		if _, err := m.TrainStep(batch); err != nil {
			panic(err)
		}
	}
	dir, _ := os.MkdirTemp("", "export")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "insertion_sort-triplet_gmpnn.pkl")
	if err := m.ExportReference(path); err != nil {
		panic(err)
	}
	// insertion_sort and bubble_sort have the same probes: name the algorithm.
	back, err := nn.LoadReference(be, path, nn.ReferenceOptions{Algorithm: "insertion_sort", Processor: "triplet_gmpnn"})
	if err != nil {
		panic(err)
	}
	defer back.Close()
	fmt.Println(back.Config().Equal(m.Config()), "Adam step", back.Step())
	// Output:
	// true Adam step 2
}
