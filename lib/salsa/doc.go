// Package salsa generates SALSA-CLRS's sparse graph data (Minder et al.,
// "SALSA-CLRS: A Sparse and Scalable Benchmark for Algorithmic
// Reasoning", LoG 2023).
package salsa
