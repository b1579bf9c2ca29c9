package clrstext

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/clrstext"
)

// report is a hand-made report: insertion_sort at lengths 4 and 8, and an
// algorithm outside CLRS-30.
func report() clrstext.Report {
	return clrstext.Report{
		Cells: []clrstext.Cell{
			{Algo: "insertion_sort", Length: 4, N: 2, Correct: 2, Accuracy: 1, TTFF: 1, Parsed: 1},
			{Algo: "insertion_sort", Length: 8, N: 2, Correct: 1, Accuracy: 0.5, TTFF: 0.75, Parsed: 1},
			{Algo: "my_algo", Length: 5, N: 1, Correct: 0, Accuracy: 0, TTFF: 0.2, Parsed: 0},
		},
		PerAlgo: []clrstext.Cell{
			{Algo: "insertion_sort", N: 4, Correct: 3, Accuracy: 0.75, TTFF: 0.875, Parsed: 1},
			{Algo: "my_algo", N: 1, Accuracy: 0, TTFF: 0.2, Parsed: 0},
		},
		Overall:       clrstext.Cell{N: 5, Correct: 3, Accuracy: 0.6, TTFF: 0.74, Parsed: 0.8},
		MacroAccuracy: 0.375,
	}
}

type logged struct {
	key  string
	step int64
	v    float64
}

// recorder keeps what Log records, and fails the call numbered failAt
// (1-based; 0: never).
type recorder struct {
	metrics   []logged
	artifacts []string
	tables    map[string][][]any
	calls     int
	failAt    int
}

var errFull = errors.New("full")

func (r *recorder) call() error {
	r.calls++
	if r.calls == r.failAt {
		return errFull
	}
	return nil
}

func (r *recorder) LogMetric(key string, step int64, v float64) error {
	if err := r.call(); err != nil {
		return err
	}
	r.metrics = append(r.metrics, logged{key, step, v})
	return nil
}

func (r *recorder) LogArtifact(path string, data []byte) error {
	if err := r.call(); err != nil {
		return err
	}
	if !bytes.HasPrefix(data, []byte("\x89PNG")) {
		return fmt.Errorf("%s is not a PNG", path)
	}
	r.artifacts = append(r.artifacts, path)
	return nil
}

func (r *recorder) LogTable(path string, cols []string, rows [][]any) error {
	if err := r.call(); err != nil {
		return err
	}
	if r.tables == nil {
		r.tables = map[string][][]any{}
	}
	r.tables[path] = append([][]any{{cols}}, rows...)
	return nil
}

func TestLog(t *testing.T) {
	t.Parallel()
	fig, err := Figure("m", report())
	if err != nil {
		t.Fatal(err)
	}
	var r recorder
	if err := Log(&r, report(), fig); err != nil {
		t.Fatal(err)
	}
	want := []logged{
		{"accuracy", 0, 0.6}, {"macro_accuracy", 0, 0.375}, {"ttff", 0, 0.74},
		{"accuracy/insertion_sort", 0, 0.75}, {"ttff/insertion_sort", 0, 0.875},
		{"accuracy/my_algo", 0, 0}, {"ttff/my_algo", 0, 0.2},
		{"accuracy_by_length/insertion_sort", 4, 1}, {"ttff_by_length/insertion_sort", 4, 1},
		{"accuracy_by_length/insertion_sort", 8, 0.5}, {"ttff_by_length/insertion_sort", 8, 0.75},
		{"accuracy_by_length/my_algo", 5, 0}, {"ttff_by_length/my_algo", 5, 0.2},
	}
	if !reflect.DeepEqual(r.metrics, want) {
		t.Errorf("metrics:\n got %v\nwant %v", r.metrics, want)
	}
	wantTable := [][]any{
		{[]string{"algorithm", "length", "n", "accuracy", "ttff", "parsed"}},
		{"insertion_sort", 4, 2, 1.0, 1.0, 1.0},
		{"insertion_sort", 8, 2, 0.5, 0.75, 1.0},
		{"my_algo", 5, 1, 0.0, 0.2, 0.0},
	}
	if got := r.tables["scores.json"]; !reflect.DeepEqual(got, wantTable) {
		t.Errorf("scores.json:\n got %v\nwant %v", got, wantTable)
	}
	if !reflect.DeepEqual(r.artifacts, []string{"figures/accuracy_vs_length.png"}) {
		t.Errorf("artifacts %v", r.artifacts)
	}
}

func TestLogStopsAtFirstError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		failAt  int
		metrics int
	}{
		{"first metric", 1, 0},
		{"a per-length metric", 9, 8},
		{"the table", 14, 13},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := recorder{failAt: tc.failAt}
			if err := Log(&r, report(), nil); !errors.Is(err, errFull) {
				t.Fatalf("err = %v, want the logger's error", err)
			}
			if len(r.metrics) != tc.metrics || r.calls != tc.failAt {
				t.Errorf("%d metrics and %d calls before stopping, want %d and %d", len(r.metrics), r.calls, tc.metrics, tc.failAt)
			}
		})
	}
}

func TestPanels(t *testing.T) {
	t.Parallel()
	rep := report()
	// bfs precedes insertion_sort in CLRS-30; algorithms outside it follow by name.
	rep.Cells = append([]clrstext.Cell{
		{Algo: "zz_extra", Length: 3, Accuracy: 1},
		{Algo: "bfs", Length: 16, Accuracy: 0.25, TTFF: 0.5},
	}, rep.Cells...)
	ps := Panels("m", rep)
	var titles []string
	for _, p := range ps {
		titles = append(titles, p.Title)
	}
	if want := []string{"bfs", "insertion sort", "my algo", "zz extra"}; !reflect.DeepEqual(titles, want) {
		t.Fatalf("panel titles %q, want %q", titles, want)
	}
	sort := ps[1]
	if len(sort.Series) != 2 || sort.Series[0].Label != "m accuracy" || sort.Series[1].Label != "m time-to-first-failure" {
		t.Fatalf("series %+v", sort.Series)
	}
	acc, ttff := sort.Series[0].Runs[0], sort.Series[1].Runs[0]
	if !reflect.DeepEqual(acc.Steps, []float64{4, 8}) || !reflect.DeepEqual(acc.Values, []float64{1, 0.5}) ||
		!reflect.DeepEqual(ttff.Values, []float64{1, 0.75}) {
		t.Errorf("insertion sort curves: accuracy %v/%v, ttff %v", acc.Steps, acc.Values, ttff.Values)
	}
}

func TestWriteTableMissing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		missing int
		want    string
	}{
		{0, "time-to-first-failure 0.7400\n"},
		{3, "time-to-first-failure 0.7400; 3 dataset rows without a prediction were left out\n"},
	} {
		var b strings.Builder
		if err := WriteTable(&b, report(), tc.missing); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(b.String(), tc.want) {
			t.Errorf("missing %d: table ends %q, want %q", tc.missing, b.String()[max(0, b.Len()-90):], tc.want)
		}
	}
}

func TestParams(t *testing.T) {
	t.Parallel()
	got := Params("d.jsonl", "p.jsonl", "m", 10, 8, 2)
	want := map[string]string{"data": "d.jsonl", "predictions": "p.jsonl", "model": "m", "rows": "10", "predictions_count": "8", "unanswered": "2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Params = %v, want %v", got, want)
	}
}
