package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/internal/progress"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nprand"
)

func init() {
	register(command{group: "clrs", name: "algos", summary: "list the CLRS algorithms, their specs and sampler parameters", run: clrsAlgos})
	register(command{group: "clrs", name: "sample", summary: "sample trajectories (reference-JSON layout)", run: clrsSample})
	register(command{group: "clrs", name: "run", summary: "run an algorithm on given inputs and print its trajectory", run: clrsRun})
	register(command{group: "clrs", name: "generate", summary: "write CLRS-30 splits, or samples of any length, seed and count, as numpy .npz files", run: clrsGenerate})
}

func clrsAlgos(args []string) error {
	fs := newFlags("clrs algos")
	format := choice(fs, "format", "text", "output format", "text", "json")
	if flagSetHook != nil {
		flagSetHook(fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return errUsage
	}
	names := fs.Args()
	if len(names) == 0 {
		names = clrs.Algorithms()
	}
	type probeJSON struct {
		Name, Stage, Location, Type string
	}
	type algoJSON struct {
		Name       string         `json:"name"`
		CLRS30     bool           `json:"clrs30"`
		Args       []string       `json:"args"`
		Sampler    string         `json:"sampler"`
		Params     map[string]any `json:"sampler_params"`
		Multiplier int            `json:"num_samples_multiplier"`
		Spec       []probeJSON    `json:"spec"`
	}
	var out []algoJSON
	for _, name := range names {
		class, params, err := clrs.SamplerParams(name)
		if err != nil {
			return err
		}
		argDoc, _ := clrs.ArgDoc(name)
		a := algoJSON{Name: name, CLRS30: slices.Contains(clrs.CLRS30(), name), Args: argDoc, Sampler: class,
			Params: params, Multiplier: clrs.SampleMultiplier(name)}
		for _, p := range clrs.Specs[name] {
			a.Spec = append(a.Spec, probeJSON{p.Name, p.Stage.String(), p.Location.String(), p.Type.String()})
		}
		out = append(out, a)
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	for _, a := range out {
		tag := ""
		if a.CLRS30 {
			tag = "  [CLRS-30]"
		}
		fmt.Fprintf(w, "%s%s\n  sampler: %s %s\n  args:    %s\n", a.Name, tag, a.Sampler, clrs.FormatSamplerParams(a.Params), strings.Join(a.Args, "; "))
		for _, st := range []string{"input", "output", "hint"} {
			var ps []string
			for _, p := range a.Spec {
				if p.Stage == st {
					ps = append(ps, fmt.Sprintf("%s %s/%s", p.Name, p.Location, p.Type))
				}
			}
			fmt.Fprintf(w, "  %-7s  %s\n", st+":", strings.Join(ps, ", "))
		}
	}
	return nil
}

// sampleFlags are clrs sample's flags.
type sampleFlags struct {
	algo, split, format, out, kwargs string
	length, num, batch, trunc        int
	seed, randomPos                  int64
	predAsInput, perms               bool
}

func clrsSample(args []string) error {
	fs := newFlags("clrs sample")
	var f sampleFlags
	fs.StringVar(&f.algo, "algo", "", "algorithm (required; see 'narlab clrs algos')")
	fs.IntVar(&f.length, "length", 16, "sampler length (number of nodes for most algorithms)")
	fs.Int64Var(&f.seed, "seed", 0, "RandomState seed")
	fs.IntVar(&f.num, "count", 1, "number of samples generated (the whole set is printed)")
	fs.StringVar(&f.split, "split", "", "use the official CLRS-30 split settings instead (train, val or test)")
	fs.StringVar(&f.format, "format", "reference-json", "output format: reference-json (the reference's dump layout), text, or npz (the layout of clrs generate's files, into --out)")
	fs.StringVar(&f.out, "out", "", "write to this file instead of standard output (required with --format npz; written whole or not at all)")
	fs.StringVar(&f.kwargs, "kwargs", "", `sampler parameters as JSON, e.g. '{"p": [0.5]}'`)
	fs.IntVar(&f.batch, "batch", 0, "print next(BATCH), a random batch drawn with replacement, instead of the whole set (0: the whole set)")
	fs.Int64Var(&f.randomPos, "random-pos", -1, "randomise pos with a RandomState of this seed (run.py's process_random_pos)")
	fs.BoolVar(&f.predAsInput, "pred-as-input", false, "move a constant pred_h hint to a pred input (only for run.py's list of algorithms)")
	fs.BoolVar(&f.perms, "permutations", false, "turn should_be_permutation outputs into permutation pointers and masks")
	fs.IntVar(&f.trunc, "truncate-decimals", 0, "truncate real inputs to this many decimals (0: off)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if f.algo == "" {
		return missingFlag(fs, "--algo is required")
	}
	if err := f.checkFormat(); err != nil {
		return err
	}
	s, h, err := f.sampler()
	if err != nil {
		return err
	}
	fb, err := f.feedback(s)
	if err != nil {
		return err
	}
	return f.write(h, fb)
}

// checkFormat refuses an unknown --format, and npz without a file or with
// the options that change the spec's probes.
func (f *sampleFlags) checkFormat() error {
	if f.format != "reference-json" && f.format != "text" && f.format != "npz" {
		return fmt.Errorf("clrs sample: unknown --format %q (want reference-json, text or npz)", f.format)
	}
	if f.format != "npz" {
		return nil
	}
	if f.out == "" || f.out == "-" {
		return fmt.Errorf("clrs sample: --format npz writes a file: give it with --out FILE.npz")
	}
	if f.randomPos >= 0 || f.predAsInput || f.perms {
		return fmt.Errorf("clrs sample: --format npz writes the spec's probes, as clrs generate's files hold them; --random-pos, --pred-as-input and --permutations change them (narlab's and dm-clrs's training apply them to batches)")
	}
	return nil
}

// sampler is the sampler the flags describe (a CLRS-30 split's, or one of
// the given length, seed and count), checked against the memory budget,
// with the reference dump's header.
func (f *sampleFlags) sampler() (*clrs.Sampler, clrs.ReferenceHeader, error) {
	params, err := clrs.ParseParams(f.kwargs)
	if err != nil {
		return nil, clrs.ReferenceHeader{}, fmt.Errorf("--kwargs %w", err)
	}
	opts := []clrs.Option{}
	for _, p := range params {
		opts = append(opts, clrs.Kwarg(p.Name, p.Value))
	}
	if f.trunc > 0 {
		opts = append(opts, clrs.TruncateDecimals(f.trunc))
	}
	h := clrs.ReferenceHeader{Algorithm: f.algo, Length: f.length, Seed: f.seed, NumSamples: f.num, Kwargs: params}
	if f.split != "" {
		sp, err := clrs.CLRS30Split(f.algo, f.split)
		if err != nil {
			return nil, h, err
		}
		h.Length, h.Seed, h.NumSamples = sp.Length, sp.Seed, sp.NumSamples
		if err := checkSamples(f.algo, sp.Length, sp.Seed, sp.NumSamples+f.batch, "--batch", opts...); err != nil {
			return nil, h, fmt.Errorf("clrs sample: %w", err)
		}
		s, err := clrs.NewSplitSampler(f.algo, f.split, opts...)
		return s, h, err
	}
	if f.num < 1 {
		return nil, h, fmt.Errorf("--count must be at least 1, got %d", f.num)
	}
	if err := checkSamples(f.algo, f.length, f.seed, f.num+f.batch, "--count, --batch or --length", opts...); err != nil {
		return nil, h, fmt.Errorf("clrs sample: %w", err)
	}
	s, err := clrs.NewSampler(f.algo, append(opts, clrs.Length(f.length), clrs.Seed(f.seed), clrs.NumSamples(f.num))...)
	return s, h, err
}

// feedback draws the whole set (or a batch) and applies the flags'
// transformations of run.py.
func (f *sampleFlags) feedback(s *clrs.Sampler) (fb *clrs.Feedback, err error) {
	if f.batch > 0 {
		fb, err = s.Next(f.batch)
		if err == nil {
			fb.Args = nil
			for _, t := range s.Trajectories() {
				fb.Args = append(fb.Args, t.Args)
			}
		}
	} else {
		fb, err = s.Dataset()
	}
	if err != nil {
		return nil, err
	}
	if f.randomPos >= 0 {
		rng, err := nprand.NewChecked(f.randomPos)
		if err != nil {
			return nil, err
		}
		if fb, err = clrs.RandomPos(fb, rng); err != nil {
			return nil, err
		}
	}
	if f.predAsInput && slices.Contains(clrs.PredAsInputAlgorithms, f.algo) {
		if fb, err = clrs.PredAsInput(fb); err != nil {
			return nil, err
		}
	}
	if f.perms {
		fb, err = clrs.Permutations(fb, true)
	}
	return fb, err
}

// write writes the samples in the flags' format to --out or standard
// output.
func (f *sampleFlags) write(h clrs.ReferenceHeader, fb *clrs.Feedback) error {
	if f.format == "npz" {
		return clrs.SaveNPZ(f.out, fb, clrs.Compressed())
	}
	write := func(w io.Writer) error {
		if f.format == "reference-json" {
			return clrs.WriteReferenceJSON(w, h, fb)
		}
		for b := 0; b < fb.BatchSize(); b++ {
			t, err := fb.Trajectory(b)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "# sample %d\n", b)
			if err := clrs.WriteText(w, t); err != nil {
				return err
			}
		}
		return nil
	}
	if f.out == "" || f.out == "-" {
		return write(stdout)
	}
	return fsutil.Write(f.out, fsutil.DataMode, write)
}

func clrsRun(args []string) error {
	fs := newFlags("clrs run")
	algo := fs.String("algo", "", "algorithm (required; see 'narlab clrs algos')")
	input := fs.String("input", "", `file holding the JSON input ({"ARG": value, …} with the algorithm's argument names, or {"args": [positional…]}); "-" reads stdin`)
	format := fs.String("format", "reference-json", "output format: reference-json or text")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *algo == "" || *input == "" {
		return missingFlag(fs, "--algo and --input are required")
	}
	if *format != "reference-json" && *format != "text" {
		return fmt.Errorf("clrs run: unknown --format %q (want reference-json or text)", *format)
	}
	names, err := clrs.ArgNames(*algo)
	if err != nil {
		return err
	}
	var in io.Reader = os.Stdin
	if *input != "-" {
		f, err := os.Open(*input)
		if err != nil {
			return fmt.Errorf("reading input: %w", err)
		}
		defer f.Close()
		in = f
	}
	raw, err := io.ReadAll(io.LimitReader(in, maxRunInput+1))
	if err != nil {
		return fmt.Errorf("reading input: %w", err)
	}
	if len(raw) > maxRunInput {
		return fmt.Errorf("input for %s: longer than %d MiB; inputs have at most %d elements per dimension", *algo, maxRunInput>>20, maxLength)
	}
	runArgs, err := clrs.DecodeArgs(raw, names, maxLength)
	if err != nil {
		why := ""
		if errors.As(err, new(*clrs.ArgLengthError)) {
			why = " (" + lengthWhy + ")"
		}
		doc, _ := clrs.ArgDoc(*algo)
		return fmt.Errorf("input for %s: %w%s\nexpected arguments: %s", *algo, err, why, strings.Join(doc, "; "))
	}
	t, err := clrs.Run(*algo, runArgs)
	if err != nil {
		return err
	}
	switch *format {
	case "reference-json":
		fb, err := clrs.Batch([]*clrs.Trajectory{t}, 0)
		if err != nil {
			return err
		}
		return clrs.WriteReferenceJSON(stdout, clrs.ReferenceHeader{Algorithm: *algo}, fb)
	case "text":
		return clrs.WriteText(stdout, t)
	}
	return fmt.Errorf("unknown --format %q (want reference-json or text)", *format)
}

// maxRunInput bounds the JSON input of `clrs run`: 16 MiB.
const maxRunInput = 16 << 20

func clrsGenerate(args []string) error {
	fs := newFlags("clrs generate")
	split := fs.String("split", "all", "split to write: train, val, test or all")
	algos := fs.String("algos", "all", "comma-separated algorithms, or all (the 30 of CLRS-30)")
	out := fs.String("out", "", "output directory (files ALGO_SPLIT.npz and manifest.json, put in place together once all are written; an interrupted or failed run leaves none)")
	workers := fs.Int("workers", 0, "goroutines running the algorithms (0: all CPUs)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	compress := fs.Bool("compress", true, "deflate the arrays (zip method 8, read by numpy.load like numpy.savez_compressed's files: the train split is 14x smaller and written faster than stored); --compress=false stores them as numpy.savez does")
	lengths := fs.String("lengths", "", "instead of the official splits: comma-separated sampler lengths, one file per algorithm, length and seed, ALGO_nLENGTH_sSEED.npz (dm-clrs's build_sampler(algo, num_samples, length, seed, **kwargs); default 16 when --seeds, --count, --kwargs or --name is given)")
	seeds := fs.String("seeds", "", "with settings of one's own: comma-separated RandomState seeds 0..2³²−1 (default 0)")
	count := fs.Int("count", 0, "with settings of one's own: samples per file (default 1000)")
	kwargs := fs.String("kwargs", "", `with settings of one's own: sampler parameters as JSON, given to every sampler, e.g. '{"p": [0.5]}'`)
	name := fs.String("name", "", "with one length and one seed: the file's name is ALGO_NAME.npz (and NAME its split in the manifest) instead of ALGO_nLENGTH_sSEED.npz")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return fmt.Errorf("--out is required")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	opts := clrs.DatasetOptions{Workers: *workers, Uncompressed: !*compress}
	if *algos != "all" {
		opts.Algorithms = strings.Split(*algos, ",")
	}
	if set["lengths"] || set["seeds"] || set["count"] || set["kwargs"] || set["name"] {
		if set["split"] {
			return fmt.Errorf("clrs generate: --split writes the official CLRS-30 splits; --lengths, --seeds, --count, --kwargs and --name write settings of one's own: give one or the other")
		}
		settings, err := generateSettings(*lengths, *seeds, *count, *name)
		if err != nil {
			return fmt.Errorf("clrs generate: %w", err)
		}
		if opts.Kwargs, err = clrs.ParseParams(*kwargs); err != nil {
			return fmt.Errorf("--kwargs %w", err)
		}
		var kw []clrs.Option
		for _, p := range opts.Kwargs {
			kw = append(kw, clrs.Kwarg(p.Name, p.Value))
		}
		names := opts.Algorithms
		if len(names) == 0 {
			names = clrs.CLRS30()
		}
		// Each file is held in memory while it is written: one file at a
		// time must fit the budget.
		for _, s := range settings {
			for _, a := range names {
				if _, _, err := clrs.SamplerParams(a); err != nil {
					return err
				}
				if err := checkSamples(a, s.Length, s.Seed, s.NumSamples, "--count or --lengths", kw...); err != nil {
					return fmt.Errorf("clrs generate: %w", err)
				}
			}
		}
		opts.Settings = settings
	} else if *split != "all" {
		opts.Splits = []string{*split}
	}
	var bar *progress.Bar // nil (silent) with --quiet
	if !*quiet {
		var once sync.Once
		opts.Progress = func(done, total int, label string) {
			once.Do(func() { bar = progress.New(os.Stderr, "clrs generate", total) })
			bar.Update(done, label)
		}
	}
	// SIGINT or SIGTERM stops the sampler and the writers after their
	// current file; nothing is left.
	m, err := clrs.WriteDataset(commandContext(), *out, opts)
	if err != nil {
		return err
	}
	bar.Done()
	fmt.Fprintf(stdout, "wrote %d files to %s in %.1fs\n", len(m.Files), *out, m.Seconds)
	return nil
}

// generateSettings turns clrs generate's --lengths, --seeds, --count and
// --name into the settings of one file each (every length with every
// seed).
func generateSettings(lengths, seeds string, count int, name string) ([]clrs.Split, error) {
	if lengths == "" {
		lengths = "16"
	}
	if seeds == "" {
		seeds = "0"
	}
	if count == 0 {
		count = 1000
	}
	var ls []int
	for _, f := range strings.Split(lengths, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > maxLength {
			return nil, fmt.Errorf("--lengths %q: want comma-separated lengths 1..%d (%s)", lengths, maxLength, lengthWhy)
		}
		if slices.Contains(ls, n) {
			return nil, fmt.Errorf("--lengths %q: %d is listed twice", lengths, n)
		}
		ls = append(ls, n)
	}
	var ss []int64
	for _, f := range strings.Split(seeds, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n < 0 || n > maxSeed32 {
			return nil, fmt.Errorf("--seeds %q: want comma-separated seeds 0..%d (numpy's RandomState takes 32-bit seeds)", seeds, int64(maxSeed32))
		}
		if slices.Contains(ss, n) {
			return nil, fmt.Errorf("--seeds %q: %d is listed twice", seeds, n)
		}
		ss = append(ss, n)
	}
	if name != "" && len(ls)*len(ss) > 1 {
		return nil, fmt.Errorf("--name %q names one file; --lengths and --seeds give %d per algorithm", name, len(ls)*len(ss))
	}
	var out []clrs.Split
	for _, l := range ls {
		for _, s := range ss {
			out = append(out, clrs.Split{Name: name, Length: l, Seed: s, NumSamples: count})
		}
	}
	return out, nil
}
