package dsr

import (
	"errors"
	"fmt"
	"slices"

	"github.com/narlab/narlab/lib/npsort"
)

// K-D tree construction: the splitting axis cycles 0, 1, …, k-1 with the
// depth; at each node the points are sorted on the axis and the point at
// index n/2 (the latter median for even n) becomes the node, the points
// before it the left subtree and those after it the right subtree (each in
// the sorted order). The answer is the pre-order list of points.
//
// Points with equal coordinates are ordered as numpy.argsort orders them
// (the reference's sort, not stable for more than 16 points) under the code
// reading, and keep their current order (a stable sort, the rule the notes
// and the prompts state) under the paper reading; see Options.KDTies.

func kdTreeTask(in *Input, o Options) (any, error) {
	if len(in.Points) == 0 {
		return nil, errors.New("input has no points")
	}
	k := len(in.Points[0])
	if k == 0 {
		return nil, errors.New("points have no coordinates")
	}
	for i, p := range in.Points {
		if len(p) != k {
			return nil, fmt.Errorf("point %d has %d coordinates, expected %d like the first", i, len(p), k)
		}
	}
	out := []any{}
	var build func(pts [][]int, depth int)
	build = func(pts [][]int, depth int) {
		if len(pts) == 0 {
			return
		}
		axis := depth % k
		var s [][]int
		if o.KDTies == PaperReading {
			s = slices.Clone(pts)
			slices.SortStableFunc(s, func(a, b []int) int { return a[axis] - b[axis] })
		} else {
			keys := make([]int, len(pts))
			for i, p := range pts {
				keys[i] = p[axis]
			}
			for _, i := range npsort.Argsort(keys) {
				s = append(s, pts[i])
			}
		}
		m := len(s) / 2
		out = append(out, intsValue(s[m]))
		build(s[:m], depth+1)
		build(s[m+1:], depth+1)
	}
	build(in.Points, 0)
	return out, nil
}
