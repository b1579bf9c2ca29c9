// Command paperfixtures writes the instances that scripts/paper_fixtures.sh
// feeds to the papers' own scorers: published DSR-Bench instances read by
// narlab from a checkout of the DSR-Bench repository, and synthetic Erdős
// task instances drawn by narlab's generator. Its output is the input of
// scripts/paperfixtures/peers.py, which builds the response variants, runs
// the peers' scorers on them and writes the fixtures that lib/dsr and
// lib/graphtext test their paper scoring mode against.
//
//	go run ./scripts/paperfixtures dsr -ref PATH/TO/DSR-Bench > dsr_cases.jsonl
//	go run ./scripts/paperfixtures erdos > erdos_cases.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/graphtext"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: paperfixtures dsr -ref DIR | erdos [-seed N] [-per-task N]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "dsr":
		err = dsrCases(os.Args[2:])
	case "erdos":
		err = erdosCases(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q (want dsr or erdos)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "paperfixtures:", err)
		os.Exit(1)
	}
}

// dsrCase is one published instance with where the reference's evaluation
// script finds it: the level file and the position in it.
type dsrCase struct {
	Task     string        `json:"task"`
	Mode     string        `json:"mode"` // easy, medium, hard
	Index    int           `json:"index"`
	Dim      int           `json:"dim,omitempty"`
	Instance *dsr.Instance `json:"instance"`
}

// dsrPicks are the (level, index) pairs taken from every task: a short
// instance and a long one.
var dsrPicks = []struct {
	level dsr.Level
	index int
}{{dsr.Short, 0}, {dsr.Long, 5}}

func dsrCases(args []string) error {
	fs := flag.NewFlagSet("dsr", flag.ExitOnError)
	ref := fs.String("ref", "", "a checkout of github.com/dransyhe/DSR-Bench")
	all := fs.Bool("all", false, "every published instance of every level (a wider check; not committed)")
	fs.Parse(args)
	if *ref == "" {
		return errors.New("dsr: -ref is required")
	}
	files, err := dsr.LoadReferenceDir(*ref)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for _, t := range dsr.Tasks() {
		if t.Probe == dsr.ProbeExtra && t.Name() != "rb_tree/construct_compound" {
			continue
		}
		picks := dsrPicks
		if t.Name() == "geom_graph/construct" { // a whole-number coordinate (33.0) in the truth
			picks = append(picks, dsrPicks[0], dsrPicks[1])
			picks[2].index, picks[3].index = 6, 6
		}
		if *all {
			picks = nil
			for _, l := range dsr.Levels() {
				for i := 0; i < 30; i++ {
					picks = append(picks, struct {
						level dsr.Level
						index int
					}{l, i})
				}
			}
		}
		for _, p := range picks {
			inst := findInstance(files, t, p.level, p.index)
			if inst == nil {
				return fmt.Errorf("dsr: no published instance %s/%s/%d", t.Name(), p.level, p.index)
			}
			c := dsrCase{Task: t.Name(), Mode: p.level.FileSuffix(), Index: p.index, Dim: inst.Dim, Instance: inst}
			if err := enc.Encode(c); err != nil {
				return err
			}
		}
	}
	return nil
}

// findInstance returns the published instance of a task at a level and
// index; spatial tasks are taken in two dimensions with uniform points
// (the main benchmark's variant).
func findInstance(files []dsr.RefFile, t *dsr.Task, l dsr.Level, index int) *dsr.Instance {
	for _, f := range files {
		for i := range f.Instances {
			in := &f.Instances[i]
			if in.Structure != t.Structure || in.Operation != t.Operation || in.Level != l || in.Index != index {
				continue
			}
			if t.Spatial && (in.Dim != 2 || (in.Dist != "" && in.Dist != "uniform")) {
				continue
			}
			if strings.Contains(in.ID, "~") { // an earlier generation kept beside
				continue
			}
			return in
		}
	}
	return nil
}

// erdosCase is one synthetic instance of an Erdős task in the form G1's
// evaluator reads: nodes "(1, n)", edges as a Python literal, the
// direction, the task's samples, the golden answer and the answer type.
type erdosCase struct {
	Task       string          `json:"task"`
	ID         string          `json:"id"`
	Nodes      string          `json:"nodes"`
	Edges      string          `json:"edges"`
	Direction  string          `json:"direction"`
	Samples    string          `json:"samples"`
	Gold       string          `json:"gold"`
	AnswerType string          `json:"answer_type"`
	Graph      json.RawMessage `json:"graph"`
}

func erdosCases(args []string) error {
	fs := flag.NewFlagSet("erdos", flag.ExitOnError)
	seed := fs.Uint64("seed", 33, "the seed of the instances")
	per := fs.Int("per-task", 2, "instances per task")
	maxNodes := fs.Int("max-nodes", 12, "largest graph")
	fs.Parse(args)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	for _, t := range graphtext.Tasks() {
		gs, err := graphtext.MakeInstances(t, *seed, *per, graphtext.GenOptions{MaxNodes: *maxNodes})
		if err != nil {
			return err
		}
		names := make([]string, len(gs))
		for i := range gs {
			names[i] = strconv.Itoa(i)
		}
		for _, x := range extraGraphs(t) {
			gs = append(gs, x.g)
			names = append(names, x.name)
		}
		for i, g := range gs {
			gold, err := t.Truth(g)
			if err != nil {
				return err
			}
			c, err := erdosCaseOf(t, g, gold)
			if err != nil {
				return err
			}
			c.ID = t.Name + "/" + names[i]
			if err := enc.Encode(c); err != nil {
				return err
			}
		}
	}
	return nil
}

func erdosCaseOf(t *graphtext.Task, g *graphtext.Graph, gold graphtext.Answer) (erdosCase, error) {
	var sb strings.Builder
	if err := g.WriteJSON(&sb); err != nil {
		return erdosCase{}, err
	}
	c := erdosCase{Task: t.Name, Nodes: fmt.Sprintf("(1, %d)", g.N), Direction: "undirected",
		Gold: gold.String(), AnswerType: g1AnswerType(t), Graph: json.RawMessage(strings.TrimSpace(sb.String()))}
	if g.Directed {
		c.Direction = "directed"
	}
	var es []string
	for _, e := range g.Edges {
		switch {
		case t.Name == "weighted_shortest_path" || t.Name == "weighted_minimum_spanning_tree":
			es = append(es, fmt.Sprintf("(%d, %d, %s)", e.U, e.V, pyNum(e.W)))
		case g.Weighted:
			es = append(es, fmt.Sprintf("(%d, %d, {'weight': %s})", e.U, e.V, pyNum(e.W)))
		default:
			es = append(es, fmt.Sprintf("(%d, %d)", e.U, e.V))
		}
	}
	c.Edges = "[" + strings.Join(es, ", ") + "]"
	switch len(t.Params) {
	case 1:
		c.Samples = strconv.Itoa(g.Params[t.Params[0]])
	case 2:
		c.Samples = fmt.Sprintf("(%d, %d)", g.Params[t.Params[0]], g.Params[t.Params[1]])
	}
	return c, nil
}

// pyNum writes a whole weight as a Python int, else as a float.
func pyNum(w float64) string {
	if w == float64(int64(w)) {
		return strconv.FormatInt(int64(w), 10)
	}
	return strconv.FormatFloat(w, 'g', -1, 64)
}

// g1AnswerType is the answer_type G1's checker is called with.
func g1AnswerType(t *graphtext.Task) string {
	return graphtext.G1AnswerType(t)
}

type namedGraph struct {
	name string
	g    *graphtext.Graph
}

// extraGraphs are hand-made graphs on which G1's checker behaves
// differently: disconnected graphs where it needs a connected one, a graph above the 20 nodes where its minimum vertex cover
// switches to an ILP, directed graphs for the tasks that accept them.
func extraGraphs(t *graphtext.Task) []namedGraph {
	mk := func(name string, n int, directed bool, weighted bool, es [][3]int, params map[string]int) namedGraph {
		edges := make([]graphtext.Edge, len(es))
		for i, e := range es {
			edges[i] = graphtext.Edge{U: e[0], V: e[1], W: float64(e[2])}
		}
		g, err := graphtext.New(n, directed, weighted, edges)
		if err != nil {
			panic(err)
		}
		g.Params = map[string]int{graphtext.SyntheticParam: 1}
		for k, v := range params {
			g.Params[k] = v
		}
		return namedGraph{name, g}
	}
	switch t.Name {
	case "bipartite_maximum_matching":
		return []namedGraph{mk("disconnected", 8, false, false, [][3]int{{1, 5, 0}, {1, 6, 0}, {2, 6, 0}, {3, 7, 0}, {4, 8, 0}}, nil)}
	case "minimum_spanning_tree":
		return []namedGraph{mk("disconnected", 6, false, false, [][3]int{{1, 2, 0}, {2, 3, 0}, {1, 3, 0}, {4, 5, 0}, {5, 6, 0}}, nil)}
	case "weighted_minimum_spanning_tree":
		return []namedGraph{mk("disconnected", 6, false, true, [][3]int{{1, 2, 3}, {2, 3, 1}, {1, 3, 2}, {4, 5, 5}, {5, 6, 1}}, nil)}
	case "min_vertex_cover":
		var es [][3]int
		for i := 1; i <= 24; i++ {
			es = append(es, [3]int{i, i%24 + 1, 0})
			if i%3 == 0 {
				es = append(es, [3]int{i, (i+7)%24 + 1, 0})
			}
		}
		return []namedGraph{mk("24 nodes", 24, false, false, es, nil)}
	case "bfs", "dfs":
		return []namedGraph{mk("directed", 6, true, false, [][3]int{{1, 2, 0}, {1, 3, 0}, {2, 4, 0}, {3, 4, 0}, {4, 5, 0}, {6, 1, 0}}, map[string]int{"source": 1}),
			mk("isolated source", 4, false, false, [][3]int{{1, 2, 0}, {2, 3, 0}}, map[string]int{"source": 4})}
	case "shortest_path":
		return []namedGraph{mk("directed", 5, true, false, [][3]int{{1, 2, 0}, {2, 3, 0}, {1, 4, 0}, {4, 3, 0}, {3, 5, 0}}, map[string]int{"source": 1, "target": 5})}
	case "dominating_set", "maximal_independent_set":
		return []namedGraph{mk("isolated nodes", 7, false, false, [][3]int{{1, 2, 0}, {2, 3, 0}, {3, 4, 0}}, nil)}
	}
	return nil
}
