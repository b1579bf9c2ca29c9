package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/narlab/narlab/experiments/salsaclrs"
	"github.com/narlab/narlab/internal/progress"
	"github.com/narlab/narlab/lib/nn"
	"github.com/narlab/narlab/lib/salsa"
)

func init() {
	register(command{group: "salsa", name: "sets", summary: "list SALSA-CLRS's datasets: graph families, sizes, samples", run: salsaSets})
	register(command{group: "salsa", name: "generate", summary: "write SALSA-CLRS's sparse datasets as numpy .npz files (edge-index arrays)", run: salsaGenerate})
	register(command{group: "salsa", name: "run", summary: "train the sparse model on small graphs and test it on graphs of up to 1,600 nodes (SALSA-CLRS's protocol)", run: salsaRun})
}

func salsaRun(args []string) error {
	fs := newFlags("salsa run")
	var c salsaclrs.Config
	algos := fs.String("algos", "all", "comma-separated algorithms ("+strings.Join(salsa.Algorithms(), ", ")+"), or all")
	sets := fs.String("sets", "all", "comma-separated test sets (er_16 … delaunay_1600: see salsa sets), or all")
	fs.StringVar(&c.Dir, "dir", "", "keep each finished algorithm's result in DIR (ALGO.json, results.md, figure.png); rerun with the same DIR and settings to resume")
	fs.StringVar(&c.Processor, "processor", "pgn", "sparse processor: "+strings.Join(nn.SparseProcessors(), ", "))
	fs.StringVar(&c.HintMode, "hint-mode", "none", "none (SALSA-CLRS's: no hint loss) or decoded_only")
	fs.IntVar(&c.Hidden, "hidden", 64, "hidden size")
	fs.IntVar(&c.Batch, "batch", 8, "training graphs per step (SALSA-CLRS: 8)")
	fs.IntVar(&c.Steps, "steps", 2000, "training steps")
	fs.Float64Var(&c.LR, "lr", 4.2e-4, "Adam learning rate (SALSA-CLRS's)")
	fs.Int64Var(&c.Seed, "seed", 42, "model seed")
	dataSeed := fs.Int64("data-seed", 1, "seed of the graphs (lib/salsa's sample streams)")
	fs.IntVar(&c.TrainSamples, "train-samples", 10000, "training graphs (SALSA-CLRS: 10,000)")
	fs.IntVar(&c.ValSamples, "val-samples", 200, "validation graphs (SALSA-CLRS: 1,000)")
	fs.IntVar(&c.EvalEvery, "eval-every", 200, "validate every this many steps (the best parameters are tested)")
	maxTest := fs.Int("test-samples", 0, "test graphs per set (0: 1,000 up to 160 nodes, 40 at 800, 20 at 1,600; SALSA-CLRS: 1,000)")
	fs.IntVar(&c.NodesPerBatch, "eval-nodes", 16384, "nodes per evaluation batch")
	fs.StringVar(&c.Backend, "backend", "", backendUsage)
	tf := addTrackingFlags(fs, "salsa-clrs", "train and test without logging")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if err := tf.check("salsa run"); err != nil {
		return err
	}
	if *algos != "all" {
		c.Algos = strings.Split(*algos, ",")
	}
	if *sets != "all" {
		c.TestSets = strings.Split(*sets, ",")
	}
	if *dataSeed < 1 || *dataSeed > 1<<32-1 {
		return fmt.Errorf("salsa run: --data-seed %d; want 1 … 4294967295", *dataSeed)
	}
	c.DataSeed = uint32(*dataSeed)
	if *maxTest > 0 {
		c.TestSamples = func(int) int { return *maxTest }
	}
	c.Experiment, c.NoMLflow, c.TrackingURI = *tf.experiment, tf.off(), *tf.tracking
	c.Progress = os.Stderr
	results, err := salsaclrs.Run(commandContext(), c)
	for _, r := range results {
		fmt.Fprintf(stdout, "%s: best val %.3f at step %d (%.0f s)\n", r.Algo, r.BestVal, r.BestStep, r.Seconds)
		w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "  set\tfamily\tn\tgraphs\tscore\tseconds")
		for _, t := range r.Tests {
			fmt.Fprintf(w, "  %s\t%s\t%d\t%d\t%.3f\t%.1f\n", t.Set, t.Family, t.N, t.Samples, t.Scores["score"], t.Seconds)
		}
		w.Flush()
		if r.RunID != "" {
			fmt.Fprintf(os.Stderr, "MLflow run %s\n", r.RunID)
		}
	}
	return err
}

// salsaFileBudget bounds the estimated memory of one file's samples,
// which salsa generate holds until the file is written: SALSA-CLRS's own
// sizes need at most about 0.8 GB (dfs's training set with hints).
const salsaFileBudget = 4e9

func salsaSets(args []string) error {
	fs := newFlags("salsa sets")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "set\tsplit\tfamily\tn\tp\tk\tsamples")
	for _, s := range salsa.Sets() {
		p, k := "", ""
		if s.Family.Kind != salsa.Delaunay {
			p = fmt.Sprintf("[%.4g, %.4g]", s.Family.P[0], s.Family.P[1])
		}
		if s.Family.Kind == salsa.WS {
			k = strings.Trim(fmt.Sprint(s.Family.K), "[]")
		}
		fmt.Fprintf(w, "%s\t%s\t%v\t%s\t%s\t%s\t%d\n", s.Name, s.Split, s.Family.Kind, strings.Trim(fmt.Sprint(s.Family.N), "[]"), p, k, s.Samples)
	}
	return w.Flush()
}

func salsaGenerate(args []string) error {
	fs := newFlags("salsa generate")
	algos := fs.String("algos", "all", "comma-separated algorithms ("+strings.Join(salsa.Algorithms(), ", ")+"), or all")
	sets := fs.String("sets", "all", "comma-separated sets (train, val, er_16 … delaunay_1600: see salsa sets), or all")
	out := fs.String("out", "", "output directory (required; files ALGO_SET.npz and manifest.json, put in place together once all are written: an interrupted or failed run leaves none)")
	seed := fs.Int64("seed", 0, "seed of every sample's numpy stream RandomState([seed, crc32(set), i])")
	count := fs.Int("count", 0, "samples per set (0: SALSA-CLRS's sizes, 10,000 train, 1,000 val and test); sample i is the same whatever the count")
	hints := choice(fs, "hints", "train", "which sets keep their hints (SALSA-CLRS: the training set only)", "train", "all", "none")
	workers := fs.Int("workers", 0, "goroutines drawing samples (0: all CPUs)")
	compress := fs.Bool("compress", true, "deflate the arrays (numpy.load reads both); --compress=false stores them as numpy.savez does")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *out == "" {
		return missingFlag(fs, "--out is required")
	}
	cfg := salsa.Config{Out: *out, Seed: uint32(*seed), Count: *count, Workers: *workers, Compress: *compress, MaxBytes: salsaFileBudget}
	cfg.Hints, _ = salsa.ParseHints(*hints)
	if *algos != "all" {
		cfg.Algorithms = strings.Split(*algos, ",")
	}
	if *sets != "all" {
		cfg.Sets = strings.Split(*sets, ",")
	}
	var bar *progress.Bar // nil (silent) with --quiet
	if !*quiet {
		cfg.Progress = func(done, total int, file string) {
			if bar == nil {
				bar = progress.New(os.Stderr, "salsa generate", total)
			}
			bar.Update(done, file)
		}
	}
	start := time.Now()
	m, err := salsa.Generate(commandContext(), cfg)
	if err != nil {
		return err
	}
	bar.Done()
	samples := 0
	for _, f := range m.Files {
		samples += f.Samples
	}
	fmt.Fprintf(stdout, "wrote %d files (%d samples) and manifest.json to %s in %v\n", len(m.Files), samples, *out, time.Since(start).Round(time.Millisecond))
	return nil
}
