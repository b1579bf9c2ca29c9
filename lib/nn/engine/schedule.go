package engine

import (
	"fmt"
	"slices"
)

// How a model runs is chosen in one place: [Plan], a pure function of the
// options asked for, the backend's device, the processor's traits, the
// batch's shape and how far the run is. The model asks it for every
// training batch and every evaluation, and does what the Schedule says.
// Which program runs a step therefore depends only on these, never on
// timing, so a run, and a run resumed from a checkpoint, are reproducible.
//
// Steps come in two units that must not be confused: an algorithm step is
// one application of the processor (one step of a trajectory; a batch has
// Shape.AlgorithmSteps of them), a training step is one optimiser update
// (a run has Options.RunSteps of them; Request.TrainingStep have been
// taken). The thresholds below say which unit they count in their names.

// Step-loop modes (Options.StepLoop).
const (
	// StepLoopAuto trains in the step loop and, in runs of at least
	// UnrollMinRunTrainingSteps, switches batches of at most
	// UnrollMaxAlgorithmSteps whose unrolled training fits the unroll
	// memory budget (with a processor that unrolls on the device:
	// [AutoUnrolls]) to an unrolled program from training step
	// UnrollFromTrainingStep on, compiled in the background from
	// UnrollCompileFromTrainingStep. It evaluates in the step loop.
	StepLoopAuto = "auto"
	// StepLoopLoop always runs the step loop.
	StepLoopLoop = "loop"
	// StepLoopUnroll always unrolls (compile time and memory grow with
	// the trajectory's length).
	StepLoopUnroll = "unroll"
	// StepLoopProgram always trains a batch as one program: the forward
	// and reverse loops over its steps, the head and the update in one
	// compiled program per batch shape and bucket of lengths (StepBucket),
	// one call a training step ([Loop.TrainProgram]). It evaluates in
	// the step loop.
	StepLoopProgram = "program"
)

// StepLoopModes are the step-loop modes.
var StepLoopModes = []string{StepLoopAuto, StepLoopLoop, StepLoopUnroll, StepLoopProgram}

// Evaluation-loop modes (Options.EvalLoop).
const (
	// EvalLoopAuto is EvalLoopDevice on an NVIDIA card, where a program
	// call costs about as much as a step (docs/performance.md, "On a
	// GPU"), and EvalLoopHost elsewhere.
	EvalLoopAuto = "auto"
	// EvalLoopHost calls the compiled step once per step.
	EvalLoopHost = "host"
	// EvalLoopDevice compiles the loop itself, the step as the body of an
	// XLA While, into one program called once per batch (a model with
	// inputs given anew at each step evaluates on the host).
	EvalLoopDevice = "device"
)

// EvalLoopModes are the evaluation-loop modes.
var EvalLoopModes = []string{EvalLoopAuto, EvalLoopHost, EvalLoopDevice}

// The policy's thresholds.
const (
	// UnrollMaxAlgorithmSteps is the longest batch, in algorithm steps,
	// that StepLoopAuto trains unrolled: the CLRS-30 train split's
	// fixed-length algorithms (n=16: 4 to 19 steps) but not its long ones
	// (dfs 47, quicksort 91, jarvis_march 187), whose unrolled programs
	// take minutes to compile and memory that grows with the length.
	UnrollMaxAlgorithmSteps = 24
	// UnrollFromTrainingStep is the training step (optimiser updates taken)
	// from which StepLoopAuto trains short batches unrolled.
	UnrollFromTrainingStep = 25
	// UnrollCompileFromTrainingStep is the training step from which
	// StepLoopAuto compiles unrolled programs in the background: a model
	// trained for a few steps only (a smoke test, the short protocol of
	// BenchmarkProtocol) spends no time or memory on programs it would
	// never run.
	UnrollCompileFromTrainingStep = 5
	// UnrollMinRunTrainingSteps is the shortest run (Options.RunSteps, in
	// training steps) that StepLoopAuto trains with unrolled programs.
	// Compiling them takes seconds to a minute per batch shape and pays off
	// over thousands of steps (the paper's 10,000), not over a few
	// hundred: shorter runs train in the step loop throughout.
	UnrollMinRunTrainingSteps = 2000
	// MaxStepsPerCall bounds Options.StepsPerCall (its programs' size and
	// compile time grow with it).
	MaxStepsPerCall = 64
	// ProgramFromTrainingStep is the training step from which
	// StepLoopAuto trains a batch as one program off an NVIDIA card (on a
	// card, from the first): the first steps train in the loop, whose
	// programs compile fastest, while the one program compiles in the
	// background from ProgramCompileFromTrainingStep on, so the first
	// step is no longer than the loop's.
	ProgramFromTrainingStep = UnrollFromTrainingStep
	// ProgramCompileFromTrainingStep is the training step after which
	// StepLoopAuto compiles a batch's one program in the background.
	ProgramCompileFromTrainingStep = UnrollCompileFromTrainingStep
	// ProgramMinRunTrainingSteps is the shortest run that StepLoopAuto
	// trains with one-program steps off an NVIDIA card (there, every run).
	ProgramMinRunTrainingSteps = UnrollMinRunTrainingSteps
)

// Memory budgets' defaults (Options.EvalMemory, Options.UnrollMemory).
const (
	// DefaultEvalMemory bounds the memory of the largest intermediate
	// tensors of one evaluation step. With the process's own footprint,
	// evaluating any CLRS-30 test split at hidden 128 stays within 4 GiB;
	// at 256 MiB rather than 1 GiB, the CLRS-30 protocol's peak memory on
	// bfs/MPNN fell by 140–180 MB and dfs/MPNN's test split took no longer
	// (docs/log/performance-training.md, "Step loop").
	DefaultEvalMemory int64 = 256 << 20
	// GPUEvalMemoryFactor scales the evaluation budget on an NVIDIA card,
	// whose memory is large and where every extra part is more program
	// calls.
	GPUEvalMemoryFactor = 16
	// DefaultUnrollMemory bounds the estimated activation memory of an
	// unrolled training step; bigger batches train in the step loop.
	DefaultUnrollMemory int64 = 4 << 30
)

// Options are how a model runs its steps. They change speed and memory,
// never the function computed (up to floating-point rounding): a run may
// resume under other options.
type Options struct {
	// StepLoop is one of StepLoopModes ("": StepLoopAuto).
	StepLoop string
	// EvalLoop is one of EvalLoopModes ("": EvalLoopAuto). The same
	// predictions either way (TestEvalLoopDevice); "device" saves a
	// program call per step, which costs little beside a step on a CPU and
	// is 3× faster evaluation of Kadane (63 steps) on an H100
	// (docs/performance.md, "On a GPU").
	EvalLoop string
	// StepsPerCall is how many algorithm steps one call of the step loop's
	// training programs runs (0 or 1: one). k > 1 unrolls k steps in each
	// of the forward and backward programs, so a trajectory of S steps
	// takes 2⌈S/k⌉ calls instead of 2S, and the backward pass keeps the
	// carry of every k-th step only; compile time grows with k. The same
	// losses and gradients (TestStepsPerCall), except that with teacher
	// forcing the draws of the steps padding the last call shift the random
	// stream. It matters where a program call costs more than a step's
	// work, as on a GPU.
	StepsPerCall int
	// RunSteps is the number of training steps the run will take (0:
	// unknown, taken as long): StepLoopAuto unrolls only runs of at least
	// UnrollMinRunTrainingSteps.
	RunSteps int
	// EvalMemory bounds the memory of the widest intermediate tensors of
	// one evaluation call, in bytes (0: DefaultEvalMemory); a larger batch
	// is evaluated in parts, with the same predictions.
	EvalMemory int64
	// UnrollMemory bounds the estimated activation memory of an unrolled
	// training step, in bytes (0: DefaultUnrollMemory).
	UnrollMemory int64
}

// Validate checks the options, naming what is wrong.
func (o Options) Validate() error {
	switch {
	case o.StepLoop != "" && !slices.Contains(StepLoopModes, o.StepLoop):
		return fmt.Errorf("unknown step-loop mode %q (want one of %v)", o.StepLoop, StepLoopModes)
	case o.EvalLoop != "" && !slices.Contains(EvalLoopModes, o.EvalLoop):
		return fmt.Errorf("unknown evaluation-loop mode %q (want one of %v)", o.EvalLoop, EvalLoopModes)
	case o.StepsPerCall < 0 || o.StepsPerCall > MaxStepsPerCall:
		return fmt.Errorf("%d steps per call; want 1 to %d (0: one)", o.StepsPerCall, MaxStepsPerCall)
	case o.RunSteps < 0:
		return fmt.Errorf("%d run steps; want 0 (unknown) or more", o.RunSteps)
	case o.EvalMemory < 0 || o.UnrollMemory < 0:
		return fmt.Errorf("negative memory budget (evaluation %d, unrolled training %d bytes)", o.EvalMemory, o.UnrollMemory)
	}
	return nil
}

// Device is the kind of machine a backend computes on, as lib/nn's
// backend choice names it.
type Device string

// The devices.
const (
	DeviceCUDA Device = "xla-cuda" // XLA on an NVIDIA card
	DeviceCPU  Device = "xla-cpu"  // XLA on the CPU
	DeviceGo   Device = "go"       // GoMLX's pure-Go backend
)

// Traits are what the schedule needs to know of a processor.
type Traits struct {
	// Triplets: the processor computes triplet edge latents (N³ per
	// graph), whose unrolled training takes two to four times the step
	// loop's memory.
	Triplets bool
}

// Shape is what the schedule needs to know of a batch.
type Shape struct {
	Graphs         int // B
	AlgorithmSteps int // S: processor steps of its longest trajectory
	// StepBytes is the model's estimate of the bytes one graph's step
	// needs at its widest (its largest intermediate tensors).
	StepBytes int64
	// StepInputs: the batch has inputs given anew at each step (its
	// evaluation loop must run on the host).
	StepInputs bool
}

// Request is everything [Plan] decides from.
type Request struct {
	Options Options
	Device  Device
	Traits  Traits
	Shape   Shape
	// TrainingStep is the number of training steps taken before this
	// batch's (training only).
	TrainingStep int64
}

// Schedule is how one batch runs.
type Schedule struct {
	// Program: train the batch as one program (Loop.TrainProgram, waiting
	// for its compilation), its per-step data stacked to ProgramSteps.
	Program bool
	// ProgramSteps is the bucket of steps (StepBucket) of the batch's one
	// program when the batch may train as one (StepLoopProgram, or
	// StepLoopAuto and ProgramsEver); 0 otherwise.
	ProgramSteps int
	// CompileProgram: after training this batch in the step loop, compile
	// its one program in the background (ready by ProgramFromTrainingStep,
	// if it can be).
	CompileProgram bool
	// Unrolled: train the batch with the unrolled program (waiting for its
	// compilation), padded to UnrolledSteps algorithm steps.
	Unrolled bool
	// UnrolledSteps is the number of algorithm steps of the batch's
	// unrolled program when the batch may train unrolled (StepLoopUnroll,
	// or StepLoopAuto and the batch fits its bounds); 0 otherwise.
	UnrolledSteps int
	// CompileUnrolled: after training this batch in the step loop, compile
	// its unrolled program in the background (ready by
	// UnrollFromTrainingStep, if it can be).
	CompileUnrolled bool
	// StepsPerCall is the algorithm steps one call of the step loop's
	// training programs runs.
	StepsPerCall int
	// EvalUnrolled: evaluate with the unrolled program (StepLoopUnroll).
	EvalUnrolled bool
	// EvalOnDevice: evaluation's loop over the steps runs on the device.
	EvalOnDevice bool
	// EvalGraphs is the most graphs one evaluation call holds: larger
	// batches are evaluated in parts.
	EvalGraphs int
}

// Plan is the schedule of a batch: the one place that decides how a model
// runs (TestPlan holds its table). It is a pure function of the request.
func Plan(r Request) Schedule {
	o, s := r.Options, r.Shape
	sc := Schedule{StepsPerCall: max(o.StepsPerCall, 1)}
	// Evaluation.
	sc.EvalUnrolled = o.StepLoop == StepLoopUnroll
	sc.EvalOnDevice = !s.StepInputs && (o.EvalLoop == EvalLoopDevice ||
		((o.EvalLoop == "" || o.EvalLoop == EvalLoopAuto) && r.Device == DeviceCUDA))
	budget := o.EvalMemory
	if budget == 0 {
		budget = DefaultEvalMemory
	}
	if r.Device == DeviceCUDA {
		budget *= GPUEvalMemoryFactor
	}
	sc.EvalGraphs = int(max(1, budget/max(s.StepBytes, 1)))
	// Training.
	switch o.StepLoop {
	case StepLoopProgram:
		sc.Program, sc.ProgramSteps = true, StepBucket(s.AlgorithmSteps)
		return sc
	case StepLoopUnroll:
		sc.Unrolled, sc.UnrolledSteps = true, s.AlgorithmSteps
		return sc
	case StepLoopLoop:
		return sc
	}
	if ProgramsEver(o, r.Device, r.Traits) {
		sc.ProgramSteps = StepBucket(s.AlgorithmSteps)
		if r.Device == DeviceCUDA || r.TrainingStep >= ProgramFromTrainingStep {
			sc.Program = true
			return sc
		}
		sc.CompileProgram = r.TrainingStep+1 >= ProgramCompileFromTrainingStep
		return sc
	}
	if !UnrollsEver(o, r.Device, r.Traits) {
		return sc
	}
	// Batches of nearby lengths share one program: the next even number of
	// steps, at most UnrollMaxAlgorithmSteps/2 programs per graph size, for
	// at most one step of extra work (the padded steps change nothing:
	// their hints weigh 0 and no output is read there).
	padded := max(s.AlgorithmSteps, min((s.AlgorithmSteps+1)/2*2, UnrollMaxAlgorithmSteps))
	unrollMemory := o.UnrollMemory
	if unrollMemory == 0 {
		unrollMemory = DefaultUnrollMemory
	}
	// A training step keeps each step's activations for the backward pass:
	// about the widest evaluation step's, per step and graph.
	fits := padded <= UnrollMaxAlgorithmSteps && int64(padded)*int64(s.Graphs)*s.StepBytes <= unrollMemory
	if !fits {
		return sc
	}
	sc.UnrolledSteps = padded
	if r.TrainingStep >= UnrollFromTrainingStep {
		sc.Unrolled = true
		return sc
	}
	sc.CompileUnrolled = r.TrainingStep+1 >= UnrollCompileFromTrainingStep
	return sc
}

// UnrollsEver tells whether a run with these options ever trains a batch
// unrolled on a device with a processor of these traits.
func UnrollsEver(o Options, d Device, t Traits) bool {
	switch o.StepLoop {
	case StepLoopUnroll:
		return true
	case StepLoopLoop, StepLoopProgram:
		return false
	}
	if o.RunSteps > 0 && o.RunSteps < UnrollMinRunTrainingSteps {
		return false
	}
	return AutoUnrolls(d, t) && !ProgramsEver(o, d, t)
}

// ProgramsEver tells whether a run with these options ever trains a batch
// as one program on a device with a processor of these traits.
func ProgramsEver(o Options, d Device, t Traits) bool {
	switch o.StepLoop {
	case StepLoopProgram:
		return true
	case StepLoopLoop, StepLoopUnroll:
		return false
	}
	if d != DeviceCUDA && o.RunSteps > 0 && o.RunSteps < ProgramMinRunTrainingSteps {
		return false
	}
	return AutoPrograms(d, t)
}

// AutoPrograms tells whether StepLoopAuto trains a processor's batches as
// one program on a device: on an NVIDIA card every batch, where the loop's
// 2S+2 program calls a training step at 0.5–2 ms each are most of its time
// (docs/log/gpu-leases-2026-11.md); on XLA's CPU every batch too, where one
// program trains as fast as the unrolled one with less memory and one
// compilation per octave of lengths, and faster than the loop where a step's
// work is small against a call's (segments_intersect); on the pure-Go
// backend (tests) never.
func AutoPrograms(d Device, _ Traits) bool {
	return d == DeviceCUDA || d == DeviceCPU
}

// AutoUnrolls tells whether StepLoopAuto ever trains a processor's short
// batches unrolled on a device: every processor's on an NVIDIA card, where
// each call of the loop's step programs has a fixed cost of about a
// millisecond or two against a step's fraction of one (a Triplet-GMPNN
// mst_prim trains at a quarter of the reference's speed in the loop:
// docs/log/gpu-leases-2026-11.md, fourth lease); elsewhere not a Triplet
// processor's, whose unrolled programs take two to four times the loop's
// memory for a gain that depends on the algorithm and the CPU (bfs
// Triplet-MPNN slower unrolled, insertion_sort's up to 1.5× faster,
// kmp_matcher's Triplet-GMPNN at half the loop's speed: "Where auto's
// unrolling no longer pays", "Training speed with the step loop"), while
// MPNN-family processors gained 1.45×.
func AutoUnrolls(d Device, t Traits) bool {
	return d == DeviceCUDA || !t.Triplets
}
