package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/narlab/narlab/internal/testenv"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/llm/llmtest"
)

// The tests run against the real llama.cpp server with Gemma 3 270M
// (llmtest starts it once), directly or through llmtest's counting and
// fault-injecting proxy.

func TestMain(m *testing.M) {
	testenv.Main(m, func() {
		llmtest.Shutdown()
	})
}

func newClient(t *testing.T, base string, mod func(*llm.Config)) *llm.Client {
	t.Helper()
	cfg := llm.Config{BaseURL: base, Model: llmtest.Model, MinBackoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond}
	if mod != nil {
		mod(&cfg)
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func short(prompt string) llm.Request {
	return llm.Request{API: llm.Chat, Prompt: prompt, Params: llm.Params{MaxTokens: 8}}
}

func TestChatAndCompletionAgainstLlamaCpp(t *testing.T) {
	srv := llmtest.Server(t)
	c := newClient(t, srv.Endpoint(), nil)
	for _, tc := range []struct {
		name string
		req  llm.Request
	}{
		{"chat", llm.Request{API: llm.Chat, Prompt: "Count from 1 to 5.", Params: llm.Params{MaxTokens: 6}}},
		{"chat messages", llm.Request{API: llm.Chat, Messages: []llm.Message{{Role: "user", Content: "Say hello."}}, Params: llm.Params{MaxTokens: 6}}},
		{"completion", llm.Request{API: llm.Completion, Prompt: "1, 2, 3, 4,", Params: llm.Params{MaxTokens: 6}}},
		{"stop sequence", llm.Request{API: llm.Completion, Prompt: "1, 2, 3, 4,", Params: llm.Params{MaxTokens: 6, Stop: []string{","}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := c.Do(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if r.Usage.CompletionTokens < 1 || r.Usage.CompletionTokens > 6 || r.Usage.PromptTokens < 1 {
				t.Errorf("usage %+v: want 1..6 completion tokens and some prompt tokens", r.Usage)
			}
			if r.FinishReason != "stop" && r.FinishReason != "length" {
				t.Errorf("finish reason %q", r.FinishReason)
			}
			if r.Cached || r.Attempts != 1 || r.Latency <= 0 {
				t.Errorf("cached %v, attempts %d, latency %v: want a fresh answer in one attempt", r.Cached, r.Attempts, r.Latency)
			}
			if len(tc.req.Params.Stop) > 0 && strings.Contains(r.Text, ",") {
				t.Errorf("answer %q holds the stop sequence", r.Text)
			}
		})
	}
}

func TestStructuredOutput(t *testing.T) {
	srv := llmtest.Server(t)
	schema := map[string]any{"type": "object", "additionalProperties": false,
		"properties": map[string]any{"odd": map[string]any{"type": "boolean"}}, "required": []any{"odd"}}
	for _, style := range []llm.SchemaStyle{llm.SchemaAuto, llm.SchemaLlamaCpp} {
		t.Run(string(style), func(t *testing.T) {
			p := llmtest.NewProxy(t, srv.URL)
			c := newClient(t, p.URL, func(c *llm.Config) { c.SchemaStyle = style })
			req := llm.Request{API: llm.Chat, Prompt: "Is 3 odd? Reply in JSON.", Params: llm.Params{MaxTokens: 48},
				Schema: &llm.Schema{Name: "parity", Schema: schema}}
			r, err := c.Do(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			var v struct {
				Odd *bool `json:"odd"`
			}
			if err := json.Unmarshal([]byte(r.Text), &v); err != nil || v.Odd == nil {
				t.Fatalf("answer %q does not follow the schema (%v)", r.Text, err)
			}
			// The second request goes out in the form that worked.
			if _, err := c.Do(context.Background(), llm.Request{API: llm.Chat, Prompt: "Is 4 odd? Reply in JSON.",
				Params: llm.Params{MaxTokens: 48}, Schema: req.Schema}); err != nil {
				t.Fatal(err)
			}
			hits := p.Hits()
			last := hits[len(hits)-1].Body
			var body struct {
				ResponseFormat struct {
					Type       string         `json:"type"`
					Schema     map[string]any `json:"schema"`
					JSONSchema struct {
						Schema map[string]any `json:"schema"`
					} `json:"json_schema"`
				} `json:"response_format"`
			}
			if err := json.Unmarshal(last, &body); err != nil {
				t.Fatal(err)
			}
			rf := body.ResponseFormat
			// llama.cpp's server reads both forms: auto keeps OpenAI's
			// (TestSchemaStyleFallsBack covers a server that rejects it).
			if style == llm.SchemaAuto && (rf.Type != "json_schema" || rf.JSONSchema.Schema == nil) ||
				style == llm.SchemaLlamaCpp && (rf.Type != "json_object" || rf.Schema == nil) {
				t.Errorf("%s style sent %s", style, last)
			}
		})
	}
}

func TestSchemaStyleFallsBack(t *testing.T) {
	srv := llmtest.Server(t)
	p := llmtest.NewProxy(t, srv.URL)
	// A server that rejects OpenAI's json_schema form with 422 (as older
	// llama-cpp-python releases do).
	p.Inject(llmtest.Fault{Status: 422, Body: `{"detail":"response_format.type: Input should be 'text' or 'json_object'"}`})
	c := newClient(t, p.URL, nil)
	schema := &llm.Schema{Schema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []any{"ok"}}}
	for i, prompt := range []string{"Is 3 odd? Reply in JSON.", "Is 4 odd? Reply in JSON."} {
		if _, err := c.Do(context.Background(), llm.Request{API: llm.Chat, Prompt: prompt, Params: llm.Params{MaxTokens: 16}, Schema: schema}); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	hits := p.Hits()
	if len(hits) != 3 {
		t.Fatalf("%d POSTs; want 3 (rejected, retried in llama.cpp form, then llama.cpp form at once)", len(hits))
	}
	for i, want := range []string{`"json_schema"`, `"json_object"`, `"json_object"`} {
		if !strings.Contains(string(hits[i].Body), want) {
			t.Errorf("POST %d: %s; want a %s response format", i, hits[i].Body, want)
		}
	}
}

// TestFaultsAreRetriedWithoutLoss puts a fault in front of one request
// and checks that the answer is the one the server gives without it.
func TestFaultsAreRetriedWithoutLoss(t *testing.T) {
	srv := llmtest.Server(t)
	req := llm.Request{API: llm.Chat, Prompt: "Name a colour.", Params: llm.Params{MaxTokens: 6}}
	want, err := newClient(t, srv.Endpoint(), nil).Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		fault llmtest.Fault
		// minGap is the least time between the two attempts.
		minGap time.Duration
		// retryAfterIn, if set, makes the fault's Retry-After the HTTP date
		// this long after the fault is injected (a date has whole seconds:
		// it can fall up to 1 s earlier).
		retryAfterIn time.Duration
	}{
		{"429 with Retry-After seconds", llmtest.Fault{Status: 429, RetryAfter: "1", Body: `{"error":{"message":"rate limited"}}`}, time.Second, 0},
		{"503 with Retry-After date", llmtest.Fault{Status: 503}, 1500 * time.Millisecond, 3 * time.Second},
		{"500", llmtest.Fault{Status: 500, Body: "internal error"}, 0, 0},
		{"502 without body", llmtest.Fault{Status: 502}, 0, 0},
		{"truncated JSON", llmtest.Fault{Truncate: 40}, 0, 0},
		{"200 with empty body", llmtest.Fault{Status: 200}, 0, 0},
		{"200 without choices", llmtest.Fault{Status: 200, Body: `{"choices": []}`}, 0, 0},
		{"slow answer past the timeout", llmtest.Fault{Delay: time.Minute}, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := llmtest.NewProxy(t, srv.URL)
			if tc.retryAfterIn > 0 {
				tc.fault.RetryAfter = time.Now().Add(tc.retryAfterIn).UTC().Format(http.TimeFormat)
			}
			p.Inject(tc.fault)
			c := newClient(t, p.URL, func(c *llm.Config) { c.Timeout = 15 * time.Second })
			got, err := c.Do(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if got.Text != want.Text {
				t.Errorf("answer %q; without the fault %q", got.Text, want.Text)
			}
			hits := p.Hits()
			if len(hits) != 2 || got.Attempts != 2 || !hits[0].Faulted || hits[1].Faulted {
				t.Fatalf("%d POSTs, %d attempts: want the faulted one and one retry", len(hits), got.Attempts)
			}
			if gap := hits[1].At.Sub(hits[0].At); gap < tc.minGap {
				t.Errorf("retried after %v; the server asked for at least %v", gap, tc.minGap)
			}
			if s := c.Stats(); s.Requests != 2 || s.Retries != 1 || s.Answers != 1 || s.Failures != 0 {
				t.Errorf("stats %+v", s)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	srv := llmtest.Server(t)
	cases := []struct {
		name      string
		faults    []llmtest.Fault
		retries   int
		posts     int
		permanent bool
		exhausted bool
		contains  string
	}{
		{"400 is not retried", []llmtest.Fault{{Status: 400, Body: `{"error":{"message":"prompt too long: 9000 tokens"}}`}}, 3, 1, true, false, "prompt too long: 9000 tokens"},
		{"422 detail", []llmtest.Fault{{Status: 422, Body: `{"detail":"max_tokens must be positive"}`}}, 3, 1, true, false, "max_tokens must be positive"},
		{"401 says where the key goes", []llmtest.Fault{{Status: 401, Body: `{"error":"no key"}`}}, 3, 1, false, false, "NARLAB_LLM_API_KEY"},
		{"404 says what to check", []llmtest.Fault{{Status: 404, Body: `not found`}}, 3, 1, false, false, "/v1"},
		{"503 until retries run out", []llmtest.Fault{{Status: 503}, {Status: 503}, {Status: 503}}, 2, 3, false, true, "after 3 attempts"},
		{"Retry-After beyond the limit", []llmtest.Fault{{Status: 429, RetryAfter: "3600"}}, 3, 1, false, false, "retry after 1h0m0s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := llmtest.NewProxy(t, srv.URL)
			p.Inject(tc.faults...)
			c := newClient(t, p.URL, func(c *llm.Config) { c.MaxRetries = tc.retries })
			_, err := c.Do(context.Background(), short("Hi."))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q does not say %q", err, tc.contains)
			}
			if got := llm.IsPermanent(err); got != tc.permanent {
				t.Errorf("IsPermanent = %v, want %v (%v)", got, tc.permanent, err)
			}
			if got := errors.Is(err, llm.ErrRetriesExhausted); got != tc.exhausted {
				t.Errorf("retries exhausted = %v, want %v", got, tc.exhausted)
			}
			if n := p.Posts(); n != tc.posts {
				t.Errorf("%d POSTs, want %d", n, tc.posts)
			}
			if s := c.Stats(); s.Failures != 1 || s.Answers != 0 {
				t.Errorf("stats %+v", s)
			}
		})
	}
}

func TestBadConfigAndRequests(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  llm.Config
		want string
	}{
		{"no scheme", llm.Config{BaseURL: "127.0.0.1:8080/v1", Model: "m"}, "want an http(s) URL"},
		{"key in URL", llm.Config{BaseURL: "http://user:sk-1@host/v1", Model: "m"}, "not in the URL"},
		{"no model", llm.Config{BaseURL: "http://127.0.0.1:1/v1"}, "no model"},
		{"concurrency", llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Concurrency: -2}, "concurrency"},
		{"schema style", llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", SchemaStyle: "xml"}, "schema style"},
		{"token param", llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", TokenParam: "max_new_tokens"}, "want auto, max_tokens or max_completion_tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := llm.New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "sk-1") {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
	c, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		req  llm.Request
		want string
	}{
		{"no prompt", llm.Request{API: llm.Chat, Params: llm.Params{MaxTokens: 1}}, "needs a prompt"},
		{"completion messages", llm.Request{API: llm.Completion, Prompt: "x", Messages: []llm.Message{{Role: "user", Content: "y"}}, Params: llm.Params{MaxTokens: 1}}, "not messages"},
		{"no max tokens", llm.Request{API: llm.Chat, Prompt: "x"}, "max tokens 0"},
		{"temperature", llm.Request{API: llm.Chat, Prompt: "x", Params: llm.Params{MaxTokens: 1, Temperature: 3}}, "temperature"},
		{"empty stop", llm.Request{API: llm.Chat, Prompt: "x", Params: llm.Params{MaxTokens: 1, Stop: []string{""}}}, "empty stop"},
		{"top-k", llm.Request{API: llm.Chat, Prompt: "x", Params: llm.Params{MaxTokens: 1, TopK: -1}}, "top-k -1"},
		{"unknown API", llm.Request{API: "embeddings", Prompt: "x", Params: llm.Params{MaxTokens: 1}}, "unknown API"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Do(context.Background(), tc.req)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if c.Stats().Requests != 0 {
				t.Error("a bad request was sent")
			}
		})
	}
}

// TestAPIKeyIsSentNeverShown uses a local server that echoes the key in
// its error message, as a careless proxy might.
func TestAPIKeyIsSentNeverShown(t *testing.T) {
	const key = "sk-narlab-test-0123456789"
	var mu sync.Mutex
	var seen []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		w.WriteHeader(http.StatusForbidden)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "key " + r.Header.Get("Authorization") + " has no access"}})
	}))
	defer hs.Close()
	for _, env := range llm.EnvAPIKeys {
		t.Setenv(env, "")
	}
	t.Setenv("OPENAI_API_KEY", key)
	c, err := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if !c.HasAPIKey() {
		t.Fatal("the key in OPENAI_API_KEY was not picked up")
	}
	_, err = c.Do(context.Background(), short("x"))
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "<api key>") {
		t.Fatalf("error %v: want a 403 that hides the key", err)
	}
	if len(seen) != 1 || seen[0] != "Bearer "+key {
		t.Fatalf("Authorization headers %q", seen)
	}
	// NARLAB_LLM_API_KEY wins over OPENAI_API_KEY.
	t.Setenv("NARLAB_LLM_API_KEY", "sk-other")
	c2, _ := llm.New(llm.Config{BaseURL: hs.URL + "/v1", Model: "m"})
	c2.Do(context.Background(), short("x"))
	if seen[len(seen)-1] != "Bearer sk-other" {
		t.Errorf("sent %q, want NARLAB_LLM_API_KEY's key", seen[len(seen)-1])
	}
}

func TestConcurrencyIsBounded(t *testing.T) {
	srv := llmtest.Server(t)
	p := llmtest.NewProxy(t, srv.URL)
	c := newClient(t, p.URL, func(c *llm.Config) { c.Concurrency = 2 })
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Do(context.Background(), short("Say the number "+string(rune('1'+i))+"."))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := p.MaxInFlight(); got != 2 {
		t.Errorf("at most %d requests were in flight; want 2", got)
	}
}

func TestCacheAnswersReruns(t *testing.T) {
	srv := llmtest.Server(t)
	p := llmtest.NewProxy(t, srv.URL)
	dir := t.TempDir()
	prompts := []string{"Name a fruit.", "Name a tree.", "Name a river."}
	var first []llm.Response
	for run := 0; run < 2; run++ {
		cache, err := llm.OpenCache(dir)
		if err != nil {
			t.Fatal(err)
		}
		c := newClient(t, p.URL, func(c *llm.Config) { c.Cache = cache })
		for i, pr := range prompts {
			r, err := c.Do(context.Background(), short(pr))
			if err != nil {
				t.Fatal(err)
			}
			if run == 0 {
				first = append(first, r)
				continue
			}
			if !r.Cached || r.Text != first[i].Text || r.Usage != first[i].Usage || r.FinishReason != first[i].FinishReason {
				t.Errorf("rerun of %q: %+v; first run %+v", pr, r, first[i])
			}
		}
		if n := p.Posts(); n != len(prompts) {
			t.Fatalf("after run %d the server saw %d requests; want %d", run+1, n, len(prompts))
		}
		if n, _ := cache.Len(); n != len(prompts) {
			t.Errorf("the cache holds %d entries; want %d", n, len(prompts))
		}
	}
}

func TestCacheKeyCoversEveryParameter(t *testing.T) {
	base := llm.Request{API: llm.Chat, Prompt: "p", Params: llm.Params{MaxTokens: 10}}
	seed := int64(1)
	variants := map[string]func(r *llm.Request){
		"prompt":      func(r *llm.Request) { r.Prompt = "q" },
		"api":         func(r *llm.Request) { r.API = llm.Completion },
		"messages":    func(r *llm.Request) { r.Prompt = ""; r.Messages = []llm.Message{{Role: "system", Content: "p"}} },
		"temperature": func(r *llm.Request) { r.Params.Temperature = 0.5 },
		"max tokens":  func(r *llm.Request) { r.Params.MaxTokens = 11 },
		"seed":        func(r *llm.Request) { r.Params.Seed = &seed },
		"stop":        func(r *llm.Request) { r.Params.Stop = []string{"\n"} },
		"top p":       func(r *llm.Request) { r.Params.TopP = 0.9 },
		"top k":       func(r *llm.Request) { r.Params.TopK = 30 },
		"schema":      func(r *llm.Request) { r.Schema = &llm.Schema{Schema: map[string]any{"type": "object"}} },
	}
	mk := func(base, model, key string) *llm.Client {
		c, err := llm.New(llm.Config{BaseURL: base, Model: model, APIKey: key})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := mk("http://127.0.0.1:1/v1", "m", "k1")
	k0, err := c.Key(base)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{k0: "base"}
	add := func(name, k string) {
		if prev, dup := seen[k]; dup {
			t.Errorf("%s gives the same key as %s", name, prev)
		}
		seen[k] = name
	}
	for name, mod := range variants {
		r := base
		mod(&r)
		k, err := c.Key(r)
		if err != nil {
			t.Fatal(err)
		}
		add(name, k)
	}
	k, _ := mk("http://127.0.0.1:2/v1", "m", "k1").Key(base)
	add("endpoint", k)
	k, _ = mk("http://127.0.0.1:1/v1", "m2", "k1").Key(base)
	add("model", k)
	// The API key, timeouts and retries are not part of the key.
	if k, _ := mk("http://127.0.0.1:1/v1/", "m", "k2").Key(base); k != k0 {
		t.Error("the API key (or a trailing slash) changed the cache key")
	}
	// A chat prompt and the same text as a single user message are one request.
	msg := base
	msg.Prompt, msg.Messages = "", []llm.Message{{Role: "user", Content: "p"}}
	if k, _ := c.Key(msg); k != k0 {
		t.Error("a prompt and the same user message have different keys")
	}
}

func TestCacheRejectsDamagedEntries(t *testing.T) {
	dir := t.TempDir()
	cache, err := llm.OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := llm.New(llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Cache: cache, MaxRetries: -1})
	req := short("x")
	key, _ := c.Key(req)
	if err := os.MkdirAll(dir+"/"+key[:2], 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/"+key[:2]+"/"+key+".json", []byte(`{"key": "`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = c.Do(context.Background(), req)
	if err == nil || !strings.Contains(err.Error(), "not valid JSON") || !strings.Contains(err.Error(), key) {
		t.Fatalf("error %v: want one naming the damaged entry", err)
	}
	if c.Stats().Requests != 0 {
		t.Error("a request was sent")
	}
}
