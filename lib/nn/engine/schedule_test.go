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
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: 16}},
		{"auto, the step before the background compilation", Request{Shape: short, Device: DeviceCPU, TrainingStep: UnrollCompileFromTrainingStep - 2},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: 16}},
		{"auto, compiling in the background", Request{Shape: short, Device: DeviceCPU, TrainingStep: UnrollCompileFromTrainingStep - 1},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: 16, CompileUnrolled: true}},
		{"auto, unrolled from its training step, padded to an even length", Request{Shape: short, Device: DeviceCPU, TrainingStep: UnrollFromTrainingStep},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: 16, Unrolled: true}},
		{"auto, a long batch stays in the loop", Request{Shape: long, Device: DeviceCPU, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256}},
		{"auto, a batch at the length bound", Request{Shape: Shape{Graphs: 4, AlgorithmSteps: UnrollMaxAlgorithmSteps, StepBytes: mib}, Device: DeviceGo, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: UnrollMaxAlgorithmSteps, Unrolled: true}},
		{"auto, 23 steps pad to 24, not beyond the bound", Request{Shape: Shape{Graphs: 4, AlgorithmSteps: 23, StepBytes: mib}, Device: DeviceGo, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: 24, Unrolled: true}},
		{"auto, beyond the unroll memory budget", Request{Shape: wide, Device: DeviceCPU, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 16}},
		{"auto, a larger unroll budget", Request{Options: Options{UnrollMemory: 16 << 30}, Shape: wide, Device: DeviceCPU, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 16, UnrolledSteps: 16, Unrolled: true}},
		{"auto, Triplet processors stay in the loop on a CPU", Request{Shape: short, Device: DeviceCPU, Traits: triplets, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256}},
		{"auto, and unroll on an NVIDIA card, which evaluates on the device with a larger budget", Request{Shape: short, Device: DeviceCUDA, Traits: triplets, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 4096, EvalOnDevice: true, UnrolledSteps: 16, Unrolled: true}},
		{"auto, a run shorter than the unrolling threshold stays in the loop", Request{Options: Options{RunSteps: UnrollMinRunTrainingSteps - 1}, Shape: short, Device: DeviceCUDA, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 4096, EvalOnDevice: true}},
		{"auto, a run at the threshold unrolls", Request{Options: Options{RunSteps: UnrollMinRunTrainingSteps}, Shape: short, Device: DeviceCPU, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: 16, Unrolled: true}},
		{"loop, whatever the step", Request{Options: loop(Options{}), Shape: short, Device: DeviceCUDA, TrainingStep: 100},
			Schedule{StepsPerCall: 1, EvalGraphs: 4096, EvalOnDevice: true}},
		{"unroll, unpadded, and evaluation unrolled", Request{Options: unroll(Options{}), Shape: long, Device: DeviceCPU, Traits: triplets},
			Schedule{StepsPerCall: 1, EvalGraphs: 256, UnrolledSteps: 47, Unrolled: true, EvalUnrolled: true}},
		{"program: every batch trains as one program, its steps bucketed", Request{Options: Options{StepLoop: StepLoopProgram}, Shape: long, Device: DeviceCPU, Traits: triplets},
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
		{Options{}, DeviceCPU, Traits{}, true},
		{Options{}, DeviceCPU, Traits{Triplets: true}, false},
		{Options{}, DeviceCUDA, Traits{Triplets: true}, true},
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
