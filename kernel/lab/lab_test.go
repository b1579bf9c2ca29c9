package lab

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/narlab/narlab/kernel"
	"github.com/narlab/narlab/lib/clrs/paper"
	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking/mlflow"
)

// capture sends the kernel's text renderings to a buffer for the test.
func capture(t *testing.T) *bytes.Buffer {
	t.Helper()
	if kernel.InNotebook() {
		t.Skip("running inside a notebook")
	}
	var b bytes.Buffer
	old := kernel.Out
	kernel.Out = &b
	t.Cleanup(func() { kernel.Out = old })
	return &b
}

func testRun(id, algo, proc string, metrics map[string]float64) Run {
	return Run{ID: id, Name: algo + "/" + proc, Params: map[string]string{"algorithm": algo, "processor": proc,
		"train_steps": "200", "hidden_size": "16"}, Metrics: metrics, Tags: map[string]string{"backend": "xla-cpu"},
		URL: "http://mlflow/#/runs/" + id}
}

func TestValue(t *testing.T) {
	r := testRun("0123456789abcdef", "bfs", "pgn", map[string]float64{"val/best_score": 0.87654, "train/steps_per_s": 4.5,
		"llm/prompts": 8, "big": 12345.6, "tiny": 0.000123456})
	r.Params["big"] = "param value hidden by the metric"
	r.Params["backend"] = "go"
	tests := []struct{ column, want string }{
		{"run", "01234567"},
		{"name", "bfs/pgn"},
		{"processor", "pgn"},
		{"params.hidden_size", "16"},
		{"val/best_score", "0.8765"},
		{"val/best_score%", "87.7"},
		{"metrics.val/best_score%", "87.7"},
		{"train/steps_per_s", "4.5"},
		{"llm/prompts", "8"},
		{"big", "12346"}, // a bare key is a metric first
		{"params.big", "param value hidden by the metric"},
		{"tiny", "0.0001235"},
		{"backend", "go"},           // … then a parameter
		{"tags.backend", "xla-cpu"}, // a prefix picks the kind
		{"metrics.processor", "–"},
		{"nothing", "–"},
	}
	for _, tc := range tests {
		t.Run(tc.column, func(t *testing.T) {
			if got := r.Value(tc.column); got != tc.want {
				t.Errorf("Value(%q) = %q, want %q", tc.column, got, tc.want)
			}
		})
	}
}

func TestHeader(t *testing.T) {
	for _, tc := range []struct{ column, want string }{
		{"processor", "processor"}, {"params.hidden_size", "hidden_size"}, {"test/score%", "test/score (%)"},
		{"metrics.val/best_score%", "val/best_score (%)"}, {"run", "run"},
	} {
		if got := header(tc.column); got != tc.want {
			t.Errorf("header(%q) = %q, want %q", tc.column, got, tc.want)
		}
	}
}

func TestFilter(t *testing.T) {
	tests := []struct {
		name    string
		filters []Filter
		want    string
		wantErr string
	}{
		{"finished only", nil, "attributes.status = 'FINISHED'", ""},
		{"params", []Filter{Where("algorithm", "bfs"), Where("hidden_size", "128")},
			"attributes.status = 'FINISHED' and params.`algorithm` = 'bfs' and params.`hidden_size` = '128'", ""},
		{"a single quote", []Filter{Where("note", "it's")}, "attributes.status = 'FINISHED' and params.`note` = \"it's\"", ""},
		{"both quotes", []Filter{Where("note", `it's "x"`)}, "", "both quote characters"},
		{"a backquote", []Filter{Where("a`b", "x")}, "", "backquote"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var q query
			for _, f := range tc.filters {
				f(&q)
			}
			got, err := q.filter()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("filter() = %q, %v; want an error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("filter() = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestLatestAndWhere(t *testing.T) {
	rs := Runs{testRun("new-mpnn", "bfs", "mpnn", nil), testRun("pgn", "bfs", "pgn", nil),
		testRun("old-mpnn", "bfs", "mpnn", nil), testRun("dfs", "dfs", "mpnn", nil)}
	ids := func(rs Runs) string {
		var s []string
		for _, r := range rs {
			s = append(s, r.ID)
		}
		return strings.Join(s, ",")
	}
	tests := []struct {
		name string
		got  Runs
		want string
	}{
		{"latest per processor", rs.Latest("processor"), "new-mpnn,pgn"},
		{"latest per algorithm and processor", rs.Latest("algorithm", "processor"), "new-mpnn,pgn,dfs"},
		{"latest of all", rs.Latest(), "new-mpnn"},
		{"where", rs.Where("algorithm", "dfs"), "dfs"},
		{"where nothing", rs.Where("algorithm", "kmp"), ""},
		{"the first list wins", append(rs[2:3], rs...).Latest("processor"), "old-mpnn,pgn"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ids(tc.got); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
	if n := (Run{Params: map[string]string{"train_steps": "1000"}}).ParamInt("train_steps"); n != 1000 {
		t.Errorf("ParamInt = %d, want 1000", n)
	}
	if n := (Run{}).ParamInt("train_steps"); n != 0 {
		t.Errorf("ParamInt of a missing parameter = %d, want 0", n)
	}
}

func TestShow(t *testing.T) {
	tests := []struct {
		name    string
		runs    Runs
		columns []string
		want    string
	}{
		{"chosen columns", Runs{testRun("0123456789", "bfs", "mpnn", map[string]float64{"test/score": 0.5})},
			[]string{"processor", "test/score%", "run"}, "processor  test/score (%)  run\nmpnn       50.0            01234567\n"},
		{"default columns", Runs{testRun("ab", "bfs", "mpnn", nil)}, nil, "run  name\nab   bfs/mpnn\n"},
		{"no runs", nil, []string{"processor"}, "no runs\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := capture(t)
			tc.runs.Show(tc.columns...)
			if out.String() != tc.want {
				t.Errorf("Show printed\n%s\nwant\n%s", out, tc.want)
			}
		})
	}
}

func TestTableHTML(t *testing.T) {
	got := tableHTML([]string{"a<b", "run"}, [][]cell{{{text: "x&y"}, {text: "0123", url: "http://h/#/r?x=1&y=2"}}})
	for _, want := range []string{"<th>a&lt;b</th>", "<td>x&amp;y</td>",
		`<a href="http://h/#/r?x=1&amp;y=2" target="_blank"><code>0123</code></a>`, `class="narlab"`} {
		if !strings.Contains(got, want) {
			t.Errorf("tableHTML lacks %s:\n%s", want, got)
		}
	}
}

func TestBesidePaper(t *testing.T) {
	rs := Runs{
		testRun("mpnn-run-id", "bfs", "mpnn", map[string]float64{"val/best_score": 0.95, "test/score": 0.9, "train/steps_per_s": 3.25}),
		testRun("tri-run-id", "bfs", "triplet_gmpnn", map[string]float64{"val/best_score": 1}),
	}
	headers, rows := besidePaper(rs)
	if len(headers) != 10 || len(rows) != 2 {
		t.Fatalf("%d headers, %d rows", len(headers), len(rows))
	}
	text := func(r []cell) string {
		var s []string
		for _, c := range r {
			s = append(s, c.text)
		}
		return strings.Join(s, "|")
	}
	// The paper's BFS scores for MPNN: 100.0 (Table 4, validation), 99.89 (Table 2, test).
	if got, want := text(rows[0]), "bfs|MPNN|200|16|95.0|100.0|90.0|99.9|3.25|mpnn-run"; got != want {
		t.Errorf("MPNN row %s, want %s", got, want)
	}
	if got, want := text(rows[1]), "bfs|triplet_gmpnn|200|16|100.0|–|–|–|–|tri-run-"; got != want {
		t.Errorf("Triplet-GMPNN row %s, want %s", got, want)
	}
	if rows[0][9].url != rs[0].URL {
		t.Errorf("the run column links to %q, want %q", rows[0][9].url, rs[0].URL)
	}
	out := capture(t)
	Runs(nil).BesidePaper()
	if !strings.Contains(out.String(), "no runs") {
		t.Errorf("BesidePaper with no runs printed %q", out)
	}
}

func TestCurvesFigure(t *testing.T) {
	hist := func(vals ...float64) []mlflow.Metric {
		var h []mlflow.Metric
		for i := len(vals) - 1; i >= 0; i-- { // out of order: curvesFigure sorts by step
			h = append(h, mlflow.Metric{Key: "val/score", Step: int64(10 * i), Value: vals[i]})
		}
		return h
	}
	named := testRun("n", "bfs", "x", nil)
	delete(named.Params, "processor")
	tests := []struct {
		name      string
		runs      Runs
		histories [][]mlflow.Metric
		panels    []string // each panel's title and series labels
		wantErr   string
	}{
		{"two processors", Runs{testRun("a", "bfs", "mpnn", nil), testRun("b", "bfs", "pgn", nil)},
			[][]mlflow.Metric{hist(0.1, 0.5), hist(0.2, 0.7)}, []string{"bfs: MPNN PGN"}, ""},
		{"seeds share a line, algorithms a panel each",
			Runs{testRun("a", "bfs", "mpnn", nil), testRun("b", "bfs", "mpnn", nil), testRun("c", "dfs", "mpnn", nil)},
			[][]mlflow.Metric{hist(0.1, 0.5), hist(0.2, 0.7), hist(0.3)}, []string{"bfs: MPNN×2", "dfs: MPNN"}, ""},
		{"no processor: the run's name", Runs{named}, [][]mlflow.Metric{hist(0.5)}, []string{"bfs: bfs/x"}, ""},
		{"a run without points is left out", Runs{testRun("a", "bfs", "mpnn", nil), testRun("b", "bfs", "pgn", nil)},
			[][]mlflow.Metric{hist(0.1), nil}, []string{"bfs: MPNN"}, ""},
		{"no points at all", Runs{testRun("a", "bfs", "mpnn", nil)}, [][]mlflow.Metric{nil}, nil, "none of the 1 runs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fig, err := curvesFigure(tc.runs, tc.histories, "val/score", plots.DefaultCurveOptions())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, row := range fig.Panels {
				for _, p := range row {
					if p != nil {
						got = append(got, p.Title.Text)
					}
				}
			}
			if len(got) != len(tc.panels) {
				t.Fatalf("panels %v, want %d panels (%v)", got, len(tc.panels), tc.panels)
			}
			for i, want := range tc.panels {
				if !strings.HasPrefix(want, got[i]+":") {
					t.Errorf("panel %d is %q, want %q", i, got[i], want)
				}
			}
			if _, err := fig.PNG(); err != nil {
				t.Fatal(err)
			}
		})
	}
	if _, err := (Runs{}).Curves(t.Context(), "val/score"); err == nil || !strings.Contains(err.Error(), "no runs") {
		t.Errorf("Curves of no runs: %v, want an error saying so", err)
	}
	if _, err := (Runs{testRun("a", "bfs", "mpnn", nil)}).Curves(t.Context(), "val/score"); err == nil ||
		!strings.Contains(err.Error(), "not read from a tracking server") {
		t.Errorf("Curves of a hand-made run: %v, want an error saying so", err)
	}
}

func TestPaperBars(t *testing.T) {
	reduced := Runs{testRun("r1", "bfs", "mpnn", map[string]float64{"val/best_score": 0.5})}
	wide := Runs{testRun("w1", "bfs", "mpnn", map[string]float64{"val/best_score": 0.9}),
		testRun("w2", "activity_selector", "pgn", map[string]float64{"val/best_score": 0.4})}
	algos := []string{"bfs", "activity_selector"}
	cats, bars := paperBars(algos, []string{"mpnn", "pgn"}, []Group{{"reduced", reduced}, {"wide", wide}})
	if got, want := strings.Join(cats, "|"), "BFS|Activity Selector"; got != want {
		t.Errorf("categories %s, want the paper's names %s", got, want)
	}
	var got []string
	for _, b := range bars {
		got = append(got, fmt.Sprintf("%s %.1f %.1f", b.Label, b.Values[0], b.Values[1]))
	}
	// The paper's Table 4: BFS MPNN and PGN 100; activity selector MPNN 93.89, PGN 82.26.
	want := []string{"MPNN, paper (Table 4) 100.0 93.9", "PGN, paper (Table 4) 100.0 82.3",
		"narlab MPNN, reduced 50.0 NaN", "narlab MPNN, wide 90.0 NaN", "narlab PGN, wide NaN 40.0"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("bars\n%s\nwant (a group without a processor's runs has no bar)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	fig, err := PaperBars(algos, []string{"mpnn", "pgn"}, Group{"reduced", reduced}, Group{"wide", wide})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fig.PNG(); err != nil {
		t.Fatal(err)
	}
	_, alone := paperBars(algos, []string{"mpnn"}, nil)
	if len(alone) != 1 || alone[0].Label != "MPNN" || alone[0].Errors[1] != paper.Validation["activity_selector"]["MPNN"].Std {
		t.Errorf("the paper's bars alone: %+v", alone)
	}
	if _, err := PaperBars(nil, []string{"mpnn"}); err == nil {
		t.Error("PaperBars without algorithms did not fail")
	}
}

func TestShade(t *testing.T) {
	red, _ := nn.ProcessorColor("mpnn")
	lum := func(c color.Color) float64 {
		r, g, b, _ := c.RGBA()
		return float64(r+g+b) / 3
	}
	paperC, light, dark, darker := shade("mpnn", -1), shade("mpnn", 0), shade("mpnn", 1), shade("mpnn", 2)
	if paperC != color.Color(red) {
		t.Errorf("the paper shade is %v, want the processor's colour %v", paperC, red)
	}
	if !(lum(light) > lum(paperC) && lum(paperC) > lum(dark) && lum(dark) > lum(darker)) {
		t.Errorf("shades not ordered light > paper > dark > darker: %v %v %v %v", light, paperC, dark, darker)
	}
	if math.IsNaN(lum(shade("no such processor", 0))) {
		t.Error("unknown processor")
	}
}

// PaperResults and ShowClassAverages reproduce the paper's derived tables
// from its per-algorithm scores: Table 3's win/tie/loss totals, Table 1's
// class averages and overall averages (as printed, to 0.015: the paper averaged unrounded scores).
func TestPaperTables(t *testing.T) {
	tab, err := PaperResults(paper.Test)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Algorithms) != 30 || !slices.IsSorted(tab.Algorithms) {
		t.Errorf("%d algorithms (sorted: %v), want the 30, sorted", len(tab.Algorithms), slices.IsSorted(tab.Algorithms))
	}
	for j, m := range tab.Models {
		if got, want := [3]int{tab.Wins[j], tab.Ties[j], tab.Losses[j]}, paper.OutcomeTotals[m]; got != want {
			t.Errorf("%s: win/tie/loss %v, want Table 3's %v", m, got, want)
		}
	}
	headers, rows := classAverages(tab)
	if strings.Join(headers, "|") != "class|"+strings.Join(paper.Models, "|") {
		t.Errorf("headers %v", headers)
	}
	if len(rows) != len(paper.Classes)+1 {
		t.Fatalf("%d rows, want %d classes and the overall average", len(rows), len(paper.Classes))
	}
	for _, r := range rows {
		for j, m := range paper.Models {
			want := paper.ClassAverage[m]
			if r[0] != "Overall average" {
				want = paper.Classes[r[0]][m].Mean
			}
			if got, _ := strconv.ParseFloat(r[j+1], 64); math.Abs(got-want) > 0.0151 {
				t.Errorf("%s, %s: %s, want Table 1's %.2f", r[0], m, r[j+1], want)
			}
		}
	}
	for _, a := range paper.Figure3 {
		if _, ok := paper.Validation[a]; !ok {
			t.Errorf("Figure 3's %s has no row in Table 4", a)
		}
	}
}

func TestParseTable(t *testing.T) {
	tests := []struct {
		name, data string
		want       string // the rows, formatted
		wantErr    string
	}{
		{"rows", `{"columns": ["task", "accuracy", "note"], "data": [["a", 0.5, null], ["b", 1, "x"]]}`,
			"map[accuracy:0.5 note:<nil> task:a] map[accuracy:1 note:x task:b]", ""},
		{"no rows", `{"columns": ["task"], "data": []}`, "", ""},
		{"a short row", `{"columns": ["a", "b"], "data": [[1]]}`, "", "row 0 has 1 values for 2 columns"},
		{"no columns", `{"data": [[1]]}`, "", "no \"columns\""},
		{"not JSON", `<html>`, "", "not a table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := parseTable([]byte(tc.data))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var rows []string
			for _, r := range tab.Rows {
				rows = append(rows, fmt.Sprint(r))
			}
			if got := strings.Join(rows, " "); got != tc.want {
				t.Errorf("rows %s, want %s", got, tc.want)
			}
		})
	}
}
