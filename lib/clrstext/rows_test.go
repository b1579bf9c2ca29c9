package clrstext

import (
	"strings"
	"testing"
)

func TestReadRows(t *testing.T) {
	in := `{"text": "x", "question": "minimum:\nkey: [1]\nmin:\n", "answer": "0\n\n", "algo_name": "minimum", "length": 4, "seed": 3}

{"name": "clrs_text_bfs", "prompt": "bfs:\ns: 0\npi:\n", "references": ["[0]\n\n"], "auxiliary": {"length": 5, "seed": 7, "use_hints": false}}
{"algo": "minimum", "text": "minimum:\nkey: [1 0]\nmin:\n1\n\n"}
`
	rows, err := ReadRows(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{"minimum", 4, 3, "minimum:\nkey: [1]\nmin:\n", "0\n\n"},
		{"bfs", 5, 7, "bfs:\ns: 0\npi:\n", "[0]\n\n"},
		{"minimum", 0, 0, "minimum:\nkey: [1 0]\nmin:\n", "1\n\n"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows", len(rows))
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	for _, bad := range []struct{ in, want string }{
		{`{"question": "q", "answer": "a"}`, "no algorithm"},
		{`{"algo": "bfs"}`, "want question and answer"},
		{`{"algo": "bfs", "text": "one line"}`, "not a CLRS-Text sample"},
		{`[1, 2]`, "line 1"},
	} {
		if _, err := ReadRows(strings.NewReader(bad.in)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err %v, want %q", bad.in, err, bad.want)
		}
	}
}

func TestPredictionsMatch(t *testing.T) {
	rows := []Row{{Algo: "minimum", Length: 4, Answer: "1\n\n"}, {Algo: "minimum", Length: 5, Answer: "2\n\n"}}
	preds, err := ReadPredictions(strings.NewReader(`{"output": "1"}` + "\n" + `{"index": 1, "completion": "3"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	items, missing, err := Match(rows, preds)
	if err != nil || missing != 0 || len(items) != 2 || items[1].Prediction != "3" || items[1].Length != 5 {
		t.Fatalf("items %+v, missing %d, err %v", items, missing, err)
	}
	for _, bad := range []struct{ in, want string }{
		{`{"index": 5, "prediction": "1"}`, "dataset has 2 rows"},
		{`{"index": 0, "prediction": "1"}` + "\n" + `{"index": 0, "prediction": "1"}`, "two predictions"},
		{`{"index": -1, "prediction": "1"}`, "non-negative"},
		{`{"answer": 1}`, "no prediction"},
		{`{"prediction": 1}`, "must be a string"},
	} {
		p, err := ReadPredictions(strings.NewReader(bad.in))
		if err == nil {
			_, _, err = Match(rows, p)
		}
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err %v, want %q", bad.in, err, bad.want)
		}
	}
}
