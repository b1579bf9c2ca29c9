package plots

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// NodeState is how a graph step colours one node; the zero value is an
// untouched node.
type NodeState int

// Node states of a graph search: untouched (white in CLRS's DFS), reached
// or discovered (grey), finished (black).
const (
	Untouched NodeState = iota
	Reached
	Finished
)

// Colours of the node states.
var (
	UntouchedFill = color.RGBA{R: 0xf2, G: 0xf2, B: 0xf2, A: 0xff}
	ReachedFill   = color.RGBA{R: 0x6b, G: 0xae, B: 0xd6, A: 0xff}
	FinishedFill  = color.RGBA{R: 0x08, G: 0x45, B: 0x94, A: 0xff}
	EdgeGrey      = color.Gray{Y: 0xa0}
	SourceRing    = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
)

// GraphStep is one time step of a graph algorithm's hints: each node's
// state and its tree pointer (its parent; -1 or itself for none).
type GraphStep struct {
	Title   string
	States  []NodeState
	Parents []int
}

// GraphOptions names what a GraphSteps figure shows (the legend's words).
type GraphOptions struct {
	// Source is the start node (ringed), or -1.
	Source int
	// Reached and Finished name the node states in the legend ("reached";
	// Finished may be empty when the algorithm has no such state).
	Reached, Finished string
	// Pointer names the tree pointers ("pi_h: BFS-tree parent").
	Pointer string
	// Cols is the number of steps per row (default 4).
	Cols int
}

// GraphSteps draws a graph algorithm's steps, one panel per step: the
// nodes on a circle, the undirected edges of adj in grey, each node filled
// by its state, the tree pointers as green arrows from a node to its
// parent, and the source ringed in red; one legend for the figure.
func GraphSteps(adj [][]bool, steps []GraphStep, o GraphOptions) (*Figure, error) {
	n := len(adj)
	if n == 0 || len(steps) == 0 {
		return nil, fmt.Errorf("plots: GraphSteps needs nodes and steps")
	}
	for i, r := range adj {
		if len(r) != n {
			return nil, fmt.Errorf("plots: adjacency row %d has %d entries for %d nodes", i, len(r), n)
		}
	}
	if o.Cols <= 0 {
		o.Cols = 4
	}
	cols := min(o.Cols, len(steps))
	rows := (len(steps) + cols - 1) / cols
	pos := make(plotter.XYs, n)
	for i := range pos {
		a := math.Pi/2 - 2*math.Pi*float64(i)/float64(n)
		pos[i] = plotter.XY{X: math.Cos(a), Y: math.Sin(a)}
	}
	fig := &Figure{Panels: make([][]*plot.Plot, rows),
		Width: vg.Length(cols) * 2.4 * vg.Inch, Height: vg.Length(rows) * 2.5 * vg.Inch}
	leg := NewLegend()
	leg.Padding = vg.Millimeter
	for si, st := range steps {
		if len(st.States) != n || len(st.Parents) != n {
			return nil, fmt.Errorf("plots: step %d has %d states and %d parents for %d nodes", si, len(st.States), len(st.Parents), n)
		}
		p := plot.New()
		p.Title.Text = st.Title
		p.Title.TextStyle.Font.Size = vg.Points(10)
		p.HideAxes()
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -1.3, 1.3, -1.3, 1.3
		for i := range n {
			for j := i + 1; j < n; j++ {
				if !adj[i][j] && !adj[j][i] {
					continue
				}
				l, err := plotter.NewLine(plotter.XYs{pos[i], pos[j]})
				if err != nil {
					return nil, err
				}
				l.Color, l.Width = EdgeGrey, vg.Points(1)
				p.Add(l)
			}
		}
		for i, par := range st.Parents {
			if par < 0 || par == i {
				continue
			}
			if par >= n {
				return nil, fmt.Errorf("plots: step %d: node %d's parent %d is outside [0, %d)", si, i, par, n)
			}
			for _, seg := range arrowSegments(pos[i], pos[par], 0.17) {
				l, err := plotter.NewLine(seg)
				if err != nil {
					return nil, err
				}
				l.Color, l.Width = PointerGreen, vg.Points(2)
				p.Add(l)
			}
		}
		for _, state := range []NodeState{Untouched, Reached, Finished} {
			var pts plotter.XYs
			for i, s := range st.States {
				if s == state {
					pts = append(pts, pos[i])
				}
			}
			if len(pts) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle.Shape = outlinedCircle{fill: stateFill(state)}
			sc.GlyphStyle.Radius = vg.Points(10)
			p.Add(sc)
		}
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: pos, Labels: nodeNames(n)})
		if err != nil {
			return nil, err
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].XAlign, labels.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
			labels.TextStyle[i].Font.Size = vg.Points(9)
			if st.States[i] == Finished {
				labels.TextStyle[i].Color = color.White
			}
		}
		p.Add(labels)
		if o.Source >= 0 && o.Source < n {
			ring, _ := plotter.NewScatter(plotter.XYs{pos[o.Source]})
			ring.GlyphStyle.Shape = draw.RingGlyph{}
			ring.GlyphStyle.Radius = vg.Points(13)
			ring.GlyphStyle.Color = SourceRing
			p.Add(ring)
		}
		if si == 0 {
			// The legend lists every state, drawn or not in the first step.
			leg.Add("untouched", legendDot(UntouchedFill))
			leg.Add(o.Reached, legendDot(ReachedFill))
			if o.Finished != "" {
				leg.Add(o.Finished, legendDot(FinishedFill))
			}
			if o.Source >= 0 {
				leg.Add("source", legendRing())
			}
			leg.Add("edge", legendLine(EdgeGrey, 1))
			leg.Add(o.Pointer, legendLine(PointerGreen, 2))
		}
		fig.Panels[si/cols] = append(fig.Panels[si/cols], p)
	}
	fig.Legend = leg
	return fig, nil
}

func nodeNames(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprint(i)
	}
	return s
}

func stateFill(s NodeState) color.Color {
	switch s {
	case Reached:
		return ReachedFill
	case Finished:
		return FinishedFill
	}
	return UntouchedFill
}

// arrowSegments is a straight arrow from a to b, stopped short of both
// node circles (gap in data units), with a two-stroke head at b.
func arrowSegments(a, b plotter.XY, gap float64) []plotter.XYs {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Hypot(dx, dy)
	if l <= 2*gap {
		return nil
	}
	ux, uy := dx/l, dy/l
	s := plotter.XY{X: a.X + ux*gap, Y: a.Y + uy*gap}
	e := plotter.XY{X: b.X - ux*gap, Y: b.Y - uy*gap}
	h := 0.12
	left := plotter.XY{X: e.X - ux*h - uy*h*0.6, Y: e.Y - uy*h + ux*h*0.6}
	right := plotter.XY{X: e.X - ux*h + uy*h*0.6, Y: e.Y - uy*h - ux*h*0.6}
	return []plotter.XYs{{s, e}, {left, e, right}}
}

// outlinedCircle is a filled circle with a dark outline.
type outlinedCircle struct{ fill color.Color }

// DrawGlyph implements draw.GlyphDrawer.
func (g outlinedCircle) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(g.fill)
	c.Fill(circlePath(pt, sty.Radius))
	c.SetColor(color.Gray{Y: 0x30})
	c.SetLineWidth(vg.Points(1))
	c.SetLineDash(nil, 0)
	c.Stroke(circlePath(pt, sty.Radius))
}

func circlePath(pt vg.Point, r vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Arc(pt, r, 0, 2*math.Pi)
	p.Close()
	return p
}

// Legend thumbnails.
type legendDot color.RGBA
type legendLineThumb struct {
	c color.Color
	w float64
}
type legendRingThumb struct{}

func legendLine(c color.Color, w float64) plot.Thumbnailer { return legendLineThumb{c, w} }
func legendRing() plot.Thumbnailer                         { return legendRingThumb{} }

// Thumbnail implements plot.Thumbnailer.
func (d legendDot) Thumbnail(c *draw.Canvas) {
	r := vg.Points(6)
	outlinedCircle{fill: color.RGBA(d)}.DrawGlyph(c, draw.GlyphStyle{Radius: r}, c.Center())
}

// Thumbnail implements plot.Thumbnailer.
func (l legendLineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(draw.LineStyle{Color: l.c, Width: vg.Points(l.w)}, c.Min.X, y, c.Max.X, y)
}

// Thumbnail implements plot.Thumbnailer.
func (legendRingThumb) Thumbnail(c *draw.Canvas) {
	c.SetColor(SourceRing)
	c.SetLineWidth(vg.Points(1.5))
	c.SetLineDash(nil, 0)
	c.Stroke(circlePath(c.Center(), vg.Points(7)))
}
