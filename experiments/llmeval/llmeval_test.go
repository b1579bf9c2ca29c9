package llmeval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/narlab/narlab/experiments/llmeval"
	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/internal/testenv"
	"github.com/narlab/narlab/lib/clrstext"
	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/llm/llamacpp"
	"github.com/narlab/narlab/lib/llm/llmtest"
	"github.com/narlab/narlab/tracking/mlflow"
)

// Every test asks the real llama.cpp server (Gemma 3 270M), mostly through
// llmtest's proxy, which counts the requests that reach it and injects
// faults; the runs that are logged go to a real `mlflow server`.

var (
	mlOnce sync.Once
	mlSrv  *mlflow.Server
	mlErr  error
	mlDir  string
)

func TestMain(m *testing.M) {
	testenv.Main(m, func() {
		llmtest.Shutdown()
		if mlSrv != nil {
			mlSrv.Stop()
		}
		if mlDir != "" {
			os.RemoveAll(mlDir)
		}
	})
}

func mlflowServer(t *testing.T) *mlflow.Server {
	t.Helper()
	mlOnce.Do(func() {
		bin, err := project.VenvBin("mlflow")
		if err != nil {
			mlErr = err
			return
		}
		if mlDir, mlErr = os.MkdirTemp("", "narlab-llmeval-mlflow-"); mlErr != nil {
			return
		}
		mlSrv, mlErr = mlflow.StartServer(context.Background(), mlflow.ServerConfig{Dir: mlDir, MLflow: bin})
	})
	if mlErr != nil {
		t.Fatalf("the test needs a real MLflow server: %v (run scripts/setup.sh)", mlErr)
	}
	return mlSrv
}

// client returns a client of base with a cache in dir (none when dir is "").
func client(t *testing.T, base, dir string, mod func(*llm.Config)) *llm.Client {
	t.Helper()
	cfg := llm.Config{BaseURL: base, Model: llmtest.Model, Concurrency: 2, MinBackoff: 20 * time.Millisecond,
		MaxBackoff: 200 * time.Millisecond, Timeout: 2 * time.Minute, SchemaStyle: llm.SchemaLlamaCpp}
	if dir != "" {
		c, err := llm.OpenCache(dir)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Cache = c
	}
	if mod != nil {
		mod(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func twoTasks(t *testing.T) []*graphtext.Task {
	t.Helper()
	ts, err := graphtext.ParseTasks("node_number,edge_existence")
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// suiteConfigs are small configurations of the four suites.
func suiteConfigs(t *testing.T) map[string]llmeval.Config {
	return map[string]llmeval.Config{
		llmeval.CLRSText: {Suite: llmeval.CLRSText, Params: llm.Params{MaxTokens: 40},
			CLRSText: llmeval.CLRSTextOptions{Algorithms: []string{"insertion_sort", "bfs"}, Lengths: []int{4}, Options: clrstext.Options{Hints: true}}},
		llmeval.Graphs: {Suite: llmeval.Graphs, Params: llm.Params{MaxTokens: 16},
			Graphs: llmeval.GraphsOptions{Tasks: twoTasks(t), Encodings: []graphtext.Encoding{graphtext.EdgeErdos, "E1"}, Instances: 1, MaxNodes: 8}},
		llmeval.Spectral: {Suite: llmeval.Spectral, Params: llm.Params{MaxTokens: 24}, Limit: 2,
			Spectral: llmeval.SpectralOptions{Tasks: []string{graphtext.GraphEnergy, graphtext.SpectralRadius}, Count: 2, TrainCount: 20}},
		llmeval.DSR: {Suite: llmeval.DSR, Params: llm.Params{MaxTokens: 48},
			DSR: llmeval.DSROptions{Structures: []string{"stack"}, Count: 2, Strategy: dsr.NoReasoning}},
	}
}

// wantArtifacts are files each suite's run must hold besides responses.jsonl.
var wantArtifacts = map[string][]string{
	llmeval.CLRSText: {"figures/accuracy_vs_length.png", "scores.json"},
	llmeval.Graphs:   {"serialization_scores.json", "figures/accuracy_by_config.png", "figures/delta_heatmap.png"},
	llmeval.Spectral: {"spectral/densities.png", "spectral/table10.json"},
	llmeval.DSR:      {"figures/category_radar.png", "figures/structure_bars.png", "scores.json"},
}

func TestSuitesEndToEnd(t *testing.T) {
	srv := llmtest.Server(t)
	ml := mlflowServer(t)
	mc, err := ml.Client()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range llmeval.Suites() {
		t.Run(name, func(t *testing.T) {
			p := llmtest.NewProxy(t, srv.URL)
			cfg := suiteConfigs(t)[name]
			cfg.Client = client(t, p.URL, t.TempDir(), nil)
			cfg.Tracking = ml.URL
			cfg.Experiment = "narlab-test/llm-" + name
			cfg.Out = t.TempDir()
			cfg.Logf = t.Logf
			ctx := context.Background()
			res, err := llmeval.Run(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Prompts == 0 || len(res.Records) != res.Prompts || p.Posts() != res.Prompts || res.Cached != 0 {
				t.Fatalf("%d prompts, %d records, %d requests, %d cached", res.Prompts, len(res.Records), p.Posts(), res.Cached)
			}
			ids := map[string]bool{}
			sum, n := 0.0, 0
			for _, r := range res.Records {
				if r.ID == "" || r.Prompt == "" || r.Truth == "" || ids[r.ID] {
					t.Errorf("record %+v: want a unique id, the prompt and the truth", r)
				}
				ids[r.ID] = true
				if r.Error != "" || r.OutputTokens < 1 || r.PromptTokens < 1 || r.LatencyS <= 0 {
					t.Errorf("record %s: error %q, %d/%d tokens, latency %v", r.ID, r.Error, r.PromptTokens, r.OutputTokens, r.LatencyS)
				}
				if r.Score == nil {
					if name != llmeval.Spectral || r.Parsed != "" {
						t.Errorf("record %s has no score (parsed %q)", r.ID, r.Parsed)
					}
					continue
				}
				if name != llmeval.Spectral && *r.Score != 0 && *r.Score != 1 {
					t.Errorf("record %s: score %v, want 0 or 1", r.ID, *r.Score)
				}
				if name != llmeval.Spectral && r.Parsed == "" && *r.Score != 0 {
					t.Errorf("record %s: nothing parsed but score %v", r.ID, *r.Score)
				}
				sum += *r.Score
				n++
			}
			if n > 0 && math.Abs(res.Score-sum/float64(n)) > 1e-12 {
				t.Errorf("overall score %v, mean of the records %v", res.Score, sum/float64(n))
			}
			// The run in MLflow.
			run, err := mc.GetRun(ctx, res.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if run.Info.Status != mlflow.StatusFinished {
				t.Errorf("run status %s", run.Info.Status)
			}
			params := map[string]string{}
			for _, pr := range run.Data.Params {
				params[pr.Key] = pr.Value
			}
			if params["suite"] != name || params["endpoint"] != p.URL || params["model"] != llmtest.Model || params["max_tokens"] != fmt.Sprint(cfg.Params.MaxTokens) {
				t.Errorf("params %v", params)
			}
			// The paper's sampling (greedy for all four), where it comes
			// from, what was overridden, and the limit's name.
			want := map[string]string{"sampling": "paper", "temperature": "0", "top_p": "server default", "top_k": "server default",
				"sampling.overridden": "max_tokens", "endpoint.from": "config", "token_param": "auto", "token_param.sent": "max_tokens"}
			for k, v := range want {
				if params[k] != v {
					t.Errorf("param %s = %q, want %q", k, params[k], v)
				}
			}
			if src := params["sampling.source"]; !strings.Contains(src, map[string]string{llmeval.CLRSText: "CLRS-Text", llmeval.Graphs: "Lost in Serialization",
				llmeval.Spectral: "Lost in Serialization", llmeval.DSR: "DSR-Bench"}[name]) {
				t.Errorf("sampling.source %q does not name the suite's paper", src)
			}
			var sent map[string]any
			if err := json.Unmarshal(p.Hits()[0].Body, &sent); err != nil {
				t.Fatal(err)
			}
			if sent["temperature"] != 0.0 || sent["max_tokens"] != float64(cfg.Params.MaxTokens) || sent["top_k"] != nil || sent["top_p"] != nil {
				t.Errorf("sent %s", p.Hits()[0].Body)
			}
			metrics := map[string]float64{}
			for _, m := range run.Data.Metrics {
				metrics[m.Key] = m.Value
			}
			for _, k := range []string{"llm/prompts", "llm/tokens/prompt", "llm/tokens/completion", "llm/latency/mean_s", "llm/requests"} {
				if _, ok := metrics[k]; !ok {
					t.Errorf("metric %s missing; have %v", k, keys(metrics))
				}
			}
			if metrics["llm/prompts"] != float64(res.Prompts) || metrics["llm/tokens/completion"] != float64(res.OutputTokens) {
				t.Errorf("llm/prompts %v, llm/tokens/completion %v", metrics["llm/prompts"], metrics["llm/tokens/completion"])
			}
			// Graphs and DSR runs log both scoring modes: the paper's
			// scorer (their scores) and the lenient reading.
			bothModes := map[string][]string{
				llmeval.Graphs: {"scoring/paper_accuracy", "scoring/lenient_accuracy", "scoring/raised", "scoring/differ"},
				llmeval.DSR:    {"scoring/paper_binary", "scoring/lenient_binary", "scoring/raised", "scoring/differ"},
			}
			for _, k := range bothModes[name] {
				if _, ok := metrics[k]; !ok {
					t.Errorf("metric %s missing; have %v", k, keys(metrics))
				}
			}
			if len(bothModes[name]) > 0 {
				if params[name+".scoring"] != "paper" {
					t.Errorf("param %s.scoring %q, want paper", name, params[name+".scoring"])
				}
				for _, r := range res.Records {
					if r.Score == nil {
						continue
					}
					if _, ok := r.Extra["lenient"]; !ok || r.Extra["paper"] != *r.Score {
						t.Errorf("record %s: extra %v, want the paper score (%v) and the lenient one", r.ID, r.Extra, *r.Score)
					}
				}
			}
			files, err := mc.ListArtifactsRecursive(ctx, run.Info.ArtifactURI, "")
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, f := range files {
				paths = append(paths, f.Path)
			}
			for _, want := range append([]string{"responses.jsonl"}, wantArtifacts[name]...) {
				if !slices.Contains(paths, want) {
					t.Errorf("artifact %s missing; have %v", want, paths)
				}
			}
			data, err := mc.ReadArtifact(ctx, run.Info.ArtifactURI, "responses.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			logged, err := llmeval.ReadResponses(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if len(logged) != res.Prompts || logged[0].Raw != res.Records[0].Raw || logged[0].Prompt != res.Records[0].Prompt {
				t.Errorf("responses.jsonl holds %d records; first %+v", len(logged), logged[0])
			}
			// --out got the same.
			local, err := os.ReadFile(filepath.Join(cfg.Out, "responses.jsonl"))
			if err != nil || !bytes.Equal(local, data) {
				t.Errorf("--out responses.jsonl differs from the logged one (%v)", err)
			}
			for f := range res.Figures {
				if _, err := os.Stat(filepath.Join(cfg.Out, "figures", f)); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

func keys(m map[string]float64) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestRerunSendsNoRequest(t *testing.T) {
	srv := llmtest.Server(t)
	p := llmtest.NewProxy(t, srv.URL)
	dir := t.TempDir()
	cfg := suiteConfigs(t)[llmeval.Graphs]
	cfg.Tracking = "none"
	cfg.Client = client(t, p.URL, dir, nil)
	first, err := llmeval.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	sent := p.Posts()
	if sent != first.Prompts {
		t.Fatalf("first run: %d requests for %d prompts", sent, first.Prompts)
	}
	cfg.Client = client(t, p.URL, dir, nil) // a new process, the same cache
	again, err := llmeval.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Posts() != sent || again.Cached != again.Prompts || again.Requests.Requests != 0 {
		t.Fatalf("rerun: %d new requests, %d of %d cached", p.Posts()-sent, again.Cached, again.Prompts)
	}
	for i := range first.Records {
		a, b := first.Records[i], again.Records[i]
		if a.Raw != b.Raw || *a.Score != *b.Score || a.OutputTokens != b.OutputTokens {
			t.Errorf("record %s: %+v then %+v", a.ID, a, b)
		}
	}
	// A parameter change is a new request.
	cfg.Params.MaxTokens++
	cfg.Limit = 1
	cfg.Client = client(t, p.URL, dir, nil)
	if _, err := llmeval.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if p.Posts() != sent+1 {
		t.Errorf("with another max tokens: %d new requests, want 1", p.Posts()-sent)
	}
}

// TestServerKilledMidSuite kills the llama.cpp server after two answers.
// Either the server is back before the client's retries run out and the
// same run finishes, or the run stops with a resumable error and the next
// run asks only the prompts never answered; no prompt is answered twice.
func TestServerKilledMidSuite(t *testing.T) {
	srv := llmtest.Server(t)
	// Six short prompts: three tasks on two small graphs.
	tasks, err := graphtext.ParseTasks("node_number,edge_number,edge_existence")
	if err != nil {
		t.Fatal(err)
	}
	cfg := llmeval.Config{Suite: llmeval.Graphs, Tracking: "none", Params: llm.Params{MaxTokens: 8},
		Graphs: llmeval.GraphsOptions{Tasks: tasks, Instances: 2, MaxNodes: 6, NoWrap: true}}
	for _, tc := range []struct {
		name    string
		retries int
		restart bool // restart while the run is still retrying
	}{
		{"run fails, the rerun resumes", 2, false},
		{"server back within the retries", 60, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := llmtest.NewProxy(t, srv.URL)
			dir := t.TempDir()
			restarted := make(chan error, 1)
			var once sync.Once
			var killed atomic.Bool
			p.OnAnswer(func(n int) {
				if n != 2 {
					return
				}
				once.Do(func() {
					killed.Store(true)
					if err := llmtest.KillServer(); err != nil {
						restarted <- err
						return
					}
					if tc.restart {
						go func() { restarted <- llmtest.StartServer() }()
					} else {
						restarted <- nil
					}
				})
			})
			c := cfg
			c.Client = client(t, p.URL, dir, func(c *llm.Config) {
				c.Concurrency = 1
				c.MaxRetries = tc.retries
				c.MinBackoff, c.MaxBackoff = 100*time.Millisecond, 500*time.Millisecond
			})
			res, err := llmeval.Run(context.Background(), c)
			if !killed.Load() { // the server never gave its second answer: nothing was killed
				t.Fatalf("the run ended after %d answers, before the kill after the second: %v", p.Answered(), err)
			}
			if e := <-restarted; e != nil { // StartServer gives up within its own time limit
				t.Fatal(e)
			}
			if tc.restart {
				if err != nil {
					t.Fatalf("the run did not survive the restart: %v", err)
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), "run the same command again to resume") || !strings.Contains(err.Error(), "2 of 6 prompts answered") {
					t.Fatalf("error %v: want the resumable one after 2 of 6 answers", err)
				}
				if err := llmtest.StartServer(); err != nil {
					t.Fatal(err)
				}
				c.Client = client(t, p.URL, dir, nil)
				if res, err = llmeval.Run(context.Background(), c); err != nil {
					t.Fatal(err)
				}
				if res.Cached != 2 {
					t.Errorf("the rerun found %d answers in the cache, want 2", res.Cached)
				}
			}
			if p.Answered() != 6 || res.Prompts != 6 {
				t.Errorf("the server answered %d requests for %d prompts; want each of the 6 once", p.Answered(), res.Prompts)
			}
			for _, r := range res.Records {
				if r.Error != "" || r.OutputTokens == 0 {
					t.Errorf("record %s: %q, %d tokens", r.ID, r.Error, r.OutputTokens)
				}
			}
		})
	}
}

// fakeCompletion is a chat completion whose answer is text.
func fakeCompletion(text string) string {
	b, _ := json.Marshal(map[string]any{"object": "chat.completion", "model": "x",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": text}}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}})
	return string(b)
}

// TestMalformedAnswersAreFailures answers the first prompt of a suite with
// a malformed or empty answer (or rejects it with a 400): the run
// finishes, and that prompt is recorded and scored as a failure.
func TestMalformedAnswersAreFailures(t *testing.T) {
	srv := llmtest.Server(t)
	cases := []struct {
		suite, name string
		fault       llmtest.Fault
		empty       bool
		rejected    bool
	}{
		{llmeval.DSR, "cut JSON", llmtest.Fault{Status: 200, Body: fakeCompletion(`{"final_answer": [71, 65`)}, false, false},
		{llmeval.DSR, "wrong shape", llmtest.Fault{Status: 200, Body: fakeCompletion(`{"final_answer": "seventy"}`)}, false, false},
		{llmeval.DSR, "empty", llmtest.Fault{Status: 200, Body: fakeCompletion("")}, true, false},
		{llmeval.Graphs, "no answer", llmtest.Fault{Status: 200, Body: fakeCompletion("I cannot tell.")}, false, false},
		{llmeval.CLRSText, "prose", llmtest.Fault{Status: 200, Body: fakeCompletion("The list is sorted.")}, false, false},
		{llmeval.Spectral, "not a number", llmtest.Fault{Status: 200, Body: fakeCompletion(`\boxed{large}`)}, false, false},
		{llmeval.Graphs, "rejected prompt", llmtest.Fault{Status: 400, Body: `{"error":{"message":"context length exceeded"}}`}, false, true},
		{llmeval.DSR, "rejected prompt", llmtest.Fault{Status: 413, Body: `{"error":{"message":"context length exceeded"}}`}, false, true},
		{llmeval.CLRSText, "rejected prompt", llmtest.Fault{Status: 400, Body: `{"error":{"message":"context length exceeded"}}`}, false, true},
		{llmeval.Spectral, "rejected prompt", llmtest.Fault{Status: 400, Body: `{"error":{"message":"context length exceeded"}}`}, false, true},
	}
	for _, tc := range cases {
		t.Run(tc.suite+"/"+tc.name, func(t *testing.T) {
			p := llmtest.NewProxy(t, srv.URL)
			p.Inject(tc.fault)
			cfg := suiteConfigs(t)[tc.suite]
			cfg.Tracking = "none"
			cfg.API = llm.Chat
			cfg.Client = client(t, p.URL, "", func(c *llm.Config) { c.Concurrency = 1 })
			cfg.Limit = 1
			res, err := llmeval.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := res.Records[0]
			if tc.rejected {
				if !strings.Contains(r.Error, "context length exceeded") || res.Failed != 1 {
					t.Errorf("record %+v, %d failed: want the server's rejection recorded", r, res.Failed)
				}
			} else if r.Raw != jsonContent(t, tc.fault.Body) {
				t.Errorf("raw answer %q, want the injected one", r.Raw)
			}
			if r.Parsed != "" {
				t.Errorf("parsed %q from a malformed answer", r.Parsed)
			}
			if tc.suite == llmeval.Spectral {
				if r.Score != nil {
					t.Errorf("spectral score %v for an unparsable answer; want none (it counts against the parse rate)", *r.Score)
				}
			} else if r.Score == nil || *r.Score != 0 {
				t.Errorf("score %v, want 0", r.Score)
			}
			if tc.empty && res.Empty != 1 {
				t.Errorf("%d empty answers counted, want 1", res.Empty)
			}
			if res.Unparsed != 1 || p.Posts() != 1 {
				t.Errorf("%d unparsed, %d requests", res.Unparsed, p.Posts())
			}
		})
	}
}

// TestEveryRequestRejectedStopsTheRun: a server that rejects every request
// (a parameter it does not take) stops the run instead of scoring zeros.
func TestEveryRequestRejectedStopsTheRun(t *testing.T) {
	srv := llmtest.Server(t)
	p := llmtest.NewProxy(t, srv.URL)
	var faults []llmtest.Fault
	for range 5 {
		faults = append(faults, llmtest.Fault{Status: 400, Body: `{"error":{"message":"unsupported parameter: seed"}}`})
	}
	p.Inject(faults...)
	cfg := suiteConfigs(t)[llmeval.DSR]
	cfg.Tracking = "none"
	cfg.DSR.Count = 8 // 8 prompts
	cfg.Client = client(t, p.URL, "", func(c *llm.Config) { c.Concurrency = 1 })
	_, err := llmeval.Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "rejected each of the first 5 requests") || !strings.Contains(err.Error(), "unsupported parameter: seed") {
		t.Fatalf("error %v: want the run stopped after 5 rejections", err)
	}
	if p.Posts() != 5 {
		t.Errorf("%d requests; want 5", p.Posts())
	}
}

func jsonContent(t *testing.T, completion string) string {
	var v struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(completion), &v); err != nil {
		t.Fatal(err)
	}
	return v.Choices[0].Message.Content
}

func TestBadOptionsFailBeforeAnyRequest(t *testing.T) {
	srv := llmtest.Server(t)
	p := llmtest.NewProxy(t, srv.URL)
	c := client(t, p.URL, "", nil)
	cases := []struct {
		name string
		cfg  llmeval.Config
		want string
	}{
		{"unknown suite", llmeval.Config{Suite: "mmlu"}, "unknown suite"},
		{"negative limit", llmeval.Config{Suite: llmeval.DSR, Limit: -1}, "limit -1"},
		{"unknown algorithm", llmeval.Config{Suite: llmeval.CLRSText, CLRSText: llmeval.CLRSTextOptions{Algorithms: []string{"quick_sort"}, Lengths: []int{4}}}, "quick_sort"},
		{"bad length", llmeval.Config{Suite: llmeval.CLRSText, CLRSText: llmeval.CLRSTextOptions{Lengths: []int{0}}}, "length 0"},
		{"bad relabel", llmeval.Config{Suite: llmeval.Graphs, Graphs: llmeval.GraphsOptions{Relabel: -1}}, "relabel -1"},
		{"syntax without its encodings", llmeval.Config{Suite: llmeval.Graphs, Graphs: llmeval.GraphsOptions{Tasks: twoTasks(t), Encodings: []graphtext.Encoding{"E2"}, Syntaxes: []graphtext.Syntax{"json"}}}, "no valid encoding"},
		{"spectral task", llmeval.Config{Suite: llmeval.Spectral, Spectral: llmeval.SpectralOptions{Tasks: []string{"diameter"}}}, "unknown task"},
		{"spectral matrix", llmeval.Config{Suite: llmeval.Spectral, Spectral: llmeval.SpectralOptions{Options: graphtext.SpectralOptions{HeatMatrix: "adjacency"}}}, "heat trace matrix"},
		{"dsr structure", llmeval.Config{Suite: llmeval.DSR, DSR: llmeval.DSROptions{Structures: []string{"splay_tree"}}}, "unknown structure"},
		{"dsr category", llmeval.Config{Suite: llmeval.DSR, DSR: llmeval.DSROptions{Categories: []string{"Graphs"}}}, "unknown category"},
		{"structured output needs chat", llmeval.Config{Suite: llmeval.DSR, API: llm.Completion, DSR: llmeval.DSROptions{Structures: []string{"stack"}, Count: 1}}, "needs the chat API"},
		{"temperature", llmeval.Config{Suite: llmeval.DSR, Params: llm.Params{Temperature: -1}}, "temperature"},
		{"sampling preset", llmeval.Config{Suite: llmeval.DSR, Sampling: "vllm"}, `unknown sampling preset "vllm"; want one of paper, g1`},
		{"top-k", llmeval.Config{Suite: llmeval.DSR, Params: llm.Params{TopK: -3}}, "top-k -3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Client = c
			tc.cfg.Tracking = "none"
			_, err := llmeval.Run(context.Background(), tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
	if p.Posts() != 0 {
		t.Errorf("%d requests were sent", p.Posts())
	}
}

func TestLimitTakesEveryGroup(t *testing.T) {
	srv := llmtest.Server(t)
	c := client(t, srv.Endpoint(), "", nil)
	cfg := llmeval.Config{Suite: llmeval.CLRSText, Client: c, Limit: 3,
		CLRSText: llmeval.CLRSTextOptions{Algorithms: []string{"insertion_sort", "bfs", "dfs"}, Lengths: []int{4, 5, 6}}}
	p, err := llmeval.Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != 3 {
		t.Fatalf("%d prompts, want 3", p.Len())
	}
	for i, algo := range []string{"insertion_sort", "bfs", "dfs"} {
		if !strings.HasPrefix(p.Prompts()[i], algo+":") {
			t.Errorf("prompt %d is %q…; want one of %s", i, p.Prompts()[i][:20], algo)
		}
	}
}

// TestSamplingPresets checks the parameters each suite sends by default (its
// paper's), under G1's preset, and with overrides; nothing is sent.
func TestSamplingPresets(t *testing.T) {
	c := client(t, "http://127.0.0.1:1/v1", "", nil)
	g1 := llm.Params{Temperature: 0.6, TopP: 0.95, TopK: 30, MaxTokens: 4096}
	for _, tc := range []struct {
		name string
		cfg  llmeval.Config
		want llm.Params
		over []string
	}{
		{"clrstext paper (silent: greedy, narlab's limit)", llmeval.Config{Suite: llmeval.CLRSText,
			CLRSText: llmeval.CLRSTextOptions{Algorithms: []string{"bfs"}, Lengths: []int{4}, Options: clrstext.Options{Hints: true}}},
			llm.Params{MaxTokens: 512, Stop: []string{"\n\n"}}, nil},
		{"clrstext without hints", llmeval.Config{Suite: llmeval.CLRSText, API: llm.Chat,
			CLRSText: llmeval.CLRSTextOptions{Algorithms: []string{"bfs"}, Lengths: []int{4}}}, llm.Params{MaxTokens: 128}, nil},
		{"graphs paper: greedy, G1's limit", llmeval.Config{Suite: llmeval.Graphs, Graphs: llmeval.GraphsOptions{Tasks: twoTasks(t), Instances: 1}},
			llm.Params{MaxTokens: 4096}, nil},
		{"spectral paper", llmeval.Config{Suite: llmeval.Spectral, Spectral: llmeval.SpectralOptions{Count: 2, TrainCount: 5}},
			llm.Params{MaxTokens: 4096}, nil},
		{"dsr paper: the prompt's budget", llmeval.Config{Suite: llmeval.DSR, DSR: llmeval.DSROptions{Structures: []string{"stack"}, Count: 1, Tokens: 900}},
			llm.Params{MaxTokens: 900}, nil},
		{"graphs under G1's sampling", llmeval.Config{Suite: llmeval.Graphs, Sampling: llmeval.SamplingG1, Graphs: llmeval.GraphsOptions{Tasks: twoTasks(t), Instances: 1}},
			g1, nil},
		{"dsr under G1's sampling", llmeval.Config{Suite: llmeval.DSR, Sampling: llmeval.SamplingG1, DSR: llmeval.DSROptions{Structures: []string{"stack"}, Count: 1}},
			g1, nil},
		{"overrides", llmeval.Config{Suite: llmeval.Graphs, Sampling: llmeval.SamplingG1, Params: llm.Params{MaxTokens: 64, Temperature: 0.3, Seed: new(int64(7))},
			Graphs: llmeval.GraphsOptions{Tasks: twoTasks(t), Instances: 1}},
			llm.Params{Temperature: 0.3, TopP: 0.95, TopK: 30, MaxTokens: 64, Seed: new(int64(7))}, []string{"temperature", "max_tokens", "seed"}},
		{"zero overrides: greedy, no top-k", llmeval.Config{Suite: llmeval.Graphs, Sampling: llmeval.SamplingG1, TemperatureSet: true, TopKSet: true,
			Graphs: llmeval.GraphsOptions{Tasks: twoTasks(t), Instances: 1}},
			llm.Params{TopP: 0.95, MaxTokens: 4096}, []string{"temperature", "top_k"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Client = c
			tc.cfg.Tracking = "none"
			p, err := llmeval.Prepare(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := p.Params()
			if got.Temperature != tc.want.Temperature || got.TopP != tc.want.TopP || got.TopK != tc.want.TopK || got.MaxTokens != tc.want.MaxTokens ||
				!slices.Equal(got.Stop, tc.want.Stop) || (got.Seed == nil) != (tc.want.Seed == nil) || (got.Seed != nil && *got.Seed != *tc.want.Seed) {
				t.Errorf("params %+v, want %+v", got, tc.want)
			}
			smp, over := p.Sampling()
			if smp.Source == "" || !slices.Equal(over, tc.over) {
				t.Errorf("preset %+v, overridden %v; want a source and %v", smp, over, tc.over)
			}
		})
	}
}

// TestSamplingSentAndLogged runs the graphs suite under G1's sampling
// through a proxy that answers max_tokens as OpenAI's API does: the settings
// reach the real server, the limit goes out as max_completion_tokens after
// one rejection, and the MLflow run logs what was sent.
func TestSamplingSentAndLogged(t *testing.T) {
	srv := llmtest.Server(t)
	ml := mlflowServer(t)
	mc, err := ml.Client()
	if err != nil {
		t.Fatal(err)
	}
	p := llmtest.NewProxy(t, srv.URL)
	p.RejectMaxTokens()
	cfg := llmeval.Config{Suite: llmeval.Graphs, Sampling: llmeval.SamplingG1, Params: llm.Params{MaxTokens: 12}, Limit: 2,
		Graphs: llmeval.GraphsOptions{Tasks: twoTasks(t), Instances: 1, MaxNodes: 8}, Tracking: ml.URL,
		Experiment: "narlab-test/llm-sampling", Logf: t.Logf}
	cfg.Client = client(t, p.URL, "", func(c *llm.Config) { c.Concurrency = 1 })
	res, err := llmeval.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 0 || res.TokenParam != llm.TokenParamMaxCompletionTokens {
		t.Fatalf("%d failed prompts, token param %q: want none failed, max_completion_tokens", res.Failed, res.TokenParam)
	}
	hits := p.Hits()
	if len(hits) != 3 || hits[0].Status != 400 {
		t.Fatalf("%d POSTs: want one rejected and two answered", len(hits))
	}
	for i, h := range hits[1:] {
		var sent map[string]any
		if err := json.Unmarshal(h.Body, &sent); err != nil {
			t.Fatal(err)
		}
		if sent["temperature"] != 0.6 || sent["top_p"] != 0.95 || sent["top_k"] != 30.0 || sent["max_completion_tokens"] != 12.0 || sent["max_tokens"] != nil {
			t.Errorf("request %d sent %s", i+2, h.Body)
		}
	}
	for _, r := range res.Records {
		if r.OutputTokens > 12 {
			t.Errorf("record %s: %d completion tokens past the limit of 12", r.ID, r.OutputTokens)
		}
	}
	run, err := mc.GetRun(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]string{}
	for _, pr := range run.Data.Params {
		params[pr.Key] = pr.Value
	}
	for k, v := range map[string]string{"sampling": "g1", "temperature": "0.6", "top_p": "0.95", "top_k": "30", "max_tokens": "12",
		"sampling.overridden": "max_tokens", "token_param": "auto", "token_param.sent": "max_completion_tokens"} {
		if params[k] != v {
			t.Errorf("param %s = %q, want %q", k, params[k], v)
		}
	}
	if !strings.Contains(params["sampling.source"], "eval_erdos.py") {
		t.Errorf("sampling.source %q", params["sampling.source"])
	}
}

// TestCrashedLocalServerIsNamed runs a suite on the local llama.cpp server
// that Open starts, kills the server before the run, and expects the run's
// error to say that the server is gone (with its log), not only that the
// connections were refused.
func TestCrashedLocalServerIsNamed(t *testing.T) {
	llmtest.Server(t) // installed (or the test fails saying how to install it); skipped with -short
	tasks, err := graphtext.ParseTasks("node_number")
	if err != nil {
		t.Fatal(err)
	}
	cfg := llmeval.Config{Suite: llmeval.Graphs, Tracking: "none", Params: llm.Params{MaxTokens: 4},
		Graphs: llmeval.GraphsOptions{Tasks: tasks, Instances: 2, MaxNodes: 5, NoWrap: true},
		Endpoint: llmeval.Endpoint{URL: llmeval.Local, CacheDir: t.TempDir(),
			Client: llm.Config{MaxRetries: 1, MinBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond},
			Server: llamacpp.Config{Dir: t.TempDir(), NoInstall: true}}}
	p, err := llmeval.Prepare(cfg)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := llmeval.Open(context.Background(), cfg.Endpoint, p)
	if err != nil {
		t.Fatal(err)
	}
	if conn.Server == nil || conn.Reused {
		t.Fatalf("Open did not start a server of its own: %+v", conn)
	}
	defer conn.Server.Stop()
	if err := conn.Server.Check(); err != nil {
		t.Fatalf("Check on the running server: %v", err)
	}
	if err := conn.Server.Kill(); err != nil {
		t.Fatal(err)
	}
	_, err = p.Run(context.Background())
	if err == nil {
		t.Fatal("the run on a killed server succeeded")
	}
	for _, want := range []string{"run the same command again to resume", "is no longer running", conn.Server.LogPath()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the run's error does not say %q:\n%v", want, err)
		}
	}
}
