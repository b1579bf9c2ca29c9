package dsr

import (
	"fmt"
	"slices"
	"strings"
)

// Worked-example traces of the atomic tasks (the compound tasks record the
// state after each operation): the steps a one-shot CoT example shows.

func init() {
	for name, f := range map[string]func(in *Input, o Options) []traceStep{
		"array/access":          traceArray("access"),
		"array/delete":          traceArray("delete"),
		"array/insert":          traceArray("insert"),
		"array/reverse":         traceArray("reverse"),
		"array/search":          traceArray("search"),
		"heap/heapify":          traceHeapify,
		"graph/bfs":             traceGraph("bfs"),
		"graph/dfs":             traceGraph("dfs"),
		"graph/realistic":       tracePlanets,
		"suffix_tree/construct": traceSuffix,
		"kd_tree/construct":     traceKDTree,
		"geom_graph/construct":  traceGeom,
		"bst/preorder":          traceTraversal("pre"),
		"bst/inorder":           traceTraversal("in"),
		"bst/postorder":         traceTraversal("post"),
	} {
		tasks[name].trace = f
	}
}

func traceArray(op string) func(in *Input, o Options) []traceStep {
	return func(in *Input, o Options) []traceStep {
		t := tasks["array/"+op]
		v, err := t.truth(in, o)
		if err != nil {
			return nil
		}
		var s string
		switch op {
		case "access":
			s = fmt.Sprintf("counting positions from 0, index %d holds %v", derefOr(in.Index), v)
		case "delete":
			s = fmt.Sprintf("the first %d is at index %d; removing it shifts the rest left", derefOr(in.Value), slices.Index(in.Array, derefOr(in.Value)))
		case "insert":
			s = fmt.Sprintf("%d goes to index %d and the elements from there on shift right", derefOr(in.Value), derefOr(in.Index))
		case "reverse":
			s = "reading the array from its last element to its first"
		case "search":
			s = fmt.Sprintf("scanning from index 0, the first %d is found at index %v", derefOr(in.Value), v)
		}
		return []traceStep{{Action: s, State: t.Answer.Repr(v)}}
	}
}

func traceHeapify(in *Input, _ Options) []traceStep {
	h := &minHeap[int]{a: slices.Clone(in.Array), less: intLess}
	var steps []traceStep
	for i := len(h.a)/2 - 1; i >= 0; i-- {
		h.down(i)
		steps = append(steps, traceStep{Action: fmt.Sprintf("sifting down position %d", i), State: intsRepr(h.a)})
	}
	return steps
}

func visitSteps[T any](order []T, show func([]T) string) []traceStep {
	var steps []traceStep
	for i := range order {
		steps = append(steps, traceStep{Action: fmt.Sprintf("visiting %v", order[i]), State: show(order[:i+1])})
	}
	return steps
}

func traceGraph(kind string) func(in *Input, o Options) []traceStep {
	return func(in *Input, o Options) []traceStep {
		v, err := graphTraversal(kind)(in, o)
		if err != nil {
			return nil
		}
		order, _ := valueInts(v)
		return visitSteps(order, intsRepr)
	}
}

func tracePlanets(in *Input, o Options) []traceStep {
	v, err := planetDFS(in, o)
	if err != nil {
		return nil
	}
	var order []string
	for _, x := range v.([]any) {
		order = append(order, x.(string))
	}
	return visitSteps(order, func(xs []string) string { return shapeStrings.Repr(stringsValue(xs)) })
}

func traceSuffix(in *Input, o Options) []traceStep {
	w := strings.TrimSuffix(in.Word, "$") + "$"
	var sufs []string
	for i := range w {
		sufs = append(sufs, w[i:])
	}
	slices.Sort(sufs)
	v, err := suffixTree(in, o)
	if err != nil {
		return nil
	}
	return []traceStep{
		{Action: "sorting the suffixes", State: shapeStrings.Repr(stringsValue(sufs))},
		{Action: "merging their common prefixes into edges, in pre-order", State: shapeStrings.Repr(v)},
	}
}

func traceKDTree(in *Input, o Options) []traceStep {
	v, err := kdTreeTask(in, o)
	if err != nil {
		return nil
	}
	pre := v.([]any)
	k := len(in.Points[0])
	var steps []traceStep
	pos := 0
	var walk func(n, depth int)
	walk = func(n, depth int) {
		if n == 0 {
			return
		}
		p := pre[pos]
		pos++
		steps = append(steps, traceStep{
			Action: fmt.Sprintf("splitting %d points on coordinate %d", n, depth%k),
			State:  "median " + shapeInts.Repr(p),
		})
		walk(n/2, depth+1)
		walk(n-n/2-1, depth+1)
	}
	walk(len(in.Points), 0)
	return steps
}

func traceGeom(in *Input, o Options) []traceStep {
	v, err := geomGraph(in, o)
	if err != nil {
		return nil
	}
	rows := v.([]any)
	var steps []traceStep
	for i, p := range rows {
		steps = append(steps, traceStep{Action: "visiting " + listOf(shapeFloat).Repr(p), State: fmt.Sprintf("%d visited", i+1)})
	}
	return steps
}

func traceTraversal(order string) func(in *Input, o Options) []traceStep {
	return func(in *Input, o Options) []traceStep {
		root, err := bstGiven(in)
		if err != nil {
			return nil
		}
		return visitSteps(bstOrder(root, order), intsRepr)
	}
}
