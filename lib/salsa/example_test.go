package salsa_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/narlab/narlab/lib/salsa"
)

// A graph is its edge list with self-loops (A + I, row-major); BFS's
// probes are per node, its hints per step.
func ExampleBFS() {
	g, err := salsa.NewGraph(4, [][2]int{{0, 1}, {1, 2}, {0, 3}})
	if err != nil {
		panic(err)
	}
	fmt.Println("src:", g.Src)
	fmt.Println("dst:", g.Dst)
	t, err := salsa.BFS(g, 0)
	if err != nil {
		panic(err)
	}
	reach, _ := t.Probe("reach_h")
	pi, _ := t.Probe("pi")
	fmt.Println("steps:", t.Length, "reach_h:", reach.Shape, reach.Data)
	fmt.Println("pi:", pi.Data)
	// Output:
	// src: [0 0 0 1 1 1 2 2 3 3]
	// dst: [0 1 3 0 1 2 1 2 0 3]
	// steps: 3 reach_h: [3 4] [1 0 0 0 1 1 0 1 1 1 1 1]
	// pi: [0 0 1 0]
}

// Sample draws one sample of a set: sample 0 of er_80 is the same graph
// for every algorithm; dijkstra adds weights and a source.
func ExampleSample() {
	set, err := salsa.LookupSet("er_80")
	if err != nil {
		panic(err)
	}
	for _, algo := range []string{"bfs", "dijkstra"} {
		t, p, err := salsa.Sample(algo, set, 0, 0, false)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: n=%d p=%.4f edges=%d weighted=%v source=%d steps=%d\n",
			algo, p.N, p.P, t.Graph.NumEdges(), t.Graph.Weighted, t.Source, t.Length)
	}
	// Output:
	// bfs: n=80 p=0.1389 edges=966 weighted=false source=16 steps=4
	// dijkstra: n=80 p=0.1389 edges=966 weighted=true source=40 steps=81
}

// Generate writes one .npz file per algorithm and set, and a manifest.
func ExampleGenerate() {
	dir, err := os.MkdirTemp("", "salsa")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	m, err := salsa.Generate(context.Background(), salsa.Config{
		Out:        filepath.Join(dir, "data"),
		Algorithms: []string{"fast_mis"},
		Sets:       []string{"train", "delaunay_160"},
		Count:      10,
		Compress:   true,
	})
	if err != nil {
		panic(err)
	}
	for _, f := range m.Files {
		fmt.Println(f.File, f.Samples, "samples, hints:", f.Hints, "nodes:", f.Nodes)
	}
	// Output:
	// fast_mis_train.npz 10 samples, hints: true nodes: 131
	// fast_mis_delaunay_160.npz 10 samples, hints: false nodes: 1600
}

// The Delaunay triangulation of four points: a square's two triangles.
func ExampleDelaunayEdges() {
	edges, err := salsa.DelaunayEdges([]float64{0, 0, 1, 0.1, 0, 1, 1, 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(edges)
	// Output:
	// [[0 1] [0 2] [1 2] [1 3] [2 3]]
}
