package llmeval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/narlab/narlab/internal/fsutil"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/llm/llamacpp"
	"github.com/narlab/narlab/plots"
	"github.com/narlab/narlab/tracking"
	"github.com/narlab/narlab/tracking/mlflow"
)

// Suite names.
const (
	CLRSText = "clrstext"
	Graphs   = "graphs"
	Spectral = "spectral"
	DSR      = "dsr"
)

// Suites lists the suite names.
func Suites() []string { return []string{CLRSText, Graphs, Spectral, DSR} }

// Config is one evaluation.
type Config struct {
	// Suite is clrstext, graphs, spectral or dsr.
	Suite string
	// Endpoint is the model the prompts are asked of (see [Open]): an
	// OpenAI-compatible endpoint, or narlab's local llama.cpp server,
	// with the response cache. Client, when set, is used instead.
	Endpoint Endpoint
	// Client asks the prompts (its endpoint, model, concurrency, retries
	// and cache), when given instead of an Endpoint.
	Client *llm.Client
	// API overrides the suite's default API (clrstext: completion, which
	// continues the CLRS-Text question as the paper's models do; the
	// others: chat).
	API llm.API
	// Sampling names the preset of generation settings the run starts from
	// ([Samplings]; "" : [SamplingPaper], the suite's paper's, see
	// [SuiteSampling]).
	Sampling string
	// Params override the preset field by field: a Temperature, TopP, TopK
	// or MaxTokens that is not 0, a Seed or Stop that is not nil. The
	// *Set flags make a zero Temperature, TopP or TopK an override too
	// (greedy decoding over a preset that samples; no top_k, for an
	// endpoint without it). MaxTokens left at 0 by both takes the suite's
	// default; Stop nil takes the suite's default (clrstext with the
	// completion API: a blank line, where a reference answer ends).
	Params                           llm.Params
	TemperatureSet, TopPSet, TopKSet bool
	// Limit, when positive, keeps at most that many prompts, taken in turn
	// from each group (algorithm, task or structure) so that every group is
	// represented.
	Limit int
	// Label names the model in run names, legends and predictor columns
	// (default: the model's name).
	Label string
	// Experiment is the MLflow experiment (default "llm-<suite>").
	Experiment string
	// Tracking is the MLflow server; "" : MLFLOW_TRACKING_URI, else the
	// local server; "none": log nothing.
	Tracking string
	// Out, when set, is a directory that receives responses.jsonl,
	// summary.json and the figures.
	Out string
	// Progress, when set, is called after each answered prompt.
	Progress func(done, total, cached int)
	// Logf receives the run's notices (default: standard error).
	Logf func(format string, args ...any)

	CLRSText CLRSTextOptions
	Graphs   GraphsOptions
	Spectral SpectralOptions
	DSR      DSROptions
}

// Record is one line of responses.jsonl.
type Record struct {
	// ID names the prompt within its suite; Group is the algorithm, task
	// or structure it belongs to.
	ID     string `json:"id"`
	Group  string `json:"group"`
	Prompt string `json:"prompt"`
	// Raw is the model's answer as it came ("" for none).
	Raw string `json:"raw"`
	// Parsed is the answer the suite's parser read from Raw ("" when it
	// read none).
	Parsed string `json:"parsed"`
	// Truth is the expected answer.
	Truth string `json:"truth"`
	// Score is the prompt's score: 1 or 0 for clrstext (exact match),
	// graphs (correct) and dsr (binary); the sMAPE of the parsed value for
	// spectral, as a fraction (the paper's 0–100 value / 100; lower is
	// better), null when nothing could be parsed.
	Score *float64 `json:"score"`
	// Extra holds further per-prompt measures (clrstext: ttff; dsr:
	// levenshtein; dsr and graphs: the score in each scoring mode, paper
	// and lenient, and paper_raised = 1 where the paper's own scorer
	// raises on the response).
	Extra map[string]float64 `json:"extra,omitempty"`
	// Error is why the prompt has no answer (the server rejected it).
	Error        string  `json:"error,omitempty"`
	FinishReason string  `json:"finish_reason,omitempty"`
	PromptTokens int     `json:"prompt_tokens"`
	OutputTokens int     `json:"completion_tokens"`
	LatencyS     float64 `json:"latency_s"`
	Cached       bool    `json:"cached"`
}

// Result is a finished evaluation.
type Result struct {
	Suite string
	Label string
	// Records, in the suite's prompt order.
	Records []Record
	// Score is the mean per-prompt score over scored prompts
	// ([Result.ScoreName]: accuracy, smape or binary); Groups the same per
	// group.
	Score     float64
	ScoreName string
	Groups    map[string]float64
	// Counts.
	Prompts, Cached, Failed, Empty, Unparsed int
	PromptTokens, OutputTokens               int
	// Requests is what the client sent during this run.
	Requests llm.Stats
	// TokenParam is the name the token limit went out under at the end of
	// the run ("" when nothing was sent: every answer came from the cache).
	TokenParam llm.TokenParam
	// Wall is the time spent asking.
	Wall time.Duration
	// RunID and RunURL name the MLflow run ("" when not logged).
	RunID, RunURL string
	// Figures drawn for the run, by file name.
	Figures map[string]*plots.Figure
	// Report is the suite's own scored report: *clrstext.Report,
	// *serialization.Report, *spectral.Report or *dsr.Tables.
	Report any
}

// item is one prompt of a suite.
type item struct {
	id, group, prompt string
	schema            *llm.Schema
	ref               int // index into the suite's own instances
}

// answer is what asking an item gave.
type answer struct {
	resp llm.Response
	err  error
	done bool
}

// scored is what a suite makes of its answers.
type scored struct {
	records   []Record // Raw, Error, tokens… are filled by the runner
	scoreName string
	report    any
	figures   map[string]*plots.Figure
	// log records the suite's own metrics, tables and figures.
	log func(ctx context.Context, run *tracking.Run) error
}

type suite interface {
	name() string
	params() map[string]string
	defaults(p *llm.Params, api llm.API)
	defaultAPI() llm.API
	build() ([]item, error)
	score(items []item, answers []answer, label string) (*scored, error)
}

func newSuite(cfg *Config) (suite, error) {
	switch cfg.Suite {
	case CLRSText:
		return newCLRSTextSuite(cfg.CLRSText)
	case Graphs:
		return newGraphsSuite(cfg.Graphs)
	case Spectral:
		return newSpectralSuite(cfg.Spectral)
	case DSR:
		return newDSRSuite(cfg.DSR)
	}
	return nil, fmt.Errorf("llmeval: unknown suite %q; want one of %s", cfg.Suite, strings.Join(Suites(), ", "))
}

// Prepared is an evaluation whose prompts are built and checked, ready to
// [Prepared.Run].
type Prepared struct {
	cfg   Config
	suite suite
	items []item
	reqs  []llm.Request
	// sampling is the preset; overridden names the Params fields that
	// replaced its values.
	sampling   Sampling
	overridden []string
	// server is the local llama.cpp server Open connected to (nil for
	// another endpoint): a run that fails says when it is gone.
	server *llamacpp.Server
	// given is the configuration as Prepare received it (to prepare the
	// prompts again for another API); apiProbe says whether Open asked
	// the endpoint if it serves completions, and what it found (the run's
	// api.probe parameter).
	given    Config
	apiProbe string
}

// Prepare checks the configuration and builds every prompt; nothing is
// sent, and no client or endpoint is needed yet ([Open] connects one).
func Prepare(cfg Config) (*Prepared, error) {
	if cfg.Limit < 0 {
		return nil, fmt.Errorf("llmeval: limit %d: want 0 (no limit) or a positive number", cfg.Limit)
	}
	given := cfg
	s, err := newSuite(&cfg)
	if err != nil {
		return nil, err
	}
	if cfg.API == "" {
		cfg.API = s.defaultAPI()
	}
	smp, err := SuiteSampling(cfg.Suite, cfg.Sampling)
	if err != nil {
		return nil, err
	}
	cfg.Sampling = smp.Name
	var overridden []string
	cfg.Params, overridden = smp.apply(&cfg)
	s.defaults(&cfg.Params, cfg.API)
	if err := cfg.Params.Validate(); err != nil {
		return nil, fmt.Errorf("llmeval: %w", err)
	}
	if cfg.Experiment == "" {
		cfg.Experiment = tracking.DefaultExperiment("llm-" + cfg.Suite)
	}
	if cfg.Out != "" {
		if err := fsutil.CheckWritableDir(cfg.Out); err != nil {
			return nil, fmt.Errorf("llmeval: --out: %w", err)
		}
	}
	items, err := s.build()
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("llmeval: the %s suite has no prompts with these options", cfg.Suite)
	}
	items = limitItems(items, cfg.Limit)
	p := &Prepared{cfg: cfg, suite: s, items: items, sampling: smp, overridden: overridden, given: given}
	for _, it := range items {
		req := llm.Request{API: cfg.API, Prompt: it.prompt, Params: cfg.Params, Schema: it.schema}
		if it.schema != nil && cfg.API != llm.Chat {
			return nil, fmt.Errorf("llmeval: the %s suite asks for structured output, which needs the chat API", cfg.Suite)
		}
		p.reqs = append(p.reqs, req)
	}
	return p, nil
}

// SetClient sets the client the prompts are asked through (the prompts
// do not depend on it; its model's name is the label unless Config.Label
// names one).
func (p *Prepared) SetClient(c *llm.Client) { p.cfg.Client = c }

// Label is the model's name in the run: Config.Label, else the client's
// model ("" before a client is set).
func (p *Prepared) Label() string {
	if p.cfg.Label != "" || p.cfg.Client == nil {
		return p.cfg.Label
	}
	return p.cfg.Client.Model()
}

// SetProgress sets the function called after each answered prompt.
func (p *Prepared) SetProgress(f func(done, total, cached int)) { p.cfg.Progress = f }

// Params returns the generation parameters every prompt is sent with: the
// sampling preset's, the overrides and the suite's defaults applied.
func (p *Prepared) Params() llm.Params { return p.cfg.Params }

// Sampling returns the preset the parameters started from, and the names of
// the fields Config.Params overrode.
func (p *Prepared) Sampling() (Sampling, []string) { return p.sampling, p.overridden }

// Len is the number of prompts.
func (p *Prepared) Len() int { return len(p.items) }

// Pending counts the prompts the cache does not answer (all of them
// before a client is set).
func (p *Prepared) Pending() (int, error) {
	if p.cfg.Client == nil {
		return len(p.reqs), nil
	}
	n := 0
	for _, r := range p.reqs {
		_, ok, err := p.cfg.Client.Cached(r)
		if err != nil {
			return 0, err
		}
		if !ok {
			n++
		}
	}
	return n, nil
}

// Prompts returns the prompts in order (for inspection).
func (p *Prepared) Prompts() []string {
	out := make([]string, len(p.items))
	for i, it := range p.items {
		out[i] = it.prompt
	}
	return out
}

// limitItems keeps n items taken in turn from each group (groups in order
// of first appearance), then restores the suite's order.
func limitItems(items []item, n int) []item {
	if n <= 0 || n >= len(items) {
		return items
	}
	var order []string
	byGroup := map[string][]int{}
	for i, it := range items {
		if _, ok := byGroup[it.group]; !ok {
			order = append(order, it.group)
		}
		byGroup[it.group] = append(byGroup[it.group], i)
	}
	var keep []int
	for round := 0; len(keep) < n; round++ {
		for _, g := range order {
			if round < len(byGroup[g]) && len(keep) < n {
				keep = append(keep, byGroup[g][round])
			}
		}
	}
	sort.Ints(keep)
	out := make([]item, len(keep))
	for i, k := range keep {
		out[i] = items[k]
	}
	return out
}

// Run is [Prepare] followed by [Prepared.Run] (which connects
// Config.Endpoint unless Config.Client is set).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	p, err := Prepare(cfg)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx)
}

// Run asks every prompt, scores the answers and logs the MLflow run. A
// Prepared without a client is first connected to Config.Endpoint
// ([Open]).
func (p *Prepared) Run(ctx context.Context) (*Result, error) {
	if p.cfg.Client == nil {
		if _, err := Open(ctx, p.cfg.Endpoint, p); err != nil {
			return nil, err
		}
	}
	p.cfg.Label = p.Label()
	cfg := p.cfg
	logf := cfg.Logf
	if logf == nil {
		logf = func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	}
	var run *tracking.Run
	if cfg.Tracking != "none" {
		opts := []tracking.Option{
			tracking.RunName(tracking.RunNameFor("llm "+cfg.Suite, cfg.Label)),
			tracking.Source("narlab llm run"), tracking.Note(p.runNote()),
			tracking.Tags(map[string]string{"benchmark": cfg.Suite, "model": cfg.Label, "llm.endpoint": cfg.Client.BaseURL()}),
			tracking.Logf(logf),
		}
		if cfg.Tracking != "" {
			opts = append(opts, tracking.TrackingURI(cfg.Tracking))
		}
		var err error
		if run, err = tracking.Start(ctx, cfg.Experiment, p.runParams(), opts...); err != nil {
			return nil, fmt.Errorf("llmeval: %w (evaluate without MLflow with --tracking none)", err)
		}
		if err := run.LogInputs(p.promptsDataset()); err != nil {
			run.EndWith(context.WithoutCancel(ctx), err)
			return nil, fmt.Errorf("llmeval: %w", err)
		}
	}
	res, err := p.ask(ctx, run)
	if run != nil {
		endCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Minute)
		defer cancel()
		if eerr := run.EndWith(endCtx, err); eerr != nil {
			switch {
			case err == nil:
				err = fmt.Errorf("llmeval: the MLflow server did not take the whole run: %w", eerr)
			case errors.Is(eerr, mlflow.ErrLost):
				err = fmt.Errorf("%w; and the MLflow run: %w", err, eerr)
			}
		}
		if res != nil {
			res.RunID, res.RunURL = run.ID(), run.URL()
		}
	}
	return res, err
}

func (p *Prepared) runParams() map[string]string {
	cfg := p.cfg
	c := cfg.Client
	serverDefault := func(zero bool, v string) string {
		if zero {
			return "server default"
		}
		return v
	}
	overridden := strings.Join(p.overridden, ",")
	if overridden == "" {
		overridden = "none"
	}
	m := map[string]string{
		"suite": cfg.Suite, "model": c.Model(), "label": cfg.Label, "endpoint": c.BaseURL(), "endpoint.from": c.BaseURLSource(),
		"api": string(cfg.API), "api.probe": p.probeParam(), "sampling": p.sampling.Name, "sampling.source": p.sampling.Source, "sampling.overridden": overridden,
		"temperature": strconv.FormatFloat(cfg.Params.Temperature, 'g', -1, 64), "max_tokens": strconv.Itoa(cfg.Params.MaxTokens),
		"top_p":       serverDefault(cfg.Params.TopP == 0, strconv.FormatFloat(cfg.Params.TopP, 'g', -1, 64)),
		"top_k":       serverDefault(cfg.Params.TopK == 0, strconv.Itoa(cfg.Params.TopK)),
		"token_param": string(c.TokenParamConfig()),
		"concurrency": strconv.Itoa(c.Concurrency()), "limit": strconv.Itoa(cfg.Limit), "prompts": strconv.Itoa(len(p.items)),
		"api_key_set": strconv.FormatBool(c.HasAPIKey()),
	}
	if cfg.Params.Seed != nil {
		m["seed"] = strconv.FormatInt(*cfg.Params.Seed, 10)
	}
	if len(cfg.Params.Stop) > 0 {
		m["stop"] = strconv.Quote(strings.Join(cfg.Params.Stop, "\x1f"))
	}
	for k, v := range p.suite.params() {
		m[cfg.Suite+"."+k] = v
	}
	return m
}

// probeParam is the run's api.probe parameter: whether the endpoint was
// asked if it serves completions, and what it said.
func (p *Prepared) probeParam() string {
	if p.apiProbe == "" {
		return "not probed: the client was given"
	}
	return p.apiProbe
}

// rejectAll is the number of rejected requests, with no answer among
// them, after which a run stops: the server refuses the parameters, not a
// prompt.
const rejectAll = 5

// ask sends the prompts, scores and logs.
func (p *Prepared) ask(ctx context.Context, run *tracking.Run) (*Result, error) {
	cfg := p.cfg
	n := len(p.items)
	answers := make([]answer, n)
	before := cfg.Client.Stats()
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu                     sync.Mutex
		fatal                  error
		done, cached, ok, perm int
	)
	next := make(chan int)
	var wg sync.WaitGroup
	workers := max(1, min(cfg.Client.Concurrency(), n))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				resp, err := cfg.Client.Do(ctx, p.reqs[i])
				mu.Lock()
				switch {
				case err == nil:
					answers[i] = answer{resp: resp, done: true}
					ok++
				case llm.IsPermanent(err):
					// The server rejects this prompt (too long, …): a
					// failure of this prompt, not of the run, unless it
					// rejects everything (a parameter it does not take).
					answers[i] = answer{err: err, done: true}
					perm++
					if ok == 0 && perm == rejectAll && fatal == nil {
						fatal = fmt.Errorf("the server rejected each of the first %d requests and answered none: %w", perm, err)
						cancel()
					}
				default:
					if fatal == nil && ctx.Err() == nil {
						fatal = err
						cancel()
					}
				}
				if answers[i].done {
					done++
					if resp.Cached {
						cached++
					}
					if cfg.Progress != nil {
						cfg.Progress(done, n, cached)
					}
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	wall := time.Since(start)
	if fatal == nil && ctx.Err() != nil {
		fatal = ctx.Err()
	}
	if fatal != nil {
		if p.server != nil {
			if gone := p.server.Check(); gone != nil { // a crash, not the network: say so
				fatal = fmt.Errorf("%w\n%v", fatal, gone)
			}
		}
		return nil, fmt.Errorf("llmeval: %d of %d prompts answered and cached before the run stopped; run the same command again to resume: %w", done, n, fatal)
	}
	sc, err := p.suite.score(p.items, answers, cfg.Label)
	if err != nil {
		return nil, err
	}
	after := cfg.Client.Stats()
	res := &Result{Suite: cfg.Suite, Label: cfg.Label, Records: sc.records, ScoreName: sc.scoreName, Report: sc.report,
		Figures: sc.figures, Groups: map[string]float64{}, Prompts: n, Wall: wall,
		Requests: llm.Stats{Requests: after.Requests - before.Requests, Retries: after.Retries - before.Retries,
			CacheHits: after.CacheHits - before.CacheHits, Answers: after.Answers - before.Answers, Failures: after.Failures - before.Failures}}
	if res.Requests.Requests > 0 {
		res.TokenParam = llm.TokenParamMaxTokens // the completion API's only name
		if cfg.API == llm.Chat {
			res.TokenParam = cfg.Client.TokenParam()
		}
	}
	sums := map[string][2]float64{}
	var total [2]float64
	for i := range res.Records {
		r := &res.Records[i]
		a := answers[i]
		r.ID, r.Group, r.Prompt = p.items[i].id, p.items[i].group, p.items[i].prompt
		if a.err != nil {
			r.Error = a.err.Error()
			res.Failed++
		} else {
			r.Raw, r.FinishReason, r.Cached = a.resp.Text, a.resp.FinishReason, a.resp.Cached
			r.PromptTokens, r.OutputTokens = a.resp.Usage.PromptTokens, a.resp.Usage.CompletionTokens
			r.LatencyS = a.resp.Latency.Seconds()
			if a.resp.Cached {
				res.Cached++
			}
			if strings.TrimSpace(a.resp.Text) == "" {
				res.Empty++
			}
		}
		res.PromptTokens += r.PromptTokens
		res.OutputTokens += r.OutputTokens
		if r.Parsed == "" {
			res.Unparsed++
		}
		if r.Score != nil {
			s := sums[r.Group]
			sums[r.Group] = [2]float64{s[0] + *r.Score, s[1] + 1}
			total[0] += *r.Score
			total[1]++
		}
	}
	res.Score = math.NaN()
	if total[1] > 0 {
		res.Score = total[0] / total[1]
	}
	for g, s := range sums {
		res.Groups[g] = s[0] / s[1]
	}
	if cfg.Out != "" {
		if err := p.writeOut(res); err != nil {
			return res, err
		}
	}
	if run != nil {
		if err := p.log(ctx, run, res, sc); err != nil {
			return res, err
		}
	}
	return res, nil
}

// latencies returns the mean, median and 95th percentile of the answered
// prompts' latencies, in seconds.
func latencies(recs []Record) (mean, p50, p95 float64) {
	var xs []float64
	for _, r := range recs {
		if r.Error == "" {
			xs = append(xs, r.LatencyS)
		}
	}
	if len(xs) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	sort.Float64s(xs)
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs)), plots.Percentile(xs, 50), plots.Percentile(xs, 95)
}

func (p *Prepared) log(ctx context.Context, run *tracking.Run, res *Result, sc *scored) error {
	var errs []error
	lm := func(key string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		if err := run.LogMetric(key, 0, v); err != nil {
			errs = append(errs, err)
		}
	}
	if res.TokenParam != "" {
		// What auto settled on (a parameter: it changes what the server
		// reads, and a rerun should send the same).
		if err := run.LogParams(map[string]string{"token_param.sent": string(res.TokenParam)}); err != nil {
			errs = append(errs, err)
		}
	}
	lm("llm/score", res.Score)
	for g, v := range res.Groups {
		lm("llm/score/"+metricSafe(g), v)
	}
	lm("llm/prompts", float64(res.Prompts))
	lm("llm/cached", float64(res.Cached))
	lm("llm/failed", float64(res.Failed))
	lm("llm/empty", float64(res.Empty))
	lm("llm/unparsed", float64(res.Unparsed))
	lm("llm/tokens/prompt", float64(res.PromptTokens))
	lm("llm/tokens/completion", float64(res.OutputTokens))
	mean, p50, p95 := latencies(res.Records)
	lm("llm/latency/mean_s", mean)
	lm("llm/latency/p50_s", p50)
	lm("llm/latency/p95_s", p95)
	lm("llm/requests", float64(res.Requests.Requests))
	lm("llm/retries", float64(res.Requests.Retries))
	lm("llm/wall_s", res.Wall.Seconds())
	if sent := res.Requests.Answers; sent > 0 && res.Wall > 0 {
		lm("llm/throughput/prompts_per_s", float64(sent)/res.Wall.Seconds())
		tok := 0
		for _, r := range res.Records {
			if !r.Cached && r.Error == "" {
				tok += r.OutputTokens
			}
		}
		lm("llm/throughput/tokens_per_s", float64(tok)/res.Wall.Seconds())
	}
	data, err := responsesJSONL(res.Records)
	if err == nil {
		err = run.LogArtifact("responses.jsonl", data)
	}
	if err != nil {
		errs = append(errs, err)
	}
	if sc.log != nil {
		if err := sc.log(ctx, run); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("llmeval: logging to MLflow: %w (and %d more)", errs[0], len(errs)-1)
	}
	return nil
}

func metricSafe(s string) string {
	return strings.NewReplacer("=", "_", ":", "_", " ", "_").Replace(s)
}

func responsesJSONL(recs []Record) ([]byte, error) {
	var b strings.Builder
	w := fsutil.NewJSONLWriter(&b)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			return nil, err
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// ReadResponses reads a responses.jsonl file.
func ReadResponses(r io.Reader) ([]Record, error) {
	var out []Record
	err := fsutil.ReadJSONL(r, func(_ int, rec Record) error {
		out = append(out, rec)
		return nil
	})
	return out, err
}

// summary is summary.json in --out.
type summary struct {
	Suite        string             `json:"suite"`
	Label        string             `json:"label"`
	ScoreName    string             `json:"score_name"`
	Score        *float64           `json:"score"`
	Groups       map[string]float64 `json:"groups"`
	Prompts      int                `json:"prompts"`
	Cached       int                `json:"cached"`
	Failed       int                `json:"failed"`
	Empty        int                `json:"empty"`
	Unparsed     int                `json:"unparsed"`
	PromptTokens int                `json:"prompt_tokens"`
	OutputTokens int                `json:"completion_tokens"`
	Requests     int64              `json:"requests"`
	Retries      int64              `json:"retries"`
	WallS        float64            `json:"wall_s"`
}

func (p *Prepared) writeOut(res *Result) error {
	data, err := responsesJSONL(res.Records)
	if err != nil {
		return err
	}
	if err := fsutil.WriteFile(filepath.Join(p.cfg.Out, "responses.jsonl"), data, fsutil.DataMode); err != nil {
		return err
	}
	s := summary{Suite: res.Suite, Label: res.Label, ScoreName: res.ScoreName, Groups: res.Groups, Prompts: res.Prompts,
		Cached: res.Cached, Failed: res.Failed, Empty: res.Empty, Unparsed: res.Unparsed, PromptTokens: res.PromptTokens,
		OutputTokens: res.OutputTokens, Requests: res.Requests.Requests, Retries: res.Requests.Retries, WallS: res.Wall.Seconds()}
	if !math.IsNaN(res.Score) {
		s.Score = &res.Score
	}
	if err := fsutil.Write(filepath.Join(p.cfg.Out, "summary.json"), fsutil.DataMode, func(w io.Writer) error {
		return writeIndentedJSON(w, s)
	}); err != nil {
		return err
	}
	for name, fig := range res.Figures {
		png, err := fig.PNG()
		if err != nil {
			return fmt.Errorf("llmeval: rendering %s: %w", name, err)
		}
		if err := fsutil.WriteFile(filepath.Join(p.cfg.Out, "figures", name), png, fsutil.DataMode); err != nil {
			return err
		}
	}
	return nil
}

func writeIndentedJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// logMetricMap logs named values (sorted by name) at step 0.
func logMetricMap(run *tracking.Run, m map[string]float64) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := run.LogMetric(k, 0, m[k]); err != nil {
			return err
		}
	}
	return nil
}
