package clrs

import (
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
	samples []sampleDeltas
}

// sampleDeltas are the changes of one sample's hints, hint by hint and,
// within a hint, step by step. With H hints of L steps, idx[:H*L] are
// ends: the changes of hint i at step s are k in [ends[i*L+s-1],
// ends[i*L+s]) (from 0 for the first), each setting value idx[H*L+k] of
// the step to vals[k].
type sampleDeltas struct {
	idx  []uint32
	vals []float64
}

func newHintDeltas(B int) *hintDeltas { return &hintDeltas{samples: make([]sampleDeltas, B)} }

// deltaScratch collects one sample's changes before they are copied into
// allocations of their exact size.
type deltaScratch struct {
	ends, pos []uint32
	vals      []float64
}

var deltaScratches = sync.Pool{New: func() any { return new(deltaScratch) }}

// add records the hints of sample b as deltas, recycles their dense
// buffers and leaves the trajectory's hints without data (their shapes
// stay). Steps are compared bit for bit, so -0 and NaN payloads survive.
func (d *hintDeltas) add(b int, t *Trajectory) {
	L := t.Length
	sc := deltaScratches.Get().(*deltaScratch)
	sc.ends, sc.pos, sc.vals = sc.ends[:0], sc.pos[:0], sc.vals[:0]
	for i := range t.Hints {
		h := &t.Hints[i]
		per := shapeSize(h.Shape[1:])
		if len(h.Data) != L*per {
			panic("clrs: hint " + h.Name + " of " + t.Algorithm + " does not hold its steps")
		}
		for s := range L {
			row := h.Data[s*per : (s+1)*per]
			if s == 0 {
				sc.diff(row, nil)
			} else {
				sc.diff(row, h.Data[(s-1)*per:s*per])
			}
			sc.ends = append(sc.ends, uint32(len(sc.pos)))
		}
		recycleFloats(h.Data)
		h.Data = nil
	}
	idx := make([]uint32, len(sc.ends)+len(sc.pos))
	copy(idx, sc.ends)
	copy(idx[len(sc.ends):], sc.pos)
	d.samples[b] = sampleDeltas{idx: idx, vals: append([]float64(nil), sc.vals...)}
	deltaScratches.Put(sc)
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
			sc.vals = append(sc.vals, math.Float64frombits(r[j]))
		}
	}
}

// putDeltas stages hint i of the batch, [T, B, per], from its deltas:
// one [B, per] block holds step s of every sample (zeros past a sample's
// length) and is staged as it is, then brought to step s+1.
func (st *stager) putDeltas(d *hintDeltas, i, T, per int, lengths []int) error {
	B := len(d.samples)
	block := zeroFloats(B * per)
	defer recycleFloats(block)
	next := make([]int, B) // each sample's next change of hint i
	for b := range d.samples {
		if i > 0 {
			next[b] = int(d.samples[b].idx[i*lengths[b]-1])
		}
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(block))), 8*len(block))
	for s := range T {
		for b := range d.samples {
			L := lengths[b]
			row := block[b*per : (b+1)*per]
			if s == L {
				clear(row)
			}
			if s >= L {
				continue
			}
			sd := &d.samples[b]
			end := int(sd.idx[i*L+s])
			pos := sd.idx[len(sd.idx)-len(sd.vals):]
			for k := next[b]; k < end; k++ {
				row[pos[k]] = sd.vals[k]
			}
			next[b] = end
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
