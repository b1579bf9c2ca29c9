package dsr

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Strategy is a prompting strategy (paper §3.3, App. C) or a mode of the
// code probe (§4.4).
type Strategy int

// The prompting strategies and the code probe's modes.
const (
	// Stepwise adds no text; the response schema has a steps list before
	// final_answer (the reference's default).
	Stepwise Strategy = iota
	// ZeroShotCoT asks the model to reason step by step.
	ZeroShotCoT
	// OneShotCoT prepends one worked example.
	OneShotCoT
	// ThreeShot prepends three examples with their answers only.
	ThreeShot
	// NoReasoning asks for the answer only; the schema has only final_answer.
	NoReasoning
	// CodeOnly asks for a Python function solution() that returns the
	// answer; final_answer is the code.
	CodeOnly
	// CodeEnforce asks the model to write code and reason through its
	// execution; final_answer is the output.
	CodeEnforce
	// CodeMaybe lets the model write code or answer directly.
	CodeMaybe
)

var strategyNames = []string{"stepwise", "0-CoT", "CoT", "3-shot", "none", "CodeOnly", "CodeEnforce", "CodeMaybe"}

// Strategies lists the five prompting strategies of the paper.
func Strategies() []Strategy {
	return []Strategy{Stepwise, ZeroShotCoT, OneShotCoT, ThreeShot, NoReasoning}
}

// CodeModes lists the code probe's modes.
func CodeModes() []Strategy { return []Strategy{CodeOnly, CodeEnforce, CodeMaybe} }

// String returns the reference CLI's name of the strategy.
func (s Strategy) String() string {
	if int(s) < len(strategyNames) && s >= 0 {
		return strategyNames[s]
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// ParseStrategy accepts the names printed by String (case-insensitive),
// "k-shot" for 3-shot and "AnsOnly" for none.
func ParseStrategy(name string) (Strategy, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "k-shot", "kshot", "3shot":
		return ThreeShot, nil
	case "ansonly", "answer-only":
		return NoReasoning, nil
	case "0cot", "zero-shot-cot":
		return ZeroShotCoT, nil
	case "cot", "1-shot-cot", "one-shot-cot":
		return OneShotCoT, nil
	}
	for i, s := range strategyNames {
		if strings.ToLower(s) == n {
			return Strategy(i), nil
		}
	}
	return 0, fmt.Errorf("dsr: unknown prompting strategy %q (expected one of %s)", name, strings.Join(strategyNames, ", "))
}

// HasSteps reports whether the strategy's response schema has a steps list.
func (s Strategy) HasSteps() bool {
	switch s {
	case Stepwise, ZeroShotCoT, OneShotCoT, ThreeShot:
		return true
	}
	return false
}

// DefaultTokens is the token budget of the reference CLI.
const DefaultTokens = 1500

// PromptConfig chooses how a prompt is built.
type PromptConfig struct {
	Strategy Strategy
	// Tokens is the budget in the closing instruction (DefaultTokens if 0).
	Tokens int
	// NameOnly replaces the structure's description by its name (the
	// reference's "name" description variant).
	NameOnly bool
	// OmitFormat leaves out the line that spells out the expected JSON
	// (use it when the model API enforces the schema itself).
	OmitFormat bool
	// Options change the rules a prompt states (they must match the truth).
	Options Options
	// ExemplarDir, when set, is a DSR-Bench checkout (or the fixtures' dsr
	// folder) whose prompt/<structure>/<operation>/prompt/{CoT,k-shot}-prompt.txt
	// files are read at run time for the CoT and 3-shot examples instead of
	// narlab's generated ones. narlab ships none of that text.
	ExemplarDir string
	// Realistic, when set, holds the published scenario templates used to
	// word the realistic probe's prompts (LoadRealisticTemplates).
	Realistic *RealisticTemplates
}

// Prompt is a built prompt with the JSON Schema its response must follow.
type Prompt struct {
	Text   string
	Schema map[string]any
}

// ResponseSchema returns the JSON Schema of a response to the task under a
// strategy: an object with final_answer (and, for the reasoning strategies,
// a steps list of {explanation, output} before it). CodeOnly's final_answer
// is a string holding the code.
func ResponseSchema(t *Task, s Strategy) map[string]any {
	fa := t.Answer.Schema()
	if s == CodeOnly {
		fa = shapeString.Schema()
	}
	props := map[string]any{"final_answer": fa}
	req := []string{"final_answer"}
	if s.HasSteps() {
		step := objectOf(field("explanation", shapeString), field("output", shapeString))
		props["steps"] = listOf(step).Schema()
		req = []string{"steps", "final_answer"}
	}
	return map[string]any{
		"title": strings.ReplaceAll(t.Name(), "/", "_") + "_response", "type": "object",
		"properties": props, "required": req, "additionalProperties": false,
	}
}

// BuildPrompt words an instance under a prompting configuration.
func BuildPrompt(inst *Instance, cfg PromptConfig) (Prompt, error) {
	t, err := inst.Task()
	if err != nil {
		return Prompt{}, err
	}
	o, err := inst.EffectiveOptions(cfg.Options)
	if err != nil {
		return Prompt{}, err
	}
	cfg.Options = o
	text, err := t.wording(&inst.Input, cfg, inst)
	if err != nil {
		return Prompt{}, err
	}
	var b strings.Builder
	if cfg.NameOnly {
		fmt.Fprintf(&b, "The data structure is a %s.", t.Info().Title)
	} else {
		b.WriteString(text.Describe)
	}
	if text.Rules != "" {
		b.WriteString("\n" + text.Rules)
	}
	b.WriteString("\n\n")
	switch cfg.Strategy {
	case OneShotCoT, ThreeShot:
		ex, err := exemplars(t, inst, cfg)
		if err != nil {
			return Prompt{}, err
		}
		b.WriteString(ex)
		b.WriteString("\n\n")
	}
	b.WriteString("Q: " + text.Given + "\n" + text.Question + "\n")
	switch cfg.Strategy {
	case ZeroShotCoT:
		b.WriteString("Think it through step by step.\n")
	case NoReasoning:
		b.WriteString("Give only the answer, without explanation.\n")
	case CodeOnly:
		b.WriteString("Answer with a Python function named solution that takes no arguments, solves the problem and returns the final answer in the expected format. Give only the code.\n")
	case CodeEnforce:
		b.WriteString("Write code that solves the problem, then trace its execution to work out what it returns. Your final answer is that output, not the code.\n")
	case CodeMaybe:
		b.WriteString("You may write code to help you, or solve the problem directly. If you write code, trace its execution to work out what it returns. Your final answer is that output.\n")
	}
	if !cfg.OmitFormat {
		b.WriteString(formatLine(t, cfg.Strategy) + "\n")
	}
	tokens := cfg.Tokens
	if tokens <= 0 {
		tokens = DefaultTokens
	}
	fmt.Fprintf(&b, "Keep your answer within %d tokens.\nA:", tokens)
	return Prompt{Text: b.String(), Schema: ResponseSchema(t, cfg.Strategy)}, nil
}

func formatLine(t *Task, s Strategy) string {
	fa := t.Answer.String()
	if s == CodeOnly {
		fa = "str (the code)"
	}
	if s.HasSteps() {
		return fmt.Sprintf(`Reply with a JSON object {"steps": [{"explanation": str, "output": str}, …], "final_answer": %s}.`, fa)
	}
	return fmt.Sprintf(`Reply with a JSON object {"final_answer": %s}.`, fa)
}

// wording returns the instance's task text (realistic tasks use the
// published templates when configured).
func (t *Task) wording(in *Input, cfg PromptConfig, inst *Instance) (taskText, error) {
	if t.Probe == ProbeRealistic && cfg.Realistic != nil {
		return cfg.Realistic.render(t, in, inst)
	}
	if t.prompt == nil {
		return taskText{}, fmt.Errorf("dsr: %s has no prompt", t.Name())
	}
	return t.prompt(in, cfg.Options), nil
}

// traceStep is one step of a worked example.
type traceStep struct {
	Action string // the operation, e.g. "(push, 5)"
	State  string // the state after it, printed like an answer
}

// exemplarSeed seeds narlab's generated examples; they are drawn on a stream
// of their own, so they never coincide with a generated question.
const exemplarSeed = 0x6e61726c6162 // "narlab"

// exemplars returns the CoT (one worked example) or 3-shot (three examples,
// answers only) block for the task.
func exemplars(t *Task, inst *Instance, cfg PromptConfig) (string, error) {
	if cfg.ExemplarDir != "" {
		return publishedExemplars(t, cfg)
	}
	n := 3
	if cfg.Strategy == OneShotCoT {
		n = 1
	}
	v := variant{dim: inst.Dim, dist: inst.Dist}
	var parts []string
	for i := range n {
		r := newRNG(exemplarSeed, "exemplar/"+t.Name(), i)
		in, err := t.generate(r, Short, v)
		if err != nil {
			return "", fmt.Errorf("dsr: %s: example: %w", t.Name(), err)
		}
		truth, err := t.Truth(&in, cfg.Options)
		if err != nil {
			return "", err
		}
		text, err := t.wording(&in, cfg, inst)
		if err != nil {
			return "", err
		}
		ans := t.Answer.Repr(truth)
		var a strings.Builder
		if cfg.Strategy == OneShotCoT {
			if t.trace != nil {
				a.WriteString("Working step by step:\n")
				for _, s := range t.trace(&in, cfg.Options) {
					fmt.Fprintf(&a, "%s: %s\n", s.Action, s.State)
				}
			} else {
				a.WriteString("Applying the rules above to the input step by step leads to the answer.\n")
			}
		}
		fmt.Fprintf(&a, "The answer is %s.", ans)
		parts = append(parts, fmt.Sprintf("Example %d.\nQ: %s\n%s\nA: %s", i+1, text.Given, text.Question, a.String()))
	}
	return strings.Join(parts, "\n\n"), nil
}

// exemplarFolder maps a task to its folder under prompt/ in the reference.
func exemplarFolder(t *Task) string {
	s := t.Info()
	op := t.Operation
	if s.Name == "kd_tree" || s.Name == "kd_heap" || s.Name == "geom_graph" {
		return ""
	}
	return filepath.Join("prompt", s.RefDir, op, "prompt")
}

func publishedExemplars(t *Task, cfg PromptConfig) (string, error) {
	dir := exemplarFolder(t)
	if dir == "" {
		return "", fmt.Errorf("dsr: %s: the reference has no example files for this task", t.Name())
	}
	name := "k-shot-prompt.txt"
	if cfg.Strategy == OneShotCoT {
		name = "CoT-prompt.txt"
	}
	path := filepath.Join(cfg.ExemplarDir, dir, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("dsr: %s: reading the published examples: %w", t.Name(), err)
	}
	return strings.TrimSpace(string(b)), nil
}

// SchemaJSON returns the response schema as indented JSON text.
func SchemaJSON(t *Task, s Strategy) string {
	b, _ := json.MarshalIndent(ResponseSchema(t, s), "", "  ")
	return string(b)
}
