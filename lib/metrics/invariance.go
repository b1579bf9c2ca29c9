package metrics

import (
	"fmt"
	"math"
	"slices"
)

// Invariance measures of the serialization study ("Lost in
// Serialization", §3.2 of the notes). Accuracy tables are indexed
// [task][configuration] and hold percentages.

// SampleStd is the sample standard deviation (n − 1 in the denominator);
// 0 for fewer than two values. It is [MeanStd]'s std.
func SampleStd(x []float64) float64 {
	_, std := MeanStd(x)
	return std
}

// MeanStd returns the mean of x and its sample standard deviation (n − 1
// in the denominator; 0 for fewer than two values). The mean of no values
// is NaN.
func MeanStd(x []float64) (mean, std float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	for _, v := range x {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(x)-1))
}

// AccuracyDelta returns acc − base per task (percentage points), the
// quantity of the paper's Figs. 3, 5, 6 and 8b. Both slices must have one
// entry per task.
func AccuracyDelta(acc, base []float64) ([]float64, error) {
	if len(acc) != len(base) {
		return nil, fmt.Errorf("metrics: %d accuracies but %d baseline accuracies; want one of each per task", len(acc), len(base))
	}
	out := make([]float64, len(acc))
	for i := range acc {
		if !isFinite(acc[i]) || !isFinite(base[i]) {
			return nil, fmt.Errorf("metrics: task %d has a non-finite accuracy (%v, baseline %v)", i, acc[i], base[i])
		}
		out[i] = acc[i] - base[i]
	}
	return out, nil
}

// AbsDelta returns |acc − base| per task (Fig. 7).
func AbsDelta(acc, base []float64) ([]float64, error) {
	d, err := AccuracyDelta(acc, base)
	for i := range d {
		d[i] = math.Abs(d[i])
	}
	return d, err
}

func checkTable(acc [][]float64) error {
	if len(acc) == 0 {
		return fmt.Errorf("metrics: empty accuracy table; want one row per task")
	}
	k := len(acc[0])
	if k == 0 {
		return fmt.Errorf("metrics: accuracy table row 0 is empty; want one column per configuration")
	}
	for i, row := range acc {
		if len(row) != k {
			return fmt.Errorf("metrics: accuracy table row %d has %d columns, row 0 has %d", i, len(row), k)
		}
		for j, v := range row {
			if !isFinite(v) {
				return fmt.Errorf("metrics: accuracy [%d][%d] = %v is not finite", i, j, v)
			}
		}
	}
	return nil
}

// SyntaxVariability returns, per task, the sample std of accuracy across
// the configurations (syntaxes) of its row, and their mean over tasks —
// the paper's syntax variability (5.98 for Qwen-3B ... 3.45 for
// gpt-oss-120B over the 4 syntaxes of Table 6).
func SyntaxVariability(acc [][]float64) (perTask []float64, mean float64, err error) {
	if err := checkTable(acc); err != nil {
		return nil, 0, err
	}
	perTask = make([]float64, len(acc))
	for i, row := range acc {
		perTask[i] = SampleStd(row)
		mean += perTask[i]
	}
	return perTask, mean / float64(len(acc)), nil
}

// BestInCounts returns, per configuration (column), the number of tasks in
// which it has the highest accuracy, ties counted for every tied
// configuration ("best in k/49 tasks").
func BestInCounts(acc [][]float64) ([]int, error) {
	if err := checkTable(acc); err != nil {
		return nil, err
	}
	out := make([]int, len(acc[0]))
	for _, row := range acc {
		m := slices.Max(row)
		for j, v := range row {
			if v == m {
				out[j]++
			}
		}
	}
	return out, nil
}

// BestWorstGap returns, per task, max − min accuracy over the
// configurations (Fig. 10).
func BestWorstGap(acc [][]float64) ([]float64, error) {
	if err := checkTable(acc); err != nil {
		return nil, err
	}
	out := make([]float64, len(acc))
	for i, row := range acc {
		out[i] = slices.Max(row) - slices.Min(row)
	}
	return out, nil
}

// TopK returns the indices of the k largest values, largest first, the
// first-listed index winning ties.
func TopK(x []float64, k int) []int {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] > x[b]:
			return -1
		case x[a] < x[b]:
			return 1
		}
		return 0
	})
	return idx[:min(k, len(idx))]
}

// ColumnMeans returns the mean of each column (mean accuracy per
// configuration over tasks, Fig. 4).
func ColumnMeans(acc [][]float64) ([]float64, error) {
	if err := checkTable(acc); err != nil {
		return nil, err
	}
	out := make([]float64, len(acc[0]))
	for _, row := range acc {
		for j, v := range row {
			out[j] += v
		}
	}
	for j := range out {
		out[j] /= float64(len(acc))
	}
	return out, nil
}

// Spread is the normalized output spread of one numerical task under node
// relabeling (Fig. 2, top).
type Spread struct {
	// Mean is S_t = mean over instances of (max_k ŷ − min_k ŷ) / R_t.
	Mean float64
	// Range is R_t = max − min of the ground-truth answers (1 when they
	// are all equal).
	Range float64
	// Used counts the instances with at least two parsed outputs; the
	// others are skipped.
	Used int
}

// OutputSpread computes the normalized output spread: preds[i] holds the
// parsed numeric outputs for instance i over its K relabelings (NaN for an
// output that could not be parsed; unparsed outputs are dropped), truths[i]
// its ground truth. R_t is the range of the ground truths (guarded to 1
// when zero). 0 means perfectly invariant outputs.
func OutputSpread(preds [][]float64, truths []float64) (Spread, error) {
	if len(preds) != len(truths) {
		return Spread{}, fmt.Errorf("metrics: %d prediction groups but %d ground truths; want one group per instance", len(preds), len(truths))
	}
	if len(truths) == 0 {
		return Spread{}, fmt.Errorf("metrics: no instances")
	}
	for i, y := range truths {
		if !isFinite(y) {
			return Spread{}, fmt.Errorf("metrics: ground truth %d is %v; want a finite number", i, y)
		}
	}
	r := slices.Max(truths) - slices.Min(truths)
	if r == 0 {
		r = 1
	}
	s := Spread{Range: r}
	for _, group := range preds {
		lo, hi, n := math.Inf(1), math.Inf(-1), 0
		for _, p := range group {
			if !isFinite(p) {
				continue
			}
			lo, hi, n = min(lo, p), max(hi, p), n+1
		}
		if n < 2 {
			continue
		}
		s.Mean += (hi - lo) / r
		s.Used++
	}
	if s.Used > 0 {
		s.Mean /= float64(s.Used)
	}
	return s, nil
}
