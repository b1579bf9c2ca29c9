package plots

import (
	"image/color"
	"strings"
)

// The CLRS paper's processor colours (Figures 3 and 4): MPNN red, PGN
// purple, Deep Sets blue, GAT orange, Memory Networks green.
var processorColors = map[string]color.RGBA{
	"mpnn":     {R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	"pgn":      {R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	"deepsets": {R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	"gat":      {R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	"memnet":   {R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
}

// Further colours for series without a fixed one.
var palette = []color.RGBA{
	{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
	{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	{R: 0xbc, G: 0xbd, B: 0x22, A: 0xff},
	{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
	{R: 0x39, G: 0x3b, B: 0x79, A: 0xff},
	{R: 0xad, G: 0x49, B: 0x4a, A: 0xff},
}

// ProcessorColor returns the paper's colour for a processor name
// ("MPNN", "mpnn", "Deep Sets", "memnet_masked", "triplet_gmpnn", …: the
// name is matched loosely) and ok = false when it has none.
func ProcessorColor(name string) (color.RGBA, bool) {
	key := strings.ToLower(strings.NewReplacer(" ", "", "-", "", "_", "").Replace(name))
	switch {
	case strings.HasPrefix(key, "memnet"), strings.HasPrefix(key, "memory"):
		key = "memnet"
	case key == "gatv2", key == "gatfull", key == "gatv2full":
		key = "gat"
	case key == "pgnmask":
		key = "pgn"
	}
	c, ok := processorColors[key]
	return c, ok
}

// seriesColor picks a colour for series i named label.
func seriesColor(label string, i int) color.RGBA {
	if c, ok := ProcessorColor(label); ok {
		return c
	}
	return palette[i%len(palette)]
}
