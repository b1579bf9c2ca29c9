package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	textexp "github.com/narlab/narlab/experiments/clrstext"
	"github.com/narlab/narlab/internal/cliflag"
	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/progress"
	"github.com/narlab/narlab/lib/clrstext"
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

// The two reference generators differ in the current format's precision:
// clrs/_src/clrs_text/generate_clrs_text.py keeps full precision
// (--num_decimals_in_float None), the Hugging Face generator
// (huggingface_generators.clrs_generator) truncates to 3 decimals.
// `clrstext generate` follows generate_clrs_text.py, so its default is full
// precision; `clrstext sample` keeps the Hugging Face generator's 3.
const (
	decimalsGenerateHelp = "current format only: truncate real inputs to this many decimals, or none for full precision; ignored by legacy, which never truncates. The default is that of clrs/_src/clrs_text/generate_clrs_text.py, whose schedule generate follows: full precision (--num_decimals_in_float None). The Hugging Face generator (huggingface_generators.clrs_generator) truncates to 3: --decimals 3"
	decimalsSampleHelp   = "current format only: truncate real inputs to this many decimals, or none for full precision; ignored by legacy, which never truncates. The default is the Hugging Face generator's (huggingface_generators.clrs_generator): 3; clrs/_src/clrs_text/generate_clrs_text.py keeps full precision: --decimals none"
)

func addTextFlags(fs interface {
	String(string, string, string) *string
	Bool(string, bool, string) *bool
}, decimalsDefault, decimalsHelp string) textOptions {
	return textOptions{
		format:   fs.String("format", "legacy", "text format: legacy (July 2024, %.3g floats: the paper's and Hugging Face data) or current (dm-clrs HEAD, str() of truncated floats)"),
		decimals: fs.String("decimals", decimalsDefault, decimalsHelp),
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
	d := 0
	if *t.decimals != "none" { // checked whatever the format, so a typo is never silently ignored
		d, err = strconv.Atoi(*t.decimals)
		if err != nil || d < 1 || d > 15 {
			return o, fmt.Errorf("--decimals %q: accepted 1..15 or none (a float64 has about 15 significant decimals)", *t.decimals)
		}
	}
	if f == clrstext.Current && *t.decimals != "none" {
		o.Decimals = d
	}
	if o.Shift, err = clrstext.ParseShift(*t.shift); err != nil {
		return o, err
	}
	return o, nil
}

func clrstextSample(args []string) error {
	fs := newFlags("clrstext sample")
	algo := fs.String("algo", "", "CLRS-30 algorithm, e.g. insertion_sort")
	length := fs.Int("length", 16, "the sampler's length (number of nodes for most algorithms)")
	seed := fs.Int64("seed", 0, "sampler seed")
	count := fs.Int("count", 1, "number of samples (the first COUNT next(batch_size=1) of one sampler)")
	to := addTextFlags(fs, "3", decimalsSampleHelp)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *algo == "" {
		return missingFlag(fs, "--algo is required")
	}
	o, err := to.options()
	if err != nil {
		return fmt.Errorf("clrstext sample: %w", err)
	}
	// Rows stream: one sample and its text are in memory at a time.
	if err := checkSamples(*algo, *length, *seed, 2, "--length"); err != nil {
		return fmt.Errorf("clrstext sample: one row (a sample and its text): %w", err)
	}
	s, err := clrstext.NewSampler(*algo, *length, *seed, o)
	if err != nil {
		return err
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
	fs := newFlags("clrstext generate")
	split := fs.String("split", "", "train (paper Table 1 sizes, 10,000 rows per size, seed 0) or test (every size up to 64 that fits, 125 rows per size and seed, seeds 3,14,35,81,94; the reference calls it val)")
	out := fs.String("out", "", "output JSONL file, written atomically (default: standard output)")
	algos := fs.String("algos", "", "comma-separated algorithms (default: all 30)")
	count := fs.Int("count", 0, "rows per (algorithm, size, seed) (0: the split's)")
	seedList := fs.String("seeds", "", "comma-separated seeds (default: the split's)")
	layout := fs.String("layout", "hf", "row layout: hf ({text, question, answer, algo_name, length, seed, use_hints}) or reference (generate_clrs_text.py's {name, prompt, references, auxiliary})")
	workers := fs.Int("workers", 0, "parallel jobs (0: all cores)")
	quiet := fs.Bool("quiet", false, "no progress on standard error")
	to := addTextFlags(fs, "none", decimalsGenerateHelp)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *split == "" {
		return missingFlag(fs, "--split is required (train or test)")
	}
	if *out != "" {
		if err := cliflag.CheckOutputFile("out", *out, false); err != nil {
			return fmt.Errorf("clrstext generate: %w", err)
		}
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
	seeds, err := parseSeeds(*seedList)
	if err != nil {
		return fmt.Errorf("clrstext generate: %w", err)
	}
	jobs, err := clrstext.SplitJobs(*split, algoList, *count, seeds)
	if err != nil {
		return err
	}
	return writeRows(commandContext(), clrstext.GenerateConfig{Jobs: jobs, Options: o, Layout: lay, Workers: *workers}, *out, *quiet)
}

// parseSeeds reads a comma-separated list of seeds (nil for "").
func parseSeeds(list string) ([]int64, error) {
	var seeds []int64
	if list == "" {
		return nil, nil
	}
	for _, s := range strings.Split(list, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seeds: %q is not an integer", s)
		}
		seeds = append(seeds, v)
	}
	return seeds, nil
}

// writeRows generates cfg's rows into out (standard output when ""),
// with a progress bar unless quiet.
func writeRows(ctx context.Context, cfg clrstext.GenerateConfig, out string, quiet bool) error {
	start := time.Now()
	var bar *progress.Bar // nil (silent) with --quiet
	if !quiet {
		var once sync.Once
		cfg.Progress = func(rows, total int) {
			once.Do(func() { bar = progress.New(os.Stderr, "clrstext generate", total) })
			bar.Update(rows, "rows")
		}
	}
	var rows int
	gen := func(w io.Writer) error {
		var err error
		rows, err = clrstext.Generate(ctx, w, cfg)
		return err
	}
	var err error
	if out == "" {
		err = gen(stdout)
	} else {
		err = fsutil.Write(out, fsutil.DataMode, gen)
	}
	if err != nil {
		if ctx.Err() != nil {
			bar.Stop("interrupted")
		} else {
			bar.Stop("failed")
		}
		return err
	}
	bar.Done()
	if !quiet {
		el := time.Since(start).Seconds()
		dest := out
		if dest == "" {
			dest = "standard output"
		}
		fmt.Fprintf(os.Stderr, "clrstext: wrote %d rows to %s in %.1fs (%.0f rows/s)\n", rows, dest, el, float64(rows)/el)
	}
	return nil
}

func clrstextScore(args []string) error {
	fs := newFlags("clrstext score")
	data := fs.String("data", "", "the dataset the model answered (JSONL from clrstext generate or sample, or the reference's rows)")
	predPath := fs.String("predictions", "", `JSONL of {"index"?, "prediction"|"output"|"response"|"completion"}; without index, line k answers row k`)
	model := fs.String("model", "", "the model that answered (run name and tag; default: the predictions file's name)")
	format := choice(fs, "format", "text", "output format", "text", "json")
	figure := fs.String("figure", "", "also write the accuracy-vs-length figure (PNG) to this file")
	tf := addTrackingFlags(fs, "clrs-text", "score offline")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if err := tf.check("clrstext score"); err != nil {
		return err
	}
	if *data == "" || *predPath == "" {
		return missingFlag(fs, "--data and --predictions are required")
	}
	res, err := textexp.ScoreFiles(context.Background(), textexp.ScoreConfig{Data: *data, Predictions: *predPath, Model: *model,
		FigurePath: *figure, Experiment: *tf.experiment, TrackingURI: *tf.tracking, NoMLflow: tf.off()})
	if res == nil {
		return fmt.Errorf("clrstext score: %w", err)
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res.Report); err != nil {
			return err
		}
	} else if err := textexp.WriteTable(stdout, res.Report, res.Missing); err != nil {
		return err
	}
	return printRunLink("clrstext score", res.Run, err)
}
