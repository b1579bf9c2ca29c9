package metrics

import (
	"fmt"
	"math"
	"sort"
)

// CLRS output types, as in lib/clrs (the metrics package does not import it).
const (
	Pointer     = "pointer"
	Mask        = "mask"
	MaskOne     = "mask_one"
	Categorical = "categorical"
	Scalar      = "scalar"
)

// CLRSOutputScore scores one output probe over a pooled evaluation set, as
// the reference's evaluation does (clrs/_src/evaluation.py):
//
//   - pointer: truth and pred hold node indices; the score is the fraction
//     of equal entries;
//   - mask: truth holds 0/1 (−1 entries are ignored) and pred
//     probabilities or hard 0/1, thresholded at 0.5; the score is the F1 of
//     the pooled true/false positives and negatives (precision is 1 with no
//     predicted positives, recall is 1 with no true positives, F1 is 0 when
//     both are 0);
//   - mask_one, categorical: rows of `classes` entries (one-hot truth,
//     scores or probabilities for pred); the score is the fraction of rows
//     whose argmax agrees, over rows of truth without −1 entries;
//   - scalar: the mean squared error (lower is better).
//
// classes is only used for mask_one and categorical.
func CLRSOutputScore(typ string, truth, pred []float64, classes int) (float64, error) {
	if len(truth) != len(pred) {
		return 0, fmt.Errorf("metrics: %s output: %d truth values but %d predictions", typ, len(truth), len(pred))
	}
	if len(truth) == 0 {
		return 0, fmt.Errorf("metrics: %s output: no values to score", typ)
	}
	switch typ {
	case Pointer:
		eq := 0
		for i := range truth {
			if truth[i] == pred[i] {
				eq++
			}
		}
		return float64(eq) / float64(len(truth)), nil
	case Mask:
		tp, fp, fn := maskCounts(truth, pred)
		precision, recall := 1.0, 1.0
		if tp+fp > 0 {
			precision = tp / (tp + fp)
		}
		if tp+fn > 0 {
			recall = tp / (tp + fn)
		}
		if precision+recall == 0 {
			return 0, nil
		}
		return 2 * precision * recall / (precision + recall), nil
	case MaskOne, Categorical:
		if classes <= 0 || len(truth)%classes != 0 {
			return 0, fmt.Errorf("metrics: %s output: %d values are not rows of %d classes", typ, len(truth), classes)
		}
		var hit, rows float64
		for r := 0; r < len(truth); r += classes {
			t, p := truth[r:r+classes], pred[r:r+classes]
			skip := false
			for _, v := range t {
				if v == -1 {
					skip = true
				}
			}
			if skip {
				continue
			}
			rows++
			if argmax(t) == argmax(p) {
				hit++
			}
		}
		if rows == 0 {
			return 0, fmt.Errorf("metrics: %s output: every row has a −1 entry; nothing to score", typ)
		}
		return hit / rows, nil
	case Scalar:
		var s float64
		for i := range truth {
			d := truth[i] - pred[i]
			s += d * d
		}
		return s / float64(len(truth)), nil
	}
	return 0, fmt.Errorf("metrics: unknown CLRS output type %q (want pointer, mask, mask_one, categorical or scalar)", typ)
}

// argmax returns the index of the first largest value.
func argmax(x []float64) int {
	best := 0
	for i, v := range x {
		if v > x[best] || math.IsNaN(x[best]) {
			best = i
		}
	}
	return best
}

// CLRSScore is an algorithm's score: the arithmetic mean of its output
// scores (keys are output names).
func CLRSScore(outputs map[string]float64) float64 {
	if len(outputs) == 0 {
		return math.NaN()
	}
	keys := make([]string, 0, len(outputs))
	for k := range outputs {
		keys = append(keys, k)
	}
	sort.Strings(keys) // a fixed summation order
	var s float64
	for _, k := range keys {
		s += outputs[k]
	}
	return s / float64(len(outputs))
}

// maskCounts are the true positives, false positives and false negatives
// of mask predictions (probabilities or 0/1, thresholded at 0.5) against
// 0/1 truth, −1 truth entries skipped.
func maskCounts(truth, pred []float64) (tp, fp, fn float64) {
	for i, t := range truth {
		if t == -1 {
			continue
		}
		p := pred[i] > 0.5
		switch {
		case p && t == 1:
			tp++
		case p:
			fp++
		case t == 1:
			fn++
		}
	}
	return tp, fp, fn
}
