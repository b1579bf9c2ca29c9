package spectral

import (
	"fmt"
	"math"

	"github.com/narlab/narlab/experiments"
)

// LogReport records a report in an MLflow run: per predictor and task the
// metrics (test/<predictor>/<task>/<metric>) and parse rate, the
// difficulty-group averages (test/<predictor>/group/<Easy|Medium|Hard|All>/
// <metric>), the global error and sMAPE/RelMAE wins across predictors, and
// the artifacts spectral/table10.json (MLflow table), spectral/table10.md
// and spectral/densities.png (the Figure-12-style grid).
func LogReport(run *experiments.Run, r *Report) error {
	for _, p := range r.Predictors {
		for _, task := range r.Tasks {
			tr := r.Results[p][task]
			for _, m := range []string{"nrmse_std", "nrmse_range", "smape", "relmae", "smape_mean_denominator", "rmse", "mae"} {
				v, _ := tr.Metrics.Metric(m)
				if err := logFinite(run, fmt.Sprintf("test/%s/%s/%s", p, task, m), v); err != nil {
					return err
				}
			}
			if err := run.LogMetric(fmt.Sprintf("test/%s/%s/parse_rate", p, task), 0, tr.ParseRate()); err != nil {
				return err
			}
		}
		for _, m := range []string{"smape", "relmae", "nrmse_range", "nrmse_std"} {
			g, err := r.GroupMeans(p, m)
			if err != nil {
				return err
			}
			for grp, v := range g {
				if err := logFinite(run, fmt.Sprintf("test/%s/group/%s/%s", p, grp, m), v); err != nil {
					return err
				}
			}
		}
	}
	if len(r.Predictors) > 1 {
		if ge, err := r.GlobalError(); err == nil {
			for k, p := range r.Predictors {
				if err := run.LogMetric(fmt.Sprintf("test/%s/global_error", p), 0, ge[k]); err != nil {
					return err
				}
			}
		}
		for _, m := range []string{"smape", "relmae"} {
			for k, w := range r.Wins(m) {
				if err := run.LogMetric(fmt.Sprintf("test/%s/wins/%s", r.Predictors[k], m), 0, float64(w)); err != nil {
					return err
				}
			}
		}
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

func logFinite(run *experiments.Run, key string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return run.LogMetric(key, 0, v)
}
