package clrs30

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/narlab/narlab/lib/nn/engine"
)

// A run directory holds one run of one Settings (the default directory is
// per settings). Run resumes it when it was interrupted, extends it when
// more steps are asked for, and, when it is finished, reports its saved
// results, saying so (Result.Saved), without training, testing or logging
// anything. A finished run is reported only to a command that would have
// run it the same way: one that asks for other execution options (the
// step loop, the evaluation loop, the steps a call, the backend), which
// change the speed but not the function, is refused, since the saved
// numbers (its speed above all) are another run's. A run of other
// settings is refused whether finished or not, naming what differs.

// Execution is how a session ran its steps: what changes the speed of a
// run, not its function.
type Execution struct {
	StepLoop     string `json:"step_loop"`
	EvalLoop     string `json:"eval_loop"`
	StepsPerCall int    `json:"steps_per_call"`
	Backend      string `json:"backend"` // the backend's kind: xla-cuda, xla-cpu or go
}

func (e Execution) String() string {
	return fmt.Sprintf("--step-loop %s --eval-loop %s --steps-per-call %d on %s", e.StepLoop, e.EvalLoop, e.StepsPerCall, e.Backend)
}

// execution is how this session runs (its defaults filled in).
func (c Config) execution(backend string) Execution {
	e := Execution{StepLoop: c.StepLoop, EvalLoop: c.EvalLoop, StepsPerCall: max(c.StepsPerCall, 1), Backend: backend}
	if e.StepLoop == "" {
		e.StepLoop = engine.StepLoopAuto
	}
	if e.EvalLoop == "" {
		e.EvalLoop = engine.EvalLoopAuto
	}
	return e
}

// readState reads a run directory's state: last/state.json, saved with
// last/ in one rename, else state.json beside it (the copy for readers, and
// that of older run directories, which a process killed between the two
// writes leaves behind). found is false when there is none.
func readState(dir string) (st state, found bool, err error) {
	path := filepath.Join(dir, "last", stateFile)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		path = filepath.Join(dir, stateFile)
		raw, err = os.ReadFile(path)
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		return st, false, nil
	case err != nil:
		return st, false, fmt.Errorf("train: %w", err)
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return st, false, fmt.Errorf("train: %s: %w", path, err)
	}
	return st, true, nil
}

// savedResult is what result.json keeps of a finished run (writeResult).
type savedResult struct {
	Steps       int                `json:"steps"`
	SettingsID  string             `json:"settings_id"`
	BestVal     float64            `json:"best_val"`
	BestStep    int                `json:"best_step"`
	TestOutputs map[string]float64 `json:"test_outputs"`
	Backend     string             `json:"backend"`
	StepsPerS   float64            `json:"steps_per_s"`
	RunID       string             `json:"run_id"`
	Execution   *Execution         `json:"execution"`
}

// finishedRun returns the saved results of the run in cfg.Dir when it is
// finished (trained to cfg.Steps and tested: result.json written for these
// settings and steps) and this session would run it as it ran; an error
// when it would run it otherwise; nil, nil when the run is not finished
// (resumed, extended or tested by Run).
func finishedRun(cfg Config, st state, exec Execution) (*Result, error) {
	if st.Step != cfg.Steps {
		return nil, nil
	}
	raw, err := os.ReadFile(filepath.Join(cfg.Dir, "result.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // trained, not tested yet
	}
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	var saved savedResult
	if err := json.Unmarshal(raw, &saved); err != nil {
		return nil, fmt.Errorf("train: %s: %w", filepath.Join(cfg.Dir, "result.json"), err)
	}
	if saved.SettingsID != st.Settings.ID() || saved.Steps != st.Step {
		return nil, nil // a result of another run's: test again
	}
	ran := saved.Execution
	if ran == nil {
		ran = st.Execution
	}
	if ran != nil && *ran != exec {
		return nil, fmt.Errorf("train: %s holds this run finished (%d steps), trained with %s; this command asks for %s. "+
			"Its saved results are another run's: give another --dir to train with these options, or delete the directory",
			cfg.Dir, st.Step, *ran, exec)
	}
	how := "execution options not recorded"
	if ran != nil {
		how = ran.String()
	}
	if cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, "narlab: %s holds this run finished (%d steps, trained with %s): reporting its saved results; "+
			"nothing is trained, tested or logged (delete the directory or give another --dir to train again)\n", cfg.Dir, st.Step, how)
	}
	res := &Result{History: st.History, BestStep: st.BestStep, BestVal: st.BestVal, Test: saved.TestOutputs,
		Checkpoint: filepath.Join(cfg.Dir, "best"), StepsPerS: saved.StepsPerS, Backend: saved.Backend,
		Losses: st.Losses, RunID: saved.RunID, Saved: true, AlgorithmScores: st.AlgorithmScores}
	res.severalResults(cfg.Algorithms(), st.State)
	return res, nil
}

// settingsDiff says which settings differ between a and b, as
// "model.hidden 32 there, 64 here; batch …".
func settingsDiff(there, here Settings) string {
	a, b := flatten(there), flatten(here)
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []string
	for _, k := range keys {
		if a[k] != b[k] {
			out = append(out, fmt.Sprintf("%s %s there, %s here", k, orUnset(a[k]), orUnset(b[k])))
		}
	}
	return strings.Join(out, "; ")
}

func orUnset(v string) string {
	if v == "" {
		return "unset"
	}
	return v
}

// flatten is s's JSON as dotted keys and their JSON values.
func flatten(s Settings) map[string]string {
	raw, _ := json.Marshal(s)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if sub, ok := v.(map[string]any); ok {
			for k, x := range sub {
				walk(prefix+k+".", x)
			}
			return
		}
		data, _ := json.Marshal(v)
		out[strings.TrimSuffix(prefix, ".")] = string(data)
	}
	walk("", m)
	return out
}
