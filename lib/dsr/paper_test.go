package dsr

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/metrics"
)

// The paper-mode fixtures (testdata/paper, written by
// scripts/paper_fixtures.sh): published instances and, for each, responses
// of many shapes with the verdict the reference's own evaluation script
// gave them (or the exception it raised).

type paperInstance struct {
	Task      string            `json:"task"`
	Instance  Instance          `json:"instance"`
	RefTruths map[string]string `json:"ref_truths"`
}

type paperResponse struct {
	ID       string `json:"id"`
	Task     string `json:"task"`
	Shape    string `json:"shape"`
	Response string `json:"response"`
	Expect   struct {
		Binary  *float64 `json:"binary"`
		Partial *float64 `json:"partial"`
		Raised  string   `json:"raised"`
	} `json:"expect"`
}

func readJSONLines[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func paperFixtures(t *testing.T) (map[string]*paperInstance, []paperResponse) {
	insts := map[string]*paperInstance{}
	for _, pi := range readJSONLines[paperInstance](t, "testdata/paper/dsr_instances.jsonl") {
		insts[pi.Instance.ID] = &pi
	}
	return insts, readJSONLines[paperResponse](t, "testdata/paper/dsr_responses.jsonl")
}

// TestPaperScoreMatchesReference: narlab's paper mode gives every fixture
// response the binary and partial score the reference's script gave it,
// and marks exactly the responses on which the script raised.
func TestPaperScoreMatchesReference(t *testing.T) {
	insts, resps := paperFixtures(t)
	perTask := map[string][2]int{}
	for _, r := range resps {
		pi := insts[r.ID]
		if pi == nil {
			t.Fatalf("response for unknown instance %s", r.ID)
		}
		v := Score(&pi.Instance, r.Response, ScoreConfig{Strategy: Stepwise})
		c := perTask[r.Task]
		c[1]++
		ok := true
		switch {
		case r.Expect.Raised != "":
			if v.Raised == "" {
				t.Errorf("%s %q: the reference raised %s; narlab did not mark it (verdict %v/%v)", r.ID, r.Shape, r.Expect.Raised, v.Binary, v.Levenshtein)
				ok = false
			} else if want := strings.SplitN(r.Expect.Raised, ":", 2)[0]; !strings.HasPrefix(v.Raised, want) {
				t.Errorf("%s %q: the reference raised %s, narlab says %s", r.ID, r.Shape, r.Expect.Raised, v.Raised)
				ok = false
			}
		default:
			if v.Raised != "" {
				t.Errorf("%s %q: narlab says the reference raises (%s); it scored %v/%v", r.ID, r.Shape, v.Raised, *r.Expect.Binary, *r.Expect.Partial)
				ok = false
			} else if v.Binary != *r.Expect.Binary || math.Abs(v.Levenshtein-*r.Expect.Partial) > 1e-12 {
				t.Errorf("%s %q: narlab %v/%v, reference %v/%v\nresponse: %.200s", r.ID, r.Shape, v.Binary, v.Levenshtein, *r.Expect.Binary, *r.Expect.Partial, r.Response)
				ok = false
			}
		}
		if ok {
			c[0]++
		}
		perTask[r.Task] = c
	}
	var names []string
	for k := range perTask {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		c := perTask[k]
		if c[1] < 12 {
			t.Errorf("%s: only %d fixture responses (want at least 12)", k, c[1])
		}
		t.Logf("%-28s %4d/%4d agree", k, c[0], c[1])
	}
	for _, task := range Tasks() {
		if _, ok := perTask[task.Name()]; !ok {
			t.Errorf("no paper-mode fixtures for task %s", task.Name())
		}
	}
}

// TestScoreAllBothModes: ScoreAll keeps both modes' scores whatever the
// run's mode, marks responses on which the reference raises, and
// ResultsIn/CompareModes turn them into the other mode's tables and a
// comparison.
func TestScoreAllBothModes(t *testing.T) {
	trie := mustInstance(t, "trie", "compound", Input{Ops: []Op{{Name: "insert", Word: "ab"}}})
	stack := mustInstance(t, "stack", "compound", Input{Ops: []Op{{Name: "push", Args: []int{3}}, {Name: "push", Args: []int{9}}}})
	resp := func(s string) *string { return &s }
	preds := []Prediction{
		{ID: trie.ID, Response: resp(`{"answer": ["", "a", "b"]}`)}, // KeyError in the reference's trie script
		{ID: stack.ID, Response: resp("```json\n{\"final_answer\": [3, 9]}\n```")},
	}
	for _, mode := range []metrics.ScoreMode{metrics.ScorePaper, metrics.ScoreLenient} {
		rs, err := ScoreAll([]Instance{*trie, *stack}, preds, ScoreConfig{Strategy: NoReasoning, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]Result{}
		for _, r := range rs {
			byID[r.ID] = r
		}
		tr, st := byID[trie.ID], byID[stack.ID]
		if !strings.HasPrefix(tr.Raised, "KeyError") || tr.Paper.Binary != 0 || tr.Lenient.Binary != 0 {
			t.Errorf("%v: trie result %+v, want Raised KeyError and 0 in both modes", mode, tr)
		}
		if st.Paper.Binary != 0 || st.Lenient.Binary != 1 || st.Raised != "" {
			t.Errorf("%v: fenced stack answer %+v, want paper 0, lenient 1", mode, st)
		}
		want := st.Paper.Binary
		if mode == metrics.ScoreLenient {
			want = st.Lenient.Binary
		}
		if st.Binary != want {
			t.Errorf("%v: Binary %v, want the %v score %v", mode, st.Binary, mode, want)
		}
		if l := ResultsIn(rs, metrics.ScoreLenient); l[0].Binary+l[1].Binary != 1 {
			t.Errorf("%v: ResultsIn(metrics.ScoreLenient) %+v", mode, l)
		}
		c := CompareModes(rs)
		if c.N != 2 || c.Raised != 1 || c.Differ != 1 || c.Paper.Binary != 0 || c.Lenient.Binary != 0.5 {
			t.Errorf("%v: CompareModes %+v", mode, c)
		}
		if m := c.Metrics(); m["scoring/raised"] != 1 || m["scoring/lenient_binary"] != 0.5 {
			t.Errorf("%v: metrics %v", mode, m)
		}
	}
}
