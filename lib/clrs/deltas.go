package clrs

import (
	"fmt"
	"math"
	"math/bits"
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
//
// A sample's stream holds its hints one after the other, each as its
// steps in order, and each step as a header word (the number of changes,
// and in its high half the number of following steps that change
// nothing, which have no header of their own) followed, for every two
// changes, by a word holding both positions and the two new values
// (float64 bits): the changes a step makes to the one before (to zeros
// for the first). One stream per sample, read front to
// back, keeps the writer's reads of 1,000 samples' changes to one cache
// line at a time each. Streams are carved from large chunks that are
// reused once the batch is written.
type hintDeltas struct {
	samples [][]uint64 // each sample's stream of changes
	// The writer reads the streams hint after hint: next[b] is where
	// sample b's changes of hint nextHint start.
	next     []int
	skip     []int // steps left that sample b's last header says repeat the one before
	nextHint int

	mu     sync.Mutex
	chunks []*[]uint64 // where the streams are; the last one is being filled
}

// streamChunkWords is the size of the chunks streams are carved from
// (1 MiB).
const streamChunkWords = 1 << 17

var streamChunks = sync.Pool{New: func() any { c := make([]uint64, 0, streamChunkWords); return &c }}

func newHintDeltas(B int) *hintDeltas {
	return &hintDeltas{samples: make([][]uint64, B), next: make([]int, B), skip: make([]int, B)}
}

// store copies a stream into the chunks and returns the copy.
func (d *hintDeltas) store(stream []uint64) []uint64 {
	if len(stream) > streamChunkWords/4 {
		return append([]uint64(nil), stream...)
	}
	d.mu.Lock()
	var c *[]uint64
	if n := len(d.chunks); n > 0 && cap(*d.chunks[n-1])-len(*d.chunks[n-1]) >= len(stream) {
		c = d.chunks[n-1]
	} else {
		c = streamChunks.Get().(*[]uint64)
		*c = (*c)[:0]
		d.chunks = append(d.chunks, c)
	}
	start := len(*c)
	*c = append(*c, stream...)
	out := (*c)[start:len(*c):len(*c)]
	d.mu.Unlock()
	return out
}

// release hands the chunks back; the streams must not be used afterwards.
func (d *hintDeltas) release() {
	for _, c := range d.chunks {
		streamChunks.Put(c)
	}
	d.chunks, d.samples = nil, nil
}

// deltaScratch is where one sample's stream is built before store copies
// it at its exact size, and the mask of the words a hint's steps change.
type deltaScratch struct{ stream, mask []uint64 }

var deltaScratches = sync.Pool{New: func() any { return new(deltaScratch) }}

// add records the hints of sample b as deltas, recycles their dense
// buffers and leaves the trajectory's hints without data (their shapes
// stay). Steps are compared bit for bit, so -0 and NaN payloads survive.
func (d *hintDeltas) add(b int, t *Trajectory) {
	L := t.Length
	sc := deltaScratches.Get().(*deltaScratch)
	stream := sc.stream[:0]
	for i := range t.Hints {
		h := &t.Hints[i]
		per := shapeSize(h.Shape[1:])
		if len(h.Data) != L*per {
			panic("clrs: hint " + h.Name + " of " + t.Algorithm + " does not hold its steps")
		}
		data := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(h.Data))), len(h.Data))
		last := len(stream) // this hint's last header: the first step always has one
		stream = appendFirstStep(stream, data[:per])
		// Every later step against the one before, in one pass: bit k of
		// the mask is set when word per+k differs from word k.
		m := (L - 1) * per
		if words := (m + 63) / 64; cap(sc.mask) < words {
			sc.mask = make([]uint64, words)
		}
		mask := sc.mask
		diffMask(data[per:], data[:m], mask)
		for s := 1; s < L; s++ {
			lo, hi := (s-1)*per, s*per
			k := nextBit(mask, lo, hi)
			if k == hi {
				// Nothing changed: one more step the last header skips.
				stream[last] += 1 << 32
				continue
			}
			last = len(stream)
			stream = append(stream, 0)
			row := data[s*per : (s+1)*per]
			count := 0
			for ; k < hi; k = nextBit(mask, k+1, hi) {
				stream = appendChange(stream, count, k-lo, row[k-lo])
				count++
			}
			stream[last] = uint64(count)
		}
		recycleFloats(h.Data)
		h.Data = nil
	}
	sc.stream = stream
	d.samples[b] = d.store(stream)
	deltaScratches.Put(sc)
}

// diffMaskGo is diffMask in Go, for the words from index from on.
func diffMaskGo(a, b, mask []uint64, from int) {
	b = b[:len(a)]
	for k := from; k < len(a); k++ {
		bit := uint64(1) << (k & 63)
		if a[k] != b[k] {
			mask[k>>6] |= bit
		} else {
			mask[k>>6] &^= bit
		}
	}
}

// nextBit returns the first set bit of mask in [from, to), or to.
func nextBit(mask []uint64, from, to int) int {
	for from < to {
		if w := mask[from>>6] >> (from & 63); w != 0 {
			return min(from+bits.TrailingZeros64(w), to)
		}
		from = (from | 63) + 1
	}
	return to
}

// appendFirstStep appends a hint's first step to the stream: a header
// holding the number of values that are not zero, then those values two
// at a time, their positions packed in one word.
func appendFirstStep(stream, row []uint64) []uint64 {
	head := len(stream)
	stream = append(stream, 0)
	count := 0
	n := len(row)
	for j := 0; j < n; {
		if j+4 <= n && row[j]|row[j+1]|row[j+2]|row[j+3] == 0 {
			j += 4
			continue
		}
		for end := min(j+4, n); j < end; j++ {
			if row[j] != 0 {
				stream = appendChange(stream, count, j, row[j])
				count++
			}
		}
	}
	stream[head] = uint64(count)
	return stream
}

// appendChange appends the count-th change of a step (position j, new
// value v): an even one starts a pair of changes (a word of positions,
// then the values), an odd one completes it.
func appendChange(stream []uint64, count, j int, v uint64) []uint64 {
	if count&1 == 0 {
		return append(stream, uint64(j), v)
	}
	stream[len(stream)-2] |= uint64(j) << 32
	return append(stream, v)
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
	block := pooledFloats(len(d.samples) * per)
	defer recycleFloats(block)
	// Written once whole: memory new from the allocator that is read
	// before it is written maps the kernel's page of zeros, and writing it
	// later would copy the page and flush the other cores' TLBs.
	clear(block)
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
			if d.skip[b] > 0 {
				d.skip[b]--
				continue
			}
			c := d.next[b]
			n := int(uint32(stream[c]))
			d.skip[b] = int(stream[c] >> 32)
			c++
			// Pairs of changes: positions, then values.
			for ; n >= 2; n -= 2 {
				w := stream[c : c+3 : c+3]
				row[uint32(w[0])] = math.Float64frombits(w[1])
				row[w[0]>>32] = math.Float64frombits(w[2])
				c += 3
			}
			if n == 1 {
				row[uint32(stream[c])] = math.Float64frombits(stream[c+1])
				c += 2
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
