package clrs

import (
	"fmt"
	"math"
	"sync"
	"unsafe"
)

// hintDeltas holds the hints of a batch of samples as the values that
// change from one step to the next: in the CLRS-30 train split 4.5 % of
// hint values differ from the step before, so a split's hints take about
// a tenth of the memory of their dense arrays (1.6 GB of float64s).
// A sample's dense hints are turned into deltas by the goroutine that
// ran it, while they are still in its core's cache, and their buffers go
// back to the pool for the next sample (floatpool.go): the dense arrays
// never leave the cache. The writer rebuilds each hint step by step in
// one [B, …] block, the layout of the .npz array ([T, B, …]), and hands
// the block to the archive as it is.
type hintDeltas struct {
	samples [][]uint64 // each sample's stream of changes
	// The writer reads the streams hint after hint: next[b] is where
	// sample b's changes of hint nextHint start.
	next     []int
	nextHint int
}

// A sample's stream holds its hints one after the other, each as its
// steps in order, and each step as a header word, count | pos₀<<32, then
// the count new values (as float64 bits) and the positions pos₁… packed
// two to a word: the changes a step makes to the one before (to zeros
// for the first). One stream per sample, read front to back, keeps the
// writer's reads of 1,000 samples' changes to one cache line at a time
// each.

func newHintDeltas(B int) *hintDeltas {
	return &hintDeltas{samples: make([][]uint64, B), next: make([]int, B)}
}

// deltaScratch collects one sample's changes before they are copied into
// a stream of its exact size.
type deltaScratch struct {
	stream []uint64
	pos    []uint32
	vals   []uint64
}

var deltaScratches = sync.Pool{New: func() any { return new(deltaScratch) }}

// add records the hints of sample b as deltas, recycles their dense
// buffers and leaves the trajectory's hints without data (their shapes
// stay). Steps are compared bit for bit, so -0 and NaN payloads survive.
func (d *hintDeltas) add(b int, t *Trajectory) {
	L := t.Length
	sc := deltaScratches.Get().(*deltaScratch)
	sc.stream = sc.stream[:0]
	for i := range t.Hints {
		h := &t.Hints[i]
		per := shapeSize(h.Shape[1:])
		if len(h.Data) != L*per {
			panic("clrs: hint " + h.Name + " of " + t.Algorithm + " does not hold its steps")
		}
		for s := range L {
			sc.pos, sc.vals = sc.pos[:0], sc.vals[:0]
			row := h.Data[s*per : (s+1)*per]
			if s == 0 {
				sc.diff(row, nil)
			} else {
				sc.diff(row, h.Data[(s-1)*per:s*per])
			}
			sc.emit()
		}
		recycleFloats(h.Data)
		h.Data = nil
	}
	d.samples[b] = append([]uint64(nil), sc.stream...)
	deltaScratches.Put(sc)
}

// emit appends one step's changes to the stream.
func (sc *deltaScratch) emit() {
	n := len(sc.pos)
	if n == 0 {
		sc.stream = append(sc.stream, 0)
		return
	}
	sc.stream = append(sc.stream, uint64(n)|uint64(sc.pos[0])<<32)
	sc.stream = append(sc.stream, sc.vals...)
	for k := 1; k < n; k += 2 {
		w := uint64(sc.pos[k])
		if k+1 < n {
			w |= uint64(sc.pos[k+1]) << 32
		}
		sc.stream = append(sc.stream, w)
	}
}

// diff appends the values of row that differ, bit for bit, from prev
// (nil: from zeros). Most do not: four are compared at once.
func (sc *deltaScratch) diff(row, prev []float64) {
	n := len(row)
	r := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(row))), n)
	var q []uint64
	if prev != nil {
		q = unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(prev))), n)
	}
	j := 0
	for ; j+4 <= n; j += 4 {
		a := r[j : j+4 : j+4]
		var x uint64
		if q != nil {
			c := q[j : j+4 : j+4]
			x = (a[0] ^ c[0]) | (a[1] ^ c[1]) | (a[2] ^ c[2]) | (a[3] ^ c[3])
		} else {
			x = a[0] | a[1] | a[2] | a[3]
		}
		if x != 0 {
			sc.diffFrom(r, q, j, j+4)
		}
	}
	sc.diffFrom(r, q, j, n)
}

// diffFrom appends the differences of r from q (nil: zeros) in [lo, hi).
func (sc *deltaScratch) diffFrom(r, q []uint64, lo, hi int) {
	for j := lo; j < hi; j++ {
		var old uint64
		if q != nil {
			old = q[j]
		}
		if r[j] != old {
			sc.pos = append(sc.pos, uint32(j))
			sc.vals = append(sc.vals, r[j])
		}
	}
}

// putDeltas stages hint i of the batch, [T, B, per], from its deltas:
// one [B, per] block holds step s of every sample (zeros past a sample's
// length) and is staged as it is, then brought to step s+1. Hints are
// staged in order, each once.
func (st *stager) putDeltas(d *hintDeltas, i, T, per int, lengths []int) error {
	if i != d.nextHint {
		return fmt.Errorf("clrs: hint %d of a SplitFile staged after hint %d", i, d.nextHint-1)
	}
	d.nextHint++
	block := zeroFloats(len(d.samples) * per)
	defer recycleFloats(block)
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(block))), 8*len(block))
	for s := range T {
		for b, stream := range d.samples {
			L := lengths[b]
			row := block[b*per : (b+1)*per]
			if s >= L {
				if s == L {
					clear(row)
				}
				continue
			}
			c := d.next[b]
			head := stream[c]
			c++
			if n := int(uint32(head)); n > 0 {
				vals := stream[c : c+n]
				row[head>>32] = math.Float64frombits(vals[0])
				packed := stream[c+n : c+n+n/2]
				for k := 1; k < n; k++ {
					row[uint32(packed[(k-1)/2]>>(32*((k-1)&1)))] = math.Float64frombits(vals[k])
				}
				c += n + n/2
			}
			d.next[b] = c
		}
		if !st.rawFloat64() {
			if err := st.put(block); err != nil {
				return err
			}
			continue
		}
		if err := st.flush(); err != nil {
			return err
		}
		for rest := raw; len(rest) > 0; {
			piece := rest[:min(len(rest), 8*len(st.words))]
			if _, err := st.w.Write(piece); err != nil {
				return err
			}
			rest = rest[len(piece):]
		}
	}
	return nil
}
