package main

import (
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

func llmRun(args []string) error {
	fs := newFlags("llm run")
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintln(w, `usage: narlab llm run --suite clrstext|graphs|spectral|dsr [--endpoint URL|local] [--model NAME]
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

Options:`)
		printFlags(w, fs) // as every command's help: --name VALUE
	}
	suite := fs.String("suite", "", "benchmark: clrstext (CLRS-Text traces), graphs (Erdős tasks under encodings, syntaxes, relabelings), spectral (twelve spectral regression tasks) or dsr (DSR-Bench)")
	endpoint := fs.String("endpoint", "", "OpenAI-compatible API root, e.g. https://api.openai.com/v1 or http://127.0.0.1:18080/v1; local: the llama.cpp server of narlab llm serve (started, and built on first use, if needed) (default: $OPENAI_BASE_URL if set, else local)")
	model := fs.String("model", "", "model name sent with each request (default for --endpoint local: "+llamacpp.DefaultAlias+")")
	label := fs.String("label", "", "name of the model in the run name, figure legends and tables (default: --model)")
	apiName := fs.String("api", "", "chat or completion (default: completion for clrstext, which continues the question as the paper's models do; chat for the others)")
	limit := fs.Int("limit", 0, "ask at most N prompts, taken in turn from each algorithm, task or structure (0: all)")
	concurrency := fs.Int("concurrency", 4, "requests in flight at most")
	experiment := fs.String("experiment", "", "MLflow experiment (default: $MLFLOW_EXPERIMENT_NAME, else llm-SUITE)")
	tracking := fs.String("tracking", "", trackingUsage)
	noMLflow := fs.Bool("no-mlflow", false, "do not log to MLflow (same as --tracking none)")
	out := fs.String("out", "", "also write responses.jsonl, summary.json and figures/*.png into this folder")
	sampling := fs.String("sampling", llmeval.SamplingPaper, "preset of sampling settings: paper (the suite's paper's) or g1 (G1's Erdős evaluation: temperature 0.6, top-p 0.95, top-k 30, 4096 tokens)")
	temperature := fs.Float64("temperature", 0, "sampling temperature (default: the --sampling preset's; 0: greedy)")
	maxTokens := fs.Int("max-tokens", 0, "longest answer in tokens (default: the --sampling preset's; for paper: clrstext 512 with hints, 128 without; graphs and spectral 4096; dsr the prompt's --tokens budget)")
	seed := fs.Int64("seed", -1, "sampling seed sent to the server (-1: none)")
	topP := fs.Float64("top-p", 0, "nucleus sampling mass (default: the --sampling preset's; 0: the server's default)")
	topK := fs.Int("top-k", 0, "keep the k most likely tokens (default: the --sampling preset's; 0: the server's default, not sent; OpenAI's API has no top_k)")
	tokenParam := fs.String("token-param", "auto", "name the token limit is sent under: max_tokens (llama.cpp, vLLM), max_completion_tokens (OpenAI's chat API), or auto (max_completion_tokens for api.openai.com, else max_tokens; switches once if the endpoint rejects the name)")
	var stops stringList
	fs.Var(&stops, "stop", `stop sequence (repeatable; default: a blank line for clrstext with the completion API, none otherwise; "none" for none)`)
	timeout := fs.Duration("timeout", 5*time.Minute, "bound on each HTTP attempt")
	retries := fs.Int("retries", 6, "retries of a request after 429, 5xx, timeouts, dropped connections and truncated answers (0: none)")
	schemaStyle := fs.String("schema-format", "auto", "how structured output is requested: openai (response_format json_schema), llamacpp (json_object with schema), auto (openai, switching to llamacpp if the server rejects it)")
	cacheDir := fs.String("cache", "", "response cache folder (default DATA/llm/cache)")
	noCache := fs.Bool("no-cache", false, "neither read nor write the response cache")
	quiet := fs.Bool("quiet", false, "no progress on standard error")
	count := fs.Int("count", 0, "instances per group (default: clrstext 1, graphs 3, spectral 10, dsr 3)")
	dataSeed := fs.Int64("data-seed", 0, "seed of the generated instances (clrstext default: 3, the paper's first test seed; spectral default 1)")
	// clrstext
	algorithms := fs.String("algorithms", "", "clrstext: comma-separated CLRS-30 algorithms (default: all 30)")
	lengths := fs.String("lengths", "", "clrstext: comma-separated lengths (default: each algorithm's test-schedule lengths, 4 up to 64)")
	format := fs.String("format", "legacy", "clrstext: text format, legacy (the paper's) or current")
	hints := fs.Bool("hints", true, "clrstext: ask for the hint trace before the output (needed for time-to-first-failure)")
	// graphs and spectral
	tasks := fs.String("tasks", "", "graphs: task names or categories (easy, medium, hard, challenging), or all (default all); spectral: spectral task names (default all twelve)")
	encodings := fs.String("encodings", "E0", "graphs: edge encodings E0..E6, A1..A4, M, or all")
	syntaxes := fs.String("syntaxes", "erdos", "graphs: syntaxes erdos, json, networkx, pyg, or all")
	relabelings := fs.Int("relabelings", 0, "graphs: random node relabelings per instance besides the original labels (≥2 for the output spread)")
	shuffleSeeds := fs.Int("shuffle-seeds", 1, "graphs: shuffle seeds per shuffled encoding")
	maxNodes := fs.Int("max-nodes", 35, "graphs: largest synthetic graph")
	noWrap := fs.Bool("no-wrap", false, "graphs, spectral: leave out G1's \\boxed{} query template")
	keepDots := fs.Bool("keep-decimal-points", false, "graphs, lenient scoring: do not apply G1's quirk of deleting \".\" from \"the answer is ...\" answers")
	scoring := choice(fs, "scoring", "paper", "graphs, dsr: how answers are judged: paper (the paper's own scorer: G1's checker, DSR-Bench's evaluation scripts) or lenient (narlab's reading); the run logs both, this one as its scores", "paper", "lenient")
	trainCount := fs.Int("train-count", 500, "spectral: graphs the mean baseline is fitted on")
	spectralOpts := spectralOptionFlags(fs)
	// dsr
	structures := fs.String("structures", "", "dsr: comma-separated structures (default: all; narlab dsr tasks lists them)")
	categories := fs.String("categories", "", "dsr: comma-separated categories: Linear, Temporal, Associative, Hierarchical, Network, Hybrid (default: all)")
	levels := fs.String("levels", "short", "dsr: comma-separated length levels: short, medium, long, or all")
	strategy := fs.String("strategy", "stepwise", "dsr: prompting strategy: stepwise, 0-CoT, CoT, 3-shot or none")
	tokens := fs.Int("tokens", dsr.DefaultTokens, "dsr: token budget stated in the prompt")
	noSchema := fs.Bool("no-schema", false, "dsr: send no response schema (the prompt spells out the JSON instead)")
	var dsrOpts optionFlag
	fs.Var(&dsrOpts, "option", "dsr: "+optionUsage())
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	if err := checkTracking("llm run", tracking, noMLflow); err != nil {
		return err
	}
	if *noMLflow {
		*tracking = "none" // llmeval's spelling of "do not log"
	}
	cfg := llmeval.Config{Suite: *suite, Limit: *limit, Label: *label, Experiment: *experiment, Tracking: *tracking, Out: *out}
	if *suite == "" {
		return missingFlag(fs, "--suite is required (clrstext, graphs, spectral or dsr)")
	}
	if !slices.Contains(llmeval.Suites(), *suite) {
		return fmt.Errorf("llm run: --suite %q: want one of %s", *suite, strings.Join(llmeval.Suites(), ", "))
	}
	// Flags of another suite are a mistake worth stopping for.
	suiteFlags := map[string][]string{
		llmeval.CLRSText: {"algorithms", "lengths", "format", "hints"},
		llmeval.Graphs:   {"encodings", "syntaxes", "relabelings", "shuffle-seeds", "max-nodes", "keep-decimal-points"},
		llmeval.Spectral: {"train-count", "algebraic-matrix", "gap-matrix", "heat-matrix", "heat-time", "entropy-log-base"},
		llmeval.DSR:      {"structures", "categories", "levels", "strategy", "tokens", "no-schema", "option"},
	}
	for s, names := range suiteFlags {
		for _, n := range names {
			if set[n] && s != *suite {
				return fmt.Errorf("llm run: --%s is a %s option, not a %s one", n, s, *suite)
			}
		}
	}
	if set["tasks"] && *suite != llmeval.Graphs && *suite != llmeval.Spectral {
		return fmt.Errorf("llm run: --tasks is a graphs and spectral option, not a %s one", *suite)
	}
	if set["no-wrap"] && *suite != llmeval.Graphs && *suite != llmeval.Spectral {
		return fmt.Errorf("llm run: --no-wrap is a graphs and spectral option, not a %s one", *suite)
	}
	if set["scoring"] && *suite != llmeval.Graphs && *suite != llmeval.DSR {
		return fmt.Errorf("llm run: --scoring is a graphs and dsr option, not a %s one", *suite)
	}
	if *count < 0 {
		return fmt.Errorf("llm run: --count %d: want a positive number", *count)
	}
	if *concurrency < 1 || *concurrency > 1024 {
		return fmt.Errorf("llm run: --concurrency %d: want 1..1024", *concurrency)
	}
	if *retries < 0 {
		return fmt.Errorf("llm run: --retries %d: want 0 or more", *retries)
	}
	if *timeout <= 0 {
		return fmt.Errorf("llm run: --timeout %v: want a positive duration", *timeout)
	}
	if *maxTokens < 0 {
		return fmt.Errorf("llm run: --max-tokens %d: want a positive number (0: the suite's default)", *maxTokens)
	}
	var err error
	if *apiName != "" {
		if cfg.API, err = llm.ParseAPI(*apiName); err != nil {
			return fmt.Errorf("llm run: --api: %w", err)
		}
	}
	style, err := llm.ParseSchemaStyle(*schemaStyle)
	if err != nil {
		return fmt.Errorf("llm run: --schema-format: %w", err)
	}
	tp, err := llm.ParseTokenParam(*tokenParam)
	if err != nil {
		return fmt.Errorf("llm run: --token-param: %w", err)
	}
	if !slices.Contains(llmeval.Samplings(), *sampling) {
		return fmt.Errorf("llm run: --sampling %q: want one of %s", *sampling, strings.Join(llmeval.Samplings(), ", "))
	}
	cfg.Sampling = *sampling
	cfg.Params = llm.Params{Temperature: *temperature, MaxTokens: *maxTokens, TopP: *topP, TopK: *topK}
	cfg.TemperatureSet, cfg.TopPSet, cfg.TopKSet = set["temperature"], set["top-p"], set["top-k"]
	if *seed >= 0 {
		cfg.Params.Seed = seed
	} else if *seed != -1 {
		return fmt.Errorf("llm run: --seed %d: want a non-negative seed, or -1 for none", *seed)
	}
	switch {
	case len(stops) > 1 && slices.Contains(stops, "none"):
		return fmt.Errorf("llm run: --stop none (no stop sequence) and other --stop values contradict each other; give one or the other")
	case len(stops) == 1 && stops[0] == "none":
		cfg.Params.Stop = []string{}
	case len(stops) > 0:
		for _, s := range stops {
			cfg.Params.Stop = append(cfg.Params.Stop, strings.ReplaceAll(s, `\n`, "\n"))
		}
	}
	{
		p := cfg.Params
		if p.MaxTokens == 0 {
			p.MaxTokens = 1 // 0 takes the suite's default; check the rest now
		}
		if err := p.Validate(); err != nil {
			return fmt.Errorf("llm run: %w", err)
		}
	}

	// Suite options.
	switch *suite {
	case llmeval.CLRSText:
		o := llmeval.CLRSTextOptions{Count: *count, Seed: *dataSeed, SeedSet: set["data-seed"]}
		o.Algorithms = splitCSV(*algorithms)
		for _, l := range splitCSV(*lengths) {
			v, err := strconv.Atoi(l)
			if err != nil || v < 1 || v > maxLength {
				return fmt.Errorf("llm run: --lengths: %q; accepted: integers 1..%d (%s)", l, maxLength, lengthWhy)
			}
			o.Lengths = append(o.Lengths, v)
		}
		f, err := clrstext.ParseFormat(*format)
		if err != nil {
			return fmt.Errorf("llm run: --format: %w", err)
		}
		o.Options = clrstext.Options{Format: f, Hints: *hints}
		if f == clrstext.Current {
			o.Options.Decimals = 3
		}
		cfg.CLRSText = o
	case llmeval.Graphs:
		o := llmeval.GraphsOptions{Relabel: *relabelings, Seeds: *shuffleSeeds, Instances: *count, Seed: uint64(*dataSeed),
			MaxNodes: *maxNodes, NoWrap: *noWrap, KeepDecimalPoints: *keepDots}
		if o.Scoring, err = metrics.ParseScoreMode(*scoring); err != nil {
			return fmt.Errorf("llm run: --scoring: %w", err)
		}
		t := *tasks
		if t == "" {
			t = "all"
		}
		if o.Tasks, err = graphtext.ParseTasks(t); err != nil {
			return fmt.Errorf("llm run: --tasks: %w", err)
		}
		if o.Encodings, err = parseList("encodings", *encodings, graphtext.Encodings(), graphtext.ParseEncoding); err != nil {
			return fmt.Errorf("llm run: %w", err)
		}
		if o.Syntaxes, err = parseList("syntaxes", *syntaxes, graphtext.Syntaxes(), graphtext.ParseSyntax); err != nil {
			return fmt.Errorf("llm run: %w", err)
		}
		cfg.Graphs = o
	case llmeval.Spectral:
		cfg.Spectral = llmeval.SpectralOptions{Tasks: splitCSV(*tasks), Count: *count, Seed: uint64(*dataSeed), TrainCount: *trainCount,
			Options: spectralOpts(), NoWrap: *noWrap}
	case llmeval.DSR:
		o := llmeval.DSROptions{Structures: splitCSV(*structures), Categories: splitCSV(*categories), Count: *count,
			Seed: uint64(*dataSeed), Tokens: *tokens, NoSchema: *noSchema, Options: dsrOpts.o}
		if o.Scoring, err = metrics.ParseScoreMode(*scoring); err != nil {
			return fmt.Errorf("llm run: --scoring: %w", err)
		}
		if o.Strategy, err = dsr.ParseStrategy(*strategy); err != nil {
			return fmt.Errorf("llm run: --strategy: %w", err)
		}
		if slices.Contains(dsr.CodeModes(), o.Strategy) {
			return fmt.Errorf("llm run: --strategy %s is a code-probe mode; llm run asks stepwise, 0-CoT, CoT, 3-shot or none", o.Strategy)
		}
		if *tokens < 1 {
			return fmt.Errorf("llm run: --tokens %d: want a positive number", *tokens)
		}
		if *levels == "all" {
			o.Levels = dsr.Levels()
		} else {
			for _, l := range splitCSV(*levels) {
				lv, err := dsr.ParseLevel(l)
				if err != nil {
					return fmt.Errorf("llm run: --levels: %w", err)
				}
				o.Levels = append(o.Levels, lv)
			}
		}
		cfg.DSR = o
	}

	// The endpoint: checked and connected (the cache, the local server if
	// a prompt needs it) once the prompts are known to be fine.
	cfg.Endpoint = llmeval.Endpoint{URL: *endpoint, Model: *model, CacheDir: *cacheDir, NoCache: *noCache,
		Client: llm.Config{Concurrency: *concurrency, Timeout: *timeout, MaxRetries: *retries, TokenParam: tp},
		Logf:   func(format string, args ...any) { fmt.Fprintf(os.Stderr, "llm run: "+format+"\n", args...) }}
	if set["schema-format"] {
		cfg.Endpoint.Client.SchemaStyle = style
	}
	if *retries == 0 {
		cfg.Endpoint.Client.MaxRetries = -1 // none (llm's 0 is its default)
	}
	if !*quiet {
		start := time.Now()
		last := time.Time{}
		cfg.Progress = func(done, total, cached int) {
			if now := time.Now(); now.Sub(last) > time.Second || done == total {
				last = now
				fmt.Fprintf(os.Stderr, "\rllm run: %d/%d prompts (%d from the cache) in %s   ", done, total, cached, now.Sub(start).Round(time.Second))
				if done == total {
					fmt.Fprintln(os.Stderr)
				}
			}
		}
	}
	res, err := llmeval.Run(commandContext(), cfg)
	if errors.Is(err, llmeval.ErrNoModel) {
		fs.Usage()
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
