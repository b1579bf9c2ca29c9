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

// Mark highlights one node of a ListStep (for example an iterator).
type Mark struct {
	Node  int
	Label string
	Color color.Color
}

// ListStep is one time step of an array algorithm's hints: a predecessor
// pointer per node (drawn as an arrow from the node to its predecessor; a
// node pointing to itself, the head of the list, gets a loop) and marked
// nodes.
type ListStep struct {
	Title    string
	Pointers []int
	Marks    []Mark
}

// Colours of the CLRS paper's Figure 2: green pointers, red and blue
// iterators.
var (
	PointerGreen = color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}
	MarkRed      = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	MarkBlue     = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
)

// ListSteps draws a hint sequence as the CLRS paper's Figure 2 draws
// insertion sort: one row per step, the nodes in index order labelled with
// their keys, predecessor pointers as green arrows and marked nodes ringed
// in their colour with the mark's label underneath.
func ListSteps(labels []string, steps []ListStep) (*Figure, error) {
	n := len(labels)
	if n == 0 || len(steps) == 0 {
		return nil, fmt.Errorf("plots: ListSteps needs nodes and steps")
	}
	fig := &Figure{Width: vg.Length(math.Max(6.5, 1.1*float64(n))) * vg.Inch, Height: vg.Length(len(steps)) * 1.7 * vg.Inch}
	leg := NewLegend()
	leg.Padding = vg.Millimeter
	leg.Add("pointer (to the predecessor)", legendLine(PointerGreen, 1.5))
	seen := map[string]bool{}
	for si, st := range steps {
		if len(st.Pointers) != n {
			return nil, fmt.Errorf("plots: step %d has %d pointers for %d nodes", si, len(st.Pointers), n)
		}
		p := plot.New()
		p.Title.Text = st.Title
		p.Title.TextStyle.Font.Size = vg.Points(9)
		p.HideAxes()
		p.X.Min, p.X.Max = -0.7, float64(n)-0.3
		p.Y.Min, p.Y.Max = -1.5, 1.5
		for i, ptr := range st.Pointers {
			if ptr < 0 || ptr >= n {
				return nil, fmt.Errorf("plots: step %d: node %d points to %d, outside [0, %d)", si, i, ptr, n)
			}
			var path plotter.XYs
			if ptr == i {
				for k := 0; k <= 20; k++ {
					a := 2 * math.Pi * float64(k) / 20
					path = append(path, plotter.XY{X: float64(i) + 0.18*math.Sin(a), Y: 0.42 + 0.18 - 0.18*math.Cos(a)})
				}
			} else {
				// Pointers to the left arc above the nodes, pointers to
				// the right below them, so arrows in and out of a node
				// do not overlap; longer pointers arc higher.
				x0, x1 := float64(i), float64(ptr)
				side := 1.0
				if x1 > x0 {
					side = -1
				}
				h := 0.15 + 0.16*math.Abs(x1-x0)
				for k := 0; k <= 24; k++ {
					t := float64(k) / 24
					path = append(path, plotter.XY{X: x0 + (x1-x0)*t, Y: side * (0.3 + 4*h*t*(1-t))})
				}
				// Arrow head at the predecessor end.
				end, prev := path[len(path)-1], path[len(path)-3]
				dx, dy := end.X-prev.X, end.Y-prev.Y
				l := math.Hypot(dx, dy)
				dx, dy = dx/l*0.16, dy/l*0.16
				for _, s := range []float64{1, -1} {
					head, _ := plotter.NewLine(plotter.XYs{end, {X: end.X - dx - s*dy*0.6, Y: end.Y - dy + s*dx*0.6}})
					head.Color, head.Width = PointerGreen, vg.Points(1.2)
					p.Add(head)
				}
			}
			line, err := plotter.NewLine(path)
			if err != nil {
				return nil, err
			}
			line.Color, line.Width = PointerGreen, vg.Points(1.5)
			p.Add(line)
		}
		nodes := make(plotter.XYs, n)
		for i := range nodes {
			nodes[i] = plotter.XY{X: float64(i)}
		}
		sc, err := plotter.NewScatter(nodes)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = vg.Points(11)
		sc.GlyphStyle.Color = color.Gray{Y: 0x40}
		p.Add(sc)
		keyLabels := plotter.XYLabels{XYs: nodes, Labels: labels}
		kl, err := plotter.NewLabels(keyLabels)
		if err != nil {
			return nil, err
		}
		for i := range kl.TextStyle {
			kl.TextStyle[i].Color = color.White
			kl.TextStyle[i].XAlign, kl.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
			kl.TextStyle[i].Font.Size = vg.Points(9)
		}
		p.Add(kl)
		below := map[int]int{}
		for _, m := range st.Marks {
			if m.Node < 0 || m.Node >= n {
				return nil, fmt.Errorf("plots: step %d: mark %q on node %d, outside [0, %d)", si, m.Label, m.Node, n)
			}
			ring, _ := plotter.NewScatter(plotter.XYs{{X: float64(m.Node)}})
			ring.GlyphStyle.Shape = draw.RingGlyph{}
			ring.GlyphStyle.Radius = vg.Points(14 + 3*float64(below[m.Node]))
			ring.GlyphStyle.Color = m.Color
			p.Add(ring)
			// The mark's name beside its ring, upper left, clear of the arcs.
			ml, _ := plotter.NewLabels(plotter.XYLabels{
				XYs: plotter.XYs{{X: float64(m.Node) - 0.3, Y: 0.28 + 0.3*float64(below[m.Node])}}, Labels: []string{m.Label}})
			ml.TextStyle[0].Color = m.Color
			ml.TextStyle[0].XAlign, ml.TextStyle[0].YAlign = draw.XRight, draw.YCenter
			ml.TextStyle[0].Font.Size = vg.Points(10)
			p.Add(ml)
			below[m.Node]++
			if !seen[m.Label] {
				seen[m.Label] = true
				leg.Add(m.Label, markRing{m.Color})
			}
		}
		fig.Panels = append(fig.Panels, []*plot.Plot{p})
	}
	fig.Legend = leg
	return fig, nil
}

// markRing is a legend thumbnail: a ring in a mark's colour.
type markRing struct{ c color.Color }

// Thumbnail implements plot.Thumbnailer.
func (m markRing) Thumbnail(c *draw.Canvas) {
	c.SetColor(m.c)
	c.SetLineWidth(vg.Points(1.5))
	c.SetLineDash(nil, 0)
	c.Stroke(circlePath(c.Center(), vg.Points(6)))
}
