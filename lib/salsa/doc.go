// Package salsa generates the sparse graph data of SALSA-CLRS (Minder et
// al., "SALSA-CLRS: A Sparse and Scalable Benchmark for Algorithmic
// Reasoning", LoG 2023; github.com/jkminder/SALSA-CLRS): graphs of up to thousands of nodes held as edge lists, and
// the exact trajectories of six algorithms on them in CLRS-30's probe
// vocabulary (package clrs: stages, locations, types).
//
// # Sets
//
// SALSA-CLRS trains on Erdős–Rényi graphs of n ∈ {4, 7, 11, 13, 16} nodes
// (10,000 samples), validates on n = 16 (1,000) and tests on 15 sets of
// 1,000 samples: Erdős–Rényi (er_N), Watts–Strogatz (ws_N, k ∈ {4, 6, 8},
// p ∈ [0.05, 0.2]) and Delaunay (delaunay_N) graphs of N = 16, 80, 160,
// 800 and 1,600 nodes. Every graph is connected and has no self-loops.
// An Erdős–Rényi graph of n nodes has p ∈ [ln n / n, 3 ln n / n], except
// that the training set uses n = 16's range for all its sizes, as
// SALSA-CLRS's code does. Sets lists them; Family says how a set draws
// its graphs.
//
// # Randomness
//
// Every random draw of sample i of a set comes from one numpy
// RandomState (package nprand), seeded with [seed, crc32(set name), i]
// (SampleKey), in SALSA-CLRS's order: n (numpy's choice, for the training
// set), k (Watts–Strogatz), p (uniform), the graph as NetworkX draws it
// when given that RandomState (gnp_random_graph, redrawn until connected;
// connected_watts_strogatz_graph), or n points rand(n, 2) for the
// Delaunay triangulation; then dijkstra's and mst_prim's weights
// (uniform(0, 1, (n, n)), w = sqrt(U·Uᵀ + 0.001)), then the source
// (randint(0, n): bfs, dijkstra, mst_prim, eccentricity), then fast_mis's
// n numbers per round. A sample is thus the same whatever the number of
// samples drawn, and sample i of a set is the same graph for every
// algorithm. SALSA-CLRS draws the same way but from unseeded generators
// (the graphs from Python's and numpy's global ones); with those
// redirected to this stream its own sampler makes exactly these samples
// (testdata/gen_reference.py, TestSALSAReference).
//
// # Graphs and probes
//
// A Graph is the edge list of A + I in row-major order, SALSA-CLRS's and
// PyTorch Geometric's edge_index: both directions of every edge and a
// self-loop per node, sorted. Node-located probes are [N], edge-located
// ones [E] — one value per edge of the list, never [N, N] — and
// graph-located ones scalars; hints add a leading time axis. Pointers are
// node indices: node i points to p[i] along the edge i→p[i].
//
// bfs, dfs, dijkstra and mst_prim are CLRS-30's (SALSA-CLRS runs dm-clrs's
// code for them) and record exactly the hints of lib/clrs's dense
// versions, edge by edge (TestDenseAgreement); fast_mis (Luby's randomised
// maximal independent set) and eccentricity (flood and echo) are
// SALSA-CLRS's own, with its specs (Specs). What differs from lib/clrs's
// dense data, and from SALSA-CLRS's files:
//
//   - the graphs: undirected, connected, without self-loops, drawn from
//     the families above (CLRS-30's samplers draw Erdős–Rényi graphs with
//     p = 0.5 that may be disconnected and have self-loops);
//   - edge-located probes are per edge: `adj` is all ones (every listed
//     edge is in A + I), `A` is CLRS's A at each edge (0 on the
//     self-loops; int64 0/1 for unweighted graphs, the weights otherwise).
//     SALSA-CLRS drops A for unweighted graphs and stores A + I (weight 1
//     on the self-loops) as `weights` for weighted ones;
//   - node pointers stay node indices; SALSA-CLRS stores them as one-hot
//     masks over the edges (the edge i→p[i] is 1);
//   - hints are time-major, [T, N], [T, E], [T], as CLRS's; SALSA-CLRS's
//     are [N, T], [E, T], [1, T]. fast_mis's randomness input is [T, N]
//     (SALSA-CLRS: [N, T]): the numbers of round r at steps 2r and 2r+1;
//   - as SALSA-CLRS, only the training set keeps its hints by default
//     (HintsTrain); the lengths are always written.
//
// # Files
//
// Generate (narlab salsa generate) writes one ALGO_SET.npz per algorithm
// and set and a manifest.json, all put in place together. A file
// concatenates its B graphs: edge_index int64 [2, E] (node indices local
// to each graph), node_ptr and edge_ptr int64 [B+1] (graph b's nodes are
// node_ptr[b]:node_ptr[b+1], its edges edge_ptr[b]:edge_ptr[b+1]), lengths
// int64 [B] (hint steps), param/p and param/k [B] (the drawn parameters),
// then input/NAME, hint/NAME and output/NAME: node-located [N_total],
// edge-located [E_total], graph-located [B]; hints and fast_mis's
// randomness [T_max, …], zero after each graph's own length. docs/salsa.md
// describes the layout and loads it into torch_geometric.data.Data
// objects.
//
// # Checks
//
// TestSALSAReference compares 156 trajectories (all six algorithms, with
// hints on the training, validation and 16-node test graphs of every
// family, without on 80 and 160 nodes) with those SALSA-CLRS's own code
// makes; TestNetworkX checks freshly generated files of every algorithm
// and set, up to 1,600 nodes, against NetworkX and SciPy (every graph
// redrawn by their generators; outputs, and the hints they can tell);
// TestDenseAgreement checks bfs, dfs, dijkstra and mst_prim against
// lib/clrs.
package salsa
