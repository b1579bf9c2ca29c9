package plots

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// checkRenders renders a figure to PNG and SVG and checks that both decode
// and are not blank.
func checkRenders(t *testing.T, name string, f *Figure, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	pngBytes, err := f.PNG()
	if err != nil {
		t.Fatalf("%s: PNG: %v", name, err)
	}
	img, err := png.Decode(bytes.NewReader(pngBytes))
	if err != nil {
		t.Fatalf("%s: PNG does not decode: %v", name, err)
	}
	b := img.Bounds()
	if b.Dx() < 100 || b.Dy() < 100 {
		t.Fatalf("%s: PNG is %dx%d", name, b.Dx(), b.Dy())
	}
	// Not blank: some pixel differs from the top-left one.
	first := img.At(b.Min.X, b.Min.Y)
	varied := false
	for y := b.Min.Y; y < b.Max.Y && !varied; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			if img.At(x, y) != first {
				varied = true
				break
			}
		}
	}
	if !varied {
		t.Fatalf("%s: PNG is blank", name)
	}
	svg, err := f.SVG()
	if err != nil {
		t.Fatalf("%s: SVG: %v", name, err)
	}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	elements := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: SVG is not XML: %v", name, err)
		}
		if _, ok := tok.(xml.StartElement); ok {
			elements++
		}
	}
	if elements < 10 {
		t.Fatalf("%s: SVG has only %d elements", name, elements)
	}
}

func TestRenderings(t *testing.T) {
	curve := func(scale float64) Curve {
		c := Curve{}
		for s := 0.0; s <= 1000; s += 100 {
			c.Steps = append(c.Steps, s)
			c.Values = append(c.Values, scale*(1-math.Exp(-s/300)))
		}
		return c
	}
	f, err := ValidationCurves([]Panel{
		{Title: "insertion_sort", Series: []Series{{Label: "mpnn", Runs: []Curve{curve(0.9), curve(0.95)}}, {Label: "pgn", Runs: []Curve{curve(0.7)}}}},
		{Title: "bfs", Series: []Series{{Label: "deepsets", Runs: []Curve{curve(0.6), curve(0.5), curve(0.55)}}}},
	}, DefaultCurveOptions())
	checkRenders(t, "ValidationCurves", f, err)

	f, err = Bars([]string{"a", "b", "c"}, []BarGroup{{"mpnn", []float64{1, 2, 3}, []float64{.1, .2, .3}, nil}, {"pgn", []float64{3, 2, -1}, nil, nil}}, BarOptions{Title: "bars", ValueLabel: "Δ accuracy"})
	checkRenders(t, "Bars", f, err)
	f, err = Bars([]string{"a", "b"}, []BarGroup{{"x", []float64{1, 2}, nil, nil}}, BarOptions{Horizontal: true})
	checkRenders(t, "Bars horizontal", f, err)

	f, err = Heatmap("heat", []string{"r1", "r2"}, []string{"c1", "c2", "c3"}, [][]float64{{0, 1, 2}, {3, 4, math.NaN()}})
	checkRenders(t, "Heatmap", f, err)

	f, err = Densities([]DensityPanel{{Title: "graph_energy", Sets: []DensitySet{
		{"ground truth", []float64{1, 2, 2.5, 3, 3.1, 4, 10}}, {"mean baseline", []float64{3, 3, 3, 3}}}}}, 2)
	checkRenders(t, "Densities", f, err)

	f, err = Radar("categories", []string{"linear", "temporal", "associative", "hierarchical", "network", "hybrid"},
		[]RadarSeries{{"model A", []float64{0.9, 0.8, 0.7, 0.4, 0.3, 0.2}}, {"model B", []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}}}, 1)
	checkRenders(t, "Radar", f, err)
}

func TestRenderErrors(t *testing.T) {
	if _, err := ValidationCurves(nil, DefaultCurveOptions()); err == nil {
		t.Error("ValidationCurves(nil): want an error")
	}
	if _, err := ValidationCurves([]Panel{{Series: []Series{{Label: "x", Runs: []Curve{{Steps: []float64{1}, Values: nil}}}}}}, DefaultCurveOptions()); err == nil {
		t.Error("mismatched curve: want an error")
	}
	if _, err := Bars([]string{"a"}, []BarGroup{{"x", []float64{1, 2}, nil, nil}}, BarOptions{}); err == nil {
		t.Error("Bars with too many values: want an error")
	}
	if _, err := Heatmap("", []string{"a"}, []string{"b"}, [][]float64{{1, 2}}); err == nil {
		t.Error("ragged heatmap: want an error")
	}
	if _, err := Radar("", []string{"a", "b"}, nil, 1); err == nil {
		t.Error("radar with 2 axes: want an error")
	}
}

func TestKDEIntegratesToOne(t *testing.T) {
	vals := []float64{0, 0.5, 1, 1.5, 2, 2.2, 3}
	xs, ys := KDE(vals, -10, 13, 2000)
	area := 0.0
	for i := 1; i < len(xs); i++ {
		area += (xs[i] - xs[i-1]) * (ys[i] + ys[i-1]) / 2
	}
	if math.Abs(area-1) > 1e-3 {
		t.Fatalf("KDE integrates to %v, want 1", area)
	}
}

func TestPercentileMatchesNumpy(t *testing.T) {
	// numpy.percentile([1, 2, 3, 4, 10], [0.5, 25, 50, 99.5]) = [1.02, 2., 3., 9.88]
	s := []float64{1, 2, 3, 4, 10}
	for _, c := range []struct{ q, want float64 }{{0.5, 1.02}, {25, 2}, {50, 3}, {99.5, 9.88}} {
		if got := Percentile(s, c.q); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Percentile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestListSteps(t *testing.T) {
	// Insertion sort of [5, 2, 4, 3, 1], the CLRS paper's Figure 2.
	f, err := ListSteps([]string{"5", "2", "4", "3", "1"}, []ListStep{
		{Title: "t = 0", Pointers: []int{0, 0, 1, 2, 3}, Marks: []Mark{{0, "i", MarkBlue}, {0, "j", MarkRed}}},
		{Title: "t = 1", Pointers: []int{1, 1, 0, 2, 3}, Marks: []Mark{{0, "i", MarkBlue}, {1, "j", MarkRed}}},
	})
	checkRenders(t, "ListSteps", f, err)
	if _, err := ListSteps([]string{"a"}, []ListStep{{Pointers: []int{3}}}); err == nil {
		t.Error("pointer out of range: want an error")
	}
}

// TestDensitiesLogScale checks a panel whose values span decades gets a
// log x axis and one that does not keeps a linear one.
func TestDensitiesLogScale(t *testing.T) {
	var wide, narrow []float64
	for i := range 200 {
		wide = append(wide, math.Pow(10, 1+4*float64(i)/199)) // 10 … 100,000
		narrow = append(narrow, 1+float64(i)/199)
	}
	fig, err := Densities([]DensityPanel{
		{Title: "wide", Sets: []DensitySet{{Label: "truth", Values: wide}}},
		{Title: "narrow", Sets: []DensitySet{{Label: "truth", Values: narrow}}},
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		title string
		log   bool
	}{{"wide (log scale)", true}, {"narrow", false}} {
		p := fig.Panels[0][i]
		_, isLog := p.X.Scale.(plot.LogScale)
		if p.Title.Text != tc.title || isLog != tc.log {
			t.Errorf("panel %d: title %q, log x %v; want %q, %v", i, p.Title.Text, isLog, tc.title, tc.log)
		}
	}
	if _, err := fig.PNG(); err != nil {
		t.Fatal(err)
	}
}

// TestStepTicks: on a log x axis every step has a tick, and labels go to
// the largest step and then to each step at least minLabelRatio below the
// last one labelled, so that neighbouring labels do not overlap.
func TestStepTicks(t *testing.T) {
	tests := []struct {
		steps []float64
		want  string // the labels, "_" for a tick without one
	}{
		{[]float64{16, 80, 160, 800, 1600}, "16 _ 160 _ 1600"},
		{[]float64{16, 1600}, "16 1600"},
		{[]float64{1, 3, 9, 27}, "1 3 9 27"},
		{[]float64{10, 20, 25, 100}, "_ _ 25 100"}, // 25 is 4× below 100; 20 and 10 within 3× of 25
		{[]float64{5}, "5"},
	}
	for _, tt := range tests {
		pn := Panel{Series: []Series{{Runs: []Curve{{Steps: tt.steps, Values: make([]float64, len(tt.steps))}}}}}
		var got []string
		for _, tk := range stepTicks(pn) {
			if tk.Label == "" {
				got = append(got, "_")
			} else {
				got = append(got, tk.Label)
			}
		}
		if s := strings.Join(got, " "); s != tt.want {
			t.Errorf("steps %v: labels %q, want %q", tt.steps, s, tt.want)
		}
	}
}
