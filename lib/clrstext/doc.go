// Package clrstext renders CLRS trajectories as CLRS-Text, the text version
// of the CLRS benchmark for language models (Markeeva et al., "The
// CLRS-Text Algorithmic Reasoning Language Benchmark"), generates datasets
// with the reference generator's size and seed schedule, and scores model
// answers.
//
// # Formats
//
// The reference generator (clrs/_src/clrs_text in dm-clrs) exists in two
// format versions, and both are reproduced byte for byte:
//
//   - Legacy, the July 2024 release (v2.0.1) that made the paper's data and
//     the published Hugging Face datasets: node and edge scalars and sorted
//     keys are printed with Python's '%.3g', a graph scalar with '%.3f',
//     and the sampler never truncates its inputs.
//   - Current (dm-clrs HEAD and 2.0.3): every float is printed as Python's
//     str() (the shortest repr that round-trips), and the sampler may
//     truncate real inputs to k decimals (rounding toward zero) before the
//     algorithm runs, so the traces are computed on the printed values.
//
// A sample is question + answer:
//
//	insertion_sort:
//	key: [0.548 0.715 0.602 0.544 0.423], initial_trace: [0.548 0.715 0.602 0.544 0.423]
//	trace | pred:
//	[0.548 0.715 0.602 0.544 0.423], [0.548 0.602 0.715 0.544 0.423], ... | [0.423 0.544 0.548 0.602 0.715]
//
// Render turns any clrs.Trajectory into an Example; a Sampler draws
// examples exactly as the reference's on-the-fly sampler with batch size 1;
// Generate writes whole datasets (the paper's train and test schedules) in
// parallel; ParseAnswer, Score and TimeToFirstFailure grade a model's
// answers by exact match on the final output and along the trace.
//
// # narlab additions
//
// The paper's Figure 8 distribution shifts (random trees instead of
// Erdős–Rényi graphs; scalars from U(1, 2)) have no code in the reference;
// Shift implements them as narlab-only sampler options.
package clrstext
