package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/narlab/narlab/experiments"
	"github.com/narlab/narlab/experiments/llmeval"
	"github.com/narlab/narlab/lib/clrstext"
	"github.com/narlab/narlab/plots"
)

func init() {
	register(command{group: "clrstext", name: "sample", summary: "print CLRS-Text samples exactly as the reference generator makes them (JSONL)", run: clrstextSample})
	register(command{group: "clrstext", name: "generate", summary: "write a CLRS-Text split (train/test schedule of the paper) as JSONL", run: clrstextGenerate})
	register(command{group: "clrstext", name: "score", summary: "score model answers (exact match, time-to-first-failure) and log them to MLflow", run: clrstextScore})
}

// textOptions holds the flags shared by sample and generate.
type textOptions struct {
	format, decimals, shift *string
	hints                   *bool
}

func addTextFlags(fs interface {
	String(string, string, string) *string
	Bool(string, bool, string) *bool
}) textOptions {
	return textOptions{
		format:   fs.String("format", "legacy", "text format: legacy (July 2024, %.3g floats: the paper's and Hugging Face data) or current (dm-clrs HEAD, str() of truncated floats)"),
		decimals: fs.String("decimals", "3", "current format only: truncate real inputs to this many decimals, or none for full precision (ignored by legacy, which never truncates)"),
		hints:    fs.Bool("hints", false, "include the hint trace (the reference's use_hints)"),
		shift:    fs.String("shift", "none", "narlab-only distribution shift of the paper's Figure 8: none, trees, scalars (U(1,2)), scalars:LOW:HIGH, or trees+scalars"),
	}
}

func (t textOptions) options() (clrstext.Options, error) {
	f, err := clrstext.ParseFormat(*t.format)
	if err != nil {
		return clrstext.Options{}, err
	}
	o := clrstext.Options{Format: f, Hints: *t.hints}
	if f == clrstext.Current && *t.decimals != "none" {
		d, err := strconv.Atoi(*t.decimals)
		if err != nil || d < 1 {
			return o, fmt.Errorf("--decimals %q: want a positive integer or none", *t.decimals)
		}
		o.Decimals = d
	}
	if o.Shift, err = clrstext.ParseShift(*t.shift); err != nil {
		return o, err
	}
	return o, nil
}

func clrstextSample(args []string) error {
	fs := newFlags("clrstext sample", "--algo A [--length L] [--seed S] [--count K] [--format legacy|current] [--decimals 3|none] [--hints] [--shift S]")
	algo := fs.String("algo", "", "CLRS-30 algorithm, e.g. insertion_sort")
	length := fs.Int("length", 16, "the sampler's length (number of nodes for most algorithms)")
	seed := fs.Int64("seed", 0, "sampler seed")
	count := fs.Int("count", 1, "number of samples (the first COUNT next(batch_size=1) of one sampler)")
	to := addTextFlags(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *algo == "" {
		fs.Usage()
		return errors.New("clrstext sample: --algo is required")
	}
	o, err := to.options()
	if err != nil {
		return fmt.Errorf("clrstext sample: %w", err)
	}
	s, err := clrstext.NewSampler(*algo, *length, *seed, o)
	if err != nil {
		return err
	}
	if *count < 0 {
		return fmt.Errorf("clrstext sample: --count must be non-negative, got %d", *count)
	}
	w := bufio.NewWriter(stdout)
	for range *count {
		ex, err := s.Next()
		if err != nil {
			return err
		}
		w.Write(clrstext.SampleLine(ex))
	}
	return w.Flush()
}

func clrstextGenerate(args []string) error {
	fs := newFlags("clrstext generate", "--split train|test [--format legacy|current] [--out F.jsonl] [--algos A,B] [--hints] [--count N] [--seeds S,T] [--layout hf|reference] [--workers N]")
	split := fs.String("split", "", "train (paper Table 1 sizes, 10,000 rows per size, seed 0) or test (every size up to 64 that fits, 125 rows per size and seed, seeds 3,14,35,81,94; the reference calls it val)")
	out := fs.String("out", "", "output JSONL file, written atomically (default: standard output)")
	algos := fs.String("algos", "", "comma-separated algorithms (default: all 30)")
	count := fs.Int("count", 0, "rows per (algorithm, size, seed) (default: the split's)")
	seedList := fs.String("seeds", "", "comma-separated seeds (default: the split's)")
	layout := fs.String("layout", "hf", "row layout: hf ({text, question, answer, algo_name, length, seed, use_hints}) or reference (generate_clrs_text.py's {name, prompt, references, auxiliary})")
	workers := fs.Int("workers", 0, "parallel jobs (default: all cores)")
	quiet := fs.Bool("quiet", false, "no progress on standard error")
	to := addTextFlags(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *split == "" {
		fs.Usage()
		return errors.New("clrstext generate: --split is required (train or test)")
	}
	o, err := to.options()
	if err != nil {
		return fmt.Errorf("clrstext generate: %w", err)
	}
	lay, err := clrstext.ParseLayout(*layout)
	if err != nil {
		return err
	}
	var algoList []string
	if *algos != "" {
		algoList = strings.Split(*algos, ",")
	}
	var seeds []int64
	if *seedList != "" {
		for _, s := range strings.Split(*seedList, ",") {
			v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if err != nil {
				return fmt.Errorf("clrstext generate: --seeds: %q is not an integer", s)
			}
			seeds = append(seeds, v)
		}
	}
	jobs, err := clrstext.SplitJobs(*split, algoList, *count, seeds)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	last := time.Time{}
	cfg := clrstext.GenerateConfig{Jobs: jobs, Options: o, Layout: lay, Workers: *workers}
	if !*quiet {
		cfg.Progress = func(rows, total int) {
			if now := time.Now(); now.Sub(last) > 500*time.Millisecond || rows == total {
				last = now
				el := now.Sub(start).Seconds()
				fmt.Fprintf(os.Stderr, "\rclrstext: %d/%d rows (%.0f rows/s)   ", rows, total, float64(rows)/max(el, 1e-9))
			}
		}
	}
	var rows int
	gen := func(w io.Writer) error {
		var err error
		rows, err = clrstext.Generate(ctx, w, cfg)
		return err
	}
	if *out == "" {
		err = gen(stdout)
	} else {
		err = clrstext.WriteFileAtomic(*out, gen)
	}
	if !*quiet {
		fmt.Fprintln(os.Stderr)
	}
	if err != nil {
		return err
	}
	if !*quiet {
		el := time.Since(start).Seconds()
		dest := *out
		if dest == "" {
			dest = "standard output"
		}
		fmt.Fprintf(os.Stderr, "clrstext: wrote %d rows to %s in %.1fs (%.0f rows/s)\n", rows, dest, el, float64(rows)/el)
	}
	return nil
}

func clrstextScore(args []string) error {
	fs := newFlags("clrstext score", "--data D.jsonl --predictions P.jsonl [--model M] [--json] [--figure F.png] [--experiment E] [--tracking URI|none] [--no-mlflow]")
	data := fs.String("data", "", "the dataset the model answered (JSONL from clrstext generate or sample, or the reference's rows)")
	predPath := fs.String("predictions", "", `JSONL of {"index"?, "prediction"|"output"|"response"|"completion"}; without index, line k answers row k`)
	model := fs.String("model", "", "the model that answered (run name and tag; default: the predictions file's name)")
	asJSON := fs.Bool("json", false, "print the scores as JSON")
	figure := fs.String("figure", "", "also write the accuracy-vs-length figure (PNG) to this file")
	experiment := fs.String("experiment", "clrs-text", "MLflow experiment of the run")
	tracking := fs.String("tracking", "", "MLflow server address; none: do not log (default: MLFLOW_TRACKING_URI, else narlab's local server)")
	noMLflow := fs.Bool("no-mlflow", false, "score offline (same as --tracking none)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *data == "" || *predPath == "" {
		fs.Usage()
		return errors.New("clrstext score: --data and --predictions are required")
	}
	if *noMLflow {
		*tracking = "none"
	}
	rows, err := readRowsFile(*data)
	if err != nil {
		return err
	}
	pf, err := os.Open(*predPath)
	if err != nil {
		return fmt.Errorf("clrstext score: %w", err)
	}
	preds, err := clrstext.ReadPredictions(pf)
	pf.Close()
	if err != nil {
		return err
	}
	items, missing, err := clrstext.Match(rows, preds)
	if err != nil {
		return err
	}
	rep, err := clrstext.Score(items)
	if err != nil {
		return err
	}
	label := *model
	if label == "" {
		label = strings.TrimSuffix(filepath.Base(*predPath), filepath.Ext(*predPath))
	}
	fig, err := clrstextFigure(label, rep)
	if err != nil {
		return err
	}
	if *figure != "" {
		png, err := fig.PNG()
		if err != nil {
			return err
		}
		if err := clrstext.WriteFileAtomic(*figure, func(w io.Writer) error { _, err := w.Write(png); return err }); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		w := bufio.NewWriter(stdout)
		writeScoreTable(w, rep, missing)
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if *tracking == "none" {
		return nil
	}
	params := map[string]string{
		"data": *data, "predictions": *predPath, "model": label,
		"rows": strconv.Itoa(len(rows)), "predictions_count": strconv.Itoa(len(preds)), "unanswered": strconv.Itoa(missing),
	}
	return clrstextLogRun(*experiment, *tracking, label, params, rep, fig)
}

func readRowsFile(path string) ([]clrstext.Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("clrstext score: %w", err)
	}
	defer f.Close()
	return clrstext.ReadRows(f)
}

func writeScoreTable(w io.Writer, r clrstext.Report, missing int) {
	fmt.Fprintf(w, "%-30s %6s %6s %9s %7s %7s\n", "algorithm", "length", "n", "accuracy", "ttff", "parsed")
	for _, c := range r.Cells {
		fmt.Fprintf(w, "%-30s %6d %6d %9.3f %7.3f %7.3f\n", c.Algo, c.Length, c.N, c.Accuracy, c.TTFF, c.Parsed)
	}
	fmt.Fprintln(w)
	for _, c := range r.PerAlgo {
		fmt.Fprintf(w, "%-30s %6s %6d %9.3f %7.3f %7.3f\n", c.Algo, "all", c.N, c.Accuracy, c.TTFF, c.Parsed)
	}
	fmt.Fprintf(w, "\noverall: %d answers, accuracy %.4f (macro over algorithms %.4f), time-to-first-failure %.4f",
		r.Overall.N, r.Overall.Accuracy, r.MacroAccuracy, r.Overall.TTFF)
	if missing > 0 {
		fmt.Fprintf(w, "; %d dataset rows without a prediction were left out", missing)
	}
	fmt.Fprintln(w)
}

// clrstextFigure draws the paper's Figure 5 layout (llmeval.CLRSTextFigure).
func clrstextFigure(label string, r clrstext.Report) (*plots.Figure, error) {
	fig, err := llmeval.CLRSTextFigure(label, r)
	if err != nil {
		return nil, fmt.Errorf("clrstext score: %w", err)
	}
	return fig, nil
}

// clrstextLogRun records a scoring run in MLflow: params, the overall and
// per-algorithm metrics (per-length accuracies as metric steps), the score
// table and the figure.
func clrstextLogRun(experiment, tracking, label string, params map[string]string, r clrstext.Report, fig *plots.Figure) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	opts := []experiments.Option{experiments.RunName(label),
		experiments.Tags(map[string]string{"model": label, "benchmark": "CLRS-Text"}),
		experiments.Source("narlab clrstext score")}
	if tracking != "" {
		opts = append(opts, experiments.TrackingURI(tracking))
	}
	run, err := experiments.Start(ctx, experiment, params, opts...)
	if err != nil {
		return fmt.Errorf("clrstext score: %w (score offline with --no-mlflow)", err)
	}
	logErr := llmeval.LogCLRSText(run, r, fig)
	if err := run.EndWith(ctx, logErr); err != nil {
		return fmt.Errorf("clrstext score: the MLflow server did not take the whole run (%w); what is missing waits in the spool: run `narlab mlflow sync`", err)
	}
	if logErr != nil {
		return fmt.Errorf("clrstext score: %w", logErr)
	}
	fmt.Fprintf(os.Stderr, "MLflow run %s: %s\n", run.ID(), run.URL())
	return nil
}
