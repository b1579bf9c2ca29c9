package clrs

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestGeometryBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	four := []float64{0, 1, 2, 3}
	cases := []struct {
		algo   string
		xs, ys []float64
		want   string
	}{
		{"segments_intersect", []float64{0, 1, 2}, []float64{0, 1, 2}, "want exactly 4"},
		{"segments_intersect", []float64{0, 1, 2, 3, 4}, []float64{0, 1, 2, 3, 4}, "want exactly 4"},
		{"segments_intersect", four, []float64{0, 1, 2}, "got 4 and 3 coordinates"},
		{"segments_intersect", []float64{0, nan, 2, 3}, four, "xs: element 1 is NaN"},
		{"segments_intersect", four, []float64{0, 1, 2, -inf}, "ys: element 3 is -Inf"},
		{"graham_scan", nil, nil, "no points"},
		{"graham_scan", []float64{0, 1, 2}, []float64{0, 1}, "different lengths (3 and 2)"},
		{"graham_scan", []float64{0, 1, inf}, []float64{0, 1, 2}, "xs: element 2 is +Inf"},
		{"graham_scan", []float64{0, 1, 2}, []float64{nan, 1, 2}, "ys: element 0 is NaN"},
		// Four points on a line through the lowest point: the reference's
		// scan pops the lowest point and never ends.
		{"graham_scan", []float64{0, 1, 2, 3}, []float64{0, 0, 0, 0}, "collinear with the lowest point"},
		{"graham_scan", []float64{0, 1, 2, 3, -1}, []float64{0, 1, 2, 3, 5}, "collinear with the lowest point"},
		{"jarvis_march", []float64{}, []float64{}, "no points"},
		{"jarvis_march", []float64{0}, []float64{0, 1}, "different lengths (1 and 2)"},
		{"jarvis_march", []float64{0, nan}, []float64{0, 1}, "xs: element 1 is NaN"},
	}
	typed := map[string]func(xs, ys []float64) (*Trajectory, error){
		"segments_intersect": SegmentsIntersect, "graham_scan": GrahamScan, "jarvis_march": JarvisMarch,
	}
	for _, c := range cases {
		t.Run(c.algo+"/"+c.want, func(t *testing.T) {
			if _, err := typed[c.algo](c.xs, c.ys); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("typed: got error %v; want one mentioning %q", err, c.want)
			}
			// Run rejects non-finite values while coercing, with its own
			// wording; it must reject them all the same.
			_, err := Run(c.algo, Args{c.xs, c.ys})
			if err == nil || !strings.Contains(err.Error(), c.algo) {
				t.Errorf("Run: got error %v; want one naming %s", err, c.algo)
			}
		})
	}
}

// exactCross returns (b-a) × (c-a) computed exactly.
func exactCross(ax, ay, bx, by, cx, cy float64) *big.Rat {
	r := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	sub := func(x, y float64) *big.Rat { return new(big.Rat).Sub(r(x), r(y)) }
	p := new(big.Rat).Mul(sub(bx, ax), sub(cy, ay))
	q := new(big.Rat).Mul(sub(by, ay), sub(cx, ax))
	return p.Sub(p, q)
}

// orientSign returns the sign of (b-a) × (c-a), exactly: a floating-point
// evaluation decides when it is safely away from zero (Shewchuk's orient2d
// error bound), exactCross otherwise.
func orientSign(ax, ay, bx, by, cx, cy float64) int {
	l := float64((bx - ax) * (cy - ay))
	r := float64((by - ay) * (cx - ax))
	det := l - r
	const eps = 1.0 / (1 << 53)
	bound := (3 + 16*eps) * eps * (math.Abs(l) + math.Abs(r))
	switch {
	case det > bound:
		return 1
	case -det > bound:
		return -1
	}
	return exactCross(ax, ay, bx, by, cx, cy).Sign()
}

// exactSegmentsIntersect decides, in exact rational arithmetic, whether the
// closed segments p0p1 and p2p3 share a point, by solving
// p0 + t(p1-p0) = p2 + u(p3-p2) for t, u in [0, 1], and comparing
// projections when the segments are parallel.
func exactSegmentsIntersect(xs, ys []float64) bool {
	r := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	type vec struct{ x, y *big.Rat }
	p := make([]vec, 4)
	for i := range p {
		p[i] = vec{r(xs[i]), r(ys[i])}
	}
	sub := func(a, b vec) vec { return vec{new(big.Rat).Sub(a.x, b.x), new(big.Rat).Sub(a.y, b.y)} }
	crs := func(a, b vec) *big.Rat {
		m := new(big.Rat).Mul(a.x, b.y)
		return m.Sub(m, new(big.Rat).Mul(a.y, b.x))
	}
	dot := func(a, b vec) *big.Rat {
		m := new(big.Rat).Mul(a.x, b.x)
		return m.Add(m, new(big.Rat).Mul(a.y, b.y))
	}
	zero, one := new(big.Rat), big.NewRat(1, 1)
	in01 := func(v *big.Rat) bool { return v.Cmp(zero) >= 0 && v.Cmp(one) <= 0 }
	d1, d2, w := sub(p[1], p[0]), sub(p[3], p[2]), sub(p[2], p[0])
	den := crs(d1, d2)
	if den.Sign() != 0 {
		t := new(big.Rat).Quo(crs(w, d2), den)
		u := new(big.Rat).Quo(crs(w, d1), den)
		return in01(t) && in01(u)
	}
	// Parallel or degenerate: they meet only if all four points lie on one
	// line, and then iff their projections on that line overlap.
	if crs(d1, sub(p[2], p[0])).Sign() != 0 || crs(d1, sub(p[3], p[0])).Sign() != 0 ||
		crs(d2, sub(p[0], p[2])).Sign() != 0 || crs(d2, sub(p[1], p[2])).Sign() != 0 {
		return false
	}
	dir := d1
	if d1.x.Sign() == 0 && d1.y.Sign() == 0 {
		dir = d2
	}
	if dir.x.Sign() == 0 && dir.y.Sign() == 0 { // two single points
		return p[0].x.Cmp(p[2].x) == 0 && p[0].y.Cmp(p[2].y) == 0
	}
	proj := func(v vec) *big.Rat { return dot(v, dir) }
	lo1, hi1 := proj(p[0]), proj(p[1])
	if lo1.Cmp(hi1) > 0 {
		lo1, hi1 = hi1, lo1
	}
	lo2, hi2 := proj(p[2]), proj(p[3])
	if lo2.Cmp(hi2) > 0 {
		lo2, hi2 = hi2, lo2
	}
	return lo1.Cmp(hi2) <= 0 && lo2.Cmp(hi1) <= 0
}

// adversarialSegments draws endpoints on a grid of multiples of 1/8 in
// [-4, 4] (so every float operation of the algorithm is exact) arranged to
// make collinear, overlapping, touching, parallel and zero-length segments
// frequent.
func adversarialSegments(rng *rand.Rand) (xs, ys []float64) {
	g := func() float64 { return float64(rng.IntN(17)-8) / 2 }
	xs, ys = make([]float64, 4), make([]float64, 4)
	for i := range 4 {
		xs[i], ys[i] = g(), g()
	}
	dx, dy := float64(rng.IntN(5)-2)/4, float64(rng.IntN(5)-2)/4
	along := func(i int) { // put point i on the line through point 0 with direction (dx, dy)
		k := float64(rng.IntN(9) - 4)
		xs[i], ys[i] = xs[0]+k*dx, ys[0]+k*dy
	}
	switch rng.IntN(7) {
	case 0: // all four collinear
		for i := 1; i < 4; i++ {
			along(i)
		}
	case 1: // an endpoint of the second segment on the first's line
		along(1)
		along(2)
	case 2: // shared endpoint
		j := 2 + rng.IntN(2)
		xs[j], ys[j] = xs[rng.IntN(2)], ys[rng.IntN(2)]
	case 3: // the second segment's endpoint at the first's midpoint
		xs[2], ys[2] = (xs[0]+xs[1])/2, (ys[0]+ys[1])/2
	case 4: // parallel segments
		xs[1], ys[1] = xs[0]+2*dx, ys[0]+2*dy
		xs[3], ys[3] = xs[2]+3*dx, ys[2]+3*dy
	case 5: // a zero-length segment
		j := 2 * rng.IntN(2)
		xs[j+1], ys[j+1] = xs[j], ys[j]
	}
	return xs, ys
}

func TestSegmentsIntersectProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	counts := [2]int{}
	for trial := range 10000 {
		var xs, ys []float64
		exact := trial%2 == 0
		if exact {
			xs, ys = adversarialSegments(rng)
		} else {
			// Uniform reals over a range unlike the sampler's [0, 1).
			xs, ys = make([]float64, 4), make([]float64, 4)
			for i := range 4 {
				xs[i], ys[i] = 200*rng.Float64()-100, 200*rng.Float64()-100
			}
		}
		xc, yc := slices.Clone(xs), slices.Clone(ys)
		tr, err := SegmentsIntersect(xs, ys)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(xs, xc) || !slices.Equal(ys, yc) {
			t.Fatal("SegmentsIntersect modified its arguments")
		}
		if err := tr.Validate(); err != nil {
			t.Fatal(err)
		}
		out := tr.Output("intersect")
		if out.DType != Int64 || len(out.Shape) != 0 {
			t.Fatalf("intersect has dtype %v, shape %v; want int64 scalar", out.DType, out.Shape)
		}
		got := out.Data[0] == 1
		want := exactSegmentsIntersect(xs, ys)
		counts[b2i(want)]++
		// dir[k] is the orientation of endpoint k against the other segment.
		dir := tr.Hint("dir").Step(tr.Length - 1)
		others := [4][2]int{{2, 3}, {2, 3}, {0, 1}, {0, 1}}
		nearDegenerate := false
		for k, o := range others {
			// The reference's direction(i, j, k) is (p_k - p_i) × (p_j - p_i).
			e := exactCross(xs[o[0]], ys[o[0]], xs[k], ys[k], xs[o[1]], ys[o[1]])
			ef, _ := e.Float64()
			if exact && dir[k] != ef {
				t.Fatalf("%v %v: dir[%d] = %v; want exactly %v", xs, ys, k, dir[k], e)
			}
			if !exact && math.Abs(ef) < 1e-9 {
				nearDegenerate = true
			} else if !exact && math.Signbit(dir[k]) != (e.Sign() < 0) {
				t.Fatalf("%v %v: dir[%d] = %v has the wrong sign (exact %v)", xs, ys, k, dir[k], e)
			}
		}
		if got != want && !nearDegenerate {
			t.Fatalf("trial %d: SegmentsIntersect(%v, %v) = %v; exact answer %v", trial, xs, ys, got, want)
		}
		if tr.Length != 5 {
			t.Fatalf("%d steps; want 5", tr.Length)
		}
	}
	if counts[0] < 500 || counts[1] < 500 {
		t.Errorf("unbalanced test inputs: %d disjoint, %d intersecting", counts[0], counts[1])
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// monotoneChainHull is an independent convex hull (Andrew's monotone
// chain with exact orientation tests): the indices of the hull's corners,
// points on an edge between corners excluded. Points must be distinct.
func monotoneChainHull(xs, ys []float64) []int {
	n := len(xs)
	idx := arange(n)
	sort.Slice(idx, func(a, b int) bool {
		i, j := idx[a], idx[b]
		return xs[i] < xs[j] || (xs[i] == xs[j] && ys[i] < ys[j])
	})
	if n < 3 {
		return idx
	}
	turn := func(a, b, c int) int { return orientSign(xs[a], ys[a], xs[b], ys[b], xs[c], ys[c]) }
	var hull []int
	for pass := range 2 {
		start := len(hull)
		for k := range n {
			p := idx[k]
			if pass == 1 {
				p = idx[n-1-k]
			}
			for len(hull)-start >= 2 && turn(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
				hull = hull[:len(hull)-1]
			}
			hull = append(hull, p)
		}
		hull = hull[:len(hull)-1] // the last point starts the other chain
	}
	return hull
}

// randomPoints draws n distinct points from one of several distributions
// unlike the sampler's uniform disk: a square, a thin ellipse, a circle
// (every point extreme), clusters, far from the origin.
func randomPoints(rng *rand.Rand, n int) (xs, ys []float64) {
	xs, ys = make([]float64, n), make([]float64, n)
	kind := rng.IntN(5)
	for i := range n {
		switch kind {
		case 0:
			xs[i], ys[i] = rng.Float64()*10-5, rng.Float64()*10-5
		case 1:
			a := rng.Float64() * 2 * math.Pi
			r := math.Sqrt(rng.Float64())
			xs[i], ys[i] = 1000*r*math.Cos(a), 0.01*r*math.Sin(a)
		case 2:
			a := rng.Float64() * 2 * math.Pi
			xs[i], ys[i] = 3*math.Cos(a), 3*math.Sin(a)
		case 3:
			c := float64(rng.IntN(3))
			xs[i], ys[i] = 10*c+rng.NormFloat64(), c*c+rng.NormFloat64()
		case 4:
			xs[i], ys[i] = 1e6+rng.Float64(), -1e6+rng.Float64()
		}
	}
	return xs, ys
}

// hullMask returns the 0/1 mask of the given indices.
func hullMask(n int, idx []int) []float64 {
	m := make([]float64, n)
	for _, i := range idx {
		m[i] = 1
	}
	return m
}

func TestConvexHullProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 1000 {
		n := 1 + rng.IntN(40)
		xs, ys := randomPoints(rng, n)
		xc, yc := slices.Clone(xs), slices.Clone(ys)
		want := hullMask(n, monotoneChainHull(xs, ys))
		var masks [2][]float64
		for a, run := range []func(xs, ys []float64) (*Trajectory, error){GrahamScan, JarvisMarch} {
			tr, err := run(xs, ys)
			if err != nil {
				t.Fatalf("trial %d (n=%d): %v", trial, n, err)
			}
			if !slices.Equal(xs, xc) || !slices.Equal(ys, yc) {
				t.Fatal("a hull algorithm modified its arguments")
			}
			if err := tr.Validate(); err != nil {
				t.Fatal(err)
			}
			masks[a] = tr.Output("in_hull").Data
			if n == 1 {
				continue
			}
			if !slices.Equal(masks[a], want) {
				t.Fatalf("trial %d: %s in_hull %v; the monotone chain's corners are %v (points %v, %v)",
					trial, tr.Algorithm, masks[a], want, xs, ys)
			}
			checkConvexContainment(t, tr.Algorithm, xs, ys, masks[a])
			if tr.Algorithm == "graham_scan" {
				checkGrahamStack(t, tr, masks[a])
			}
		}
		if !slices.Equal(masks[0], masks[1]) {
			t.Fatalf("graham_scan and jarvis_march disagree: %v vs %v", masks[0], masks[1])
		}
	}
}

// checkConvexContainment orders the marked points around their centroid
// and checks they form a strictly convex polygon with every point inside
// or on it (exact orientation tests).
func checkConvexContainment(t *testing.T, algo string, xs, ys, mask []float64) {
	t.Helper()
	var v []int
	cx, cy := 0.0, 0.0
	for i, m := range mask {
		if m == 1 {
			v = append(v, i)
			cx += xs[i]
			cy += ys[i]
		}
	}
	h := len(v)
	if h < 3 {
		if len(xs) >= 3 {
			t.Fatalf("%s: only %d hull points for %d points in general position", algo, h, len(xs))
		}
		return
	}
	cx, cy = cx/float64(h), cy/float64(h)
	sort.Slice(v, func(a, b int) bool {
		return math.Atan2(ys[v[a]]-cy, xs[v[a]]-cx) < math.Atan2(ys[v[b]]-cy, xs[v[b]]-cx)
	})
	for e := range h {
		a, b := v[e], v[(e+1)%h]
		if orientSign(xs[a], ys[a], xs[b], ys[b], xs[v[(e+2)%h]], ys[v[(e+2)%h]]) <= 0 {
			t.Fatalf("%s: hull points %d, %d, %d do not turn left", algo, a, b, v[(e+2)%h])
		}
		for p := range xs {
			if p == a || p == b {
				continue
			}
			if orientSign(xs[a], ys[a], xs[b], ys[b], xs[p], ys[p]) < 0 {
				t.Fatalf("%s: point %d lies outside hull edge %d-%d", algo, p, a, b)
			}
		}
	}
}

// checkGrahamStack follows stack_prev down from the final top of the stack
// to the lowest point: the stack must hold exactly the hull points.
func checkGrahamStack(t *testing.T, tr *Trajectory, mask []float64) {
	t.Helper()
	last := tr.Length - 1
	top := oneHotIndex(tr.Hint("last_stack").Step(last))
	best := oneHotIndex(tr.Hint("best").Step(last))
	prev := tr.Hint("stack_prev").Step(last)
	onStack := make([]float64, len(mask))
	for p := top; ; p = int(prev[p]) {
		if onStack[p] == 1 {
			t.Fatalf("graham_scan: stack_prev loops at %d", p)
		}
		onStack[p] = 1
		if p == best {
			break
		}
	}
	if !slices.Equal(onStack, mask) {
		t.Fatalf("graham_scan: final stack %v; in_hull %v", onStack, mask)
	}
}

// TestHullReferenceVectors pins degenerate inputs (collinear points,
// duplicates) to what the reference computes on them (dump.py --args):
// the reference's hulls then keep some points on edges and some
// duplicates, and narlab must do the same.
func TestHullReferenceVectors(t *testing.T) {
	cases := []struct {
		algo   string
		xs, ys []float64
		out    []float64
		steps  int
	}{
		{"graham_scan", []float64{0, 1, 2, 1, 0, 2, 1}, []float64{0, 0, 0, 1, 2, 2, 2}, []float64{1, 1, 1, 0, 1, 1, 0}, 11},
		{"graham_scan", []float64{0, 2, 2, 0, 1, 1}, []float64{0, 0, 2, 2, 1, 1}, []float64{1, 1, 1, 1, 0, 0}, 10},
		{"jarvis_march", []float64{0, 1, 2, 1, 0, 2, 1}, []float64{0, 0, 0, 1, 2, 2, 2}, []float64{1, 0, 1, 0, 0, 1, 1}, 33},
		{"jarvis_march", []float64{0, 2, 2, 0, 1, 1, 0}, []float64{0, 0, 2, 2, 1, 1, 0}, []float64{1, 1, 1, 1, 0, 0, 1}, 41},
		{"jarvis_march", []float64{0, 1, 2, 3}, []float64{0, 0, 0, 0}, []float64{1, 0, 1, 1}, 16},
		// Two lowest points: the leftmost of them is `best`.
		{"graham_scan", []float64{2, 0, 1, 3}, []float64{0, 0, 2, 1}, []float64{1, 1, 1, 1}, 6},
		{"jarvis_march", []float64{2, 0, 1, 3}, []float64{0, 0, 2, 1}, []float64{1, 1, 1, 1}, 21},
		{"segments_intersect", []float64{0, 2, 1, 3}, []float64{0, 2, 1, 3}, []float64{1}, 5},
		{"segments_intersect", []float64{0, 1, 2, 3}, []float64{0, 1, 2, 3}, []float64{0}, 5},
		{"segments_intersect", []float64{0, 2, 2, 2}, []float64{0, 0, 0, 1}, []float64{1}, 5},
	}
	for _, c := range cases {
		tr, err := Run(c.algo, Args{c.xs, c.ys})
		if err != nil {
			t.Fatalf("%s(%v, %v): %v", c.algo, c.xs, c.ys, err)
		}
		out := tr.Outputs[0]
		if !slices.Equal(out.Data, c.out) || tr.Length != c.steps {
			t.Errorf("%s(%v, %v): %s %v in %d steps; want %v in %d", c.algo, c.xs, c.ys, out.Name, out.Data, tr.Length, c.out, c.steps)
		}
		if c.algo == "segments_intersect" {
			continue
		}
		// best: the lowest point, the leftmost among equally low ones.
		want := 0
		for i := range c.xs {
			if c.ys[i] < c.ys[want] || (c.ys[i] == c.ys[want] && c.xs[i] < c.xs[want]) {
				want = i
			}
		}
		if got := oneHotIndex(tr.Hint("best").Step(tr.Length - 1)); got != want {
			t.Errorf("%s(%v, %v): best %d; want %d", c.algo, c.xs, c.ys, got, want)
		}
	}
}
