package clrs

import (
	"fmt"

	"github.com/narlab/narlab/lib/clrs/internal/refmath"
	"github.com/narlab/narlab/lib/npsort"
)

// Computational geometry (CLRS chapter 33): segments_intersect,
// graham_scan and jarvis_march. Points are given as two coordinate arrays
// xs and ys; node i is the point (xs[i], ys[i]).
//
// Exactness: every cross product is evaluated as the reference does, each
// product rounded to float64 on its own before the subtraction (the
// explicit float64 conversions keep Go from fusing them into an FMA).

var pointsArgs = []argSpec{
	{"xs", argFloats, "the points' x coordinates"},
	{"ys", argFloats, "the points' y coordinates, as many as xs"},
}

var segmentsArgs = []argSpec{
	{"xs", argFloats, "x coordinates of the 4 endpoints: segment (0, 1), then segment (2, 3)"},
	{"ys", argFloats, "y coordinates of the 4 endpoints"},
}

func init() {
	register(&algorithmDef{name: "segments_intersect", args: segmentsArgs, sampler: segmentsSampler,
		run: func(a Args) (*Trajectory, error) { return SegmentsIntersect(a[0].([]float64), a[1].([]float64)) }})
	register(&algorithmDef{name: "graham_scan", args: pointsArgs, sampler: convexHullSampler,
		run: func(a Args) (*Trajectory, error) { return GrahamScan(a[0].([]float64), a[1].([]float64)) }})
	register(&algorithmDef{name: "jarvis_march", args: pointsArgs, sampler: convexHullSampler,
		run: func(a Args) (*Trajectory, error) { return JarvisMarch(a[0].([]float64), a[1].([]float64)) }})
}

// atan2 is the arc tangent of graham_scan's `atans` hint. The reference
// calls Python's math.atan2, i.e. glibc's atan2; Go's math.Atan2 agrees
// with it only to within an ulp, so refmath.Atan2, a bit-exact port of
// glibc's, is used instead.
func atan2(y, x float64) float64 { return refmath.Atan2(y, x) }

// checkPoints checks that xs and ys describe the same number of finite
// points, at least one.
func checkPoints(xs, ys []float64) error {
	if len(xs) != len(ys) {
		return fmt.Errorf("xs and ys have different lengths (%d and %d); want one x and one y per point", len(xs), len(ys))
	}
	if len(xs) == 0 {
		return fmt.Errorf("xs, ys: no points; want at least one")
	}
	if err := checkFinite(xs); err != nil {
		return fmt.Errorf("xs: %w", err)
	}
	if err := checkFinite(ys); err != nil {
		return fmt.Errorf("ys: %w", err)
	}
	return nil
}

// cross returns (bx-ax)*(cy-ay) - (by-ay)*(cx-ax): positive when a, b, c
// turn left (counter-clockwise), in the reference's operation order.
func cross(xs, ys []float64, a, b, c int) float64 {
	return float64((xs[b]-xs[a])*(ys[c]-ys[a])) - float64((ys[b]-ys[a])*(xs[c]-xs[a]))
}

// lowestPoint returns the point with the smallest y, the smallest x among
// those, and the first such index among exact duplicates.
func lowestPoint(xs, ys []float64) int {
	best := 0
	for i := range xs {
		if ys[i] < ys[best] || (ys[i] == ys[best] && xs[i] < xs[best]) {
			best = i
		}
	}
	return best
}

// geometryArgsCopy returns copies of the coordinates for the trajectory.
func geometryArgsCopy(xs, ys []float64) Args {
	return Args{append([]float64(nil), xs...), append([]float64(nil), ys...)}
}

// geometryRecorder starts a recording with the inputs pos, x and y.
func geometryRecorder(algo string, xs, ys []float64) *recorder {
	n := len(xs)
	r := newRecorder(algo, n)
	r.input("pos", positions(n))
	r.input("x", xs)
	r.input("y", ys)
	return r
}

// SegmentsIntersect decides whether the segment from point 0 to point 1
// crosses the segment from point 2 to point 3 (CLRS §33.1), touching and
// collinear overlapping segments included. xs and ys must hold exactly 4
// coordinates each.
//
// Hints: dir, the orientation (cross product) of each endpoint relative to
// the other segment, filled in one endpoint per step; on_seg, whether that
// endpoint lies within the other segment's bounding box; i, j, the other
// segment's endpoints and k, the endpoint just examined. The output
// `intersect` is 1 or 0 (integer-valued, as in the reference).
func SegmentsIntersect(xs, ys []float64) (*Trajectory, error) {
	if len(xs) != 4 || len(ys) != 4 {
		return nil, fmt.Errorf("xs, ys: got %d and %d coordinates; want exactly 4 each (segment 0-1, then segment 2-3)", len(xs), len(ys))
	}
	if err := checkPoints(xs, ys); err != nil {
		return nil, err
	}
	const n = 4
	r := geometryRecorder("segments_intersect", xs, ys)
	r.expectSteps(5)
	hI, hJ, hK, hDir, hOn := r.hint("i"), r.hint("j"), r.hint("k"), r.hint("dir"), r.hint("on_seg")
	var dir, onSeg [n]float64
	push := func(i, j, k int) {
		r.step()
		r.pushOneHot(hI, i, n)
		r.pushOneHot(hJ, j, n)
		r.pushOneHot(hK, k, n)
		r.pushVals(hDir, dir[:])
		r.pushVals(hOn, onSeg[:])
	}
	push(0, 0, 0)
	// Endpoints 0 and 1 against segment (2, 3), then 2 and 3 against (0, 1).
	for _, e := range [n][3]int{{2, 3, 0}, {2, 3, 1}, {0, 1, 2}, {0, 1, 3}} {
		i, j, k := e[0], e[1], e[2]
		// The reference's direction(i, j, k): (p_k - p_i) × (p_j - p_i).
		dir[k] = float64((xs[k]-xs[i])*(ys[j]-ys[i])) - float64((xs[j]-xs[i])*(ys[k]-ys[i]))
		onSeg[k] = 0
		if min(xs[i], xs[j]) <= xs[k] && xs[k] <= max(xs[i], xs[j]) &&
			min(ys[i], ys[j]) <= ys[k] && ys[k] <= max(ys[i], ys[j]) {
			onSeg[k] = 1
		}
		push(i, j, k)
	}
	straddles := func(a, b float64) bool { return (a > 0 && b < 0) || (a < 0 && b > 0) }
	result := 0.0
	if straddles(dir[0], dir[1]) && straddles(dir[2], dir[3]) {
		result = 1
	} else {
		for k := range n {
			if dir[k] == 0 && onSeg[k] == 1 {
				result = 1
				break
			}
		}
	}
	r.outputScalar("intersect", result, Int64)
	return r.finish(geometryArgsCopy(xs, ys)), nil
}

// GrahamScan computes the convex hull of the points with Graham's scan
// (CLRS §33.3): it picks the lowest point (smallest y, then smallest x),
// sorts the others by polar angle around it and sweeps them with a stack,
// popping every point that does not make a strict left turn. The output
// in_hull marks the hull's vertices: for points in general position,
// exactly its corners (with collinear points or duplicates the reference's
// answer, reproduced here, may keep some points on edges).
//
// Hints: best, the lowest point; atans, the polar angles (0 until they are
// computed, and 0 for best); in_hull_h, the points on the stack; stack_prev,
// each stacked point's predecessor on the stack (others point to
// themselves); last_stack, the top of the stack; i, the point being
// processed; phase, one of 5 classes (0 start, 1 lowest point found, 2
// angles computed, 3 pop, 4 push).
//
// Ties in the angle order (points collinear with the lowest point, or
// duplicates) are broken exactly as numpy's default argsort (an unstable
// introsort; see npsort.Argsort). Inputs on which the reference's scan never
// ends — it pops the lowest point itself when a point is collinear with the
// lowest point and the first point of the angle order, as happens with
// three or more points on the first ray of that order — are rejected with
// an error; the reference sampler never draws them (it resamples collinear
// triples).
func GrahamScan(xs, ys []float64) (*Trajectory, error) {
	if err := checkPoints(xs, ys); err != nil {
		return nil, err
	}
	n := len(xs)
	r := geometryRecorder("graham_scan", xs, ys)
	r.expectSteps(2 * (n + 1))
	hBest, hAtans, hIn, hPrev := r.hint("best"), r.hint("atans"), r.hint("in_hull_h"), r.hint("stack_prev")
	hLast, hI, hPhase := r.hint("last_stack"), r.hint("i"), r.hint("phase")

	inHull := make([]float64, n)
	stackPrev := arange(n)
	atans := make([]float64, n)
	push := func(best, last, i, phase int) {
		r.step()
		r.pushOneHot(hBest, best, n)
		r.pushVals(hAtans, atans)
		r.pushVals(hIn, inHull)
		r.pushInts(hPrev, stackPrev)
		r.pushOneHot(hLast, last, n)
		r.pushOneHot(hI, i, n)
		r.pushOneHot(hPhase, phase, 5)
	}
	push(0, 0, 0, 0)

	best := lowestPoint(xs, ys)
	inHull[best] = 1
	last := best
	push(best, last, best, 1)

	// Sort by angle with best forced first (the reference gives it a key far
	// below -pi), then show its angle as 0.
	for i := range n {
		if i != best {
			atans[i] = atan2(ys[i]-ys[best], xs[i]-xs[best])
		}
	}
	atans[best] = -123456789
	order := npsort.Argsort(atans)
	atans[best] = 0
	push(best, last, best, 2)

	for t := 1; t < n; t++ {
		p := order[t]
		if t >= 3 {
			// Pop while the top two stacked points and p make no left turn.
			for cross(xs, ys, stackPrev[last], last, p) <= 0 {
				if last == best {
					return nil, fmt.Errorf("xs, ys: point %d (%v, %v) is collinear with the lowest point %d (%v, %v) and the first point of the angle order, so the scan would pop the lowest point and never end; want points with no three on a line through the lowest point",
						p, xs[p], ys[p], best, xs[best], ys[best])
				}
				popped := last
				last = stackPrev[popped]
				stackPrev[popped] = popped
				inHull[popped] = 0
				push(best, last, p, 3)
			}
		}
		inHull[p] = 1
		stackPrev[p] = last
		last = p
		push(best, last, p, 4)
	}
	r.output("in_hull", inHull)
	return r.finish(geometryArgsCopy(xs, ys)), nil
}

// JarvisMarch computes the convex hull of the points with Jarvis's march
// (gift wrapping, CLRS §33.3): starting from the lowest point (smallest y,
// then smallest x), it repeatedly scans every point for the next hull
// vertex — the one with no point strictly to its right — until it comes
// back to a vertex already on the hull. The output in_hull marks the hull's
// vertices.
//
// Hints: pred_h (constant, the reference's list order of the nodes);
// in_hull_h, the vertices found so far; best, the lowest point; last_point,
// the last vertex found; endpoint, the current candidate for the next one;
// i, the point just examined; phase, one of 2 classes (0 start, 1 march).
func JarvisMarch(xs, ys []float64) (*Trajectory, error) {
	if err := checkPoints(xs, ys); err != nil {
		return nil, err
	}
	n := len(xs)
	best := lowestPoint(xs, ys)

	// A first, unrecorded march counts the scans, so that the recorder
	// reserves the exact number of steps: two initial ones, one per point
	// scanned and one per vertex added.
	scans := 1
	seen := make([]bool, n)
	seen[best] = true
	for last := best; ; scans++ {
		end := jarvisScan(xs, ys, last, nil)
		if seen[end] {
			break
		}
		seen[end], last = true, end
	}

	r := geometryRecorder("jarvis_march", xs, ys)
	r.expectSteps(2 + scans*n + scans - 1)
	hPred, hIn, hBest := r.hint("pred_h"), r.hint("in_hull_h"), r.hint("best")
	hLast, hEnd, hI, hPhase := r.hint("last_point"), r.hint("endpoint"), r.hint("i"), r.hint("phase")

	pred := listPointers(arange(n))
	inHull := make([]float64, n)
	push := func(best, last, end, i, phase int) {
		r.step()
		r.pushInts(hPred, pred)
		r.pushVals(hIn, inHull)
		r.pushOneHot(hBest, best, n)
		r.pushOneHot(hLast, last, n)
		r.pushOneHot(hEnd, end, n)
		r.pushOneHot(hI, i, n)
		r.pushOneHot(hPhase, phase, 2)
	}
	push(0, 0, 0, 0, 0)

	inHull[best] = 1
	last := best
	push(best, last, 0, 0, 1)
	for {
		end := jarvisScan(xs, ys, last, func(end, i int) { push(best, last, end, i, 1) })
		if inHull[end] > 0 {
			break
		}
		inHull[end] = 1
		last = end
		push(best, last, 0, 0, 1)
	}
	r.output("in_hull", inHull)
	return r.finish(geometryArgsCopy(xs, ys)), nil
}

// jarvisScan is one scan of Jarvis's march from the hull vertex last: it
// starts with candidate 0 and examines every point i in index order; i
// replaces the candidate when the candidate is last itself, or when i lies
// to the right of (or on) the line from last to the candidate. It calls
// visit (when not nil) with the candidate after each point and returns the
// final candidate, the next hull vertex.
func jarvisScan(xs, ys []float64, last int, visit func(end, i int)) int {
	end := 0
	for i := range xs {
		if end == last || (i != last && i != end && cross(xs, ys, last, end, i) <= 0) {
			end = i
		}
		if visit != nil {
			visit(end, i)
		}
	}
	return end
}
