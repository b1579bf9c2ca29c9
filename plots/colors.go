package plots

import "image/color"

// The colours of series without their own.
var palette = []color.RGBA{
	{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
	{R: 0xe3, G: 0x77, B: 0xc2, A: 0xff},
	{R: 0x7f, G: 0x7f, B: 0x7f, A: 0xff},
	{R: 0xbc, G: 0xbd, B: 0x22, A: 0xff},
	{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff},
	{R: 0x39, G: 0x3b, B: 0x79, A: 0xff},
	{R: 0xad, G: 0x49, B: 0x4a, A: 0xff},
}

// seriesColor is the colour of series i: its own when it has one (c; the
// caller's, such as a processor's from lib/nn's registry), else the
// palette's i-th, so that a figure's colours depend only on its series.
func seriesColor(c color.Color, i int) color.Color {
	if c != nil {
		return c
	}
	return palette[i%len(palette)]
}
