package plots

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Figure is a grid of plots with an optional overall title.
type Figure struct {
	Title string
	// Panels is the grid, row by row; nil cells are left empty.
	Panels [][]*plot.Plot
	// Width and Height of the whole figure (defaults: 4 inches per column,
	// 3 inches per row).
	Width, Height vg.Length
}

// single wraps one plot.
func single(p *plot.Plot, w, h vg.Length) *Figure {
	return &Figure{Panels: [][]*plot.Plot{{p}}, Width: w, Height: h}
}

func (f *Figure) size() (vg.Length, vg.Length) {
	rows := len(f.Panels)
	cols := 0
	for _, r := range f.Panels {
		cols = max(cols, len(r))
	}
	w, h := f.Width, f.Height
	if w == 0 {
		w = vg.Length(cols) * 4 * vg.Inch
	}
	if h == 0 {
		h = vg.Length(rows)*3*vg.Inch + f.titleHeight()
	}
	return w, h
}

func (f *Figure) titleHeight() vg.Length {
	if f.Title == "" {
		return 0
	}
	return 0.4 * vg.Inch
}

// draw lays the panels out on a canvas.
func (f *Figure) draw(c draw.Canvas) error {
	rows := len(f.Panels)
	if rows == 0 {
		return fmt.Errorf("plots: figure has no panels")
	}
	cols := 0
	for _, r := range f.Panels {
		cols = max(cols, len(r))
	}
	grid := make([][]*plot.Plot, rows)
	for i, r := range f.Panels {
		grid[i] = make([]*plot.Plot, cols)
		copy(grid[i], r)
	}
	if f.Title != "" {
		th := f.titleHeight()
		sty := plot.New().Title.TextStyle
		sty.Font.Size = vg.Points(14)
		sty.XAlign = draw.XCenter
		sty.YAlign = draw.YCenter
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y - th/2}, f.Title)
		c.Max.Y -= th
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 3, PadY: vg.Millimeter * 3,
		PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
	canvases := plot.Align(grid, tiles, c)
	for i := range grid {
		for j := range grid[i] {
			if grid[i][j] != nil {
				grid[i][j].Draw(canvases[i][j])
			}
		}
	}
	return nil
}

// PNG renders the figure at 96 dots per inch.
func (f *Figure) PNG() ([]byte, error) {
	w, h := f.size()
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96))
	if err := f.draw(draw.New(img)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: rendering PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// SVG renders the figure as an SVG document.
func (f *Figure) SVG() ([]byte, error) {
	w, h := f.size()
	c := vgsvg.New(w, h)
	if err := f.draw(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plots: rendering SVG: %w", err)
	}
	return buf.Bytes(), nil
}
