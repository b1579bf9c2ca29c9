package wordflate_test

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/narlab/narlab/internal/wordflate"
)

// A float64 mask array (mostly zeros, some ones) deflated, then read back
// with the standard library's inflater.
func Example() {
	var raw bytes.Buffer
	for i := range 4096 {
		v := 0.0
		if i%17 == 0 {
			v = 1
		}
		binary.Write(&raw, binary.LittleEndian, math.Float64bits(v))
	}
	var z bytes.Buffer
	w := wordflate.NewWriter(&z)
	w.Write(raw.Bytes())
	w.Close()
	size := z.Len()
	back, _ := io.ReadAll(flate.NewReader(&z))
	fmt.Println(raw.Len(), "bytes in; under a tenth out:", size < raw.Len()/10, "; round trip:", bytes.Equal(back, raw.Bytes()))
	// Output: 32768 bytes in; under a tenth out: true ; round trip: true
}
