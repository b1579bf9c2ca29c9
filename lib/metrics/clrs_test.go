package metrics

import (
	"math"
	"strings"
	"testing"
)

// Hand-computed cases of the reference's evaluation rules.
func TestCLRSOutputScore(t *testing.T) {
	cases := []struct {
		name        string
		typ         string
		truth, pred []float64
		classes     int
		want        float64
	}{
		{"pointer 3 of 4", Pointer, []float64{0, 1, 2, 2}, []float64{0, 1, 2, 3}, 0, 0.75},
		// tp=2 (idx 0,3), fp=1 (idx 1), fn=1 (idx 2): P=2/3, R=2/3, F1=2/3.
		{"mask F1", Mask, []float64{1, 0, 1, 1, 0}, []float64{0.9, 0.7, 0.2, 1, 0}, 0, 2.0 / 3},
		// -1 entries ignored: only idx 0 and 2 count, both right.
		{"mask ignores -1", Mask, []float64{1, -1, 0}, []float64{1, 1, 0}, 0, 1},
		{"mask no positives anywhere", Mask, []float64{0, 0}, []float64{0.1, 0.2}, 0, 1},
		{"mask all wrong", Mask, []float64{1, 0}, []float64{0, 1}, 0, 0},
		// Two rows of 3: first argmax agrees (1), second does not.
		{"mask_one rows", MaskOne, []float64{0, 1, 0, 1, 0, 0}, []float64{0.1, 0.8, 0.1, 0.2, 0.5, 0.3}, 3, 0.5},
		// The second row has a -1 and is skipped.
		{"categorical skips -1 rows", Categorical, []float64{0, 1, -1, 0}, []float64{0.3, 0.7, 0.9, 0.1}, 2, 1},
		{"scalar MSE", Scalar, []float64{1, 2, 3}, []float64{1, 4, 2}, 0, 5.0 / 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := CLRSOutputScore(c.typ, c.truth, c.pred, c.classes)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > 1e-12 {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestCLRSOutputScoreErrors(t *testing.T) {
	for _, c := range []struct {
		typ         string
		truth, pred []float64
		classes     int
		want        string
	}{
		{Pointer, []float64{1}, []float64{1, 2}, 0, "1 truth values but 2 predictions"},
		{Mask, nil, nil, 0, "no values"},
		{MaskOne, []float64{1, 0, 0}, []float64{1, 0, 0}, 2, "not rows of 2 classes"},
		{"ranking", []float64{1}, []float64{1}, 0, "unknown CLRS output type"},
	} {
		if _, err := CLRSOutputScore(c.typ, c.truth, c.pred, c.classes); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.typ, err, c.want)
		}
	}
}

func TestCLRSScore(t *testing.T) {
	if got := CLRSScore(map[string]float64{"start": 0.5, "end": 1}); got != 0.75 {
		t.Errorf("mean of 0.5 and 1 = %v", got)
	}
	if !math.IsNaN(CLRSScore(nil)) {
		t.Error("score of no outputs should be NaN")
	}
}
