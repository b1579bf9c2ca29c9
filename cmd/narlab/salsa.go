package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/narlab/narlab/internal/progress"
	"github.com/narlab/narlab/lib/salsa"
)

func init() {
	register(command{group: "salsa", name: "sets", summary: "list SALSA-CLRS's datasets: graph families, sizes, samples", run: salsaSets})
	register(command{group: "salsa", name: "generate", summary: "write SALSA-CLRS's sparse datasets as numpy .npz files (edge-index arrays)", run: salsaGenerate})
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
		fs.Usage()
		return fmt.Errorf("--out is required")
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
