// Package clrs is an exact Go port of the data side of the CLRS
// Algorithmic Reasoning Benchmark (DeepMind's dm-clrs): the specifications
// of its 30 algorithms, the algorithms themselves with their hint
// trajectories, the random samplers, the official CLRS-30 splits, batching
// into feedback, the training transforms and .npz export.
//
// For the same algorithm, seed, length and sampler parameters, narlab
// produces the same trajectories as the reference, value for value and bit
// for bit (see the parity tests against the reference fixtures), much
// faster, and with no dependency beyond the standard library.
//
// # Specs, probes and trajectories
//
// An algorithm is described by its Spec: an ordered list of probes, each
// with a Stage (input, output or hint), a Location (node, edge or graph)
// and a Type (scalar, categorical, mask, mask_one, pointer, …). Running an
// algorithm records a Trajectory: the inputs, the value of every hint at
// every step (the initial state is step 0), and the outputs.
//
// Conventions, as in the reference:
//   - pointers hold node indices; a list order is encoded as predecessor
//     pointers in which the first element points to itself (so an index can
//     appear twice — it is not a permutation as stored);
//   - masks are 0/1 (-1 = ignored), mask_one and categorical are one-hot on
//     the last axis;
//   - the `pos` input (i/n) is the only thing that tells node order;
//   - graph inputs `adj` always have the diagonal set;
//   - optimal_bst has length+1 nodes and segments_intersect always 4.
//
// # Sampling and batching
//
// NewSampler draws inputs from numpy's legacy RandomState (package nprand)
// exactly as the reference sampler class of the algorithm; Dataset and Next
// return a Feedback: inputs and outputs [B, …], hints [T, B, …] zero-padded
// to the longest trajectory, and each trajectory's length. CLRS30Split
// gives the official split settings; WriteNPZ exports a feedback for numpy,
// and WriteReferenceJSON prints it in the reference's JSON layout.
//
// # JSON input
//
// ParseParams reads sampler parameters written as a JSON object (for
// Kwarg), and DecodeArgs reads an algorithm's arguments written as JSON
// (for Run); `narlab clrs sample --kwargs` and `narlab clrs run` take their
// input through them. FormatSamplerParams prints SamplerParams's defaults.
//
// # Writing datasets
//
// WriteTrajectoriesNPZ streams trajectories into an .npz archive without
// building the padded hint arrays. SampleSplitFile samples an official
// split for writing only (what `narlab clrs generate` does): each sample's
// hints are kept as the values that change from step to step, about a
// tenth of their dense size, and SaveNPZ rebuilds them step by step in the
// archive's layout; the bytes are those of WriteTrajectoriesNPZ.
//
// ReadNPZ, LoadNPZ and LoadSplit read such files back into the Feedback
// they were written from (for an official split, the split sampler's
// Dataset()); Feedback.Trajectories and Feedback.Select turn it into
// trajectories and batches. Python reads the same files with the package
// in the repository's python/ directory (docs/python.md).
package clrs
