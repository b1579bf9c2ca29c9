package wordflate

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"testing"
)

// inflate decodes with the standard library's inflater, an implementation
// independent of this encoder.
func inflate(t testing.TB, z []byte) []byte {
	t.Helper()
	r := flate.NewReader(bytes.NewReader(z))
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("inflate: %v", err)
	}
	return out
}

func compress(t testing.TB, data []byte, writeSize int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for p := data; len(p) > 0; {
		k := min(writeSize, len(p))
		if n, err := w.Write(p[:k]); err != nil || n != k {
			t.Fatalf("Write: %d, %v", n, err)
		}
		p = p[k:]
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func floats(vals ...float64) []byte {
	out := make([]byte, 0, 8*len(vals))
	for _, v := range vals {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	return out
}

// hintLike is a float64 array shaped like a padded CLRS hint: masks and
// pointers over steps, zero padding, a few real-valued entries.
func hintLike(rng *rand.Rand, n int) []byte {
	vals := make([]float64, 0, n)
	for len(vals) < n {
		switch rng.IntN(4) {
		case 0: // padding
			for range rng.IntN(3000) {
				vals = append(vals, 0)
			}
		case 1: // a mask row
			for range 16 {
				vals = append(vals, float64(rng.IntN(2)))
			}
		case 2: // pointers
			for range 16 {
				vals = append(vals, float64(rng.IntN(16)))
			}
		default: // scalars
			for range 16 {
				vals = append(vals, rng.Float64())
			}
		}
	}
	return floats(vals[:n]...)
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 3*chunkSize+13)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	// Bytes from 144 up have 9-bit codes: the most output one encode call
	// can produce, which the bit writer's buffer must hold. In
	// "9-bit literals after a short output" the first chunk's output stays
	// just under outFlush, so the next chunk of literals is coded into a
	// buffer that was not flushed.
	nineBit := make([]byte, 3*chunkSize+windowSize+13)
	for i := range nineBit {
		nineBit[i] = byte(144 + rng.IntN(112))
	}
	afterShort := append(append(bytes.Clone(nineBit[:50000]), make([]byte, windowSize+chunkSize+8-50000)...), nineBit...)
	long := hintLike(rng, 5*chunkSize/8)
	rows := bytes.Repeat(floats(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13), 5000)
	for _, tc := range []struct {
		name      string
		data      []byte
		writeSize int
	}{
		{"empty", nil, 1},
		{"one byte", []byte{7}, 1},
		{"seven bytes", []byte("abcdefg"), 3},
		{"one word", floats(1), 8},
		{"zeros", make([]byte, 1<<20), 1 << 20},
		{"zeros, odd length", make([]byte, 1<<20+5), 4093},
		{"repeated rows", rows, 1000},
		{"hint-like, several chunks", long, 65536},
		{"hint-like, byte writes", long[:40000], 1},
		{"hint-like, misaligned", append([]byte{1, 2, 3}, long[:300000]...), 7777},
		{"random bytes", random, 100000},
		{"9-bit literals only, one write", nineBit, len(nineBit)},
		{"9-bit literals after a short output", afterShort, len(afterShort)},
		{"a value repeated past the window", bytes.Repeat(append(floats(0.5), make([]byte, windowSize)...), 20), 50000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			z := compress(t, tc.data, tc.writeSize)
			if got := inflate(t, z); !bytes.Equal(got, tc.data) {
				t.Fatalf("round trip: got %d bytes, want %d (first difference at %d)", len(got), len(tc.data), firstDiff(got, tc.data))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRatio checks that the word matches do their job: padding and masks
// shrink by an order of magnitude, random bytes cost at most 1/8 more.
func TestRatio(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 1<<20)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	for _, tc := range []struct {
		name     string
		data     []byte
		maxRatio float64 // compressed / uncompressed
	}{
		{"zeros", make([]byte, 1<<22), 0.01},
		{"masks", bytes.Repeat(floats(0, 1, 0, 0, 1, 1, 0, 1), 1<<14), 0.1},
		{"random bytes", random, 1.13},
	} {
		z := compress(t, tc.data, 1<<16)
		if r := float64(len(z)) / float64(len(tc.data)); r > tc.maxRatio {
			t.Errorf("%s: compressed to %.3f of the input, want at most %.3f", tc.name, r, tc.maxRatio)
		}
	}
}

func TestWriteAfterClose(t *testing.T) {
	w := NewWriter(io.Discard)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte{1}); err != ErrClosed {
		t.Fatalf("Write after Close: %v, want ErrClosed", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrShortWrite }

func TestUnderlyingErrorIsReturned(t *testing.T) {
	w := NewWriter(failingWriter{})
	_, err := w.Write(make([]byte, 4*chunkSize))
	if err == nil {
		err = w.Close()
	}
	if err != io.ErrShortWrite {
		t.Fatalf("got %v, want the underlying writer's error", err)
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello hello hello hello"), uint16(3))
	f.Add(floats(0, 0, 0, 1, 1, 2, 0, 0, 1), uint16(8))
	f.Fuzz(func(t *testing.T, data []byte, ws uint16) {
		z := compress(t, data, int(ws)+1)
		if got := inflate(t, z); !bytes.Equal(got, data) {
			t.Fatalf("round trip differs at %d", firstDiff(got, data))
		}
	})
}

func BenchmarkHintLike(b *testing.B) {
	data := hintLike(rand.New(rand.NewPCG(5, 6)), 1<<21)
	b.Run("wordflate", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var n int
		for b.Loop() {
			var c countWriter
			w := NewWriter(&c)
			w.Write(data)
			w.Close()
			n = c.n
		}
		b.ReportMetric(float64(n)/float64(len(data)), "ratio")
	})
	b.Run("flate-bestspeed", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		var n int
		for b.Loop() {
			var c countWriter
			w, _ := flate.NewWriter(&c, flate.BestSpeed)
			w.Write(data)
			w.Close()
			n = c.n
		}
		b.ReportMetric(float64(n)/float64(len(data)), "ratio")
	})
}

type countWriter struct{ n int }

func (c *countWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// TestResetMatchesNew checks that a Writer reused with Reset after another
// stream writes exactly what a new Writer writes.
func TestResetMatchesNew(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	first, second := hintLike(rng, 3*chunkSize/8), hintLike(rng, chunkSize/4)
	var fresh, reused bytes.Buffer
	w := NewWriter(&fresh)
	w.Write(second)
	w.Close()
	w = NewWriter(io.Discard)
	w.Write(first)
	w.Close()
	w.Reset(&reused)
	w.Write(second)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh.Bytes(), reused.Bytes()) {
		t.Fatalf("after Reset: %d bytes, a new Writer: %d bytes", reused.Len(), fresh.Len())
	}
	if got := inflate(t, reused.Bytes()); !bytes.Equal(got, second) {
		t.Fatal("after Reset: round trip differs")
	}
}

// TestOffsetsPast4GiB starts a stream just below 4 GiB of stream offset,
// so the 32-bit positions in the hash tables wrap in the middle of it.
func TestOffsetsPast4GiB(t *testing.T) {
	data := hintLike(rand.New(rand.NewPCG(9, 10)), 3*chunkSize/8)
	var z bytes.Buffer
	w := NewWriter(&z)
	w.base = 1<<32 - 100_000
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := inflate(t, z.Bytes()); !bytes.Equal(got, data) {
		t.Fatalf("round trip differs at %d", firstDiff(got, data))
	}
}
