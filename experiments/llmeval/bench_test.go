package llmeval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/narlab/narlab/experiments/llmeval"
	"github.com/narlab/narlab/lib/graphtext"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/llm/llmtest"
)

// BenchmarkHarnessOverhead compares, at the same concurrency, the whole
// harness (llmeval.Run: prompts built, asked through the client with a
// fresh response cache written on disk, scored; no MLflow) with the server
// alone (the same request bodies posted by a bare loop of HTTP clients),
// both through llmtest's pass-through proxy. Each iteration runs both, in
// alternating order, on the same prompts. Metrics: prompts/s and completion
// tokens/s of each; the wall-clock overhead (pooled and the median of the
// iterations), which on a shared machine carries the server's own
// variation; and the idle overhead, which does not: the time during which
// the server had no request (wall time minus the time at least one request
// was in the proxy), the harness's minus the bare loop's, in per cent of the
// bare loop's wall time. The harness's CPU time per prompt is reported too.
//
//	go test ./experiments/llmeval -run '^$' -bench HarnessOverhead -benchtime 5x
func BenchmarkHarnessOverhead(b *testing.B) {
	srv := llmtest.Server(b)
	const concurrency = 2
	tasks, err := graphtext.ParseTasks("node_number,edge_number,edge_existence,has_cycle")
	if err != nil {
		b.Fatal(err)
	}
	cfg := llmeval.Config{Suite: llmeval.Graphs, Tracking: "none", Params: llm.Params{MaxTokens: 16},
		Graphs: llmeval.GraphsOptions{Tasks: tasks, Instances: 2, MaxNodes: 10, NoWrap: true}}
	probe, err := llm.New(llm.Config{BaseURL: srv.Endpoint(), Model: llmtest.Model})
	if err != nil {
		b.Fatal(err)
	}
	cfg.Client = probe
	p, err := llmeval.Prepare(cfg)
	if err != nil {
		b.Fatal(err)
	}
	prompts := p.Prompts()
	proxy := llmtest.NewProxy(b, srv.URL)
	var harness, bare, harnessCPU, harnessIdle, bareIdle time.Duration
	var harnessTok, bareTok int
	var ratios []float64
	b.ResetTimer()
	for i := range b.N {
		var h, w time.Duration
		runHarness := func() {
			cache, err := llm.OpenCache(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			c, err := llm.New(llm.Config{BaseURL: proxy.URL, Model: llmtest.Model, Concurrency: concurrency, Cache: cache})
			if err != nil {
				b.Fatal(err)
			}
			cfg.Client = c
			cpu0 := cpuTime()
			start := time.Now()
			res, err := llmeval.Run(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			h = time.Since(start)
			harnessIdle += h - proxy.Busy(start, start.Add(h))
			harnessCPU += cpuTime() - cpu0
			harnessTok += res.OutputTokens
		}
		runBare := func() {
			start := time.Now()
			n, err := postAll(proxy.URL, prompts, concurrency, cfg.Params.MaxTokens)
			if err != nil {
				b.Fatal(err)
			}
			w = time.Since(start)
			bareIdle += w - proxy.Busy(start, start.Add(w))
			bareTok += n
		}
		if i%2 == 0 {
			runBare()
			runHarness()
		} else {
			runHarness()
			runBare()
		}
		harness += h
		bare += w
		ratios = append(ratios, 100*(h.Seconds()-w.Seconds())/w.Seconds())
	}
	b.StopTimer()
	n := float64(b.N * len(prompts))
	b.ReportMetric(n/harness.Seconds(), "harness_prompts/s")
	b.ReportMetric(n/bare.Seconds(), "server_prompts/s")
	b.ReportMetric(float64(harnessTok)/harness.Seconds(), "harness_tokens/s")
	b.ReportMetric(float64(bareTok)/bare.Seconds(), "server_tokens/s")
	b.ReportMetric(100*(harness.Seconds()-bare.Seconds())/bare.Seconds(), "overhead_%")
	b.ReportMetric(100*(harnessIdle.Seconds()-bareIdle.Seconds())/bare.Seconds(), "idle_overhead_%")
	b.ReportMetric(1000*harnessIdle.Seconds()/n, "harness_idle_ms/prompt")
	b.ReportMetric(1000*bareIdle.Seconds()/n, "server_idle_ms/prompt")
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "median_overhead_%")
	// What the harness itself costs: this process's CPU time per prompt,
	// and as a share of the time a prompt takes.
	b.ReportMetric(1000*harnessCPU.Seconds()/n, "harness_cpu_ms/prompt")
	b.ReportMetric(100*harnessCPU.Seconds()/harness.Seconds(), "harness_cpu_%_of_wall")
	if harnessTok != bareTok {
		b.Logf("the harness got %d completion tokens, the bare loop %d", harnessTok, bareTok)
	}
	b.Logf("%d prompts × %d iterations at concurrency %d; per-iteration overheads %.1f %%", len(prompts), b.N, concurrency, ratios)
}

// cpuTime is the user + system time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// postAll posts each prompt once as a chat completion, concurrency at a
// time, and returns the completion tokens.
func postAll(endpoint string, prompts []string, concurrency, maxTokens int) (int, error) {
	var mu sync.Mutex
	total := 0
	var firstErr error
	next := make(chan string)
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				body, _ := json.Marshal(map[string]any{"model": llmtest.Model, "temperature": 0, "max_tokens": maxTokens,
					"stream": false, "messages": []map[string]string{{"role": "user", "content": p}}})
				resp, err := http.Post(endpoint+"/chat/completions", "application/json", bytes.NewReader(body))
				var out struct {
					Usage struct {
						CompletionTokens int `json:"completion_tokens"`
					} `json:"usage"`
				}
				if err == nil {
					data, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %d: %s", resp.StatusCode, data)
					} else {
						err = json.Unmarshal(data, &out)
					}
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				total += out.Usage.CompletionTokens
				mu.Unlock()
			}
		}()
	}
	for _, p := range prompts {
		next <- p
	}
	close(next)
	wg.Wait()
	return total, firstErr
}
