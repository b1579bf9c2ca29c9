package metrics

import (
	"math"
	"strings"
	"testing"
)

// TestSALSAGraphScore checks each type's per-graph metric against values
// worked out by hand from SALSA-CLRS's definitions (node accuracy, binary
// F1 as scikit-learn computes it, rounded-scalar graph accuracy).
func TestSALSAGraphScore(t *testing.T) {
	tests := []struct {
		name        string
		typ         string
		truth, pred []float64
		want        float64
		err         string
	}{
		{"pointer all right", Pointer, []float64{0, 0, 1, 2}, []float64{0, 0, 1, 2}, 1, ""},
		{"pointer 3 of 4", Pointer, []float64{0, 0, 1, 2}, []float64{0, 1, 1, 2}, 0.75, ""},
		// tp 1, fp 1, fn 1: precision 1/2, recall 1/2, F1 1/2.
		{"mask", Mask, []float64{1, 1, 0, 0}, []float64{0.9, 0.2, 0.7, 0.1}, 0.5, ""},
		// tp 2, fp 0, fn 1: F1 = 4/5.
		{"mask missed one", Mask, []float64{1, 1, 1, 0}, []float64{1, 1, 0, 0}, 0.8, ""},
		// Nothing positive anywhere: scikit-learn's zero_division gives 0
		// (CLRSOutputScore's pooled F1 gives 1 here).
		{"mask all negative", Mask, []float64{0, 0}, []float64{0.1, 0.2}, 0, ""},
		{"mask threshold is strict", Mask, []float64{1}, []float64{0.5}, 0, ""},
		{"scalar rounds to truth", Scalar, []float64{4}, []float64{4.4}, 1, ""},
		{"scalar rounds away", Scalar, []float64{4}, []float64{4.6}, 0, ""},
		{"scalar half to even", Scalar, []float64{2}, []float64{2.5}, 1, ""},
		{"scalar half to even, odd", Scalar, []float64{4}, []float64{3.5}, 1, ""},
		{"lengths differ", Pointer, []float64{0, 1}, []float64{0}, 0, "2 truth values but 1"},
		{"empty", Mask, nil, nil, 0, "no values"},
		{"categorical", Categorical, []float64{1, 0}, []float64{1, 0}, 0, "not \"categorical\""},
	}
	for _, tt := range tests {
		got, err := SALSAGraphScore(tt.typ, tt.truth, tt.pred)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
}
