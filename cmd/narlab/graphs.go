package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/narlab/narlab/experiments/serialization"
	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/metrics"
)

func init() {
	register(command{group: "graphs", name: "tasks", summary: "list the 49 Erdős graph tasks (category, answer class, parameters)", run: graphsTasks})
	register(command{group: "graphs", name: "truth", summary: "print one graph task instance's ground truth as JSON {task, answer}", run: graphsTruth})
	register(command{group: "graphs", name: "prompts", summary: "write serialization-study prompts (tasks × encodings × syntaxes × relabelings) with ground truth (JSONL)", run: graphsPrompts})
	register(command{group: "graphs", name: "predict", summary: "answer prompts with a trivial baseline predictor (oracle, constant, noisy) as a predictions JSONL", run: graphsPredict})
	register(command{group: "graphs", name: "score", summary: "score predictions for prompts: accuracy, parse rates, invariance measures; log to MLflow", run: graphsScore})
}

func openInput(path string) (io.ReadCloser, error) {
	if path == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	return os.Open(path)
}

func graphsTasks(args []string) error {
	fs := newFlags("graphs tasks")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tCATEGORY\tANSWER\tGRAPH\tPARAMS\tVALIDATED")
	for _, t := range graphtext.Tasks() {
		kind := "undirected"
		if t.Graph == graphtext.DirectedGraph {
			kind = "directed"
		}
		if t.Weighted {
			kind += ", weighted"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\n", t.Name, t.Category, t.Kind, kind, strings.Join(t.Params, ","), t.Validated)
	}
	return tw.Flush()
}

func graphsTruth(args []string) error {
	fs := newFlags("graphs truth")
	taskName := fs.String("task", "", "task name (see 'narlab graphs tasks')")
	path := fs.String("graph", "", `graph JSON file, or - for standard input: {"n": N, "edges": [[u, v] or [u, v, w], ...], "directed": bool, "params": {"u": .., "v": .., "source": .., "target": ..}}, 1-based ids`)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *taskName == "" || *path == "" {
		return missingFlag(fs, "--task and --graph are required")
	}
	task, err := graphtext.LookupTask(*taskName)
	if err != nil {
		return fmt.Errorf("graphs truth: %w", err)
	}
	r, err := openInput(*path)
	if err != nil {
		return fmt.Errorf("graphs truth: %w", err)
	}
	defer r.Close()
	g, err := graphtext.ReadJSON(r)
	if err != nil {
		return fmt.Errorf("graphs truth: %w", err)
	}
	a, err := task.Truth(g)
	if err != nil {
		return fmt.Errorf("graphs truth: %w", err)
	}
	out, err := json.Marshal(struct {
		Task   string           `json:"task"`
		Answer graphtext.Answer `json:"answer"`
	}{task.Name, a})
	if err != nil {
		return fmt.Errorf("graphs truth: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

// parseList parses a comma-separated list of encodings or syntaxes ("all":
// every one). Two items that name the same value (E0 and edge-st) are
// refused: the prompts would be written twice.
func parseList[T comparable](flagName, s string, all []T, parse func(string) (T, error)) ([]T, error) {
	if s == "all" {
		return all, nil
	}
	var out []T
	named := map[T]string{}
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		v, err := parse(p)
		if err != nil {
			return nil, fmt.Errorf("--%s: %w", flagName, err)
		}
		if first, twice := named[v]; twice {
			return nil, fmt.Errorf("--%s %q: %s and %s are both %v; list each once", flagName, s, first, p, v)
		}
		named[v] = p
		out = append(out, v)
	}
	return out, nil
}

func graphsPrompts(args []string) error {
	fs := newFlags("graphs prompts")
	tasks := fs.String("tasks", "all", "comma-separated task names or categories (easy, medium, hard, challenging), or all")
	encs := fs.String("encoding", "E0", "edge encodings: E0..E6, A1..A4, M (or names like edge-st, adjl-shuffle), or all")
	syns := fs.String("syntax", "erdos", "syntaxes: erdos, json, networkx, pyg, or all (non-Erdős syntaxes pair only with E0, E1, E3, E5)")
	relabel := fs.Int("relabel", 0, "random node relabelings per instance, written besides the original labels (paper: 10)")
	seeds := fs.Int("seeds", 1, "shuffle seeds per shuffled encoding (paper: 10)")
	seed := fs.Int64("seed", 0, "seed of the synthetic graphs and the relabelings")
	count := fs.Int("count", 10, "synthetic instances per task (paper: 100 Erdős test graphs)")
	maxNodes := fs.Int("max-nodes", 35, "largest synthetic graph (5..max nodes)")
	erdos := fs.String("erdos", "", "local Erdős copy (JSON/JSONL records with task, prompt, answer, direction, nodes, edges, samples); default: synthetic Erdős-like graphs")
	strict := fs.Bool("strict", false, "E6: exactly one (u, v) and one (v, u) per edge instead of the paper's independent orientations")
	noWrap := fs.Bool("no-wrap", false, "write the bare Erdős instruction, without G1's \\boxed{} query template")
	out := fs.String("out", "", "output JSONL file")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *out == "" {
		return missingFlag(fs, "--out is required")
	}
	spec := serialization.Spec{Relabel: *relabel, Seeds: *seeds, Seed: uint64(*seed), Instances: *count, Strict: *strict, Wrap: !*noWrap,
		Gen: graphtext.GenOptions{MaxNodes: *maxNodes}}
	var err error
	if spec.Tasks, err = graphtext.ParseTasks(*tasks); err != nil {
		return fmt.Errorf("graphs prompts: %w", err)
	}
	if spec.Encodings, err = parseList("encoding", *encs, graphtext.Encodings(), graphtext.ParseEncoding); err != nil {
		return fmt.Errorf("graphs prompts: %w", err)
	}
	if spec.Syntaxes, err = parseList("syntax", *syns, graphtext.Syntaxes(), graphtext.ParseSyntax); err != nil {
		return fmt.Errorf("graphs prompts: %w", err)
	}
	if *erdos != "" {
		insts, skipped, err := graphtext.ReadErdosFile(*erdos)
		if err != nil {
			return fmt.Errorf("graphs prompts: %w", err)
		}
		spec.Erdos = insts
		fmt.Fprintf(os.Stderr, "read %d Erdős records from %s (%d isomorphic_mapping records skipped)\n", len(insts), *erdos, skipped)
	}
	if err := serialization.Check(spec); err != nil {
		return fmt.Errorf("graphs prompts: %w", err)
	}
	// Prompts stream into the output file (written atomically).
	var n int
	err = fsutil.Write(*out, fsutil.DataMode, func(w io.Writer) error {
		var err error
		n, err = serialization.Generate(w, spec)
		return err
	})
	if err != nil {
		return fmt.Errorf("graphs prompts: %w", err)
	}
	src := "synthetic Erdős-like graphs (not Erdős)"
	if *erdos != "" {
		src = "Erdős records from " + *erdos
	}
	fmt.Fprintf(os.Stderr, "wrote %d prompts to %s (%s)\n", n, *out, src)
	return nil
}

func graphsPredict(args []string) error {
	fs := newFlags("graphs predict")
	prompts := fs.String("prompts", "", "prompts JSONL from 'narlab graphs prompts'")
	predictor := fs.String("predictor", "noisy", "oracle (the ground truth), constant (0 / No / []), noisy (ground truth, wrong 30% of the time)")
	seed := fs.Int64("seed", 0, "seed of the noisy predictor")
	out := fs.String("out", "", "output predictions JSONL ({id, answer_text} per line)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *prompts == "" || *out == "" {
		return missingFlag(fs, "--prompts and --out are required")
	}
	if !slices.Contains(serialization.Predictors(), *predictor) {
		return fmt.Errorf("graphs predict: unknown --predictor %q; want oracle, constant or noisy", *predictor)
	}
	recs, err := serialization.ReadPromptsFile(*prompts)
	if err != nil {
		return fmt.Errorf("graphs predict: %w", err)
	}
	err = fsutil.Write(*out, fsutil.DataMode, func(w io.Writer) error {
		return serialization.WritePredictions(w, recs, *predictor, uint64(*seed))
	})
	if err != nil {
		return fmt.Errorf("graphs predict: %w", err)
	}
	fmt.Fprintf(os.Stderr, "wrote %d %s predictions to %s\n", len(recs), *predictor, *out)
	return nil
}

func graphsScore(args []string) error {
	fs := newFlags("graphs score")
	prompts := fs.String("prompts", "", "prompts JSONL from 'narlab graphs prompts'")
	predsPath := fs.String("predictions", "", "predictions JSONL: {\"id\": ..., \"answer_text\": ...} per line")
	model := fs.String("model", "unknown", "name of the model that produced the predictions (logged as a parameter)")
	keepDots := fs.Bool("keep-decimal-points", false, "lenient scoring: do not apply G1's quirk of deleting \".\" from \"the answer is ...\" answers (paper scoring always applies it)")
	scoring := choice(fs, "scoring", "paper", "how outputs are read and judged: paper (G1's own checker, verify_correctness) or lenient (narlab's reading: \\text{} and $..$ unwrapped, any list syntax, any valid answer); both are reported and logged, this one in the tables", "paper", "lenient")
	tf := addTrackingFlags(fs, "graphs/serialization", "score offline: print the tables only")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if err := tf.check("graphs score"); err != nil {
		return err
	}
	mode, err := metrics.ParseScoreMode(*scoring)
	if err != nil {
		return err
	}
	if *prompts == "" || *predsPath == "" {
		return missingFlag(fs, "--prompts and --predictions are required")
	}
	res, err := serialization.ScoreFiles(context.Background(), serialization.ScoreConfig{Prompts: *prompts, Predictions: *predsPath,
		Model: *model, Extract: graphtext.ExtractOptions{KeepDecimalPoints: *keepDots, Mode: mode},
		Experiment: *tf.experiment, TrackingURI: *tf.tracking, NoMLflow: tf.off()})
	if res == nil {
		return fmt.Errorf("graphs score: %w", err)
	}
	serialization.WriteSummary(stdout, res.Report)
	fmt.Fprintf(stdout, "\nscoring: %s (table above); per output: %s\n", mode, res.Comparison)
	return printRunLink("graphs score", res.Run, err)
}
