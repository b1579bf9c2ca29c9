// Package lab holds the one-line helpers of narlab's notebooks: what a
// researcher calls to train, to find runs and to compare them, so that a
// notebook reads as an experiment rather than as plumbing.
//
//   - Train trains a CLRS-30 baseline (experiments/clrs30) with a live
//     progress line under the cell and prints its result and MLflow run.
//   - Search finds the finished runs of an MLflow experiment, newest first
//     (Where and Keep narrow them); Runs.Latest keeps the newest run per
//     setting (per processor, per algorithm and processor, …).
//   - Runs.Show displays the runs as a table with the columns asked for
//     (parameters, metrics, tags, a link to each run).
//   - Runs.Curves draws the runs' validation curves, read back from MLflow;
//     Run.Table reads a table a run logged (its per-task breakdowns).
//   - Runs.BesidePaper shows each run's scores beside the CLRS paper's for
//     its algorithm and processor; PaperBars draws runs beside the paper's
//     Table 4 bars; PaperResults and ShowClassAverages recompute the paper's
//     derived tables (1 and 3) from its per-algorithm scores.
//
// A cell that cannot go on after an error stops with kernel.Must:
//
//	%%
//	runs := kernel.Must(lab.Search(ctx, "narlab-notebook-02", lab.Where("algorithm", "bfs"))).Latest("processor")
//	kernel.Show(kernel.Must(runs.Curves(ctx, "val/score")))
//	runs.BesidePaper()
//
// Every helper reads the tracking server the way the CLI does
// (MLFLOW_TRACKING_URI, else narlab's local server, started if needed), and
// displays through package kernel: inline in a notebook, as text elsewhere,
// so the same calls run in tests and scripts.
package lab
