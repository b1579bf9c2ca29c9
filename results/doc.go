// Package results holds the schemas of the committed measurements in this
// folder (results/*.jsonl: one schema per file, every field typed), their
// strict reader, and the pages rendered from them: docs/performance.md,
// docs/performance-steady.md, docs/results.md and the README's demo transcript and summary table.
//
// A benchmark script appends typed rows to a file here; `go generate
// ./results` (cmd/docgen) renders the pages again; TestPagesUpToDate fails
// when a committed page differs from what the rows render. The history of
// each figure (the dated sections per GPU lease and issue) lives in
// docs/log/, linked from the pages.
package results

//go:generate go run ../cmd/docgen
