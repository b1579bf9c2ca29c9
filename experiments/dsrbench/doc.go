// Package dsrbench turns DSR-Bench scores (lib/dsr's aggregate tables) into
// what an experiment records and shows: MLflow metrics named by "/"
// (score/overall, score/category/linear, score/structure/bst,
// score/task/bst/insert/short, and the same under levenshtein/), result
// tables, and the paper's Figure 2 pictures — a radar chart of the six
// category scores and bars per structure or per model.
//
// [PaperFigure2] redraws the paper's Figure 2 from its Table 2 (the
// transcribed numbers live in lib/dsr/paper), and simple baseline
// predictors ([Baseline]) give answers that exercise the scorer end to end.
//
// The `narlab dsr score` command uses [Log] to record a scoring run; the
// figures are plain [plots.Figure] values, so notebooks show the same
// pictures with kernel.Show.
package dsrbench
