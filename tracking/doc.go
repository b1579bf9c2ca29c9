// Package tracking is the run API that narlab's training and evaluation
// code logs through: [Start] opens an MLflow run, [Run.LogMetric] and
// friends record what happens, [Run.End] closes it.
//
// The tracking server is MLFLOW_TRACKING_URI when it is set; otherwise
// narlab's embedded local server (an `mlflow server` from the project's
// Python environment, SQLite store and proxied artifacts under the data
// directory), started on first use and reused afterwards.
//
// Logging never blocks a training step for long and never loses data: the
// run is an [mlflow.RunLogger], which buffers values, writes them to an
// on-disk spool under DATA/mlflow/spool and sends them in the background;
// whatever the server did not take is replayed later (`narlab mlflow sync`).
//
// Metric names are grouped by "/": the series train/loss and val/score,
// the summary values val/best_score and test/score (at step 0, which the
// MLflow UI draws as bars); the UI groups charts by the prefix, so runs of
// different algorithms and processors line up in its charts and in the
// parallel-coordinates view. Breakdowns are tables ([Run.LogTable]).
// docs/mlflow.md has the whole naming scheme.
package tracking
