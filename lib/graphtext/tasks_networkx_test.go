package graphtext

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"testing"
)

type nxRecord struct {
	Task      string          `json:"task"`
	Graph     json.RawMessage `json:"graph"`
	Answer    json.RawMessage `json:"answer"`
	Objective *float64        `json:"objective"`
}

func loadNetworkX(t testing.TB) []nxRecord {
	t.Helper()
	f, err := os.Open("testdata/erdos/networkx.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []nxRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r nxRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// objective is the quantity a validated answer must match NetworkX on.
func objective(task *Task, g *Graph, a Answer) float64 {
	v := newView(g)
	switch task.Name {
	case "weighted_minimum_spanning_tree":
		s := 0.0
		for _, e := range a.Edges {
			s += v.w[e[0]][e[1]]
		}
		return s
	case "weighted_shortest_path":
		s := 0.0
		for i := 1; i < len(a.Nodes); i++ {
			s += v.w[a.Nodes[i-1]][a.Nodes[i]]
		}
		return s
	case "shortest_path":
		return float64(len(a.Nodes) - 1)
	}
	if a.Kind == KindEdgeSet {
		return float64(len(a.Edges))
	}
	return float64(len(a.Nodes))
}

// TestTruthMatchesNetworkX compares the Go ground truth of every task with
// NetworkX 3.4.2 on graphs NetworkX generated (testdata/erdos/
// gen_networkx.py): unique answers must be equal (floats within 1e-9);
// for tasks with many valid answers, NetworkX's answer must pass our
// validator, our answer must too, and both must reach the same objective.
func TestTruthMatchesNetworkX(t *testing.T) {
	recs := loadNetworkX(t)
	seen := map[string]int{}
	directed, weighted := 0, 0
	for i, r := range recs {
		task, err := LookupTask(r.Task)
		if err != nil {
			t.Fatal(err)
		}
		g, err := ReadJSON(bytes.NewReader(r.Graph))
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if g.N < 4 || g.N > 35 {
			t.Errorf("record %d: n = %d outside the 4..35 range", i, g.N)
		}
		seen[r.Task]++
		if g.Directed {
			directed++
		}
		if g.Weighted {
			weighted++
		}
		kind := task.Kind
		want, err := DecodeAnswer(kind, r.Answer)
		if err != nil {
			t.Fatalf("record %d (%s): %v", i, r.Task, err)
		}
		got, err := task.Truth(g)
		if err != nil {
			t.Errorf("record %d (%s): %v", i, r.Task, err)
			continue
		}
		if task.Validated {
			if err := task.Validate(g, want); err != nil {
				t.Errorf("record %d (%s): validator rejects NetworkX's answer %s: %v", i, r.Task, want, err)
			}
			if err := task.Validate(g, got); err != nil {
				t.Errorf("record %d (%s): validator rejects our answer %s: %v", i, r.Task, got, err)
			}
			if r.Objective != nil {
				if o := objective(task, g, got); math.Abs(o-*r.Objective) > 1e-9 {
					t.Errorf("record %d (%s): objective %v, NetworkX %v", i, r.Task, o, *r.Objective)
				}
			}
			continue
		}
		if kind == KindFloat {
			if math.Abs(got.Float-want.Float) > 1e-9*max(1, math.Abs(want.Float)) {
				t.Errorf("record %d (%s): got %v, NetworkX %v", i, r.Task, got.Float, want.Float)
			}
			continue
		}
		if !got.Equal(want) {
			t.Errorf("record %d (%s): got %s, NetworkX %s", i, r.Task, got, want)
		}
	}
	t.Logf("%d records, %d tasks, %d directed, %d weighted", len(recs), len(seen), directed, weighted)
	if len(seen) != 49 {
		t.Errorf("fixture covers %d tasks, want 49", len(seen))
	}
	if directed == 0 || weighted == 0 {
		t.Errorf("fixture has %d directed and %d weighted graphs; want both kinds", directed, weighted)
	}
}
