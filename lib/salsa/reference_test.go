package salsa

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

// referenceDoc is testdata/reference.json.gz, written by
// testdata/gen_reference.py from SALSA-CLRS's own sampler and algorithms
// (and dm-clrs 2.0.3's bfs, dfs, dijkstra, mst_prim, which SALSA-CLRS
// runs), with every random draw redirected to narlab's per-sample
// stream.
type referenceDoc struct {
	Commit   string            `json:"salsa_clrs_commit"`
	Versions map[string]string `json:"versions"`
	Seed     uint32            `json:"seed"`
	Cases    []struct {
		Algorithm string     `json:"algorithm"`
		Set       string     `json:"set"`
		Index     int        `json:"index"`
		N         int        `json:"n"`
		Length    int        `json:"length"`
		Hints     bool       `json:"hints"`
		EdgeIndex [2][]int32 `json:"edge_index"`
		Probes    map[string]struct {
			Stage, Location, Type string
			Shape                 []int
			Data                  []float64
		} `json:"probes"`
	} `json:"cases"`
}

func loadReference(t *testing.T) *referenceDoc {
	t.Helper()
	path := "testdata/reference.json.gz"
	if p := os.Getenv("NARLAB_SALSA_REFERENCE"); p != "" {
		path = p // a larger one-off file (gen_reference.py --seed --scale)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	var doc referenceDoc
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return &doc
}

// TestSALSAReference regenerates every trajectory of the reference file
// and checks the graph (edge list), the length, and every probe, value
// for value: all six algorithms on the training distribution, the
// validation set and the 16-node test sets of the three families with
// their hints, and on 80- and 160-node test graphs without them.
func TestSALSAReference(t *testing.T) {
	doc := loadReference(t)
	if len(doc.Cases) == 0 {
		t.Fatal("the reference file has no cases")
	}
	seen := map[string]int{}
	for _, c := range doc.Cases {
		name := fmt.Sprintf("%s/%s/%d", c.Algorithm, c.Set, c.Index)
		set, err := LookupSet(c.Set)
		if err != nil {
			t.Fatal(err)
		}
		tr, _, err := Sample(c.Algorithm, set, doc.Seed, c.Index, c.Hints)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		g := tr.Graph
		if g.N != c.N || !slices.Equal(g.Src, c.EdgeIndex[0]) || !slices.Equal(g.Dst, c.EdgeIndex[1]) {
			t.Fatalf("%s: graph differs: n=%d, %d edges; reference n=%d, %d edges", name, g.N, g.NumEdges(), c.N, len(c.EdgeIndex[0]))
		}
		if tr.Length != c.Length {
			t.Fatalf("%s: %d hint steps, reference %d", name, tr.Length, c.Length)
		}
		probes := append(append(slices.Clone(tr.Inputs), tr.Outputs...), tr.Hints...)
		want := len(c.Probes)
		if len(probes) != want {
			t.Fatalf("%s: %d probes, reference %d", name, len(probes), want)
		}
		for _, d := range probes {
			ref, ok := c.Probes[d.Name]
			if !ok {
				t.Fatalf("%s: probe %s not in the reference", name, d.Name)
			}
			if ref.Stage != d.Stage.String() || ref.Location != d.Location.String() || ref.Type != d.Type.String() {
				t.Fatalf("%s: %s is %s/%s/%s, reference %s/%s/%s", name, d.Name, d.Stage, d.Location, d.Type, ref.Stage, ref.Location, ref.Type)
			}
			if !slices.Equal(ref.Shape, d.Shape) || !slices.Equal(ref.Data, d.Data) {
				t.Fatalf("%s: %s differs\n got %v %v\nwant %v %v", name, d.Name, d.Shape, d.Data, ref.Shape, ref.Data)
			}
		}
		seen[c.Algorithm+"/"+c.Set]++
		if c.Hints {
			seen[c.Algorithm+"/hints"]++
		}
	}
	for _, algo := range algorithms {
		if os.Getenv("NARLAB_SALSA_REFERENCE") != "" {
			break // a one-off file covers what it covers
		}
		if seen[algo+"/hints"] == 0 {
			t.Errorf("%s: no reference trace with hints", algo)
		}
		for _, s := range []string{"train", "val", "er_16", "ws_16", "delaunay_16", "er_160", "ws_160", "delaunay_160"} {
			if seen[algo+"/"+s] == 0 {
				t.Errorf("%s: no reference case on %s", algo, s)
			}
		}
	}
	t.Logf("%d trajectories of SALSA-CLRS %.7s (numpy %s, networkx %s, scipy %s)", len(doc.Cases), doc.Commit,
		doc.Versions["numpy"], doc.Versions["networkx"], doc.Versions["scipy"])
}
