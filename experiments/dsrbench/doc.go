// Package dsrbench turns DSR-Bench scores (lib/dsr's aggregate tables) into
// what an experiment records and shows: MLflow metrics named by "/"
// (score/overall, score/category/linear, score/structure/bst,
// score/task/bst/insert/short, and the same under levenshtein/), result
// tables, and the paper's Figure 2 pictures — a radar chart of the six
// category scores and bars per structure or per model.
//
// It also holds the paper's transcribed Table 2 and Table 3 numbers
// ([PaperModels], [PaperStructures], [PaperTables]) so that notebooks can
// redraw them through lib/dsr's aggregation, and simple baseline predictors
// ([Baseline]) whose answers exercise the scorer end to end.
//
// The `narlab dsr score` command uses [Log] to record a scoring run; the
// figures are plain [plots.Figure] values, so notebooks show the same
// pictures with kernel.Show.
package dsrbench
