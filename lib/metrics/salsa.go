package metrics

import (
	"fmt"
	"math"
)

// SALSAGraphScore scores one output probe on one graph as SALSA-CLRS's
// evaluation does (baselines/core/metrics.py of jkminder/SALSA-CLRS), with
// the headline metric of each type:
//
//   - pointer: node accuracy, the fraction of the graph's nodes whose
//     pointer (truth and pred hold node indices) is right;
//   - mask: node F1 of the prediction thresholded at 0.5, 2tp/(2tp+fp+fn),
//     and 0 when the graph has no positive in truth or prediction
//     (scikit-learn's f1_score with its default zero_division); −1 truth
//     entries are skipped;
//   - scalar: graph accuracy, the fraction of values whose prediction
//     rounded half to even (torch.round) equals the truth: 1 or 0 for a
//     graph scalar such as eccentricity's.
//
// A test set's score is the mean of a graph's scores over its graphs
// (SALSA-CLRS averages per graph; CLRSOutputScore pools the whole set,
// which agrees for pointers on sets of equal-sized graphs, not for masks).
func SALSAGraphScore(typ string, truth, pred []float64) (float64, error) {
	if len(truth) != len(pred) {
		return 0, fmt.Errorf("metrics: %s output: %d truth values but %d predictions", typ, len(truth), len(pred))
	}
	if len(truth) == 0 {
		return 0, fmt.Errorf("metrics: %s output: a graph with no values to score", typ)
	}
	switch typ {
	case Pointer, Scalar:
		eq := 0
		for i, t := range truth {
			p := pred[i]
			if typ == Scalar {
				p = math.RoundToEven(p)
			}
			if p == t {
				eq++
			}
		}
		return float64(eq) / float64(len(truth)), nil
	case Mask:
		tp, fp, fn := maskCounts(truth, pred)
		if tp == 0 {
			return 0, nil
		}
		return 2 * tp / (2*tp + fp + fn), nil
	}
	return 0, fmt.Errorf("metrics: SALSA-CLRS scores pointer, mask and scalar outputs, not %q", typ)
}
