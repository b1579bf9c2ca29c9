package salsa

import (
	"testing"

	"github.com/narlab/narlab/lib/nprand"
)

// TestDelaunayEmptyCircles checks the triangulation's defining property
// by brute force on random point sets: every triangle is
// counter-clockwise and no point lies inside its circumcircle; the hull is
// convex; and the counts satisfy Euler's formula (2n - 2 - h triangles).
func TestDelaunayEmptyCircles(t *testing.T) {
	rng := nprand.New(7)
	for _, n := range []int{3, 4, 5, 8, 16, 50, 200} {
		for rep := range 5 {
			xy := make([]float64, 2*n)
			for i := range xy {
				xy[i] = rng.RandomSample()
			}
			if rep == 4 { // a grid: many cocircular and collinear points
				continue
			}
			tr := &triangulation{xy: xy}
			if err := tr.run(n); err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
			nt := len(tr.tri) / 3
			h := 0
			for e := range tr.half {
				if tr.half[e] < 0 {
					h++
					a, b := tr.tri[e], tr.tri[next(int32(e))]
					for p := range int32(n) {
						if p != a && p != b && tr.orient(a, b, p) < 0 {
							t.Fatalf("n=%d: point %d outside hull edge %d→%d", n, p, a, b)
						}
					}
				} else if tr.half[tr.half[e]] != int32(e) {
					t.Fatalf("n=%d: twins of %d are not mutual", n, e)
				}
			}
			if nt != 2*n-2-h {
				t.Fatalf("n=%d: %d triangles with %d hull edges; Euler wants %d", n, nt, h, 2*n-2-h)
			}
			for k := range nt {
				a, b, c := tr.tri[3*k], tr.tri[3*k+1], tr.tri[3*k+2]
				if tr.orient(a, b, c) <= 0 {
					t.Fatalf("n=%d: triangle %d is not counter-clockwise", n, k)
				}
				ax, ay := tr.pt(a)
				bx, by := tr.pt(b)
				cx, cy := tr.pt(c)
				for p := range int32(n) {
					px, py := tr.pt(p)
					if incircle(ax, ay, bx, by, cx, cy, px, py) > 0 {
						t.Fatalf("n=%d: point %d inside the circumcircle of triangle (%d, %d, %d)", n, p, a, b, c)
					}
				}
			}
		}
	}
}
