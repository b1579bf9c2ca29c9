package clrs

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteText writes a human-readable account of a trajectory: its inputs,
// every hint step on one line (one-hot probes shown as the index they
// select) and its outputs. It is meant for reading and teaching; use
// WriteReferenceJSON or WriteNPZ for data.
func WriteText(w io.Writer, t *Trajectory) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s: %d hint steps\n", t.Algorithm, t.Length)
	section := func(title string, list []DataPoint) {
		fmt.Fprintf(bw, "%s:\n", title)
		for _, d := range list {
			fmt.Fprintf(bw, "  %-10s %-28s %s\n", d.Name, d.Location.String()+"/"+d.Type.String(), formatValues(d.Probe, d.Shape, d.Data))
		}
	}
	section("inputs", t.Inputs)
	fmt.Fprintf(bw, "hints:\n")
	for s := 0; s < t.Length; s++ {
		parts := make([]string, len(t.Hints))
		for i, h := range t.Hints {
			parts[i] = h.Name + "=" + formatValues(h.Probe, h.Shape[1:], h.Step(s))
		}
		fmt.Fprintf(bw, "  %3d  %s\n", s, strings.Join(parts, "  "))
	}
	section("outputs", t.Outputs)
	return bw.Flush()
}

// formatValues renders one probe's values; mask_one (and one-hot
// categorical rows) as the selected index.
func formatValues(p Probe, shape []int, data []float64) string {
	if (p.Type == MaskOne || p.Type == Categorical) && len(shape) <= 1 {
		for i, v := range data {
			if v == 1 {
				return strconv.Itoa(i)
			}
		}
		return "-"
	}
	var b strings.Builder
	var rec func(dim, off int)
	rec = func(dim, off int) {
		if dim == len(shape) {
			b.WriteString(strconv.FormatFloat(data[off], 'g', 4, 64))
			return
		}
		stride := shapeSize(shape[dim+1:])
		b.WriteByte('[')
		for i := 0; i < shape[dim]; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			rec(dim+1, off+i*stride)
		}
		b.WriteByte(']')
	}
	rec(0, 0)
	return b.String()
}
