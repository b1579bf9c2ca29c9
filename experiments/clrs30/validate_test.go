package clrs30

import (
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/lib/nn/engine"
	"github.com/narlab/narlab/lib/trainloop"
)

// TestValidate checks the one validation of a training configuration:
// what it accepts (zero values are the defaults), what it refuses and
// what the message names.
func TestValidate(t *testing.T) {
	ok := Config{Algo: "bfs", Processor: "mpnn", Backend: "go", NoMLflow: true}
	for _, tc := range []struct {
		name   string
		change func(c *Config)
		want   string // "" : accepted
	}{
		{"the defaults", func(c *Config) { *c = Config{Algo: "insertion_sort"} }, ""},
		{"a CPU-sized run", func(c *Config) { c.Steps, c.Hidden, c.Batch, c.TrainLength = 300, 32, 8, 8 }, ""},
		{"every processor", func(c *Config) { c.Processor = "triplet_gmpnn" }, ""},
		{"no algorithm", func(c *Config) { c.Algo = "" }, `--algo "": want an algorithm or a comma-separated list`},
		{"unknown algorithm", func(c *Config) { c.Algo = "bogosort" }, `unknown --algo "bogosort"`},
		{"unknown processor", func(c *Config) { c.Processor = "lstm" }, `unknown --processor "lstm" (want one of `},
		{"unknown hint mode", func(c *Config) { c.HintMode = "nonsense" }, `unknown --hint-mode "nonsense"`},
		{"unknown re-prediction", func(c *Config) { c.HintRepred = "sometimes" }, `unknown --hint-repred "sometimes"`},
		{"unknown step loop", func(c *Config) { c.StepLoop = "while" }, `unknown --step-loop "while"`},
		{"unknown eval loop", func(c *Config) { c.EvalLoop = "gpu" }, `unknown --eval-loop "gpu"`},
		{"negative steps per call", func(c *Config) { c.StepsPerCall = -2 }, "--steps-per-call -2: want 1 to 64"},
		{"too many steps per call", func(c *Config) { c.StepsPerCall = 65 }, "--steps-per-call 65"},
		{"negative steps", func(c *Config) { c.Steps = -1 }, "steps -1"},
		{"unknown train data", func(c *Config) { c.TrainData = "mine" }, `train data "mine"`},
		{"contradicting data", func(c *Config) { c.TrainData, c.TrainLength = "lengths", 8 }, "contradict"},
		{"too wide for memory", func(c *Config) { c.Hidden, c.Batch = 256, 4096 }, "--hidden 256 with --batch 4096"},
		{"fixed set too large", func(c *Config) { c.Algo, c.TrainLength = "floyd_warshall", 64 }, "--train-length 64: 1000 floyd_warshall samples"},
		{"unknown backend", func(c *Config) { c.Backend = "tpu" }, `unknown backend "tpu"`},
		{"parent run offline", func(c *Config) { c.ParentRun = "abc" }, "--parent-run, --tag and --register place the run in MLflow"},
		{"registered offline", func(c *Config) { c.Register = "m" }, "place the run in MLflow"},
		{"register name with spaces", func(c *Config) { c.NoMLflow, c.Register = false, " m " }, `--register " m "`},
		{"the model options", func(c *Config) {
			c.Processor, c.Heads, c.MsgPassingSteps, c.NoLayerNorm, c.LSTM, c.Dropout = "gat_full", 4, 3, true, true, 0.3
		}, ""},
		{"heads of an MPNN", func(c *Config) { c.Heads = 2 }, "nb_heads 2: processor mpnn has no attention heads"},
		{"heads not dividing", func(c *Config) { c.Processor, c.Heads, c.Hidden = "gatv2", 3, 32 }, "nb_heads 3 does not divide the hidden size 32"},
		{"triplet width of an MPNN", func(c *Config) { c.TripletFeatures = 4 }, "nb_triplet_fts 4: processor mpnn has no triplet messages"},
		{"memnet's layer norm", func(c *Config) { c.Processor, c.NoLayerNorm = "memnet", true }, "use_ln off: processor memnet has no layer norm"},
		{"dropout of 1", func(c *Config) { c.Dropout = 1 }, "dropout_prob 1: want a probability in [0, 1)"},
		{"unknown encoder init", func(c *Config) { c.EncoderInit = "xavier" }, `unknown encoder_init "xavier"`},
		{"LSTM training without an LSTM", func(c *Config) { c.TrainLSTM = true }, "train_lstm without use_lstm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.change(&c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
			if err := c.ValidateElsewhere(); (err == nil) != (tc.want == "") {
				t.Errorf("ValidateElsewhere: %v; Validate: %v", err, c.Validate())
			}
		})
	}
}

// TestValidateElsewhere checks that a plugin path is looked for only when
// the run is on this machine.
func TestValidateElsewhere(t *testing.T) {
	c := Config{Algo: "bfs", Backend: "xla:/nowhere/pjrt_c_api_cpu_plugin.so", NoMLflow: true}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "/nowhere/") {
		t.Errorf("Validate: %v, want the missing plugin named", err)
	}
	if err := c.ValidateElsewhere(); err != nil {
		t.Errorf("ValidateElsewhere: %v, want the plugin left to the machine that runs the cell", err)
	}
}

// TestLongRunWarning checks the warning printed once a run's first steps
// are timed: none for a run of an hour or less, else the estimate and
// how to shorten it (CPU or GPU).
func TestLongRunWarning(t *testing.T) {
	c := Config{Algo: "insertion_sort"}
	if err := c.defaults(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		backend string
		per     time.Duration
		step    int
		want    []string // "" : no warning
	}{
		{"minutes", "xla-cpu", 300 * time.Millisecond, 10, nil},
		{"just an hour", "xla-cpu", 360 * time.Millisecond, 0, nil},
		{"the paper's protocol on a CPU", "xla-cpu", 26 * time.Second, 10, []string{
			"needs about 72h09m more on xla-cpu: 9990 steps left at 26s a step", "--steps 23 ",
			"--processor pgn --hidden 32 --batch 8 --train-length 8", "narlab train --algo insertion_sort",
			"(10000 steps of triplet_gmpnn, hidden 128, batch 32) is a GPU job"}},
		{"a long GPU run", "xla-cuda", 2 * time.Second, 10, []string{"on xla-cuda", "fewer --steps"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := trainloop.Projection{Step: tc.step, Steps: c.Steps, PerStep: tc.per, Left: tc.per * time.Duration(c.Steps-tc.step)}
			got := LongRunWarning(c, tc.backend, p)
			if (got == "") != (tc.want == nil) {
				t.Fatalf("warning %q, want one: %v", got, tc.want != nil)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("warning lacks %q:\n%s", w, got)
				}
			}
		})
	}
}

// TestSpeedOptionsNotSettings checks that the options that change speed,
// not the function (step loop, evaluation loop, steps per call), reach the
// model but leave a run's settings, and so its directory and the resume
// check, as they are: a run resumes under other options.
func TestSpeedOptionsNotSettings(t *testing.T) {
	base := Config{Algo: "bfs", Processor: "mpnn", Steps: 300}
	if err := base.defaults(); err != nil {
		t.Fatal(err)
	}
	fast := base
	fast.StepLoop, fast.EvalLoop, fast.StepsPerCall = engine.StepLoopUnroll, engine.EvalLoopDevice, 16
	if a, b := base.settings().ID(), fast.settings().ID(); a != b {
		t.Errorf("settings id %s with the default options, %s with others", a, b)
	}
	// The run's length goes with them: the engine unrolls only long runs.
	want := engine.Options{StepLoop: engine.StepLoopUnroll, EvalLoop: engine.EvalLoopDevice, StepsPerCall: 16, RunSteps: 300}
	if m := fast.modelConfig(); m.Exec != want {
		t.Errorf("the model gets %+v, want %+v", m.Exec, want)
	}
	if base.EvalLoop != engine.EvalLoopAuto {
		t.Errorf("default evaluation loop %q, want %q", base.EvalLoop, engine.EvalLoopAuto)
	}
	changed := base
	changed.Hidden = 2 * max(base.Hidden, 1)
	if base.settings().ID() == changed.settings().ID() {
		t.Error("the settings id does not change with --hidden: the comparison above checks nothing")
	}
}
