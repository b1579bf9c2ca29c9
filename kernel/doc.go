// Package kernel connects narlab to Jupyter through GoNB, the Go kernel.
//
// Install (`narlab kernel install`, run by the README's set-up) builds GoNB
// and goimports at the versions pinned in narlab's go.mod and installs a
// kernel spec named "Go (narlab)" into the project's Jupyter environment.
// The kernel runs with GOPROXY=off, so a cell's imports are resolved from
// the local module cache only. A notebook's first cell runs
//
//	!*narlab kernel prepare
//
// which points the kernel's scratch Go module at this checkout (a require
// and replace of github.com/narlab/narlab) with narlab's pinned
// dependencies and checksums: every narlab import and dependency then
// resolves offline.
//
// The display helpers (Show, Table, HTML, Markdown, ShowResults,
// Trajectory, Progress, RunLink) render tables, figures from package plots,
// hint sequences, training progress and links to MLflow runs inline.
// Outside a notebook they print a text rendering to standard output (or
// Out), so the same code runs in tests and scripts.
//
// Must, Must2 and Check stop a cell on an error, so that no notebook
// defines a helper of its own. Package kernel/lab holds the one-line helpers
// of experiments: training with a live progress line, runs read back from
// MLflow as tables and curves, results beside a paper's.
package kernel
