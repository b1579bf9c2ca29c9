package clrs

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Float buffers of 512 bytes and more are recycled through pools, one per
// power-of-two capacity. A recycled buffer keeps the values it held: its
// users write every value they read (recorder.slot) or clear it first.
// Sampling a split for writing (SplitFile) records 2 GB of dense hints
// for the CLRS-30 train split, each sample's kept only until it is turned
// into deltas: taking them from the pool keeps them in the cache of the
// core that records them, instead of fresh memory (a page fault, and the
// kernel clearing the page, every 4 KiB).
const (
	minPoolShift = 6 // 64 float64s: smaller buffers are left to the allocator
	maxPoolShift = 30
)

var floatPools [maxPoolShift + 1]sync.Pool

// recycling counts the SplitFiles being sampled: while there are any,
// recorders take their buffers from the pools (see recorder.slot).
var recycling atomic.Int32

// pooledFloats returns a buffer of n float64s whose values are
// unspecified (zeros when new, old values when recycled). Buffers of at
// least 1<<minPoolShift values have a power-of-two capacity and may come
// from a pool.
func pooledFloats(n int) []float64 {
	if n < 1<<minPoolShift {
		return make([]float64, n)
	}
	k := bits.Len(uint(n - 1))
	if k > maxPoolShift {
		return make([]float64, n)
	}
	if p, ok := floatPools[k].Get().(*float64); ok {
		return unsafe.Slice(p, 1<<k)[:n]
	}
	return make([]float64, n, 1<<k)
}

// recycleFloats hands buf back to its pool; nothing may use it afterwards.
// Buffers that pooledFloats did not make are left to the garbage
// collector.
func recycleFloats(buf []float64) {
	c := cap(buf)
	if c < 1<<minPoolShift || c&(c-1) != 0 || c > 1<<maxPoolShift {
		return
	}
	// The pool holds the first element's address (a pointer, which an
	// interface holds without allocating); the capacity is the pool's.
	floatPools[bits.Len(uint(c-1))].Put(unsafe.SliceData(buf[:1]))
}
