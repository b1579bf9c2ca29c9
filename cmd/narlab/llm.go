package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/narlab/narlab/experiments/llmeval"
	"github.com/narlab/narlab/lib/clrstext"
	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/llm/llamacpp"
	"github.com/narlab/narlab/lib/metrics"
)

// The llm commands: evaluate a language model behind an OpenAI-compatible
// endpoint on the text benchmarks, and run the local llama.cpp server.

func init() {
	register(command{group: "llm", name: "run", summary: "evaluate an OpenAI-compatible model on clrstext, graphs, spectral or dsr prompts and log to MLflow", run: llmRun})
	register(command{group: "llm", name: "serve", summary: "start (or reuse) the local llama.cpp server with Gemma 3 270M and print its endpoint (built on first use)", run: llmServe})
	register(command{group: "llm", name: "stop", summary: "stop the local llama.cpp server", run: llmStop})
}

// stringList collects a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

func splitCSV(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// llmRunUsage heads `narlab llm run -h`, before the flags.
const llmRunUsage = `usage: narlab llm run --suite clrstext|graphs|spectral|dsr [--endpoint URL|local] [--model NAME]
                      [--limit N] [--concurrency K] [--experiment E] [suite options]

Asks a model every prompt of a suite (the prompts narlab generates for the
benchmark), scores the answers with the benchmark's scorer and logs one MLflow
run: parameters, scores per task and overall, token counts, latency,
responses.jsonl and the suite's figures. Answers are cached on disk (keyed by
endpoint, model, every generation parameter and the prompt): the same command
run again sends no request, and a run that stopped resumes where it was.

The endpoint is --endpoint, else $OPENAI_BASE_URL (as OpenAI's clients read
it), else the local llama.cpp server (narlab llm serve; built on first use).
The API key, if the endpoint needs one, is read from NARLAB_LLM_API_KEY, else
OPENAI_API_KEY; it is never printed or logged.

Sampling settings start from --sampling: paper (default) is each suite's
paper's (clrstext: greedy, the paper states none; graphs and spectral:
greedy as in Lost in Serialization, at most 4096 new tokens as in G1's
evaluator; dsr: greedy, the prompt's token budget as the limit, as in
DSR-Bench's evaluation); g1 is G1's evaluation of the Erdős tasks
(temperature 0.6, top-p 0.95, top-k 30, 4096 new tokens). --temperature,
--top-p, --top-k, --max-tokens and --seed override the preset. The run logs
the preset, its source and every setting sent.

The token limit is sent as max_tokens, or as max_completion_tokens to
api.openai.com (its reasoning models reject max_tokens); with --token-param
auto (default) an endpoint that rejects the name gets the request again once
under the other name, which is then kept.

Suite options apply to the suite named; --count is the number of instances per
group: clrstext samples per (algorithm, length), graphs instances per task,
spectral test graphs, dsr instances per task and level.

Options:`

// llmRunFlags are llm run's flags.
type llmRunFlags struct {
	cfg                                                                                                   llmeval.Config
	endpoint, model, apiName, tracking, sampling, tokenParam, schemaStyle                                 string
	algorithms, lengths, format, tasks, encodings, syntaxes, structures, categories, levels, strategy     string
	noMLflow, noCache, quiet, hints, noWrap, keepDots, noSchema                                           bool
	concurrency, retries, maxTokens, topK, count, relabelings, shuffleSeeds, maxNodes, trainCount, tokens int
	temperature, topP                                                                                     float64
	seed, dataSeed                                                                                        int64
	timeout                                                                                               time.Duration
	stops                                                                                                 stringList
	scoring                                                                                               *string
	spectral                                                                                              func() graphtext.SpectralOptions
	dsrOpts                                                                                               optionFlag
}

// define registers the flags on fs.
func (f *llmRunFlags) define(fs *flag.FlagSet) {
	c := &f.cfg
	fs.StringVar(&c.Suite, "suite", "", "benchmark: clrstext (CLRS-Text traces), graphs (Erdős tasks under encodings, syntaxes, relabelings), spectral (twelve spectral regression tasks) or dsr (DSR-Bench)")
	fs.StringVar(&f.endpoint, "endpoint", "", "OpenAI-compatible API root, e.g. https://api.openai.com/v1 or http://127.0.0.1:18080/v1; local: the llama.cpp server of narlab llm serve (started, and built on first use, if needed) (default: $OPENAI_BASE_URL if set, else local)")
	fs.StringVar(&f.model, "model", "", "model name sent with each request (default for --endpoint local: "+llamacpp.DefaultAlias+")")
	fs.StringVar(&c.Label, "label", "", "name of the model in the run name, figure legends and tables (default: --model)")
	fs.StringVar(&f.apiName, "api", "", "chat or completion (default: completion for clrstext, which continues the question as the paper's models do, or chat where the endpoint serves no completions (asked once); chat for the others)")
	fs.IntVar(&c.Limit, "limit", 0, "ask at most N prompts, taken in turn from each algorithm, task or structure (0: all)")
	fs.IntVar(&f.concurrency, "concurrency", 4, "requests in flight at most")
	fs.StringVar(&c.Experiment, "experiment", "", "MLflow experiment (default: $MLFLOW_EXPERIMENT_NAME, else llm-SUITE)")
	fs.StringVar(&f.tracking, "tracking", "", trackingUsage)
	fs.BoolVar(&f.noMLflow, "no-mlflow", false, "do not log to MLflow (same as --tracking none)")
	fs.StringVar(&c.Out, "out", "", "also write responses.jsonl, summary.json and figures/*.png into this folder")
	fs.StringVar(&f.sampling, "sampling", llmeval.SamplingPaper, "preset of sampling settings: paper (the suite's paper's) or g1 (G1's Erdős evaluation: temperature 0.6, top-p 0.95, top-k 30, 4096 tokens)")
	fs.Float64Var(&f.temperature, "temperature", 0, "sampling temperature (default: the --sampling preset's; 0: greedy)")
	fs.IntVar(&f.maxTokens, "max-tokens", 0, "longest answer in tokens (default: the --sampling preset's; for paper: clrstext 512 with hints, 128 without; graphs and spectral 4096; dsr the prompt's --tokens budget)")
	fs.Int64Var(&f.seed, "seed", -1, "sampling seed sent to the server (-1: none)")
	fs.Float64Var(&f.topP, "top-p", 0, "nucleus sampling mass (default: the --sampling preset's; 0: the server's default)")
	fs.IntVar(&f.topK, "top-k", 0, "keep the k most likely tokens (default: the --sampling preset's; 0: the server's default, not sent; OpenAI's API has no top_k)")
	fs.StringVar(&f.tokenParam, "token-param", "auto", "name the token limit is sent under: max_tokens (llama.cpp, vLLM), max_completion_tokens (OpenAI's chat API), or auto (max_completion_tokens for api.openai.com, else max_tokens; switches once if the endpoint rejects the name)")
	fs.Var(&f.stops, "stop", `stop sequence (repeatable; default: a blank line for clrstext with the completion API, none otherwise; "none" for none)`)
	fs.DurationVar(&f.timeout, "timeout", 5*time.Minute, "bound on each HTTP attempt")
	fs.IntVar(&f.retries, "retries", 6, "retries of a request after 429, 5xx, timeouts, dropped connections and truncated answers (0: none)")
	fs.StringVar(&f.schemaStyle, "schema-format", "auto", "how structured output is requested: openai (response_format json_schema), llamacpp (json_object with schema), auto (openai, switching to llamacpp if the server rejects it)")
	fs.StringVar(&c.Endpoint.CacheDir, "cache", "", "response cache folder (default DATA/llm/cache)")
	fs.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the response cache")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress on standard error")
	fs.IntVar(&f.count, "count", 0, "instances per group (default: clrstext 1, graphs 3, spectral 10, dsr 3)")
	fs.Int64Var(&f.dataSeed, "data-seed", 0, "seed of the generated instances (clrstext default: 3, the paper's first test seed; spectral default 1)")
	f.defineSuites(fs)
}

// defineSuites registers the flags of one suite or another.
func (f *llmRunFlags) defineSuites(fs *flag.FlagSet) {
	fs.StringVar(&f.algorithms, "algorithms", "", "clrstext: comma-separated CLRS-30 algorithms (default: all 30)")
	fs.StringVar(&f.lengths, "lengths", "", "clrstext: comma-separated lengths (default: each algorithm's test-schedule lengths, 4 up to 64)")
	fs.StringVar(&f.format, "format", "legacy", "clrstext: text format, legacy (the paper's) or current")
	fs.BoolVar(&f.hints, "hints", true, "clrstext: ask for the hint trace before the output (needed for time-to-first-failure)")
	fs.StringVar(&f.tasks, "tasks", "", "graphs: task names or categories (easy, medium, hard, challenging), or all (default all); spectral: spectral task names (default all twelve)")
	fs.StringVar(&f.encodings, "encodings", "E0", "graphs: edge encodings E0..E6, A1..A4, M, or all")
	fs.StringVar(&f.syntaxes, "syntaxes", "erdos", "graphs: syntaxes erdos, json, networkx, pyg, or all")
	fs.IntVar(&f.relabelings, "relabelings", 0, "graphs: random node relabelings per instance besides the original labels (≥2 for the output spread)")
	fs.IntVar(&f.shuffleSeeds, "shuffle-seeds", 1, "graphs: shuffle seeds per shuffled encoding")
	fs.IntVar(&f.maxNodes, "max-nodes", 35, "graphs: largest synthetic graph")
	fs.BoolVar(&f.noWrap, "no-wrap", false, "graphs, spectral: leave out G1's \\boxed{} query template")
	fs.BoolVar(&f.keepDots, "keep-decimal-points", false, "graphs, lenient scoring: do not apply G1's quirk of deleting \".\" from \"the answer is ...\" answers")
	f.scoring = choice(fs, "scoring", "paper", "graphs, dsr: how answers are judged: paper (the paper's own scorer: G1's checker, DSR-Bench's evaluation scripts) or lenient (narlab's reading); the run logs both, this one as its scores", "paper", "lenient")
	fs.IntVar(&f.trainCount, "train-count", 500, "spectral: graphs the mean baseline is fitted on")
	f.spectral = spectralOptionFlags(fs)
	fs.StringVar(&f.structures, "structures", "", "dsr: comma-separated structures (default: all; narlab dsr tasks lists them)")
	fs.StringVar(&f.categories, "categories", "", "dsr: comma-separated categories: Linear, Temporal, Associative, Hierarchical, Network, Hybrid (default: all)")
	fs.StringVar(&f.levels, "levels", "short", "dsr: comma-separated length levels: short, medium, long, or all")
	fs.StringVar(&f.strategy, "strategy", "stepwise", "dsr: prompting strategy: stepwise, 0-CoT, CoT, 3-shot or none")
	fs.IntVar(&f.tokens, "tokens", dsr.DefaultTokens, "dsr: token budget stated in the prompt")
	fs.BoolVar(&f.noSchema, "no-schema", false, "dsr: send no response schema (the prompt spells out the JSON instead)")
	fs.Var(&f.dsrOpts, "option", "dsr: "+optionUsage())
}

func llmRun(args []string) error {
	fs := newFlags("llm run")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), llmRunUsage)
		printFlags(fs.Output(), fs) // as every command's help: --name VALUE
	}
	var f llmRunFlags
	f.define(fs)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if err := checkTracking("llm run", &f.tracking, &f.noMLflow); err != nil {
		return err
	}
	if f.cfg.Suite == "" {
		return missingFlag(fs, "--suite is required (clrstext, graphs, spectral or dsr)")
	}
	cfg, err := f.config(fs)
	if err != nil {
		return fmt.Errorf("llm run: %w", err)
	}
	res, err := llmeval.Run(commandContext(), cfg)
	if errors.Is(err, llmeval.ErrNoModel) {
		return fmt.Errorf("llm run: %w (the name the endpoint serves the model under; narlab llm run -h lists every flag)", err)
	}
	if err != nil {
		return fmt.Errorf("llm run: %w", err)
	}
	if err := res.WriteReport(stdout); err != nil {
		return err
	}
	if res.RunURL != "" {
		fmt.Fprintf(os.Stderr, "MLflow run %s: %s\n", res.RunID, res.RunURL)
	}
	return nil
}

// config is the evaluation the flags describe.
func (f *llmRunFlags) config(fs *flag.FlagSet) (llmeval.Config, error) {
	cfg := f.cfg
	var given []string
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { given, set[fl.Name] = append(given, fl.Name), true })
	if err := llmeval.CheckOptions(cfg.Suite, given); err != nil {
		return cfg, err
	}
	cfg.Tracking = f.tracking
	if f.noMLflow {
		cfg.Tracking = "none" // llmeval's spelling of "do not log"
	}
	var err error
	if f.apiName != "" {
		if cfg.API, err = llm.ParseAPI(f.apiName); err != nil {
			return cfg, fmt.Errorf("--api: %w", err)
		}
	}
	if !slices.Contains(llmeval.Samplings(), f.sampling) {
		return cfg, fmt.Errorf("--sampling %q: want one of %s", f.sampling, strings.Join(llmeval.Samplings(), ", "))
	}
	cfg.Sampling = f.sampling
	cfg.Params = llm.Params{Temperature: f.temperature, MaxTokens: f.maxTokens, TopP: f.topP, TopK: f.topK}
	cfg.TemperatureSet, cfg.TopPSet, cfg.TopKSet = set["temperature"], set["top-p"], set["top-k"]
	if f.seed >= 0 {
		cfg.Params.Seed = &f.seed
	}
	if cfg.Params.Stop, err = llmeval.ParseStops(f.stops); err != nil {
		return cfg, err
	}
	if cfg.Endpoint, err = f.endpointOf(set["schema-format"]); err != nil {
		return cfg, err
	}
	if !f.quiet {
		cfg.Progress = progressLine("llm run")
	}
	switch cfg.Suite {
	case llmeval.CLRSText:
		cfg.CLRSText, err = f.clrstext(set["data-seed"])
	case llmeval.Graphs:
		cfg.Graphs, err = f.graphs()
	case llmeval.Spectral:
		cfg.Spectral = llmeval.SpectralOptions{Tasks: splitCSV(f.tasks), Count: f.count, Seed: uint64(f.dataSeed),
			TrainCount: f.trainCount, Options: f.spectral(), NoWrap: f.noWrap}
	case llmeval.DSR:
		cfg.DSR, err = f.dsr()
	}
	return cfg, err
}

// endpointOf is the endpoint the flags name, with the client's settings.
func (f *llmRunFlags) endpointOf(styleGiven bool) (llmeval.Endpoint, error) {
	ep := f.cfg.Endpoint
	ep.URL, ep.Model, ep.NoCache = f.endpoint, f.model, f.noCache
	tp, err := llm.ParseTokenParam(f.tokenParam)
	if err != nil {
		return ep, fmt.Errorf("--token-param: %w", err)
	}
	ep.Client = llm.Config{Concurrency: f.concurrency, Timeout: f.timeout, MaxRetries: f.retries, TokenParam: tp}
	if f.retries == 0 {
		ep.Client.MaxRetries = -1 // none (llm's 0 is its default)
	}
	if styleGiven {
		if ep.Client.SchemaStyle, err = llm.ParseSchemaStyle(f.schemaStyle); err != nil {
			return ep, fmt.Errorf("--schema-format: %w", err)
		}
	}
	ep.Logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "llm run: "+format+"\n", args...) }
	return ep, nil
}

// progressLine shows done/total prompts on standard error, at most once a
// second.
func progressLine(cmd string) func(done, total, cached int) {
	start, last := time.Now(), time.Time{}
	return func(done, total, cached int) {
		if now := time.Now(); now.Sub(last) > time.Second || done == total {
			last = now
			fmt.Fprintf(os.Stderr, "\r%s: %d/%d prompts (%d from the cache) in %s   ", cmd, done, total, cached, now.Sub(start).Round(time.Second))
			if done == total {
				fmt.Fprintln(os.Stderr)
			}
		}
	}
}

func (f *llmRunFlags) clrstext(seedSet bool) (llmeval.CLRSTextOptions, error) {
	o := llmeval.CLRSTextOptions{Count: f.count, Seed: f.dataSeed, SeedSet: seedSet, Algorithms: splitCSV(f.algorithms)}
	for _, l := range splitCSV(f.lengths) {
		v, err := strconv.Atoi(l)
		if err != nil || v < 1 || v > maxLength {
			return o, fmt.Errorf("--lengths: %q; accepted: integers 1..%d (%s)", l, maxLength, lengthWhy)
		}
		o.Lengths = append(o.Lengths, v)
	}
	format, err := clrstext.ParseFormat(f.format)
	if err != nil {
		return o, fmt.Errorf("--format: %w", err)
	}
	o.Options = clrstext.Options{Format: format, Hints: f.hints}
	if format == clrstext.Current {
		o.Options.Decimals = 3
	}
	return o, nil
}

func (f *llmRunFlags) graphs() (llmeval.GraphsOptions, error) {
	o := llmeval.GraphsOptions{Relabel: f.relabelings, Seeds: f.shuffleSeeds, Instances: f.count, Seed: uint64(f.dataSeed),
		MaxNodes: f.maxNodes, NoWrap: f.noWrap, KeepDecimalPoints: f.keepDots}
	var err error
	if o.Scoring, err = metrics.ParseScoreMode(*f.scoring); err != nil {
		return o, fmt.Errorf("--scoring: %w", err)
	}
	tasks := cmp.Or(f.tasks, "all")
	if o.Tasks, err = graphtext.ParseTasks(tasks); err != nil {
		return o, fmt.Errorf("--tasks: %w", err)
	}
	if o.Encodings, err = parseList("encodings", f.encodings, graphtext.Encodings(), graphtext.ParseEncoding); err != nil {
		return o, err
	}
	o.Syntaxes, err = parseList("syntaxes", f.syntaxes, graphtext.Syntaxes(), graphtext.ParseSyntax)
	return o, err
}

func (f *llmRunFlags) dsr() (llmeval.DSROptions, error) {
	o := llmeval.DSROptions{Structures: splitCSV(f.structures), Categories: splitCSV(f.categories), Count: f.count,
		Seed: uint64(f.dataSeed), Tokens: f.tokens, NoSchema: f.noSchema, Options: f.dsrOpts.o}
	var err error
	if o.Scoring, err = metrics.ParseScoreMode(*f.scoring); err != nil {
		return o, fmt.Errorf("--scoring: %w", err)
	}
	if o.Strategy, err = dsr.ParseStrategy(f.strategy); err != nil {
		return o, fmt.Errorf("--strategy: %w", err)
	}
	if f.levels == "all" {
		o.Levels = dsr.Levels()
		return o, nil
	}
	for _, l := range splitCSV(f.levels) {
		lv, err := dsr.ParseLevel(l)
		if err != nil {
			return o, fmt.Errorf("--levels: %w", err)
		}
		o.Levels = append(o.Levels, lv)
	}
	return o, nil
}

func llmServe(args []string) error {
	fs := newFlags("llm serve")
	port := fs.Int("port", 0, fmt.Sprintf("port on 127.0.0.1 (default: %d if free, else any free port)", llamacpp.DefaultPort))
	threads := fs.Int("threads", 0, "CPU threads (default: the server's choice)")
	nctx := fs.Int("context", 4096, "context length in tokens")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	// Built on first use (minutes, with progress; Ctrl-C stops it), then
	// started within 5 minutes.
	in, err := llamacpp.EnsureInstall(commandContext(), os.Stderr)
	if err != nil {
		return fmt.Errorf("llm serve: %w", err)
	}
	ctx, cancel := context.WithTimeout(commandContext(), 5*time.Minute)
	defer cancel()
	srv, reused, err := llamacpp.EnsureServer(ctx, llamacpp.Config{Port: *port, Threads: *threads, Context: *nctx, Install: in})
	if err != nil {
		return err
	}
	verb := "started"
	if reused {
		verb = "already running"
	}
	fmt.Fprintf(os.Stderr, "llama.cpp server %s (pid %d, model %s as %q, log %s)\n", verb, srv.PID, srv.Model, srv.Alias, srv.LogPath())
	fmt.Fprintln(stdout, srv.Endpoint())
	return nil
}

func llmStop(args []string) error {
	fs := newFlags("llm stop")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	dir, err := llamacpp.DefaultDir()
	if err != nil {
		return err
	}
	stopped, err := llamacpp.StopServer(context.Background(), dir)
	if err != nil {
		return err
	}
	if stopped {
		fmt.Fprintln(stdout, "stopped the local llama.cpp server")
	} else {
		fmt.Fprintln(stdout, "no local llama.cpp server was running")
	}
	return nil
}
