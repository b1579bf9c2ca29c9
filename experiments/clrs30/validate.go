package clrs30

import (
	"fmt"
	"slices"
	"strings"

	"github.com/narlab/narlab/internal/membudget"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/lib/nn/engine"
)

// Validate checks a training configuration before any work, as Run does
// first: every name (algorithm, processor, hint modes, step loop), the
// numbers (steps, batch, lengths, sample caps), settings that contradict
// each other, the memory an edge activation and a fixed training set would
// take (internal/membudget), the backend (an XLA plugin named by path must
// exist on this machine), and the MLflow-only settings of a run that logs
// nothing. `narlab train` and every cell of `narlab sweep run` are checked
// with it (ValidateElsewhere for cells that may run on other machines).
// Zero values stand for the defaults, as in Run.
func (c Config) Validate() error { return c.validate(true) }

// ValidateElsewhere is Validate for a run that will run on another machine
// (a sweep's cell on a cluster node): an XLA plugin named by path is not
// looked for here.
func (c Config) ValidateElsewhere() error { return c.validate(false) }

func (c Config) validate(pluginHere bool) error {
	if err := c.validateAlgorithms(); err != nil {
		return err
	}
	if err := c.defaults(); err != nil { // c is a copy
		return err
	}
	for _, name := range []struct {
		flag, value string
		known       []string
	}{
		{"processor", c.Processor, nn.Processors()},
		{"hint-mode", c.HintMode, nn.HintModes},
		{"hint-repred", c.HintRepred, nn.HintRepredModes},
		{"step-loop", c.StepLoop, engine.StepLoopModes},
		{"eval-loop", c.EvalLoop, engine.EvalLoopModes},
	} {
		if !slices.Contains(name.known, name.value) {
			return fmt.Errorf("train: unknown --%s %q (want one of %s)", name.flag, name.value, strings.Join(name.known, ", "))
		}
	}
	if c.StepsPerCall < 0 || c.StepsPerCall > engine.MaxStepsPerCall {
		return fmt.Errorf("train: --steps-per-call %d: want 1 to %d", c.StepsPerCall, engine.MaxStepsPerCall)
	}
	if err := c.modelConfig().Validate(); err != nil { // the model options, by the reference's names
		return fmt.Errorf("train: %s", strings.TrimPrefix(err.Error(), "nn: "))
	}
	// One edge activation of the processor holds batch × n² × hidden
	// float32s, in training (n = 16 or TrainLength) and in the test
	// split's evaluation (32 graphs of 64 nodes).
	n := 16
	if c.TrainLength > 0 {
		n = c.TrainLength
	}
	edges := max(float64(c.Batch*n*n), 32*64*64)
	if err := membudget.Check("hidden channels of an edge activation (batch × n² float32s)", c.Hidden, 4*edges, "; lower --hidden or --batch"); err != nil {
		return fmt.Errorf("train: --hidden %d with --batch %d: %w", c.Hidden, c.Batch, err)
	}
	if c.TrainLength > 0 { // Run holds 1000 fixed samples of this length, per algorithm
		var per float64
		var err error
		for _, a := range c.Algorithms() {
			var b float64
			if b, err = clrs.SampleBytes(a, c.TrainLength, 1); err != nil {
				break
			}
			per += b
		}
		if err == nil {
			err = membudget.Check(fmt.Sprintf("%s samples of length %d", c.Algo, c.TrainLength), 1000, per,
				" (lower --train-length; the training set is 1000 samples)")
		}
		if err != nil {
			return fmt.Errorf("train: --train-length %d: %w", c.TrainLength, err)
		}
	}
	if err := c.validateNeedle(); err != nil {
		return err
	}
	if err := nn.CheckBackend(c.Backend, pluginHere); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if c.NoMLflow && (c.ParentRun != "" || len(c.Tags) > 0 || c.Register != "") {
		return fmt.Errorf("train: --parent-run, --tag and --register place the run in MLflow, but --no-mlflow (or --tracking none) logs nothing; give one or the other")
	}
	if c.Register != "" && (strings.TrimSpace(c.Register) != c.Register || len(c.Register) > 256) {
		return fmt.Errorf("train: --register %q: a registered model name of at most 256 characters, without surrounding spaces", c.Register)
	}
	return nil
}

// validateAlgorithms checks --algo: one known algorithm, or several
// (comma- or plus-separated), each known and named once.
func (c Config) validateAlgorithms() error {
	parts := strings.FieldsFunc(c.Algo, func(r rune) bool { return r == ',' || r == '+' })
	if strings.TrimSpace(c.Algo) == "" || len(parts) != strings.Count(c.Algo, ",")+strings.Count(c.Algo, "+")+1 {
		return fmt.Errorf("train: --algo %q: want an algorithm or a comma-separated list of them, e.g. bfs,dfs,insertion_sort", c.Algo)
	}
	for i, a := range parts {
		a = strings.TrimSpace(a)
		if _, ok := clrs.Specs[a]; !ok {
			if len(parts) == 1 {
				return fmt.Errorf("train: unknown --algo %q (see `narlab clrs algos`)", a)
			}
			return fmt.Errorf("train: unknown algorithm %q in --algo %q (see `narlab clrs algos`)", a, c.Algo)
		}
		for _, b := range parts[:i] {
			if strings.TrimSpace(b) == a {
				return fmt.Errorf("train: --algo %q names %s twice", c.Algo, a)
			}
		}
	}
	return nil
}

// needleFits reports whether a string matcher's samples of length n hold
// needles of the setting (LengthNeedle; 0: the sampler's rule): the
// haystack, n less the needle, must leave room for the needle and more
// (the sampler draws where to embed it among haystack − needle places).
func needleFits(n, needle int) bool {
	k := needle
	switch {
	case k < 0:
		k = -k // the longest needle drawn
	case k == 0 && n < 5:
		k = 1
	case k == 0:
		k = n / 5
	}
	return n-2*k >= 1
}

// validateNeedle refuses a string matcher whose training samples (at 5/4
// of the longest training length) cannot hold the needles asked for: the
// reference's sampler fails there too.
func (c Config) validateNeedle() error {
	if !c.needles() {
		return nil
	}
	for _, a := range c.Algorithms() {
		if !slices.Contains(StringMatchers, a) {
			continue
		}
		if n := c.trainLengthsOf(a)[0]; !needleFits(n, c.LengthNeedle) {
			return fmt.Errorf("train: --length-needle %d: %s trains at length %d (5/4 of the longest of --train-lengths, as run.py), "+
				"where a needle that long leaves its haystack no room (the reference's MatcherSampler fails too: "+
				"\"a must be greater than 0\"); give a shorter needle, 0 for the sampler's own rule, or longer --train-lengths", c.LengthNeedle, a, n)
		}
	}
	return nil
}

// ReferenceNeedleFailure says, for a run whose settings the reference's
// run.py cannot run, why: run.py validates a string matcher on samples of
// the longest training length drawn with the same needles, and where those
// cannot hold the needles (run.py's defaults, -8 with lengths up to 16) its
// MatcherSampler raises before training starts. narlab validates on the
// CLRS-30 val split (made with the sampler's own needles) and runs them.
// "" when run.py can run the settings.
func (c Config) ReferenceNeedleFailure() string {
	if err := c.defaults(); err != nil || !c.needles() || c.LengthNeedle == 0 { // c is a copy
		return ""
	}
	n := slices.Max(c.TrainLengths)
	if needleFits(n, c.LengthNeedle) {
		return ""
	}
	return fmt.Sprintf("run.py cannot run these settings: it validates the string matchers at length %d with needles of up to %d characters, "+
		"which leave their haystack no room (dm-clrs 2.0.3's MatcherSampler raises \"a must be greater than 0\" before training); "+
		"narlab validates on the CLRS-30 val split and trains at length %d, which hold them", n, max(c.LengthNeedle, -c.LengthNeedle),
		n*5/4)
}
