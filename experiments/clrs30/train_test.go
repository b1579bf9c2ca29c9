package clrs30

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/narlab/narlab/lib/nn"
)

// tiny is a run small enough for the pure-Go backend: insertion_sort (its
// permutation pointer draws Gumbel noise), with dropout and teacher forcing
// (more draws, all keyed by the training step), on fresh samples with
// random positions (two more, host RNGs).
//
// With -short the processor is mpnn: the triplets of Triplet-GMPNN on the
// test split's 64 nodes take most of a run's time on the pure-Go backend,
// and resuming does not depend on the processor.
func tiny(dir string) Config {
	processor := "triplet_gmpnn"
	if testing.Short() {
		processor = "mpnn"
	}
	return Config{Algo: "insertion_sort", Processor: processor, Steps: 8, Batch: 4, Hidden: 8, EvalEvery: 3,
		TrainLengths: []int{4}, ValSamples: 4, TestSamples: 4, Dir: dir, NoMLflow: true, Backend: "go",
		Dropout: 0.2, TeacherForcing: 0.3}
}

var (
	fullOnce sync.Once
	fullRes  *Result
	fullErr  error
)

// uninterrupted returns the tiny run made without interruption, once per
// test binary (it is deterministic): the resume tests compare with it.
func uninterrupted(t *testing.T) *Result {
	t.Helper()
	fullOnce.Do(func() {
		dir, err := os.MkdirTemp("", "narlab-clrs30-full-")
		if err != nil {
			fullErr = err
			return
		}
		defer os.RemoveAll(dir)
		fullRes, fullErr = Run(context.Background(), tiny(dir))
	})
	if fullErr != nil {
		t.Fatal(fullErr)
	}
	return fullRes
}

// TestResumeIsExact interrupts a run (by cancelling its context) after
// several steps, reruns the same configuration, and checks that the
// resumed run's loss of every step, validation history and test scores
// equal an uninterrupted run's exactly. The runs use the pure-Go backend,
// one core each: the cases run in parallel.
func TestResumeIsExact(t *testing.T) {
	t.Parallel()
	full := uninterrupted(t)
	if len(full.Losses) != 8 || len(full.History) != 3 {
		t.Fatalf("uninterrupted run: %d losses, history %+v; want 8 losses and validations at 3, 6, 8",
			len(full.Losses), full.History)
	}
	for _, stopAt := range []int{2, 6, 7} { // before the first validation, between two, before the last step
		t.Run(fmt.Sprintf("stop after step %d", stopAt), func(t *testing.T) {
			t.Parallel()
			resumeAfter(t, stopAt, full)
		})
	}
}

// resumeAfter interrupts the tiny run after step stopAt, resumes it, and
// compares with the uninterrupted run.
func resumeAfter(t *testing.T, stopAt int, full *Result) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cfg := tiny(dir)
	cfg.AfterStep = func(step int, _ float64) {
		if step == stopAt {
			cancel()
		}
	}
	_, err := Run(ctx, cfg)
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stop at %d: got %v, want an interruption", stopAt, err)
	}
	res, err := Run(context.Background(), tiny(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Losses, full.Losses) {
		t.Errorf("stopped after step %d: losses\n%v\nwant\n%v", stopAt, res.Losses, full.Losses)
	}
	if !slices.Equal(res.History, full.History) {
		t.Errorf("stopped after step %d: history %+v, want %+v", stopAt, res.History, full.History)
	}
	if res.Test["score"] != full.Test["score"] || res.BestStep != full.BestStep {
		t.Errorf("stopped after step %d: test %v best step %d, want %v and %d", stopAt, res.Test["score"],
			res.BestStep, full.Test["score"], full.BestStep)
	}
}

// TestRerunOtherSettings checks that a run directory holding one run's
// checkpoints refuses a run of other settings and keeps its best/, and
// that more steps extend a finished run.
func TestRerunOtherSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := tiny(dir)
	cfg.Steps = 3
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, "best", "nn_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	other := cfg
	other.LR = 3e-3
	if _, err := Run(context.Background(), other); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Fatalf("a rerun with another learning rate: got %v, want a refusal", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "best", "nn_config.json"))
	if string(after) != string(before) {
		t.Error("the refused run changed best/")
	}
	cfg.Steps = 5
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Losses) != 5 || res.History[len(res.History)-1].Step != 5 {
		t.Errorf("extended run: %d losses, history %+v; want 5 losses and a validation at 5", len(res.Losses), res.History)
	}
	// The best checkpoint scores the same through Evaluate.
	sc, err := Evaluate(filepath.Join(dir, "best"), "test", "go", 4)
	if err != nil {
		t.Fatal(err)
	}
	if sc["score"] != res.Test["score"] {
		t.Errorf("Evaluate gives %v, the run %v", sc["score"], res.Test["score"])
	}
}

// TestRerunFinished checks a rerun in the directory of a finished run: the
// same command reports the saved results and says so (nothing trained,
// tested or logged); one asking for other execution options (a step loop
// that would change the speed, not the function) or other settings is
// refused, saying what differs, and the directory is left as it was.
func TestRerunFinished(t *testing.T) {
	dir := t.TempDir()
	cfg := tiny(dir)
	cfg.Steps = 3
	first, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if first.Saved {
		t.Fatal("a run in a new directory reports saved results")
	}
	result, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	again := cfg
	again.Progress = &said
	res, err := Run(context.Background(), again)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Saved || !strings.Contains(said.String(), "reporting its saved results") ||
		!strings.Contains(said.String(), "--step-loop auto --eval-loop auto --steps-per-call 1 on go") {
		t.Errorf("the same command again: saved %v, said %q; want the saved results, said so with how they were trained", res.Saved, said.String())
	}
	if res.Test["score"] != first.Test["score"] || res.BestStep != first.BestStep || !slices.Equal(res.Losses, first.Losses) ||
		res.StepsPerS != first.StepsPerS {
		t.Errorf("saved results %+v, the run's %+v", res, first)
	}
	for _, c := range []struct {
		name   string
		change func(*Config)
		want   []string
	}{
		{"another step loop", func(c *Config) { c.StepLoop = "unroll" }, []string{"holds this run finished (3 steps)",
			"trained with --step-loop auto", "asks for --step-loop unroll", "another --dir"}},
		{"more steps a call", func(c *Config) { c.StepsPerCall = 2 }, []string{"--steps-per-call 2", "another --dir"}},
		{"another width", func(c *Config) { c.Hidden = 16 }, []string{"other settings", "model.hidden 8 there, 16 here"}},
		{"no clipping", func(c *Config) { c.NoGradClip = true }, []string{"model.grad_clip 1 there, 0 here", "model.no_grad_clip unset there, true here"}},
	} {
		other := cfg
		c.change(&other)
		_, err := Run(context.Background(), other)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: got %v, want an error saying %q", c.name, err, w)
			}
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "result.json")); string(after) != string(result) {
		t.Error("a refused or reported rerun changed result.json")
	}
}

// TestParamsTrue checks that the logged training data follows the
// settings in effect.
func TestParamsTrue(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Algo: "bfs", Dir: "x"}, "lengths [4 7 11 13 16]"},
		{Config{Algo: "bfs", Dir: "x", TrainData: "split"}, "CLRS-30 train split"},
		{Config{Algo: "bfs", Dir: "x", TrainLength: 8}, "n=8"},
		{Config{Algo: "bfs", Dir: "x", TrainLengths: []int{16}}, "lengths [16]"},
	} {
		if err := c.cfg.defaults(); err != nil {
			t.Fatal(err)
		}
		if got := c.cfg.Params()["train_data"]; !strings.Contains(got, c.want) {
			t.Errorf("%+v: train_data %q, want it to mention %q", c.cfg, got, c.want)
		}
	}
	// The model options, under the reference's names, with the values in
	// effect.
	for _, c := range []struct {
		cfg  Config
		want map[string]string
	}{
		{Config{Algo: "bfs", Dir: "x"}, map[string]string{"nb_msg_passing_steps": "1", "use_ln": "true", "use_lstm": "false",
			"dropout_prob": "0", "encoder_init": "xavier_on_scalars", "freeze_processor": "false", "nb_triplet_fts": "8"}},
		{Config{Algo: "bfs", Dir: "x", Processor: "gatv2_full", Heads: 4, MsgPassingSteps: 2, NoLayerNorm: true, LSTM: true,
			TrainLSTM: true, Dropout: 0.5, EncoderInit: "default", FreezeProcessor: true},
			map[string]string{"nb_heads": "4", "nb_msg_passing_steps": "2", "use_ln": "false", "use_lstm": "true", "train_lstm": "true",
				"dropout_prob": "0.5", "encoder_init": "default", "freeze_processor": "true"}},
		{Config{Algo: "bfs", Dir: "x", Processor: "triplet_mpnn", TripletFeatures: 16}, map[string]string{"nb_triplet_fts": "16"}},
	} {
		if err := c.cfg.defaults(); err != nil {
			t.Fatal(err)
		}
		p := c.cfg.Params()
		for k, v := range c.want {
			if p[k] != v {
				t.Errorf("%s %s: param %s %q, want %q", c.cfg.Algo, c.cfg.Processor, k, p[k], v)
			}
		}
	}
}

// TestAutoStepLoop checks the step_loop param a run logs under auto: its
// model unrolls only in long runs of a processor other than the Triplet
// ones (on a CPU backend; engine.TestPlan holds the rule).
func TestAutoStepLoop(t *testing.T) {
	be, err := nn.Backend("go") // a CPU backend: Triplet processors stay in the loop
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		processor string
		steps     int
		logged    string // the start of the step_loop param on a CPU
	}{
		{"mpnn", 10000, "auto (one compiled step in a loop; from training step"},
		{"mpnn", 300, "auto: loop"},
		{"triplet_gmpnn", 10000, "auto: loop"},
		{"triplet_mpnn", 300, "auto: loop"},
	} {
		cfg := Config{Algo: "bfs", Processor: c.processor, Steps: c.steps, Dir: "x"}
		if err := cfg.defaults(); err != nil {
			t.Fatal(err)
		}
		m, err := nn.New(be, cfg.modelConfig())
		if err != nil {
			t.Fatal(err)
		}
		if got := stepLoopName(cfg.StepLoop, m.UnrollsEver(), m.ProgramsEver()); !strings.HasPrefix(got, c.logged) {
			t.Errorf("%s, %d steps: step_loop %q, want it to start %q", c.processor, c.steps, got, c.logged)
		}
		m.Close()
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Algo: "bfs", Processor: "mpnn", Steps: -1}, "steps"},
		{Config{Algo: "bfs", Processor: "mpnn", Batch: -2}, "batch"},
		{Config{Algo: "bfs", Processor: "lstm", NoMLflow: true, Dir: "x"}, `unknown --processor "lstm"`},
		{Config{Algo: "bfs", Processor: "mpnn", Backend: "nosuch", NoMLflow: true, Dir: "x"}, "backend"},
		{Config{Algo: "bfs", TrainData: "nosuch", Dir: "x"}, "train data"},
		{Config{Algo: "bfs", TrainData: "lengths", TrainLength: 8, Dir: "x"}, "contradict"},
	} {
		_, err := Run(context.Background(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want an error containing %q", c.cfg, err, c.want)
		}
	}
}

// TestRunName checks that a run's name says what ran and differs between
// two sessions of the same settings.
func TestRunName(t *testing.T) {
	c := Config{Algo: "bfs", Processor: "mpnn", Hidden: 64, Batch: 16, TrainData: "split", Dir: "x"}
	if err := c.defaults(); err != nil {
		t.Fatal(err)
	}
	a, b := RunName(c, 0), RunName(c, 150)
	for _, want := range []string{"bfs/mpnn", "h64", "b16", "split", "s42", c.settings().ID()} {
		if !strings.Contains(a, want) {
			t.Errorf("run name %q lacks %q", a, want)
		}
	}
	if !strings.Contains(b, "@150") {
		t.Errorf("resumed run name %q lacks the step @150", b)
	}
	if RunName(c, 0) == a && RunName(c, 0) == a {
		t.Errorf("two sessions of the same settings are both named %q", a)
	}
}

// TestResumeAfterTornSave resumes a run whose state.json beside last/ lags
// behind it (a process killed between the two writes, as a second SIGKILL
// can): last/ carries its own state, and the resumed run equals an
// uninterrupted one.
func TestResumeAfterTornSave(t *testing.T) {
	t.Parallel()
	full := uninterrupted(t)
	dir := t.TempDir()
	cfg := tiny(dir)
	cfg.Steps = 6
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	// state.json as it was after the validation at step 3.
	var st state
	raw, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		t.Fatal(err)
	}
	st.Step, st.Losses, st.History = 3, st.Losses[:3], st.History[:1]
	raw, _ = json.Marshal(st)
	if err := os.WriteFile(filepath.Join(dir, "state.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), tiny(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Losses, full.Losses) || !slices.Equal(res.History, full.History) {
		t.Errorf("resumed past a torn save: losses %v history %+v; want %v and %+v", res.Losses, res.History,
			full.Losses, full.History)
	}
}
