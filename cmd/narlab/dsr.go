package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/narlab/narlab/experiments/dsrbench"
	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/metrics"
)

// The dsr commands: DSR-Bench data-structure reasoning tasks.

func init() {
	register(command{group: "dsr", name: "tasks", summary: "list the DSR-Bench structures, operations and options", run: dsrTasks})
	register(command{group: "dsr", name: "generate", summary: "generate DSR-Bench instances with their ground truth (JSONL)", run: dsrGenerate})
	register(command{group: "dsr", name: "verify", summary: "recompute instances' truths and list mismatches (exit 1 if any)", run: dsrVerify})
	register(command{group: "dsr", name: "prompt", summary: "print the prompt and response schema of an instance", run: dsrPrompt})
	register(command{group: "dsr", name: "score", summary: "score model predictions, print the tables and log them to MLflow with figures", run: dsrScore})
	register(command{group: "dsr", name: "baseline", summary: "answer instances with a baseline predictor (oracle, shuffled, malformed)", run: dsrBaseline})
}

// optionFlag collects repeatable --option key=value[,key=value] flags.
type optionFlag struct{ o dsr.Options }

func (f *optionFlag) String() string { return "" }
func (f *optionFlag) Set(s string) error {
	return f.o.Apply(s)
}

func optionUsage() string {
	return "a choice between the reference code's reading and the paper's, key=value (repeatable): " + strings.Join(dsr.OptionKeys(), "; ")
}

func dsrTasks(args []string) error {
	fs := newFlags("dsr tasks")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	for _, cat := range dsr.Categories() {
		fmt.Fprintf(w, "%s\n", cat)
		for _, s := range dsr.Structures() {
			if s.Category != cat {
				continue
			}
			var ops []string
			for _, t := range dsr.Tasks() {
				if t.Structure == s.Name {
					tag := ""
					if t.Probe == dsr.ProbeExtra {
						tag = " (extra: reference data only)"
					}
					ops = append(ops, t.Operation+tag)
				}
			}
			star := ""
			if s.Challenge {
				star = "*"
			}
			fmt.Fprintf(w, "  %-16s %-16s %s\n", s.Name, s.Title+star, strings.Join(ops, ", "))
		}
	}
	fmt.Fprintln(w, "\n* = in the challenge score (Table 3).")
	fmt.Fprintln(w, "Spatial variants: kd_tree, kd_heap and geom_graph take --dim 1..64 (the paper uses 1, 2, 3 and 5); kd_tree also --dist uniform|circle|moon|blob.")
	fmt.Fprintln(w, "\nOptions (the default first; it reproduces the published truths):")
	for _, o := range dsr.OptionKeys() {
		fmt.Fprintf(w, "  %s\n", o)
	}
	return nil
}

func dsrGenerate(args []string) error {
	fs := newFlags("dsr generate")
	structure := fs.String("structure", "", "data structure (narlab dsr tasks lists them)")
	operation := fs.String("operation", "", "operation of the structure")
	level := fs.String("level", "short", "length level: short, medium, long (or easy/hard), or all")
	count := fs.Int("count", 30, "instances per level")
	seed := fs.Int64("seed", 0, "random seed")
	out := fs.String("out", "", "output JSONL file (- for standard output)")
	dim := fs.Int("dim", 0, "dimension of the spatial tasks' points, 1..64 (not given: 2)")
	dist := fs.String("dist", "", "K-D tree point distribution: uniform, circle, moon or blob")
	var opts optionFlag
	fs.Var(&opts, "option", optionUsage())
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *structure == "" || *operation == "" || *out == "" {
		return missingFlag(fs, "--structure, --operation and --out are required")
	}
	t, err := dsr.LookupTask(*structure, *operation)
	if err != nil {
		return err
	}
	levels := dsr.Levels()
	if *level != "all" {
		l, err := dsr.ParseLevel(*level)
		if err != nil {
			return err
		}
		levels = []dsr.Level{l}
	}
	// The options are checked before anything is written; a file appears
	// only when every level was written.
	cfg := dsr.GenConfig{Level: levels[0], Count: *count, Seed: uint64(*seed), Dim: *dim, Dist: *dist, Options: opts.o}
	if err := t.Check(cfg); err != nil {
		return fmt.Errorf("dsr generate: %w", err)
	}
	n := 0
	write := func(w io.Writer) error {
		var err error
		n, err = t.WriteLevels(w, levels, cfg)
		return err
	}
	if *out == "-" {
		err = write(stdout)
	} else {
		err = fsutil.Write(*out, fsutil.DataMode, write)
	}
	if err != nil {
		return fmt.Errorf("dsr generate: %w", err)
	}
	if *out == "-" {
		return nil
	}
	fmt.Fprintf(stdout, "wrote %d %s instances (seed %d) to %s\n", n, t.Name(), *seed, *out)
	return nil
}

func dsrVerify(args []string) error {
	fs := newFlags("dsr verify")
	path := fs.String("input", "", "narlab JSONL, a published DSR-Bench instance file, or a DSR-Bench folder")
	structure := fs.String("structure", "", "only this structure (inferred from a published file's path when omitted)")
	operation := fs.String("operation", "", "only this operation")
	maxShow := fs.Int("max", 20, "mismatches to print in full (all are counted)")
	var opts optionFlag
	fs.Var(&opts, "option", optionUsage())
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *path == "" {
		return missingFlag(fs, "--input is required")
	}
	files, err := dsr.VerifyPath(*path, *structure, *operation, opts.o)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	var all dsr.VerifyReport
	verified := 0
	for _, f := range files {
		if f.Skipped != "" {
			fmt.Fprintf(w, "skip   %s: %s\n", f.Name, f.Skipped)
		}
	}
	for _, f := range files {
		if f.Skipped != "" {
			continue
		}
		verified++
		all.Add(f.VerifyReport)
		status := "ok    "
		if f.Matched != f.Total {
			status = "DIFF  "
		}
		fmt.Fprintf(w, "%s %s: %d/%d match\n", status, f.Name, f.Matched, f.Total)
	}
	total, matched, explained, mismatches, skipped := all.Total, all.Matched, all.Explained(), all.Mismatches, len(files)-verified
	for i, m := range mismatches {
		if i == *maxShow {
			fmt.Fprintf(w, "… and %d more mismatches\n", len(mismatches)-i)
			break
		}
		fmt.Fprintln(w, m.String())
	}
	fmt.Fprintf(w, "\n%d instances in %d files, %d match, %d mismatch", total, verified, matched, len(mismatches))
	if skipped > 0 {
		fmt.Fprintf(w, " (%d files hold no recomputable instances)", skipped)
	}
	fmt.Fprintln(w)
	if explained > 0 {
		fmt.Fprintf(w, "%d of the mismatches come from choosing the paper's reading over the reference code's (see the options)\n", explained)
	}
	if p := opts.o.NonDefault(); p != nil {
		fmt.Fprintf(w, "options: %v\n", p)
	}
	if len(mismatches) > 0 {
		w.Flush()
		return fmt.Errorf("dsr verify: %d of %d instances do not match their recorded truth", len(mismatches), total)
	}
	return nil
}

func dsrPrompt(args []string) error {
	fs := newFlags("dsr prompt")
	path := fs.String("input", "", "narlab JSONL, a published instance file or a DSR-Bench folder")
	id := fs.String("id", "", "instance id (default: the first instance)")
	strategy := fs.String("strategy", "stepwise", "stepwise, 0-CoT, CoT, 3-shot, none, CodeOnly, CodeEnforce or CodeMaybe")
	tokens := fs.Int("tokens", dsr.DefaultTokens, "token budget stated in the prompt")
	nameOnly := fs.Bool("name-only", false, "describe the structure by its name only")
	examples := fs.String("examples", "", "DSR-Bench checkout whose prompt/ examples to use for CoT and 3-shot")
	templates := fs.String("templates", "", "DSR-Bench checkout whose natural/*/template files word the realistic tasks")
	var opts optionFlag
	fs.Var(&opts, "option", optionUsage())
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *path == "" {
		return missingFlag(fs, "--input is required")
	}
	s, err := dsr.ParseStrategy(*strategy)
	if err != nil {
		return err
	}
	insts, err := dsr.LoadInstances(*path, "", "")
	if err != nil {
		return err
	}
	inst := &insts[0]
	if *id != "" {
		inst = nil
		for i := range insts {
			if insts[i].ID == *id {
				inst = &insts[i]
			}
		}
		if inst == nil {
			return fmt.Errorf("dsr prompt: no instance %q in %s", *id, *path)
		}
	}
	cfg := dsr.PromptConfig{Strategy: s, Tokens: *tokens, NameOnly: *nameOnly, Options: opts.o, ExemplarDir: *examples}
	if *templates != "" {
		if cfg.Realistic, err = dsr.LoadRealisticTemplates(*templates); err != nil {
			return err
		}
	}
	p, err := dsr.BuildPrompt(inst, cfg)
	if err != nil {
		return err
	}
	schema, _ := json.MarshalIndent(p.Schema, "", "  ")
	fmt.Fprintf(stdout, "# %s\n%s\n\n# response schema\n%s\n", inst.ID, p.Text, schema)
	return nil
}

func dsrScore(args []string) error {
	fs := newFlags("dsr score")
	path := fs.String("input", "", "narlab JSONL, a published instance file or a DSR-Bench folder")
	predPath := fs.String("predictions", "", `JSONL of {"id", "response"|"answer"|"output", "run"}`)
	strategy := fs.String("strategy", "stepwise", "the strategy the responses were prompted with (the lenient reading requires the steps it asks for)")
	scoring := choice(fs, "scoring", "paper", "how responses are read and compared: paper (DSR-Bench's own evaluation scripts: strict JSON, their string comparison and partial credit) or lenient (narlab's reading: JSON in code fences or prose, structured comparison); both are reported and logged, this one in the tables", "paper", "lenient")
	format := choice(fs, "format", "text", "output format", "text", "json")
	reasons := fs.Bool("reasons", false, "list every response that scored 0 for a reason other than a wrong answer")
	model := fs.String("model", "", "the model that answered (run name, tag and figure legends; default: the predictions file's name)")
	tf := addTrackingFlags(fs, "dsr-bench", "score offline: print the tables only")
	figures := fs.String("figures", "", "also write the category radar and per-structure bars as PNG files into this folder")
	var opts optionFlag
	fs.Var(&opts, "option", optionUsage())
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if err := tf.check("dsr score"); err != nil {
		return err
	}
	if *path == "" || *predPath == "" {
		return missingFlag(fs, "--input and --predictions are required")
	}
	s, err := dsr.ParseStrategy(*strategy)
	if err != nil {
		return err
	}
	mode, err := metrics.ParseScoreMode(*scoring)
	if err != nil {
		return err
	}
	res, err := dsrbench.ScoreFiles(context.Background(), dsrbench.ScoreConfig{Input: *path, Predictions: *predPath,
		Score: dsr.ScoreConfig{Strategy: s, Options: opts.o, Mode: mode}, Model: *model, FiguresDir: *figures,
		Experiment: *tf.experiment, TrackingURI: *tf.tracking, NoMLflow: tf.off()})
	if res == nil {
		return fmt.Errorf("dsr score: %w", err)
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res.Tables); err != nil {
			return err
		}
	} else {
		w := bufio.NewWriter(stdout)
		dsr.WriteTables(w, res.Tables)
		fmt.Fprintf(w, "\nscoring: %s (tables above); overall %s %.3f binary, %s %.3f\nper response: %s\n", mode,
			mode, res.Tables.Overall.Binary, res.OtherMode, res.Other.Overall.Binary, res.Comparison)
		if *reasons {
			fmt.Fprintln(w, "\nresponses that could not be scored:")
			for _, r := range res.Results {
				if r.Binary == 0 && r.Reason != "" && r.Reason != "wrong answer" || r.Raised != "" {
					fmt.Fprintf(w, "  %s run %d: %s\n", r.ID, r.Run, r.Reason)
				}
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return printRunLink("dsr score", res.Run, err)
}

func dsrBaseline(args []string) error {
	fs := newFlags("dsr baseline")
	path := fs.String("input", "", "narlab JSONL, a published instance file or a DSR-Bench folder")
	kind := fs.String("predictor", "shuffled", "baseline predictor: "+strings.Join(dsrbench.Baselines(), ", "))
	out := fs.String("out", "", "output predictions JSONL (- for standard output)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *path == "" || *out == "" {
		return missingFlag(fs, "--input and --out are required")
	}
	insts, err := dsr.LoadInstances(*path, "", "")
	if err != nil {
		return err
	}
	preds, err := dsrbench.Baseline(*kind, insts)
	if err != nil {
		return err
	}
	data, err := dsrbench.WritePredictions(preds)
	if err != nil {
		return err
	}
	if *out == "-" {
		_, err := stdout.Write(data)
		return err
	}
	if err := fsutil.WriteFile(*out, data, fsutil.DataMode); err != nil {
		return fmt.Errorf("dsr baseline: writing %s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "wrote %d %s answers to %s\n", len(preds), *kind, *out)
	return nil
}
