package salsa

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"slices"
)

// DelaunayEdges returns the edges {u, v} (u < v, sorted) of the Delaunay
// triangulation of the points (xy[2i], xy[2i+1]), i = 0 … n-1.
//
// The triangulation is built by a sweep in (x, y) order: each point is
// joined to the hull edges it sees, then edges are flipped (Lawson) until
// every triangle's circumcircle is empty. Its predicates (orientation,
// in-circle) are exact: a floating-point filter with Shewchuk's error
// bounds, and rational arithmetic when the filter cannot decide. For
// points in general position (no four on a circle, no three on a line —
// what uniform random points are, with probability 1) the triangulation
// is unique, so the edges are those of any correct implementation,
// SciPy's (Qhull) included. Fewer than three points, repeated points, and
// inputs whose first three points in (x, y) order are collinear, or whose
// next point is collinear with the whole visible hull, are rejected.
func DelaunayEdges(xy []float64) ([][2]int, error) {
	if len(xy)%2 != 0 {
		return nil, fmt.Errorf("salsa: delaunay: %d coordinates; want an even number (x, y pairs)", len(xy))
	}
	n := len(xy) / 2
	if n < 3 {
		return nil, fmt.Errorf("salsa: delaunay: %d points; want at least 3", n)
	}
	for i, v := range xy {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("salsa: delaunay: coordinate %d of point %d is %v; want a finite number", i%2, i/2, v)
		}
	}
	t := &triangulation{xy: xy}
	if err := t.run(n); err != nil {
		return nil, err
	}
	var edges [][2]int
	for e, h := range t.half {
		if h < 0 || int32(e) < h {
			u, v := int(t.tri[e]), int(t.tri[next(int32(e))])
			edges = append(edges, [2]int{min(u, v), max(u, v)})
		}
	}
	slices.SortFunc(edges, func(a, b [2]int) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	return edges, nil
}

// triangulation is a triangle mesh in half-edge form: triangle t owns
// the half-edges 3t, 3t+1, 3t+2, in counter-clockwise order; tri[e] is the
// vertex half-edge e starts from (it ends where next(e) starts) and
// half[e] its twin in the neighbouring triangle, or -1 on the hull. The
// hull is a counter-clockwise cycle of vertices (hnext, hprev); hedge[v]
// is the hull half-edge from v to hnext[v].
type triangulation struct {
	xy                  []float64
	tri, half           []int32
	hnext, hprev, hedge []int32
	stack               []int32
}

func next(e int32) int32 {
	if e%3 == 2 {
		return e - 2
	}
	return e + 1
}

func prev(e int32) int32 {
	if e%3 == 0 {
		return e + 2
	}
	return e - 1
}

func (t *triangulation) pt(i int32) (float64, float64) { return t.xy[2*i], t.xy[2*i+1] }

// addTriangle appends the triangle (a, b, c), counter-clockwise, and
// returns its first half-edge (a→b).
func (t *triangulation) addTriangle(a, b, c int32) int32 {
	e := int32(len(t.tri))
	t.tri = append(t.tri, a, b, c)
	t.half = append(t.half, -1, -1, -1)
	return e
}

// link makes x and y twins; y = -1 makes x a hull half-edge.
func (t *triangulation) link(x, y int32) {
	t.half[x] = y
	if y >= 0 {
		t.half[y] = x
	} else {
		t.hedge[t.tri[x]] = x
	}
}

func (t *triangulation) orient(a, b, c int32) int {
	ax, ay := t.pt(a)
	bx, by := t.pt(b)
	cx, cy := t.pt(c)
	return orient2d(ax, ay, bx, by, cx, cy)
}

func (t *triangulation) run(n int) error {
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		xi, yi := t.pt(i)
		xj, yj := t.pt(j)
		return cmp.Or(cmp.Compare(xi, xj), cmp.Compare(yi, yj), cmp.Compare(i, j))
	})
	for k := 1; k < n; k++ {
		xi, yi := t.pt(order[k-1])
		xj, yj := t.pt(order[k])
		if xi == xj && yi == yj {
			return fmt.Errorf("salsa: delaunay: points %d and %d are the same point (%v, %v)", order[k-1], order[k], xi, yi)
		}
	}
	t.tri = make([]int32, 0, 6*n)
	t.half = make([]int32, 0, 6*n)
	t.hnext, t.hprev, t.hedge = make([]int32, n), make([]int32, n), make([]int32, n)
	a, b, c := order[0], order[1], order[2]
	switch t.orient(a, b, c) {
	case 0:
		return fmt.Errorf("salsa: delaunay: the first three points in (x, y) order (%d, %d, %d) are collinear", a, b, c)
	case -1:
		b, c = c, b
	}
	e := t.addTriangle(a, b, c)
	t.hnext[a], t.hnext[b], t.hnext[c] = b, c, a
	t.hprev[b], t.hprev[c], t.hprev[a] = a, b, c
	t.hedge[a], t.hedge[b], t.hedge[c] = e, e+1, e+2
	visible := func(v, p int32) bool { return t.orient(v, t.hnext[v], p) < 0 }
	for k := 3; k < n; k++ {
		p, q := order[k], order[k-1] // q, the last point added, is on the hull
		start, end := q, q
		for steps := 0; visible(t.hprev[start], p); steps++ {
			start = t.hprev[start]
			if steps > k {
				return fmt.Errorf("salsa: delaunay: point %d sees the whole hull", p)
			}
		}
		for steps := 0; visible(end, p); steps++ {
			end = t.hnext[end]
			if steps > k {
				return fmt.Errorf("salsa: delaunay: point %d sees the whole hull", p)
			}
		}
		if start == end {
			return fmt.Errorf("salsa: delaunay: point %d is collinear with the hull edges next to point %d", p, q)
		}
		first, lastF2 := int32(-1), int32(-1)
		var opposite []int32
		for v := start; v != end; {
			w := t.hnext[v]
			he := t.hedge[v]
			f0 := t.addTriangle(w, v, p) // w→v, v→p, p→w
			t.link(f0, he)
			if lastF2 >= 0 {
				t.link(lastF2, f0+1)
			} else {
				first = f0 + 1
			}
			lastF2 = f0 + 2
			opposite = append(opposite, f0)
			v = w
		}
		t.hnext[start], t.hprev[p] = p, start
		t.hnext[p], t.hprev[end] = end, p
		t.link(first, -1)
		t.link(lastF2, -1)
		for _, f0 := range opposite {
			t.legalize(f0)
		}
	}
	return nil
}

// legalize flips edges, starting with e, until the triangles around the
// newly added point (the vertex opposite e in e's triangle) are Delaunay.
func (t *triangulation) legalize(e0 int32) {
	t.stack = append(t.stack[:0], e0)
	for len(t.stack) > 0 {
		e := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		f := t.half[e]
		if f < 0 {
			continue
		}
		e1, e2 := next(e), prev(e)
		f1, f2 := next(f), prev(f)
		a, b, c, d := t.tri[e], t.tri[e1], t.tri[e2], t.tri[f2]
		ax, ay := t.pt(a)
		bx, by := t.pt(b)
		cx, cy := t.pt(c)
		dx, dy := t.pt(d)
		if incircle(ax, ay, bx, by, cx, cy, dx, dy) <= 0 {
			continue
		}
		// (a, b, c) and (b, a, d) become (c, a, d) and (d, b, c).
		te1, te2, tf1, tf2 := t.half[e1], t.half[e2], t.half[f1], t.half[f2]
		t.tri[e], t.tri[e1], t.tri[e2] = c, a, d
		t.tri[f], t.tri[f1], t.tri[f2] = d, b, c
		t.link(e, te2)
		t.link(e1, tf1)
		t.link(e2, f2)
		t.link(f, tf2)
		t.link(f1, te1)
		t.stack = append(t.stack, e1, f)
	}
}

// epsilon is half the distance from 1 to the next double (Shewchuk's ε).
const epsilon = 1.0 / (1 << 53)

var (
	ccwErrBoundA = (3.0 + 16.0*epsilon) * epsilon
	iccErrBoundA = (10.0 + 96.0*epsilon) * epsilon
)

// orient2d returns +1 when (a, b, c) turn counter-clockwise, -1 when
// clockwise, 0 when collinear, exactly (Shewchuk's filter, then rational
// arithmetic). The float64(…) conversions keep products rounded (no fused
// multiply-add), as the error bound assumes.
func orient2d(ax, ay, bx, by, cx, cy float64) int {
	detleft := float64((ax - cx) * (by - cy))
	detright := float64((ay - cy) * (bx - cx))
	det := detleft - detright
	var detsum float64
	switch {
	case detleft > 0:
		if detright <= 0 {
			return sign(det)
		}
		detsum = detleft + detright
	case detleft < 0:
		if detright >= 0 {
			return sign(det)
		}
		detsum = -detleft - detright
	default:
		return sign(det)
	}
	if bound := ccwErrBoundA * detsum; det >= bound || -det >= bound {
		return sign(det)
	}
	r := func(v float64) *big.Rat { return new(big.Rat).SetFloat64(v) }
	sub := func(x, y float64) *big.Rat { return new(big.Rat).Sub(r(x), r(y)) }
	mul := func(x, y *big.Rat) *big.Rat { return new(big.Rat).Mul(x, y) }
	exact := new(big.Rat).Sub(mul(sub(ax, cx), sub(by, cy)), mul(sub(ay, cy), sub(bx, cx)))
	return exact.Sign()
}

// incircle returns +1 when d lies inside the circle through a, b, c
// (counter-clockwise), -1 outside, 0 on it, exactly.
func incircle(ax, ay, bx, by, cx, cy, dx, dy float64) int {
	adx, bdx, cdx := ax-dx, bx-dx, cx-dx
	ady, bdy, cdy := ay-dy, by-dy, cy-dy
	bdxcdy, cdxbdy := float64(bdx*cdy), float64(cdx*bdy)
	alift := float64(adx*adx) + float64(ady*ady)
	cdxady, adxcdy := float64(cdx*ady), float64(adx*cdy)
	blift := float64(bdx*bdx) + float64(bdy*bdy)
	adxbdy, bdxady := float64(adx*bdy), float64(bdx*ady)
	clift := float64(cdx*cdx) + float64(cdy*cdy)
	det := float64(alift*(bdxcdy-cdxbdy)) + float64(blift*(cdxady-adxcdy)) + float64(clift*(adxbdy-bdxady))
	permanent := float64((math.Abs(bdxcdy)+math.Abs(cdxbdy))*alift) +
		float64((math.Abs(cdxady)+math.Abs(adxcdy))*blift) +
		float64((math.Abs(adxbdy)+math.Abs(bdxady))*clift)
	if bound := iccErrBoundA * permanent; det > bound || -det > bound {
		return sign(det)
	}
	return incircleExact(ax, ay, bx, by, cx, cy, dx, dy)
}

func incircleExact(ax, ay, bx, by, cx, cy, dx, dy float64) int {
	r := func(v float64) *big.Rat { return new(big.Rat).SetFloat64(v) }
	sub := func(x, y float64) *big.Rat { return new(big.Rat).Sub(r(x), r(y)) }
	mul := func(x, y *big.Rat) *big.Rat { return new(big.Rat).Mul(x, y) }
	add := func(x, y *big.Rat) *big.Rat { return new(big.Rat).Add(x, y) }
	adx, bdx, cdx := sub(ax, dx), sub(bx, dx), sub(cx, dx)
	ady, bdy, cdy := sub(ay, dy), sub(by, dy), sub(cy, dy)
	alift := add(mul(adx, adx), mul(ady, ady))
	blift := add(mul(bdx, bdx), mul(bdy, bdy))
	clift := add(mul(cdx, cdx), mul(cdy, cdy))
	t1 := mul(alift, new(big.Rat).Sub(mul(bdx, cdy), mul(cdx, bdy)))
	t2 := mul(blift, new(big.Rat).Sub(mul(cdx, ady), mul(adx, cdy)))
	t3 := mul(clift, new(big.Rat).Sub(mul(adx, bdy), mul(bdx, ady)))
	return add(add(t1, t2), t3).Sign()
}

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
