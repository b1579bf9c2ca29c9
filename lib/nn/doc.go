// Package nn is the CLRS encode-process-decode model in GoMLX: per-probe
// encoders into node, edge and graph features, a processor (Deep Sets,
// GAT, GATv2, MPNN, PGN, Triplet-GMPNN, or an End-to-End Memory Network,
// masked or full) applied once per algorithm step with the previous step's
// latents, per-probe decoders, and the per-type losses of the CLRS
// reference (clrs/_src/nets.py, decoders.py, loss.py).
//
// Each processor is defined once, as a [Processor] in a registry
// ([RegisterProcessor]; processors.go holds the built-in ones), from which
// every list of processors is derived ([Processors], [SparseProcessors],
// [ReferenceProcessors], [PaperModel], [ProcessorColor], what export
// refuses): docs/baselines.md, "Adding a processor". How the model runs
// (step loop or unrolled, budgets) is the execution engine's, package
// lib/nn/engine.
//
// Graphs are dense: N nodes, every (i, j) pair an edge slot, the
// processor's adjacency the identity plus the algorithm's graph (its edge
// masks and node pointers, both ways; with encoded hints, also the hints'
// pointers and edge masks of each step), as in the reference. Hints are used in
// one of three modes: encoded_decoded (the previous step's hint, the
// ground truth with probability TeacherForcing during training and the
// model's own soft prediction otherwise, is encoded; every hint is decoded
// and adds its loss), decoded_only (hints only add their loss), none. Each
// sample's outputs are decoded from its own last step.
//
// # Options and randomness
//
// The reference's other model options are Config fields (options.go):
// attention heads (Heads, for gat, gat_full, gatv2, gatv2_full), several
// processor calls per step (MsgPassingSteps), the layer norm switch
// (NoLayerNorm), an LSTM after the processor (LSTM; frozen, as the
// reference's, unless TrainLSTM), dropout of the processor's output
// (Dropout), the triplet messages' width (TripletFeatures), the encoders'
// initialisation (EncoderInit) and a frozen processor (FreezeProcessor).
// Training's random draws (teacher forcing, dropout masks, the Gumbel noise
// of permutation outputs) are made on the host with lib/jaxrand from one JAX
// key per training step, in the reference's order (draws.go): a step given
// the reference's key ([Model.TrainStepKey]) draws the reference's numbers,
// and TestReferenceOptions compares each option with the reference's model
// built with it (lib/nn/testdata/refoptions).
//
// # Steps
//
// The model is written once, as one algorithm step (step.go), and run by
// the execution engine, package lib/nn/engine, in one of three ways that
// engine.Plan picks per batch from Config.Exec (engine.Options), the
// backend's device, the processor's traits, the batch's shape and the
// run's progress:
//
//   - the step loop: one compiled step, called once per step of the
//     batch's longest trajectory. Compile time and program size do not
//     depend on the trajectory's length. Evaluation keeps one step's
//     state; training keeps each step's carry (node latents and fed hints:
//     O(T × B × N × H)) and computes gradients with a reverse loop that
//     recomputes each step and runs its vector-Jacobian product, as
//     jax.lax.scan's transpose does.
//   - one program a training step (engine.StepLoopProgram): the same two
//     loops as XLA While loops inside one compiled program with the output
//     head, the clipping and Adam, compiled once per batch shape and
//     power-of-two bucket of lengths, called once per training step, as the
//     reference's scanned step is. The default mode, auto, trains every
//     batch this way on an NVIDIA card, where the loop's per-step calls
//     dominate, and on XLA's CPU in runs of engine.ProgramMinRunTrainingSteps
//     or more from training step engine.ProgramFromTrainingStep on (the first
//     steps in the loop, whose programs compile fastest, while the program
//     compiles in the background).
//   - unrolling: every step in one program, compiled per trajectory length
//     (unroll.go); auto uses it only on the pure-Go backend (short batches
//     of the MPNN family), where it measured faster than the loop.
//
// They compute the same function (TestStepLoopSameFunction compares
// predictions, losses and gradients over every probe type and processor;
// TestOneProgramSameFunction the one program's losses, gradients and
// parameters after training steps).
// Predict splits a batch whose widest step would exceed the evaluation
// memory budget (engine.Options.EvalMemory).
//
// # Checkpoints
//
// [Model.Save] and [Load] keep narlab's checkpoints (GoMLX's format with the
// configuration). [LoadReference] reads a checkpoint of dm-clrs 2.0.3's
// BaselineModel (save_model's pickle of Haiku parameters and optax's
// state), inferring the configuration from the parameters' names and
// shapes, and [Model.ExportReference] writes one that restore_model reads;
// both carry the Adam state (docs/baselines.md, "dm-clrs checkpoints").
//
// Backends: XLA (CPU or CUDA PJRT plugin, linked in every cgo build) or
// GoMLX's pure-Go backend; [Choose] picks one (see `narlab backends` and
// docs/DEVELOPERS.md). Linear layers are [Dense].
package nn
