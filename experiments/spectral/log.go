package spectral

import (
	"fmt"
	"math"

	"github.com/narlab/narlab/tracking"
)

// LogReport records a report in an MLflow run as results, not as one
// chart per number: a few summary metrics per predictor (step 0), and the
// full numbers as tables.
//
// Metrics: test/<predictor>/smape (a fraction: the paper's 0–100 sMAPE
// divided by 100, as every score narlab logs) and test/<predictor>/relmae
// (a ratio; the means over all tasks), and with several predictors
// test/<predictor>/global_error (in [0, 1]) and test/<predictor>/wins_smape,
// wins_relmae (tasks won). The tables keep the paper's scale (sMAPE in %).
//
// Artifacts: spectral/table10.json (per task and predictor, every metric
// and the parse rate; an MLflow table), spectral/groups.json (the
// difficulty-group means), spectral/table10.md and spectral/densities.png
// (the Figure-12-style grid).
func LogReport(run *tracking.Run, r *Report) error {
	var groupRows [][]any
	for _, p := range r.Predictors {
		for _, m := range []string{"smape", "relmae", "nrmse_range", "nrmse_std"} {
			g, err := r.GroupMeans(p, m)
			if err != nil {
				return err
			}
			for _, grp := range []string{"Easy", "Medium", "Hard", "All"} {
				if v, ok := g[grp]; ok {
					groupRows = append(groupRows, []any{p, grp, m, finiteOrNil(v)})
				}
			}
			switch m {
			case "smape":
				if err := logFinite(run, fmt.Sprintf("test/%s/%s", p, m), g["All"]/100); err != nil {
					return err
				}
			case "relmae":
				if err := logFinite(run, fmt.Sprintf("test/%s/%s", p, m), g["All"]); err != nil {
					return err
				}
			}
		}
	}
	if len(r.Predictors) > 1 {
		if ge, err := r.GlobalError(); err == nil {
			for k, p := range r.Predictors {
				if err := logFinite(run, fmt.Sprintf("test/%s/global_error", p), ge[k]); err != nil {
					return err
				}
			}
		}
		for _, m := range []string{"smape", "relmae"} {
			for k, w := range r.Wins(m) {
				if err := run.LogMetric(fmt.Sprintf("test/%s/wins_%s", r.Predictors[k], m), 0, float64(w)); err != nil {
					return err
				}
			}
		}
	}
	if err := run.LogTable("spectral/groups.json", []string{"predictor", "group", "metric", "mean"}, groupRows); err != nil {
		return err
	}
	cols, rows := r.Table()
	for _, row := range rows {
		for i, v := range row {
			if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				row[i] = nil
			}
		}
	}
	if err := run.LogTable("spectral/table10.json", cols, rows); err != nil {
		return err
	}
	if err := run.LogArtifact("spectral/table10.md", []byte(r.Markdown())); err != nil {
		return err
	}
	fig, err := r.DensityFigure()
	if err != nil {
		return err
	}
	png, err := fig.PNG()
	if err != nil {
		return err
	}
	return run.LogArtifact("spectral/densities.png", png)
}

// finiteOrNil is v, or nil (JSON null) for NaN and ±Inf.
func finiteOrNil(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return v
}

func logFinite(run *tracking.Run, key string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return run.LogMetric(key, 0, v)
}
