package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/narlab/narlab/internal/progress"
	"github.com/narlab/narlab/lib/clrs"
	"github.com/narlab/narlab/lib/nprand"
)

func init() {
	register(command{group: "clrs", name: "algos", summary: "list the CLRS algorithms, their specs and sampler parameters", run: clrsAlgos})
	register(command{group: "clrs", name: "sample", summary: "sample trajectories (reference-JSON layout)", run: clrsSample})
	register(command{group: "clrs", name: "run", summary: "run an algorithm on given inputs and print its trajectory", run: clrsRun})
	register(command{group: "clrs", name: "generate", summary: "write CLRS-30 splits as numpy .npz files", run: clrsGenerate})
}

func clrsAlgos(args []string) error {
	fs := newFlags("clrs algos")
	format := choice(fs, "format", "text", "output format", "text", "json")
	jsonAlias(fs, format)
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
		fmt.Fprintf(w, "%s%s\n  sampler: %s %s\n  args:    %s\n", a.Name, tag, a.Sampler, formatParams(a.Params), strings.Join(a.Args, "; "))
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

func formatParams(p map[string]any) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := p[k]
		if v == nil {
			v = "None"
		}
		parts[i] = fmt.Sprintf("%s=%v", k, v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// parseKwargs reads a JSON object of sampler parameters, keeping its order
// and telling integers from reals.
func parseKwargs(s string) ([]clrs.Param, error) {
	if s == "" {
		return nil, nil
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("--kwargs must be a JSON object such as '{\"p\": [0.5]}'")
	}
	var out []clrs.Param
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("--kwargs %q: %v; expected a JSON object such as '{\"p\": [0.5]}'", s, err)
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("--kwargs %q: parameter %v: %v; expected a JSON object such as '{\"p\": [0.5]}'", s, k, err)
		}
		cv, err := jsonValue(v)
		if err != nil {
			return nil, fmt.Errorf("--kwargs %v: %w", k, err)
		}
		out = append(out, clrs.Param{Name: k.(string), Value: cv})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, fmt.Errorf("--kwargs %q: unterminated JSON object; expected one such as '{\"p\": [0.5]}'", s)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("--kwargs %q: text after the JSON object; expected one object such as '{\"p\": [0.5]}'", s)
	}
	return out, nil
}

// jsonValue converts a decoded JSON value (numbers as json.Number) into the
// Go types the clrs package accepts.
func jsonValue(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			i, err := x.Int64()
			return int(i), err
		}
		return x.Float64()
	case []any:
		allInt := true
		for _, e := range x {
			n, ok := e.(json.Number)
			if !ok {
				if _, nested := e.([]any); nested {
					return jsonMatrix(x)
				}
				return nil, fmt.Errorf("list element %v is not a number", e)
			}
			if strings.ContainsAny(string(n), ".eE") {
				allInt = false
			}
		}
		if allInt {
			out := make([]int, len(x))
			for i, e := range x {
				n, err := e.(json.Number).Int64()
				if err != nil {
					return nil, err
				}
				out[i] = int(n)
			}
			return out, nil
		}
		out := make([]float64, len(x))
		for i, e := range x {
			f, err := e.(json.Number).Float64()
			if err != nil {
				return nil, err
			}
			out[i] = f
		}
		return out, nil
	case bool:
		return nil, fmt.Errorf("booleans are not accepted here (got %v)", x)
	}
	return nil, fmt.Errorf("unsupported value %v", v)
}

func jsonMatrix(rows []any) (any, error) {
	out := make([][]float64, len(rows))
	allInt := true
	for i, r := range rows {
		cells, ok := r.([]any)
		if !ok {
			return nil, fmt.Errorf("row %d is not a list", i)
		}
		out[i] = make([]float64, len(cells))
		for j, c := range cells {
			n, ok := c.(json.Number)
			if !ok {
				return nil, fmt.Errorf("entry [%d][%d] is not a number", i, j)
			}
			if strings.ContainsAny(string(n), ".eE") {
				allInt = false
			}
			f, err := n.Float64()
			if err != nil {
				return nil, err
			}
			out[i][j] = f
		}
	}
	m, err := clrs.MatrixFromRows(out)
	if err != nil {
		return nil, err
	}
	m.Int = allInt
	return m, nil
}

func clrsSample(args []string) error {
	fs := newFlags("clrs sample")
	algo := fs.String("algo", "", "algorithm (required; see 'narlab clrs algos')")
	length := fs.Int("length", 16, "sampler length (number of nodes for most algorithms)")
	seed := fs.Int64("seed", 0, "RandomState seed")
	num := fs.Int("count", 1, "number of samples generated (the whole set is printed)")
	alias(fs, "num-samples", "count")
	split := fs.String("split", "", "use the official CLRS-30 split settings instead (train, val or test)")
	format := fs.String("format", "reference-json", "output format: reference-json (the reference's dump layout) or text")
	kwargs := fs.String("kwargs", "", `sampler parameters as JSON, e.g. '{"p": [0.5]}'`)
	batch := fs.Int("batch", 0, "print next(BATCH), a random batch drawn with replacement, instead of the whole set (0: the whole set)")
	randomPos := fs.Int64("random-pos", -1, "randomise pos with a RandomState of this seed (run.py's process_random_pos)")
	predAsInput := fs.Bool("pred-as-input", false, "move a constant pred_h hint to a pred input (only for run.py's list of algorithms)")
	perms := fs.Bool("permutations", false, "turn should_be_permutation outputs into permutation pointers and masks")
	trunc := fs.Int("truncate-decimals", 0, "truncate real inputs to this many decimals (0: off)")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *algo == "" {
		fs.Usage()
		return fmt.Errorf("--algo is required")
	}
	if *format != "reference-json" && *format != "text" {
		return fmt.Errorf("clrs sample: unknown --format %q (want reference-json or text)", *format)
	}
	params, err := parseKwargs(*kwargs)
	if err != nil {
		return err
	}
	opts := []clrs.Option{}
	for _, p := range params {
		opts = append(opts, clrs.Kwarg(p.Name, p.Value))
	}
	if *trunc > 0 {
		opts = append(opts, clrs.TruncateDecimals(*trunc))
	}
	h := clrs.ReferenceHeader{Algorithm: *algo, Length: *length, Seed: *seed, NumSamples: *num, Kwargs: params}
	var s *clrs.Sampler
	if *split != "" {
		sp, err := clrs.CLRS30Split(*algo, *split)
		if err != nil {
			return err
		}
		h.Length, h.Seed, h.NumSamples = sp.Length, sp.Seed, sp.NumSamples
		if err := checkSamples(*algo, sp.Length, sp.Seed, sp.NumSamples+*batch, "--batch", opts...); err != nil {
			return fmt.Errorf("clrs sample: %w", err)
		}
		s, err = clrs.NewSplitSampler(*algo, *split, opts...)
		if err != nil {
			return err
		}
	} else {
		if *num < 1 {
			return fmt.Errorf("--count must be at least 1, got %d", *num)
		}
		if err := checkSamples(*algo, *length, *seed, *num+*batch, "--count, --batch or --length", opts...); err != nil {
			return fmt.Errorf("clrs sample: %w", err)
		}
		s, err = clrs.NewSampler(*algo, append(opts, clrs.Length(*length), clrs.Seed(*seed), clrs.NumSamples(*num))...)
		if err != nil {
			return err
		}
	}
	var fb *clrs.Feedback
	if *batch > 0 {
		fb, err = s.Next(*batch)
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
		return err
	}
	if *randomPos >= 0 {
		rng, err := nprand.NewChecked(*randomPos)
		if err != nil {
			return err
		}
		if fb, err = clrs.RandomPos(fb, rng); err != nil {
			return err
		}
	}
	if *predAsInput && slices.Contains(clrs.PredAsInputAlgorithms, *algo) {
		if fb, err = clrs.PredAsInput(fb); err != nil {
			return err
		}
	}
	if *perms {
		if fb, err = clrs.Permutations(fb, true); err != nil {
			return err
		}
	}
	switch *format {
	case "reference-json":
		return clrs.WriteReferenceJSON(stdout, h, fb)
	case "text":
		for b := 0; b < fb.BatchSize(); b++ {
			t, err := fb.Trajectory(b)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "# sample %d\n", b)
			if err := clrs.WriteText(stdout, t); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown --format %q (want reference-json or text)", *format)
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
		fs.Usage()
		return fmt.Errorf("--algo and --input are required")
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
	runArgs, err := decodeRunInput(raw, names)
	if err != nil {
		doc, _ := clrs.ArgDoc(*algo)
		return fmt.Errorf("input for %s: %w\nexpected arguments: %s", *algo, err, strings.Join(doc, "; "))
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

// decodeRunInput accepts {"args": [...]} or an object keyed by argument name.
// maxRunInput bounds the JSON input of `clrs run`: 16 MiB.
const maxRunInput = 16 << 20

// checkRunArg refuses an argument with a dimension longer than maxLength
// (the sampler's limit: trajectories grow as n² or n³ with it).
func checkRunArg(v any) error {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array, reflect.String:
		if rv.Len() > maxLength {
			return fmt.Errorf("has %d elements; accepted at most %d per dimension (%s)", rv.Len(), maxLength, lengthWhy)
		}
		if rv.Kind() != reflect.String {
			for i := 0; i < rv.Len(); i++ {
				if err := checkRunArg(rv.Index(i).Interface()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func decodeRunInput(raw []byte, names []string) (clrs.Args, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if pos, ok := obj["args"]; ok && len(obj) == 1 {
		list, ok := pos.([]any)
		if !ok {
			return nil, fmt.Errorf(`"args" must be a list of the positional arguments`)
		}
		out := make(clrs.Args, len(list))
		for i, v := range list {
			cv, err := jsonValue(v)
			if err == nil {
				err = checkRunArg(cv)
			}
			if err != nil {
				return nil, fmt.Errorf("argument %d: %w", i, err)
			}
			out[i] = cv
		}
		return out, nil
	}
	out := make(clrs.Args, len(names))
	for i, n := range names {
		v, ok := obj[n]
		if !ok {
			return nil, fmt.Errorf("missing argument %q", n)
		}
		cv, err := jsonValue(v)
		if err == nil {
			err = checkRunArg(cv)
		}
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", n, err)
		}
		out[i] = cv
	}
	for k := range obj {
		if !slices.Contains(names, k) {
			return nil, fmt.Errorf("unknown argument %q", k)
		}
	}
	return out, nil
}

func clrsGenerate(args []string) error {
	fs := newFlags("clrs generate")
	split := fs.String("split", "all", "split to write: train, val, test or all")
	algos := fs.String("algos", "all", "comma-separated algorithms, or all (the 30 of CLRS-30)")
	out := fs.String("out", "", "output directory (files ALGO_SPLIT.npz and manifest.json, put in place together once all are written; an interrupted or failed run leaves none)")
	workers := fs.Int("workers", 0, "goroutines running the algorithms (0: all CPUs)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	compress := fs.Bool("compress", true, "deflate the arrays (zip method 8, read by numpy.load like numpy.savez_compressed's files: the train split is 14x smaller and written faster than stored); --compress=false stores them as numpy.savez does")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return fmt.Errorf("--out is required")
	}
	opts := clrs.DatasetOptions{Workers: *workers, Uncompressed: !*compress}
	if *split != "all" {
		opts.Splits = []string{*split}
	}
	if *algos != "all" {
		opts.Algorithms = strings.Split(*algos, ",")
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
