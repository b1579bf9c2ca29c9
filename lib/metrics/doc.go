// Package metrics holds the scores shared by narlab's experiments: the CLRS
// benchmark's per-type scores (micro-F1 for masks, accuracy for pointers and
// categories, MSE for scalars), the regression metrics of the spectral tasks
// (nRMSE, sMAPE, RelMAE, min–max global error), and the invariance measures
// of the serialization study (accuracy differences, output spread under
// relabeling, syntax variability).
package metrics
