package pyval

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"testing"
)

// corpusCase is one line of testdata/corpus.jsonl: an input and what
// CPython made of it (gen_corpus.py).
type corpusCase struct {
	Op     string `json:"op"`
	In     string `json:"in"`
	Out    string `json:"out"`
	Str    string `json:"str"`
	Raised string `json:"raised"`
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	f, err := os.Open("testdata/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// TestCorpus checks literal_eval, json.loads, float(), int() and float
// repr against CPython's results on the same inputs.
func TestCorpus(t *testing.T) {
	for _, c := range loadCorpus(t) {
		var got Value
		var err error
		switch c.Op {
		case "literal_eval":
			got, err = LiteralEval(c.In)
		case "json_loads":
			got, err = JSONLoads(c.In)
		case "float":
			var f float64
			f, err = ParseFloatStr([]rune(c.In))
			got = Float(f)
		case "int":
			got, err = ParseIntStr([]rune(c.In))
		case "float_repr":
			f, perr := strconv.ParseFloat(c.In, 64)
			if perr != nil {
				t.Fatal(perr)
			}
			got = Float(f)
		default:
			t.Fatalf("unknown op %q", c.Op)
		}
		switch {
		case c.Raised != "" && err == nil:
			t.Errorf("%s(%q) = %s, Python raised %s", c.Op, c.In, Repr(got), c.Raised)
		case c.Raised == "" && err != nil:
			t.Errorf("%s(%q) raised %v, Python gave %s", c.Op, c.In, err, c.Out)
		case c.Raised == "" && Repr(got) != c.Out:
			t.Errorf("%s(%q) = %s, Python gave %s", c.Op, c.In, Repr(got), c.Out)
		case c.Str != "" && PyStr(got) != c.Str:
			t.Errorf("str(%s(%q)) = %s, Python gave %s", c.Op, c.In, PyStr(got), c.Str)
		}
	}
}
