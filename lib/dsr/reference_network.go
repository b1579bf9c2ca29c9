package dsr

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Record formats of the network structures' published files (see
// reference_records.go), and the shared input graphs of the BFS/DFS files.

var networkRefs = map[string]refTask{
	"graph/bfs":    {"graph", "bfs", &graphFormat},
	"graph/dfs":    {"graph", "dfs", &graphFormat},
	"dsu/compound": {"dsu", "compound", &dsuFormat},
}

var (
	unionRe  = regexp.MustCompile(`^union\((-?\d+), (-?\d+)\)$`)
	sourceRe = regexp.MustCompile(`^Graph (\d+): Source = (-?\d+)$`)
)

// graphFormat: "Graph i: Source = s", then the traversal "[…]"; graph i
// is read from graph_input_<level>.txt beside the folder.
var graphFormat = recordFormat{
	prepare: func(p *refParser) (err error) {
		p.graphs, err = p.graphInputs()
		return err
	},
	open: &lineRule{name: `"Graph i: Source = s"`, match: pattern(sourceRe), read: func(r *record, _ string, m []string, n int) error {
		gi, _ := strconv.Atoi(m[1])
		src, _ := strconv.Atoi(m[2])
		if gi >= len(r.p.graphs) {
			return r.p.errAt(n, "graph %d is not in the input file (it has %d)", gi, len(r.p.graphs))
		}
		r.in = r.p.graphs[gi]
		r.in.Source = intp(src)
		return nil
	}},
	fields: []lineRule{truthField("")},
}

// graphInputs reads graph/graph_input_<level>.txt: "Graph i", the node
// labels on one line, then one "u, v" line per edge.
func (p *refParser) graphInputs() ([]Input, error) {
	name := filepath.Join(p.root, "generation", "graph", "graph_input_"+p.level.FileSuffix()+".txt")
	lines, err := readLines(name)
	if err != nil {
		return nil, fmt.Errorf("reading the input graphs: %w", err)
	}
	var gs []Input
	expectNodes := false
	for n, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, "Graph ") {
			gs = append(gs, Input{Nodes: []int{}})
			expectNodes = true
			continue
		}
		if len(gs) == 0 {
			return nil, fmt.Errorf("%s:%d: line before any graph", filepath.Base(name), n+1)
		}
		g := &gs[len(gs)-1]
		if expectNodes {
			for _, f := range strings.Fields(l) {
				x, err := strconv.Atoi(f)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: bad node %q", filepath.Base(name), n+1, f)
				}
				g.Nodes = append(g.Nodes, x)
			}
			expectNodes = false
			continue
		}
		a, b, ok := strings.Cut(l, ",")
		x, err1 := strconv.Atoi(strings.TrimSpace(a))
		y, err2 := strconv.Atoi(strings.TrimSpace(b))
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: expected an edge \"u, v\", found %q", filepath.Base(name), n+1, l)
		}
		g.Edges = append(g.Edges, [2]int{x, y})
	}
	return gs, nil
}

// dsuFormat: the elements "[…]", "union(a, b)" lines, then the final
// parents "[…]".
var dsuFormat = recordFormat{
	open: &lineRule{name: "the elements", match: listLine, read: func(r *record, v string, _ []string, n int) error {
		return intsInto(func(in *Input) *[]int { return &in.Array })(r, v, n)
	}},
	body:  []lineRule{opInts(unionRe, "union")},
	close: truthRule("the final state", listLine),
}

// geomFormat: "Graph i", "Nodes: [[x, …], …]", "Threshold: t",
// "From: [x, …]", then "BFS: […]".
var geomFormat = recordFormat{
	open: header("Graph ", nil, nil),
	fields: []lineRule{
		keyed("Nodes:", func(r *record, v string, n int) error {
			raw, err := pyAt(r.p, n, v)
			if err != nil {
				return err
			}
			c, err := shapeFloatRows.Convert(raw, "nodes")
			if err != nil {
				return r.p.errAt(n, "%v", err)
			}
			for _, row := range c.([]any) {
				var xs []float64
				for _, x := range row.([]any) {
					xs = append(xs, x.(float64))
				}
				r.in.Coords = append(r.in.Coords, xs)
			}
			return nil
		}),
		keyed("Threshold:", func(r *record, v string, n int) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return r.p.errAt(n, "bad threshold %q", v)
			}
			r.in.Threshold = f
			return nil
		}),
		keyed("From:", func(r *record, v string, n int) error {
			raw, err := pyAt(r.p, n, v)
			if err != nil {
				return err
			}
			c, err := listOf(shapeFloat).Convert(raw, "from")
			if err != nil {
				return r.p.errAt(n, "%v", err)
			}
			for _, x := range c.([]any) {
				r.in.From = append(r.in.From, x.(float64))
			}
			return nil
		}),
		truthField("BFS:"),
	},
}
