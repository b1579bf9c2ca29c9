package dsr

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestPromptsAllTasksAndStrategies(t *testing.T) {
	all := append(Strategies(), CodeModes()...)
	for _, c := range allGenCases() {
		insts, err := c.task.Generate(GenConfig{Level: Short, Count: 1, Seed: 2, Dim: c.dim, Dist: c.dist})
		if err != nil {
			t.Fatal(err)
		}
		inst := &insts[0]
		for _, s := range all {
			p, err := BuildPrompt(inst, PromptConfig{Strategy: s})
			if err != nil {
				t.Fatalf("%s %s: %v", inst.ID, s, err)
			}
			if !strings.Contains(p.Text, "Keep your answer within 1500 tokens.") || !strings.HasSuffix(p.Text, "A:") {
				t.Errorf("%s %s: no budget line or answer cue", inst.ID, s)
			}
			if strings.Contains(p.Text, "%!") || strings.Contains(p.Text, "<nil>") {
				t.Errorf("%s %s: formatting error in %q", inst.ID, s, p.Text)
			}
			req := p.Schema["required"].([]string)
			if s.HasSteps() != (len(req) == 2 && req[0] == "steps") {
				t.Errorf("%s %s: required %v", inst.ID, s, req)
			}
			fa := p.Schema["properties"].(map[string]any)["final_answer"].(map[string]any)
			if s == CodeOnly && fa["type"] != "string" {
				t.Errorf("%s: CodeOnly final_answer %v", inst.ID, fa)
			}
			switch s {
			case OneShotCoT:
				if strings.Count(p.Text, "Example ") != 1 || !strings.Contains(p.Text, "The answer is") {
					t.Errorf("%s: CoT prompt without one worked example", inst.ID)
				}
			case ThreeShot:
				if strings.Count(p.Text, "Example ") != 3 {
					t.Errorf("%s: 3-shot prompt with %d examples", inst.ID, strings.Count(p.Text, "Example "))
				}
			}
		}
	}
}

// TestPromptStatesTheReading: the rules a prompt states follow the options
// the truth is computed with.
func TestPromptStatesTheReading(t *testing.T) {
	cases := []struct {
		s, o   string
		opt    Options
		code   string
		paper  string
		insts  []Instance
		noSeed bool
	}{
		{s: "priority_queue", o: "compound", opt: Options{PriorityQueue: PaperReading}, code: "larger value goes first", paper: "consolidated"},
		{s: "bst", o: "remove", opt: Options{BSTDelete: PaperReading}, code: "in-order successor", paper: "in-order predecessor"},
		{s: "b_plus_tree", o: "compound", opt: Options{BPlusDelete: PaperReading}, code: "no nodes are merged", paper: "merges with its left sibling"},
		{s: "kd_tree", o: "construct", opt: Options{KDTies: PaperReading}, code: "NumPy", paper: "stable sort"},
		{s: "kd_heap", o: "compound", opt: Options{KDHeapMetric: Lexicographic}, code: "Euclidean norm", paper: "lexicographically"},
	}
	for _, c := range cases {
		tk, _ := LookupTask(c.s, c.o)
		insts, err := tk.Generate(GenConfig{Count: 1, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		code, _ := BuildPrompt(&insts[0], PromptConfig{})
		paper, _ := BuildPrompt(&insts[0], PromptConfig{Options: c.opt})
		if !strings.Contains(code.Text, c.code) || strings.Contains(code.Text, c.paper) {
			t.Errorf("%s default prompt should say %q", tk.Name(), c.code)
		}
		if !strings.Contains(paper.Text, c.paper) {
			t.Errorf("%s prompt with %v should say %q", tk.Name(), c.opt.NonDefault(), c.paper)
		}
	}
}

func TestPromptVariants(t *testing.T) {
	tk, _ := LookupTask("heap", "heapify")
	insts, _ := tk.Generate(GenConfig{Count: 1, Seed: 5})
	p, err := BuildPrompt(&insts[0], PromptConfig{Strategy: ZeroShotCoT, Tokens: 8000, NameOnly: true, OmitFormat: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Text, "The data structure is a Heap.") || strings.Contains(p.Text, "complete binary tree") ||
		!strings.Contains(p.Text, "8000 tokens") || strings.Contains(p.Text, "Reply with a JSON object") || !strings.Contains(p.Text, "step by step") {
		t.Errorf("variant prompt:\n%s", p.Text)
	}
	if _, err := ParseStrategy("5-shot"); err == nil {
		t.Error("unknown strategy accepted")
	}
	for _, name := range []string{"stepwise", "0-CoT", "CoT", "3-shot", "k-shot", "none", "AnsOnly", "CodeOnly", "codemaybe"} {
		if _, err := ParseStrategy(name); err != nil {
			t.Errorf("ParseStrategy(%q): %v", name, err)
		}
	}
}

// TestPublishedExemplars: with ExemplarDir the CoT and 3-shot blocks are
// the published example files, read at run time.
func TestPublishedExemplars(t *testing.T) {
	dir := fixturesDir(t)
	tk, _ := LookupTask("queue", "compound")
	insts, _ := tk.Generate(GenConfig{Count: 1, Seed: 6})
	for _, c := range []struct {
		s    Strategy
		file string
	}{{OneShotCoT, "CoT-prompt.txt"}, {ThreeShot, "k-shot-prompt.txt"}} {
		want, err := os.ReadFile(filepath.Join(dir, "prompt", "queue", "compound", "prompt", c.file))
		if err != nil {
			t.Fatal(err)
		}
		p, err := BuildPrompt(&insts[0], PromptConfig{Strategy: c.s, ExemplarDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(p.Text, strings.TrimSpace(string(want))) {
			t.Errorf("%s: the published examples are not in the prompt", c.s)
		}
	}
	kt, _ := LookupTask("kd_tree", "construct")
	kinst, _ := kt.Generate(GenConfig{Count: 1, Seed: 6})
	if _, err := BuildPrompt(&kinst[0], PromptConfig{Strategy: OneShotCoT, ExemplarDir: dir}); err == nil {
		t.Error("kd_tree has no published examples; expected an error")
	}
}

// TestRealisticTemplates: the realistic prompts built from the published
// templates fill every placeholder and name the instance's people/planets.
func TestRealisticTemplates(t *testing.T) {
	t.Parallel()
	dir := fixturesDir(t)
	rt, err := LoadRealisticTemplates(dir)
	if err != nil {
		t.Fatal(err)
	}
	placeholder := regexp.MustCompile(`\{[a-z_0-9]+\}`)
	insts := publishedInstances(t, func(in *Instance) bool { return in.Operation == "realistic" })
	if len(insts) != 270 {
		t.Fatalf("%d realistic instances", len(insts))
	}
	for i := range insts {
		in := &insts[i]
		p, err := BuildPrompt(in, PromptConfig{Realistic: rt})
		if err != nil {
			t.Fatalf("%s: %v", in.ID, err)
		}
		if m := placeholder.FindString(p.Text); m != "" {
			t.Fatalf("%s: unfilled placeholder %s", in.ID, m)
		}
		name := in.Input.SourceName
		if len(in.Input.Ops) > 0 {
			name = in.Input.Ops[0].Word
		}
		if !strings.Contains(p.Text, name) {
			t.Fatalf("%s: prompt does not mention %q", in.ID, name)
		}
	}
	if _, err := LoadRealisticTemplates(t.TempDir()); err == nil {
		t.Error("loading templates from an empty folder should fail")
	}
}

// TestNoCopiedProse: narlab's own prompt text shares no sentence with the
// published prompt examples and scenario templates (narlab ships none of
// that prose).
func TestNoCopiedProse(t *testing.T) {
	t.Parallel()
	dir := fixturesDir(t)
	var published strings.Builder
	for _, pattern := range []string{"prompt/*/*/prompt/*.txt", "natural/*/template/*.txt"} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			published.Write(b)
			published.WriteByte('\n')
		}
	}
	corpus := strings.ToLower(published.String())
	if len(corpus) < 10000 {
		t.Fatalf("published prose not found (%d bytes)", len(corpus))
	}
	sentence := regexp.MustCompile(`[^.?!:\n]{40,}`)
	for _, c := range allGenCases() {
		insts, _ := c.task.Generate(GenConfig{Count: 1, Seed: 8, Dim: c.dim, Dist: c.dist})
		for _, s := range []Strategy{Stepwise, OneShotCoT, ThreeShot, NoReasoning, CodeOnly, CodeEnforce, CodeMaybe} {
			p, _ := BuildPrompt(&insts[0], PromptConfig{Strategy: s})
			for _, sent := range sentence.FindAllString(p.Text, -1) {
				// Skip data (lists of numbers, operations).
				if strings.ContainsAny(sent, "[(0123456789") {
					continue
				}
				if strings.Contains(corpus, strings.ToLower(strings.TrimSpace(sent))) {
					t.Errorf("%s %s: sentence found in the published prose: %q", insts[0].ID, s, sent)
				}
			}
		}
	}
}
