// Package nn is the CLRS encode-process-decode model in GoMLX: per-probe
// encoders into node, edge and graph features, a processor (Deep Sets,
// GAT, GATv2, MPNN, PGN, Triplet-GMPNN, or an End-to-End Memory Network,
// masked or full) applied once per algorithm step with the previous step's
// latents, per-probe decoders, and the per-type losses of the CLRS
// reference (clrs/_src/nets.py, decoders.py, loss.py).
//
// Graphs are dense: N nodes, every (i, j) pair an edge slot, the
// processor's adjacency the identity plus the algorithm's graph (its edge
// masks and node pointers, both ways; with encoded hints, also the hints'
// pointers and edge masks of each step), as in the reference. Hints are used in
// one of three modes: encoded_decoded (the previous step's hint, the
// ground truth with probability TeacherForcing during training and the
// model's own soft prediction otherwise, is encoded; every hint is decoded
// and adds its loss), decoded_only (hints only add their loss), none. At
// evaluation the model unrolls for each sample's own number of hint steps
// and reads its outputs at the sample's last step.
//
// Backends: XLA (CPU or CUDA PJRT plugin, linked in every cgo build) or
// GoMLX's pure-Go backend; [Choose] picks one (see `narlab backends` and
// docs/DEVELOPERS.md). Linear layers are [Dense].
package nn
