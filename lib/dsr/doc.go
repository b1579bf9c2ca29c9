// Package dsr is narlab's implementation of DSR-Bench (He, Li, White and
// Vitercik, "Can LLMs Reason Structurally? Benchmarking via the Lens of
// Data Structures", arXiv 2505.24069): tasks that ask whether a model can
// maintain a data structure step by step, with seeded instance generators,
// exact ground truth, prompts, answer schemas and a deterministic scorer
// that any model's answers can be fed to.
//
// # Tasks
//
// Twenty structures in six relationship categories (Structures,
// Categories): linear (array), temporal (stack, queue, LRU cache, priority
// queue), associative (hashmap, trie, suffix tree, skip list), hierarchical
// (BST, heap, red-black tree, B+ tree, K-D tree, K-D heap), network (graph,
// disjoint-set union, geometric graph) and hybrid (counting Bloom filter,
// DAWG). A Task is one (structure, operation) pair — access, insert,
// pre-order, heapify, construct, compound (a sequence of operations), … —
// found with LookupTask; Tasks lists them all. Each task has an answer
// Shape (the expected JSON of final_answer), a truth function
// (Task.Truth) and a generator (Task.Generate) for the three length levels
// (Short 5–10, Medium 11–20, Long 21–30 elements or operations). The K-D
// tree, K-D heap and geometric graph take a dimension (the spatial probe:
// 1, 2, 3, 5) and the K-D tree a point distribution (uniform, circles,
// moons, blobs). The realistic probe's three tasks (queue of people,
// appointment BST, planet graph) have Operation "realistic".
//
// # Fidelity to the reference
//
// For every published instance (LoadReferenceDir reads a DSR-Bench
// checkout or ../shared/fixtures/dsr), narlab's truth equals the recorded
// one under the default Options. Where the reference code departs from
// the paper's words — the priority queue's never-consolidating Fibonacci
// heap, the BST's successor on deletion, the B+ tree's leaf-only deletion,
// the LRU scoring, and the K-D tree's numpy-argsort tie order — the default
// follows the code and an option selects the paper's reading; the options
// are run parameters (Options.Params).
//
// # Prompts and scoring
//
// BuildPrompt words an instance in narlab's own text under one of the five
// prompting strategies (Stepwise, ZeroShotCoT, OneShotCoT, ThreeShot,
// NoReasoning) or the code probe's modes, closes with the token-budget
// instruction, and returns the response's JSON Schema. Score scores a raw
// response by exact match and normalized Levenshtein similarity in one of
// two modes. Paper (the default) gives it the score the reference's own
// evaluation script would: a strict json.loads, str() of the final answer
// (without spaces for the BST and K-D tree tasks) compared with the
// published truth line, the script's partial credit (over names for the
// realistic queue); where the script raises, Verdict.Raised says so and the
// lenient reading decides. Lenient parses JSON also inside a code fence or
// prose, checks it against the schema and compares structured values.
// Malformed output scores 0 with the reason recorded; ScoreAll keeps every
// response's scores in both modes. Aggregate turns per-response Results into the paper's tables:
// cells per task and level, structures, categories, the overall score and
// the challenge score (Table 3's 11 structures at the long level).
package dsr
