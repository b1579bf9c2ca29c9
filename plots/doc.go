// Package plots draws narlab's figures with gonum/plot: validation curves
// (the CLRS paper's Figures 3 and 4), results tables computed from runs
// (Tables 1–4, with the paper's win/tie/loss rule), grouped bars, heatmaps,
// kernel-density curves of value distributions and radar charts.
//
// Every figure is a *Figure: one or more gonum plots laid out in a grid,
// rendered to PNG or SVG bytes with PNG and SVG. The bytes can be shown
// inline in a notebook (package kernel) or logged as an MLflow artifact.
// Functions take plain data (slices and small structs), never runs or
// models, so the same code draws the paper's transcribed numbers and
// narlab's own results.
package plots
