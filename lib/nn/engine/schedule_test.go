package engine

import "testing"

// TestPlan is the schedule's table: for each request (options, device,
// processor traits, batch shape, training step), how the batch runs.
func TestPlan(t *testing.T) {
	const mib = 1 << 20
	short := Shape{Graphs: 32, AlgorithmSteps: 15, StepBytes: mib} // an insertion_sort batch at n=16
	long := Shape{Graphs: 32, AlgorithmSteps: 47, StepBytes: mib}  // dfs
	wide := Shape{Graphs: 32, AlgorithmSteps: 15, StepBytes: 16 * mib}
	triplets := Traits{Triplets: true}
	loop := func(o Options) Options { o.StepLoop = StepLoopLoop; return o }
	unroll := func(o Options) Options { o.StepLoop = StepLoopUnroll; return o }
	cases := []struct {
		name string
		r    Request
		want Schedule
	}{
		{"auto, first step: the loop", Request{Shape: short, Device: DeviceCPU},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, ProgramSteps: 16}},
		{"auto, the step before the background compilation", Request{Shape: short, Device: DeviceCPU, TrainingStep: ProgramCompileFromTrainingStep - 2},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, ProgramSteps: 16}},
		{"auto, compiling the one program in the background", Request{Shape: short, Device: DeviceCPU, TrainingStep: ProgramCompileFromTrainingStep - 1},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, ProgramSteps: 16, CompileProgram: true}},
		{"auto, one program from its training step, its steps bucketed", Request{Shape: short, Device: DeviceCPU, TrainingStep: ProgramFromTrainingStep},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, ProgramSteps: 16, Program: true}},
		{"auto, a long batch as one program too", Request{Shape: long, Device: DeviceCPU, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, ProgramSteps: 64, Program: true}},
		{"auto, Triplet processors as one program on a CPU", Request{Shape: short, Device: DeviceCPU, Traits: triplets, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, ProgramSteps: 16, Program: true}},
		{"auto, a wide batch as one program (no unrolled activations to keep)", Request{Shape: wide, Device: DeviceCPU, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 16, ProgramSteps: 16, Program: true}},
		{"auto, a run shorter than the threshold stays in the loop on a CPU", Request{Options: Options{RunSteps: ProgramMinRunTrainingSteps - 1}, Shape: short, Device: DeviceCPU, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256}},
		{"auto, a run at the threshold trains as one program", Request{Options: Options{RunSteps: ProgramMinRunTrainingSteps}, Shape: short, Device: DeviceCPU, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, ProgramSteps: 16, Program: true}},
		{"auto, one program from the first step on an NVIDIA card, which evaluates on the device with a larger budget", Request{Shape: short, Device: DeviceCUDA, Traits: triplets},
			Schedule{StepsPerCall: 1, EvalGraphs: 4096, EvalOnDevice: true, ProgramSteps: 16, Program: true}},
		{"auto, a short run on a card as one program too", Request{Options: Options{RunSteps: 10}, Shape: long, Device: DeviceCUDA},
			Schedule{StepsPerCall: 1, EvalGraphs: 4096, EvalOnDevice: true, ProgramSteps: 64, Program: true}},
		{"auto on pure Go: the loop first", Request{Shape: short, Device: DeviceGo},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: 16}},
		{"auto on pure Go: compiling the unrolled program in the background", Request{Shape: short, Device: DeviceGo, TrainingStep: UnrollCompileFromTrainingStep - 1},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: 16, CompileUnrolled: true}},
		{"auto on pure Go: unrolled from its training step, padded to an even length", Request{Shape: Shape{Graphs: 32, AlgorithmSteps: 15, StepBytes: mib}, Device: DeviceGo, TrainingStep: UnrollFromTrainingStep},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: 16, Unrolled: true}},
		{"auto on pure Go: a long batch stays in the loop", Request{Shape: long, Device: DeviceGo, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256}},
		{"auto on pure Go: a batch at the length bound", Request{Shape: Shape{Graphs: 4, AlgorithmSteps: UnrollMaxAlgorithmSteps, StepBytes: mib}, Device: DeviceGo, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: UnrollMaxAlgorithmSteps, Unrolled: true}},
		{"auto on pure Go: 23 steps pad to 24, not beyond the bound", Request{Shape: Shape{Graphs: 4, AlgorithmSteps: 23, StepBytes: mib}, Device: DeviceGo, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: 24, Unrolled: true}},
		{"auto on pure Go: beyond the unroll memory budget", Request{Shape: wide, Device: DeviceGo, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 16}},
		{"auto on pure Go: a larger unroll budget", Request{Options: Options{UnrollMemory: 16 << 30}, Shape: wide, Device: DeviceGo, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 16, UnrolledSteps: 16, Unrolled: true}},
		{"auto on pure Go: Triplet processors stay in the loop", Request{Shape: short, Device: DeviceGo, Traits: triplets, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256}},
		{"auto on pure Go: a run shorter than the unrolling threshold stays in the loop", Request{Options: Options{RunSteps: UnrollMinRunTrainingSteps - 1}, Shape: short, Device: DeviceGo, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256}},
		{"loop, whatever the step", Request{Options: loop(Options{}), Shape: short, Device: DeviceCUDA, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 4096, EvalOnDevice: true}},
		{"unroll, unpadded, and evaluation unrolled", Request{Options: unroll(Options{}), Shape: long, Device: DeviceCPU, Traits: triplets},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: 47, Unrolled: true, EvalUnrolled: true}},
		{"program: every batch trains as one program from the first step, its steps bucketed", Request{Options: Options{StepLoop: StepLoopProgram}, Shape: long, Device: DeviceGo, Traits: triplets},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, Program: true, ProgramSteps: 64}},
		{"steps a call", Request{Options: loop(Options{StepsPerCall: 4}), Shape: short, Device: DeviceCPU},
			Schedule{StepsPerCall: 4, EvalGraphs: 256}},
		{"evaluation on the device when asked", Request{Options: loop(Options{EvalLoop: EvalLoopDevice}), Shape: short, Device: DeviceGo},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, EvalOnDevice: true}},
		{"evaluation on the host when asked, on a card", Request{Options: loop(Options{EvalLoop: EvalLoopHost}), Shape: short, Device: DeviceCUDA},
			Schedule{StepsPerCall: 1, EvalGraphs: 4096}},
		{"inputs given at each step evaluate on the host", Request{Options: loop(Options{EvalLoop: EvalLoopDevice}), Shape: Shape{StepInputs: true, StepBytes: mib}, Device: DeviceCUDA},
			Schedule{StepsPerCall: 1, EvalGraphs: 4096}},
		{"a smaller evaluation budget", Request{Options: loop(Options{EvalMemory: 8 * mib}), Shape: short, Device: DeviceCPU},
			Schedule{StepsPerCall: 1, EvalGraphs: 8}},
		{"a step wider than the budget: one graph a call", Request{Options: loop(Options{}), Shape: Shape{StepBytes: 1 << 30}, Device: DeviceCPU},
			Schedule{StepsPerCall: 1, EvalGraphs: 1}},
	}
	for _, c := range cases {
		if got := Plan(c.r); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestUnrollsEver(t *testing.T) {
	for _, c := range []struct {
		o    Options
		d    Device
		t    Traits
		want bool
	}{
		{Options{}, DeviceGo, Traits{}, true},
		{Options{}, DeviceGo, Traits{Triplets: true}, false},
		{Options{}, DeviceCPU, Traits{}, false}, // one program instead
		{Options{RunSteps: 300}, DeviceCPU, Traits{}, false},
		{Options{}, DeviceCUDA, Traits{Triplets: true}, false},
		{Options{RunSteps: 300}, DeviceCUDA, Traits{}, false},
		{Options{StepLoop: StepLoopLoop}, DeviceCUDA, Traits{}, false},
		{Options{StepLoop: StepLoopUnroll, RunSteps: 10}, DeviceGo, Traits{Triplets: true}, true},
		{Options{StepLoop: StepLoopProgram}, DeviceCUDA, Traits{}, false},
	} {
		if got := UnrollsEver(c.o, c.d, c.t); got != c.want {
			t.Errorf("UnrollsEver(%+v, %s, %+v) = %v, want %v", c.o, c.d, c.t, got, c.want)
		}
	}
}

func TestProgramsEver(t *testing.T) {
	for _, c := range []struct {
		o    Options
		d    Device
		t    Traits
		want bool
	}{
		{Options{}, DeviceCUDA, Traits{Triplets: true}, true},
		{Options{RunSteps: 10}, DeviceCUDA, Traits{}, true},
		{Options{}, DeviceCPU, Traits{Triplets: true}, true},
		{Options{RunSteps: ProgramMinRunTrainingSteps}, DeviceCPU, Traits{}, true},
		{Options{RunSteps: ProgramMinRunTrainingSteps - 1}, DeviceCPU, Traits{}, false},
		{Options{}, DeviceGo, Traits{}, false},
		{Options{StepLoop: StepLoopProgram}, DeviceGo, Traits{}, true},
		{Options{StepLoop: StepLoopLoop}, DeviceCUDA, Traits{}, false},
		{Options{StepLoop: StepLoopUnroll}, DeviceCUDA, Traits{}, false},
	} {
		if got := ProgramsEver(c.o, c.d, c.t); got != c.want {
			t.Errorf("ProgramsEver(%+v, %s, %+v) = %v, want %v", c.o, c.d, c.t, got, c.want)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{
		{StepLoop: "sometimes"}, {EvalLoop: "gpu"}, {StepsPerCall: -1}, {StepsPerCall: MaxStepsPerCall + 1},
		{RunSteps: -1}, {EvalMemory: -1}, {UnrollMemory: -5},
	} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	for _, o := range []Options{{}, {StepLoop: StepLoopUnroll, EvalLoop: EvalLoopDevice, StepsPerCall: MaxStepsPerCall, RunSteps: 5}} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
}
