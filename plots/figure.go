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
	// 3 inches per row). A figure narrower than MinWidth is scaled up to it,
	// keeping its aspect ratio, so it fills a notebook's output column.
	Width, Height vg.Length
	// Legend, when it has entries, is drawn once for the whole figure in a
	// column to the right of the panels, outside every panel's data.
	Legend *plot.Legend
}

// MinWidth is the narrowest figure drawn: 7.5 inches, 720 pixels at the
// 96 dots per inch of PNG.
const MinWidth = 7.5 * vg.Inch

// legendGap separates the panels from a figure legend.
const legendGap = 4 * vg.Millimeter

// NewLegend is a legend in the figures' style (10-point text), for
// Figure.Legend.
func NewLegend() *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(10)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = 0.3 * vg.Inch
	return &l
}

// hoistLegend moves the panels' legends into one figure legend (the
// panel whose legend is tallest gives the entries: the panels of a figure
// draw the same series) and empties theirs, so no legend covers data.
func (f *Figure) hoistLegend() {
	var best *plot.Legend
	var tallest vg.Length
	probe := draw.New(vgimg.New(vg.Inch, vg.Inch))
	for _, row := range f.Panels {
		for _, p := range row {
			if p == nil {
				continue
			}
			r := p.Legend.Rectangle(probe)
			if h := r.Max.Y - r.Min.Y; h > tallest {
				tallest = h
				l := p.Legend
				best = &l
			}
		}
	}
	if best == nil {
		return
	}
	leg := NewLegend()
	// The entries are private to plot.Legend: keep the tallest legend's
	// entries and restyle it.
	best.TextStyle = leg.TextStyle
	best.Top, best.Left, best.ThumbnailWidth = true, true, leg.ThumbnailWidth
	best.XOffs, best.YOffs = 0, 0
	best.Padding = vg.Millimeter
	f.Legend = best
	for _, row := range f.Panels {
		for _, p := range row {
			if p != nil {
				sty := p.Legend.TextStyle
				p.Legend = plot.NewLegend()
				p.Legend.TextStyle = sty
			}
		}
	}
}

// legendWidth is the width of the figure legend's column (0 without one).
func (f *Figure) legendWidth() vg.Length {
	if f.Legend == nil {
		return 0
	}
	r := f.Legend.Rectangle(draw.New(vgimg.New(vg.Inch, vg.Inch)))
	if w := r.Max.X - r.Min.X; w > 0 {
		return w + 2*legendGap
	}
	return 0
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
	w += f.legendWidth()
	if w < MinWidth {
		h = h * MinWidth / w
		w = MinWidth
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
	if lw := f.legendWidth(); lw > 0 {
		strip := c
		strip.Min.X = c.Max.X - lw + legendGap
		strip.Max.Y -= vg.Millimeter * 6
		f.Legend.Draw(strip)
		c.Max.X -= lw
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
