package clrs

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// Float buffers of 8 KiB and more are recycled through pools of buffers
// that hold only zeros, one pool per power-of-two capacity. Generating a
// split allocates gigabytes of hint values that live only until their file
// is written; taking them from memory already mapped, instead of fresh
// pages from the kernel (a page fault, and the kernel clearing the page,
// for every 4 KiB), is what the pools are for.
const (
	minPoolShift = 6 // 64 float64s: smaller buffers are left to the allocator
	maxPoolShift = 30
)

var zeroPools [maxPoolShift + 1]sync.Pool

// recycling counts the SplitFiles being sampled: while there are any,
// recorders take their buffers from the pools (see recorder.slot).
var recycling atomic.Int32

// zeroFloats returns n zeros. Buffers of at least 1<<minPoolShift values
// have a power-of-two capacity, with zeros up to it, and may come from a
// pool.
func zeroFloats(n int) []float64 {
	if n < 1<<minPoolShift {
		return make([]float64, n)
	}
	k := bits.Len(uint(n - 1))
	if k > maxPoolShift {
		return make([]float64, n)
	}
	if p, ok := zeroPools[k].Get().(*[]float64); ok {
		return (*p)[:n]
	}
	return make([]float64, n, 1<<k)
}

// zeroBlock is zeroFloats for a buffer that will be read where it was
// never written (the padding of a hint block). A buffer new from the
// allocator may still be untouched memory, which the kernel maps to its
// shared page of zeros when read; writing it later, on its next use from
// the pool, would then fault and copy every such page, and flush the
// other cores' TLBs. Clearing it once now gives it pages of its own.
func zeroBlock(n int) []float64 {
	if n >= 1<<minPoolShift {
		if k := bits.Len(uint(n - 1)); k <= maxPoolShift {
			if p, ok := zeroPools[k].Get().(*[]float64); ok {
				return (*p)[:n]
			}
			buf := make([]float64, 1<<k)
			clear(buf)
			return buf[:n]
		}
	}
	return make([]float64, n)
}

// recycleFloats clears buf and hands it back to its pool. Values past
// len(buf), up to its capacity, must be zeros already, and nothing may use
// buf afterwards. Buffers that zeroFloats did not make are left to the
// garbage collector.
func recycleFloats(buf []float64) {
	clear(buf)
	recycleZeroFloats(buf)
}

// recycleZeroFloats is recycleFloats of a buffer known to hold only zeros.
func recycleZeroFloats(buf []float64) {
	c := cap(buf)
	if c < 1<<minPoolShift || c&(c-1) != 0 || c > 1<<maxPoolShift {
		return
	}
	buf = buf[:0]
	zeroPools[bits.Len(uint(c-1))].Put(&buf)
}
