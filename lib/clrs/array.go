package clrs

import (
	"fmt"
	"math"
)

// DType is the element type the reference gives an array. narlab stores
// every value as float64 (exact for all integers the benchmark uses) and
// keeps the reference's dtype for export: pointer outputs and unweighted
// adjacency matrices are int64 in the reference, the one-hot permutation
// probes made by Permutations are float32 (JAX's one_hot), everything else
// float64.
type DType uint8

// Element types.
const (
	Float64 DType = iota
	Int64
	Float32
)

// String returns numpy's name of the dtype.
func (d DType) String() string {
	switch d {
	case Int64:
		return "int64"
	case Float32:
		return "float32"
	}
	return "float64"
}

// Array is a dense n-dimensional array in row-major order.
type Array struct {
	Shape []int
	Data  []float64
	DType DType
}

// Size returns the number of elements the shape holds.
func (a Array) Size() int { return shapeSize(a.Shape) }

func shapeSize(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// Matrix is a square n×n matrix in row-major order: the adjacency or weight
// matrix of a graph. Int records that the reference holds it as integers
// (unweighted graphs), which only changes the dtype of exported arrays.
type Matrix struct {
	N    int
	Data []float64
	Int  bool
}

// NewMatrix returns an n×n zero matrix.
func NewMatrix(n int) Matrix { return Matrix{N: n, Data: make([]float64, n*n)} }

// MatrixFromRows builds a matrix from rows, checking that it is square and
// finite.
func MatrixFromRows(rows [][]float64) (Matrix, error) {
	n := len(rows)
	m := NewMatrix(n)
	for i, r := range rows {
		if len(r) != n {
			return Matrix{}, fmt.Errorf("adjacency matrix must be square: row %d has %d entries, want %d", i, len(r), n)
		}
		for j, v := range r {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Matrix{}, fmt.Errorf("adjacency matrix entry [%d][%d] is %v; want a finite number", i, j, v)
			}
			m.Data[i*n+j] = v
		}
	}
	return m, nil
}

// At returns entry (i, j).
func (m Matrix) At(i, j int) float64 { return m.Data[i*m.N+j] }

// Set sets entry (i, j).
func (m Matrix) Set(i, j int, v float64) { m.Data[i*m.N+j] = v }

// Rows returns the matrix as a slice of rows (a copy).
func (m Matrix) Rows() [][]float64 {
	out := make([][]float64, m.N)
	for i := range out {
		out[i] = append([]float64(nil), m.Data[i*m.N:(i+1)*m.N]...)
	}
	return out
}

// Clone returns a deep copy.
func (m Matrix) Clone() Matrix {
	return Matrix{N: m.N, Data: append([]float64(nil), m.Data...), Int: m.Int}
}
