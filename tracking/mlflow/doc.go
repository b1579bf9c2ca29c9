// Package mlflow is narlab's client for the MLflow tracking server's REST
// API, with an on-disk spool that keeps logged data safe while the server is
// unreachable, and a launcher for a local `mlflow server`.
//
// It has three layers:
//
//   - [Client] speaks the REST API (api/2.0/mlflow/... and the artifact
//     proxy api/2.0/mlflow-artifacts/...): experiments, runs, log-batch with
//     the server's limits respected, metric history, search with filter
//     strings, artifact upload, listing and download. Transient failures
//     (connection refused, 408, 429, 5xx) are retried with exponential
//     backoff; authentication comes from MLFLOW_TRACKING_TOKEN or
//     MLFLOW_TRACKING_USERNAME and MLFLOW_TRACKING_PASSWORD.
//   - [RunLogger] is a live run: LogMetric only appends to an in-memory
//     buffer; a background goroutine turns the buffer into log-batch requests,
//     writes each to the run's spool (an fsync'd append-only JSONL file) and a
//     second one sends the spool to the server in order, acknowledging each
//     request on disk after the server accepted it. If the server is down the
//     requests wait in the spool; they are sent when it comes back, or later
//     by [Sync] (`narlab mlflow sync`). If the spool's disk is full, they
//     wait in memory instead and are sent from there; only what neither
//     the disk nor the server takes by the end of the run is lost, and
//     counted ([LostError]).
//   - [StartServer] and [EnsureServer] run a local `mlflow server` (SQLite
//     backend store, proxied local artifact store, bound to 127.0.0.1 on a
//     free port) and record it in a state file so later processes reuse it.
//
// Values follow MLflow's rules, checked before anything is sent or spooled:
// keys are at most 250 characters of letters, digits and `_ - . space / :`,
// and must be normalized paths (no leading `/`, no `//`, no `.` or `..`
// segments); parameter values are at most 6000 characters, tag values at
// most 8000. Non-finite metric values are sent as the JSON strings "NaN",
// "Infinity" and "-Infinity", which is how the server accepts them; a
// SQL-backed server stores ±Inf as ±1.7976931348623157e308, so that is what
// reads back.
//
// The spool's delivery guarantee (every request is applied exactly once, in
// order, across server outages and crashes of the logging process) is
// described on [Spool] and in docs/mlflow.md.
package mlflow
