package metrics_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/graphtext/paper"
	"github.com/narlab/narlab/lib/metrics"
)

func table6(model string) [][]float64 {
	var out [][]float64
	for _, r := range paper.SyntaxAccuracy[model] {
		out = append(out, []float64{r[0], r[1], r[2], r[3]})
	}
	return out
}

// TestPaperSyntaxVariability reproduces the syntax variability quoted in
// the paper's text from its transcribed Table 6.
func TestPaperSyntaxVariability(t *testing.T) {
	want := map[string]float64{"Qwen-3B": 5.98, "Qwen-7B": 5.86, "G1-3B": 9.69, "G1-7B": 10.51, "gpt-oss-20B": 5.41, "gpt-oss-120B": 3.45}
	for model, w := range want {
		_, got, err := metrics.SyntaxVariability(table6(model))
		if err != nil {
			t.Fatal(err)
		}
		if math.Round(got*100)/100 != w {
			t.Errorf("%s: syntax variability %.4f, paper %.2f", model, got, w)
		}
	}
}

// TestPaperBestIn reproduces "G1-7B: Erdős best in 28/49 tasks" and
// "Qwen-7B: JSON best in 24/49 tasks".
func TestPaperBestIn(t *testing.T) {
	cases := []struct {
		model  string
		syntax int
		want   int
	}{{"G1-7B", 0, 28}, {"Qwen-7B", 1, 24}}
	for _, c := range cases {
		counts, err := metrics.BestInCounts(table6(c.model))
		if err != nil {
			t.Fatal(err)
		}
		if counts[c.syntax] != c.want {
			t.Errorf("%s syntax %d: best in %d/49, paper %d/49 (all counts %v)", c.model, c.syntax, counts[c.syntax], c.want, counts)
		}
	}
}

// TestPaperSyntaxMeans reproduces the Fig. 4 bars (model means over the 49
// tasks, §5.4 of the notes) and the Fig. 10 top gaps.
func TestPaperSyntaxMeans(t *testing.T) {
	want := map[string][4]float64{
		"Qwen-3B": {23.5, 23.4, 22.8, 16.4}, "Qwen-7B": {32.7, 33.5, 30.8, 25.2}, "G1-3B": {60.2, 57.8, 59.4, 41.3},
		"G1-7B": {66.9, 65.2, 65.9, 46.3}, "gpt-oss-20B": {70.8, 71.8, 71.9, 62.9}, "gpt-oss-120B": {87.6, 87.8, 87.5, 81.9},
	}
	for model, w := range want {
		m, err := metrics.ColumnMeans(table6(model))
		if err != nil {
			t.Fatal(err)
		}
		for j := range w {
			if math.Abs(m[j]-w[j]) > 0.05+1e-9 {
				t.Errorf("%s syntax %d: mean %.3f, paper %.1f", model, j, m[j], w[j])
			}
		}
	}
	gaps, _ := metrics.BestWorstGap(table6("G1-3B"))
	top := metrics.TopK(gaps, 3)
	var names []string
	for _, i := range top {
		names = append(names, fmt.Sprintf("%s %g", paper.TaskOrder[i], gaps[i]))
	}
	if got := strings.Join(names, ", "); got != "edge_number 87, density 84, topological_sort 57" {
		t.Errorf("G1-3B top syntax gaps: %s", got)
	}
}

// TestPaperEncodingDeltas reproduces the derived mean Δ vs E0 of the
// edge-encoding tables (§5.3 of the notes), e.g. G1-7B M −29.4.
func TestPaperEncodingDeltas(t *testing.T) {
	want := map[string][11]float64{
		"Qwen-3B":      {1.1, 0.6, -0.1, -1.1, -2.3, -4.5, 2.3, 1.0, 2.0, 0.5, -8.0},
		"G1-7B":        {-0.7, -11.4, -1.9, -13.9, -11.9, -20.0, -6.6, -8.3, -9.3, -10.8, -29.4},
		"gpt-oss-120B": {0.2, 0.2, -0.7, -1.0, -3.3, -8.6, -0.3, -0.5, -0.3, -0.9, -10.0},
	}
	for model, w := range want {
		rows := paper.EncodingAccuracy[model]
		for c := 1; c < 12; c++ {
			var acc, base []float64
			for _, r := range rows {
				acc, base = append(acc, r[c]), append(base, r[0])
			}
			d, err := metrics.AccuracyDelta(acc, base)
			if err != nil {
				t.Fatal(err)
			}
			mean := 0.0
			for _, x := range d {
				mean += x
			}
			mean /= float64(len(d))
			if math.Abs(mean-w[c-1]) > 0.05+1e-9 {
				t.Errorf("%s column %d: mean Δ %.3f, notes %.1f", model, c, mean, w[c-1])
			}
		}
	}
}

func TestOutputSpread(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name   string
		preds  [][]float64
		truths []float64
		want   metrics.Spread
	}{
		{"invariant", [][]float64{{3, 3, 3}, {5, 5}}, []float64{3, 5}, metrics.Spread{Mean: 0, Range: 2, Used: 2}},
		{"spread", [][]float64{{1, 3}, {4, 4, 6}}, []float64{0, 4}, metrics.Spread{Mean: 0.5, Range: 4, Used: 2}},
		{"unparsed dropped", [][]float64{{1, nan, 2}, {nan, 7}}, []float64{1, 3}, metrics.Spread{Mean: 0.5, Range: 2, Used: 1}},
		{"zero range", [][]float64{{1, 2}}, []float64{4}, metrics.Spread{Mean: 1, Range: 1, Used: 1}},
	}
	for _, c := range cases {
		got, err := metrics.OutputSpread(c.preds, c.truths)
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
	if _, err := metrics.OutputSpread([][]float64{{1}}, []float64{1, 2}); err == nil {
		t.Error("mismatched lengths accepted")
	}
	if _, err := metrics.OutputSpread([][]float64{{1}}, []float64{nan}); err == nil {
		t.Error("NaN truth accepted")
	}
}

func TestInvarianceErrors(t *testing.T) {
	if _, err := metrics.AccuracyDelta([]float64{1}, []float64{1, 2}); err == nil || !strings.Contains(err.Error(), "one of each per task") {
		t.Errorf("AccuracyDelta: %v", err)
	}
	if _, _, err := metrics.SyntaxVariability([][]float64{{1, 2}, {3}}); err == nil || !strings.Contains(err.Error(), "row 1 has 1 columns") {
		t.Errorf("ragged table: %v", err)
	}
	if _, err := metrics.BestInCounts(nil); err == nil {
		t.Error("empty table accepted")
	}
	if got := metrics.SampleStd([]float64{2, 4, 4, 4, 5, 5, 7, 9}); math.Abs(got-2.138089935) > 1e-8 {
		t.Errorf("SampleStd = %v", got)
	}
}

func ExampleSyntaxVariability() {
	// Accuracy (%) of two tasks under the four syntaxes.
	acc := [][]float64{{90, 90, 80, 60}, {50, 52, 48, 50}}
	perTask, mean, _ := metrics.SyntaxVariability(acc)
	best, _ := metrics.BestInCounts(acc)
	fmt.Printf("%.2f %.2f mean %.2f best-in %v\n", perTask[0], perTask[1], mean, best)
	// Output: 14.14 1.63 mean 7.89 best-in [1 2 0 0]
}

func TestMeanStd(t *testing.T) {
	tests := []struct {
		v         []float64
		mean, std float64
	}{
		{[]float64{5}, 5, 0},
		{[]float64{1, 2, 3, 4}, 2.5, math.Sqrt(5.0 / 3)},
		{[]float64{10, 10, 10}, 10, 0},
		{[]float64{0, 100}, 50, math.Sqrt(5000)},
	}
	for _, tt := range tests {
		mean, std := metrics.MeanStd(tt.v)
		if math.Abs(mean-tt.mean) > 1e-12 || math.Abs(std-tt.std) > 1e-12 {
			t.Errorf("MeanStd(%v) = %v, %v; want %v, %v", tt.v, mean, std, tt.mean, tt.std)
		}
		if s := metrics.SampleStd(tt.v); s != std {
			t.Errorf("SampleStd(%v) = %v; want MeanStd's %v", tt.v, s, std)
		}
	}
	if m, s := metrics.MeanStd(nil); !math.IsNaN(m) || s != 0 {
		t.Errorf("metrics.MeanStd(nil) = %v, %v; want NaN, 0", m, s)
	}
}
