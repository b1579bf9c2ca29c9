package metrics

import (
	"fmt"
	"math"
)

// smapeEps is the ε of the sMAPE denominators (serialization notes §3.3).
const smapeEps = 1e-12

// Regression holds the spectral-task error metrics of "Lost in
// Serialization" (Table 8, App. H) for one task and one predictor, over n
// instances with ground truth y and predictions ŷ. Quantities that are
// undefined for the data (a constant ground truth for the normalized
// errors) are NaN.
type Regression struct {
	// N is the number of (y, ŷ) pairs.
	N int
	// RMSE = sqrt(mean (y − ŷ)²).
	RMSE float64
	// NRMSERange = RMSE / (max y − min y).
	NRMSERange float64
	// NRMSEStd = RMSE / s_y, s_y the sample standard deviation (n − 1).
	NRMSEStd float64
	// SMAPE100 is sMAPE on the 0–100 scale, ½·SMAPE200: the paper's
	// reported sMAPE, (100/n) Σ |y − ŷ| / (|y| + |ŷ| + ε).
	SMAPE100 float64
	// SMAPE200 is sMAPE on the 0–200 scale,
	// (100/n) Σ 2|y − ŷ| / (|y| + |ŷ| + ε).
	SMAPE200 float64
	// SMAPEMeanDenom is Table 8's formula, (100/n) Σ |y − ŷ| /
	// ((|y| + |ŷ|)/2 + ε), which the paper's worked examples use (y = 150,
	// ŷ = 100 → 40 %); logged as smape_mean_denominator.
	SMAPEMeanDenom float64
	// MAE = mean |y − ŷ|.
	MAE float64
	// MAEMean = mean |y − ȳ|, the MAE of always predicting the mean.
	MAEMean float64
	// RelMAE = MAE / MAEMean (< 1: better than the mean predictor).
	RelMAE float64
}

// Regress computes every [Regression] metric. y and yhat must have the same
// non-zero length and finite values.
func Regress(y, yhat []float64) (Regression, error) {
	if len(y) != len(yhat) {
		return Regression{}, fmt.Errorf("metrics: %d ground-truth values but %d predictions; want equal lengths", len(y), len(yhat))
	}
	if len(y) == 0 {
		return Regression{}, fmt.Errorf("metrics: no values; regression metrics need at least one (y, ŷ) pair")
	}
	for i := range y {
		if !isFinite(y[i]) || !isFinite(yhat[i]) {
			return Regression{}, fmt.Errorf("metrics: pair %d (y = %v, ŷ = %v) is not finite; drop unparsable predictions first", i, y[i], yhat[i])
		}
	}
	n := float64(len(y))
	var r Regression
	r.N = len(y)
	mean := 0.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range y {
		mean += v
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	mean /= n
	var se, ae, aem, s100, smd, ss float64
	for i := range y {
		d := y[i] - yhat[i]
		se += d * d
		ae += math.Abs(d)
		aem += math.Abs(y[i] - mean)
		ss += (y[i] - mean) * (y[i] - mean)
		den := math.Abs(y[i]) + math.Abs(yhat[i])
		s100 += math.Abs(d) / (den + smapeEps)
		smd += math.Abs(d) / (den/2 + smapeEps)
	}
	r.RMSE = math.Sqrt(se / n)
	r.NRMSERange = ratio(r.RMSE, hi-lo)
	sd := math.NaN()
	if len(y) > 1 {
		sd = math.Sqrt(ss / (n - 1))
	}
	r.NRMSEStd = ratio(r.RMSE, sd)
	r.SMAPE100 = 100 * s100 / n
	r.SMAPE200 = 2 * r.SMAPE100
	r.SMAPEMeanDenom = 100 * smd / n
	r.MAE = ae / n
	r.MAEMean = aem / n
	r.RelMAE = ratio(r.MAE, r.MAEMean)
	return r, nil
}

// Metric returns one metric by its logged name: rmse, nrmse_range,
// nrmse_std, smape (= smape_0_100), smape_0_200, smape_mean_denominator,
// mae, mae_mean, relmae.
func (r Regression) Metric(name string) (float64, error) {
	switch name {
	case "rmse":
		return r.RMSE, nil
	case "nrmse_range":
		return r.NRMSERange, nil
	case "nrmse_std":
		return r.NRMSEStd, nil
	case "smape", "smape_0_100":
		return r.SMAPE100, nil
	case "smape_0_200":
		return r.SMAPE200, nil
	case "smape_mean_denominator":
		return r.SMAPEMeanDenom, nil
	case "mae":
		return r.MAE, nil
	case "mae_mean":
		return r.MAEMean, nil
	case "relmae":
		return r.RelMAE, nil
	}
	return 0, fmt.Errorf("metrics: unknown regression metric %q; want one of %v", name, RegressionMetrics)
}

// RegressionMetrics are the names [Regression.Metric] accepts, in logging
// order.
var RegressionMetrics = []string{"nrmse_std", "nrmse_range", "smape", "relmae", "smape_0_200", "smape_mean_denominator", "rmse", "mae", "mae_mean"}

// ratio is a/b, NaN when b is zero or NaN.
func ratio(a, b float64) float64 {
	if b == 0 || math.IsNaN(b) {
		return math.NaN()
	}
	return a / b
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// SMAPE100 is the per-pair sMAPE term on the 0–100 scale,
// 100·|y − ŷ| / (|y| + |ŷ| + ε).
func SMAPE100(y, yhat float64) float64 {
	return 100 * math.Abs(y-yhat) / (math.Abs(y) + math.Abs(yhat) + smapeEps)
}

// SMAPEMeanDenom is the per-pair term of Table 8's formula,
// 100·|y − ŷ| / ((|y| + |ŷ|)/2 + ε) (= the 0–200-scale term).
func SMAPEMeanDenom(y, yhat float64) float64 {
	return 100 * math.Abs(y-yhat) / ((math.Abs(y)+math.Abs(yhat))/2 + smapeEps)
}

// MinMaxGlobalError is the paper's global normalized error (App. H): each
// argument is one metric's table, table[task][model]; every table is
// min–max normalized over all its (task, model) values, and a model's
// error is the mean of its normalized values over all tasks and metrics.
// It returns one value per model (0 = best everywhere).
func MinMaxGlobalError(tables ...[][]float64) ([]float64, error) {
	if len(tables) == 0 {
		return nil, fmt.Errorf("metrics: no metric tables")
	}
	models := -1
	var sum []float64
	count := 0
	for ti, tab := range tables {
		if len(tab) == 0 {
			return nil, fmt.Errorf("metrics: metric table %d has no tasks", ti)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for r, row := range tab {
			if models < 0 {
				models = len(row)
				sum = make([]float64, models)
			}
			if len(row) != models || models == 0 {
				return nil, fmt.Errorf("metrics: metric table %d task %d has %d models; want %d (> 0)", ti, r, len(row), models)
			}
			for _, v := range row {
				if !isFinite(v) {
					return nil, fmt.Errorf("metrics: metric table %d task %d has a non-finite value %v", ti, r, v)
				}
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		for _, row := range tab {
			for m, v := range row {
				if hi > lo {
					sum[m] += (v - lo) / (hi - lo)
				}
			}
			count++
		}
	}
	for m := range sum {
		sum[m] /= float64(count)
	}
	return sum, nil
}

// Wins counts, per model, the tasks where the model has the lowest value of
// table[task][model]; tied models all win.
func Wins(table [][]float64) []int {
	if len(table) == 0 {
		return nil
	}
	w := make([]int, len(table[0]))
	for _, row := range table {
		best := math.Inf(1)
		for _, v := range row {
			best = math.Min(best, v)
		}
		for m, v := range row {
			if v == best && m < len(w) {
				w[m]++
			}
		}
	}
	return w
}

// GroupMeans averages per-task values by group: values[i] belongs to
// groups[i]; the result maps each group to the unweighted mean of its
// non-NaN values (Table 1 = GroupMeans of Table 10's sMAPE by difficulty).
func GroupMeans(values []float64, groups []string) (map[string]float64, error) {
	if len(values) != len(groups) {
		return nil, fmt.Errorf("metrics: %d values but %d groups; want equal lengths", len(values), len(groups))
	}
	sum := map[string]float64{}
	cnt := map[string]int{}
	for i, v := range values {
		if math.IsNaN(v) {
			continue
		}
		sum[groups[i]] += v
		cnt[groups[i]]++
	}
	out := map[string]float64{}
	for g, s := range sum {
		out[g] = s / float64(cnt[g])
	}
	return out, nil
}

// PearsonCorrelation is the Pearson correlation of x and y (NaN when either
// is constant or the lengths differ or are below 2); the paper's
// cross-metric correlation applies it to per-task metric means.
func PearsonCorrelation(x, y []float64) float64 {
	if len(x) != len(y) || len(x) < 2 {
		return math.NaN()
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	return ratio(sxy, math.Sqrt(sxx*syy))
}
