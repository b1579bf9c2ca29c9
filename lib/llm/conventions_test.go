package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/llm/llmtest"
)

// The endpoint conventions of OpenAI's clients (OPENAI_BASE_URL,
// OPENAI_API_KEY) and of OpenAI's API (max_completion_tokens), tested
// against the real llama.cpp server, directly or through llmtest's proxy.

// sentFields decodes the JSON body of a request the proxy saw.
func sentFields(t *testing.T, h llmtest.Hit) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(h.Body, &m); err != nil {
		t.Fatalf("request body %s: %v", h.Body, err)
	}
	return m
}

// limitName returns which of max_tokens and max_completion_tokens a request
// sent (failing the test unless exactly one, with the value want).
func limitName(t *testing.T, h llmtest.Hit, want int) llm.TokenParam {
	t.Helper()
	m := sentFields(t, h)
	var names []llm.TokenParam
	for _, n := range []llm.TokenParam{llm.TokenParamMaxTokens, llm.TokenParamMaxCompletionTokens} {
		if v, ok := m[string(n)]; ok {
			names = append(names, n)
			if v != float64(want) {
				t.Errorf("%s = %v, want %d", n, v, want)
			}
		}
	}
	if len(names) != 1 {
		t.Fatalf("request %s sends the limit under %v: want exactly one name", h.Body, names)
	}
	return names[0]
}

func TestEndpointAndKeyFromEnvironment(t *testing.T) {
	srv := llmtest.Server(t)
	cfgProxy := llmtest.NewProxy(t, srv.URL) // named in Config.BaseURL
	envProxy := llmtest.NewProxy(t, srv.URL) // named in OPENAI_BASE_URL
	for _, tc := range []struct {
		name                      string
		base, envBase             string // "cfg", "env" or "" for the proxies
		apiKey, narlabKey, openAI string
		wantProxy                 string // "cfg" or "env"
		wantFrom                  string
		wantAuth                  string
	}{
		{name: "OPENAI_BASE_URL when the config names none", envBase: "env", wantProxy: "env", wantFrom: "OPENAI_BASE_URL"},
		{name: "the config wins over OPENAI_BASE_URL", base: "cfg", envBase: "env", wantProxy: "cfg", wantFrom: "config"},
		{name: "OPENAI_API_KEY goes with OPENAI_BASE_URL", envBase: "env", openAI: "sk-openai", wantProxy: "env", wantFrom: "OPENAI_BASE_URL", wantAuth: "Bearer sk-openai"},
		{name: "NARLAB_LLM_API_KEY wins over OPENAI_API_KEY", base: "cfg", narlabKey: "sk-narlab", openAI: "sk-openai", wantProxy: "cfg", wantFrom: "config", wantAuth: "Bearer sk-narlab"},
		{name: "Config.APIKey wins over both", base: "cfg", apiKey: "sk-config", narlabKey: "sk-narlab", openAI: "sk-openai", wantProxy: "cfg", wantFrom: "config", wantAuth: "Bearer sk-config"},
		{name: "no key: no Authorization header", base: "cfg", wantProxy: "cfg", wantFrom: "config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			urls := map[string]string{"cfg": cfgProxy.URL, "env": envProxy.URL, "": ""}
			t.Setenv(llm.EnvBaseURL, urls[tc.envBase])
			t.Setenv("NARLAB_LLM_API_KEY", tc.narlabKey)
			t.Setenv("OPENAI_API_KEY", tc.openAI)
			cfgProxy.Reset()
			envProxy.Reset()
			c, err := llm.New(llm.Config{BaseURL: urls[tc.base], Model: llmtest.Model, APIKey: tc.apiKey})
			if err != nil {
				t.Fatal(err)
			}
			if c.BaseURLSource() != tc.wantFrom || c.BaseURL() != urls[tc.wantProxy] {
				t.Errorf("endpoint %s from %s; want %s from %s", c.BaseURL(), c.BaseURLSource(), urls[tc.wantProxy], tc.wantFrom)
			}
			if _, err := c.Do(context.Background(), short("Say yes.")); err != nil {
				t.Fatal(err)
			}
			got, other := cfgProxy, envProxy
			if tc.wantProxy == "env" {
				got, other = envProxy, cfgProxy
			}
			if got.Posts() != 1 || other.Posts() != 0 {
				t.Fatalf("the %s endpoint got %d requests, the other %d: want 1 and 0", tc.wantProxy, got.Posts(), other.Posts())
			}
			if auth := got.Hits()[0].Header.Get("Authorization"); auth != tc.wantAuth {
				t.Errorf("Authorization %q, want %q", auth, tc.wantAuth)
			}
		})
	}
}

func TestEndpointDefaultsAndBadEnvironment(t *testing.T) {
	for _, tc := range []struct {
		name, base, env string
		want, from, err string
		tokenParam      llm.TokenParam
	}{
		{name: "nothing set: OpenAI's API", want: llm.DefaultBaseURL, from: "default", tokenParam: llm.TokenParamMaxCompletionTokens},
		{name: "blank OPENAI_BASE_URL counts as unset", env: "  ", want: llm.DefaultBaseURL, from: "default", tokenParam: llm.TokenParamMaxCompletionTokens},
		{name: "OPENAI_BASE_URL with a trailing slash", env: "http://127.0.0.1:8000/v1/", want: "http://127.0.0.1:8000/v1", from: "OPENAI_BASE_URL", tokenParam: llm.TokenParamMaxTokens},
		{name: "bad OPENAI_BASE_URL names the variable", env: "localhost:8000", err: `OPENAI_BASE_URL "localhost:8000": want an http(s) URL`},
		{name: "key in OPENAI_BASE_URL", env: "https://u:sk-secret@example.org/v1", err: "OPENAI_BASE_URL https://example.org…: put the API key in"},
		{name: "bad config wins over a good variable", base: "ftp://x/v1", env: "http://127.0.0.1:8000/v1", err: `endpoint "ftp://x/v1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(llm.EnvBaseURL, tc.env)
			c, err := llm.New(llm.Config{BaseURL: tc.base, Model: "m"})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "sk-secret") {
					t.Fatalf("error %v, want one saying %q (and no key)", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.BaseURL() != tc.want || c.BaseURLSource() != tc.from || c.TokenParam() != tc.tokenParam {
				t.Errorf("endpoint %s from %s, token param %s; want %s from %s, %s", c.BaseURL(), c.BaseURLSource(), c.TokenParam(), tc.want, tc.from, tc.tokenParam)
			}
		})
	}
}

func TestDefaultTokenParam(t *testing.T) {
	for _, tc := range []struct {
		base string
		want llm.TokenParam
	}{
		{"https://api.openai.com/v1", llm.TokenParamMaxCompletionTokens},
		{"https://API.OpenAI.com/v1/", llm.TokenParamMaxCompletionTokens},
		{"https://api.openai.com:443/v1", llm.TokenParamMaxCompletionTokens},
		{"http://127.0.0.1:18080/v1", llm.TokenParamMaxTokens},                               // llama.cpp
		{"http://gpu-node:8000/v1", llm.TokenParamMaxTokens},                                 // vLLM
		{"https://api.openai.com.example.org/v1", llm.TokenParamMaxTokens},                   // not OpenAI's host
		{"https://generativelanguage.googleapis.com/v1beta/openai", llm.TokenParamMaxTokens}, // compatible APIs read max_tokens
	} {
		if got := llm.DefaultTokenParam(tc.base); got != tc.want {
			t.Errorf("DefaultTokenParam(%s) = %s, want %s", tc.base, got, tc.want)
		}
	}
}

// TestTokenParamFallsBack puts a proxy in front of the real server that
// answers max_tokens in chat requests as OpenAI's reasoning models do (400,
// unsupported_parameter) and passes max_completion_tokens on to llama.cpp
// as the limit it reads.
func TestTokenParamFallsBack(t *testing.T) {
	srv := llmtest.Server(t)
	p := llmtest.NewProxy(t, srv.URL)
	p.RejectMaxTokens()
	c := newClient(t, p.URL, nil)
	if c.TokenParam() != llm.TokenParamMaxTokens {
		t.Fatalf("a local endpoint starts with %s, want max_tokens", c.TokenParam())
	}
	req := llm.Request{API: llm.Chat, Prompt: "Count from 1 to 30, separated by commas.", Params: llm.Params{MaxTokens: 5}}
	r, err := c.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// The limit reached the model under the name the endpoint takes.
	if r.Usage.CompletionTokens < 1 || r.Usage.CompletionTokens > 5 {
		t.Errorf("%d completion tokens, want 1..5", r.Usage.CompletionTokens)
	}
	hits := p.Hits()
	if len(hits) != 2 || hits[0].Status != 400 || hits[1].Status != 200 {
		t.Fatalf("%d POSTs: want the rejected one (400) and one retry (200)", len(hits))
	}
	if a, b := limitName(t, hits[0], 5), limitName(t, hits[1], 5); a != llm.TokenParamMaxTokens || b != llm.TokenParamMaxCompletionTokens {
		t.Errorf("sent %s, then %s; want max_tokens, then max_completion_tokens", a, b)
	}
	if s := c.Stats(); s.Requests != 2 || s.Retries != 0 || s.Answers != 1 || r.Attempts != 1 {
		t.Errorf("stats %+v, attempts %d: want 2 requests, one answer, no retry of a failure", s, r.Attempts)
	}
	// The client remembers: the next chat request goes out under the new
	// name at once.
	if c.TokenParam() != llm.TokenParamMaxCompletionTokens {
		t.Errorf("token param %s after the fallback", c.TokenParam())
	}
	if _, err := c.Do(context.Background(), short("Name a colour.")); err != nil {
		t.Fatal(err)
	}
	// A completion request sends max_tokens, the completions endpoint's
	// only name (OpenAI's too).
	if _, err := c.Do(context.Background(), llm.Request{API: llm.Completion, Prompt: "1, 2, 3,", Params: llm.Params{MaxTokens: 4}}); err != nil {
		t.Fatal(err)
	}
	hits = p.Hits()
	if len(hits) != 4 {
		t.Fatalf("%d POSTs after two more requests, want 4", len(hits))
	}
	if n := limitName(t, hits[2], 8); n != llm.TokenParamMaxCompletionTokens {
		t.Errorf("the chat request after the fallback sent %s", n)
	}
	if n := limitName(t, hits[3], 4); n != llm.TokenParamMaxTokens || !strings.HasSuffix(hits[3].Path, "/completions") {
		t.Errorf("the completion request sent %s to %s", n, hits[3].Path)
	}
}

// TestTokenParamConfigured covers a name set in the configuration: it is
// sent as is and never switched.
func TestTokenParamConfigured(t *testing.T) {
	srv := llmtest.Server(t)
	// Gemma copies the sentence (15 tokens) and the stop sequence ends it:
	// an answer that ignores the limit of 4 still ends in a second.
	long := llm.Request{API: llm.Chat, Prompt: "Write this sentence exactly: The quick brown fox jumps over the lazy dog.",
		Params: llm.Params{MaxTokens: 4, Stop: []string{"."}}}
	for _, tc := range []struct {
		name    string
		param   llm.TokenParam
		openAI  bool // the proxy rejects max_tokens as OpenAI does
		dropMCT bool // the proxy drops max_completion_tokens (llama-cpp-python)
		sent    llm.TokenParam
		err     string // "" : answered within the limit
		limitOK bool   // the error is a LimitIgnoredError
	}{
		{name: "auto to llama.cpp sends max_tokens", param: llm.TokenParamAuto, sent: llm.TokenParamMaxTokens},
		{name: "max_completion_tokens to an OpenAI-like endpoint", param: llm.TokenParamMaxCompletionTokens, openAI: true, sent: llm.TokenParamMaxCompletionTokens},
		{name: "max_tokens where OpenAI rejects it", param: llm.TokenParamMaxTokens, openAI: true, sent: llm.TokenParamMaxTokens,
			err: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead. (this endpoint does not take max_tokens: send the limit as max_completion_tokens"},
		// llama.cpp's server reads max_completion_tokens too.
		{name: "max_completion_tokens to llama.cpp", param: llm.TokenParamMaxCompletionTokens, sent: llm.TokenParamMaxCompletionTokens},
		// llama-cpp-python's server ignores max_completion_tokens and
		// generates without a limit: the client notices the answer ran
		// past it.
		{name: "max_completion_tokens to a server that ignores it", param: llm.TokenParamMaxCompletionTokens, dropMCT: true,
			sent: llm.TokenParamMaxCompletionTokens, err: "ignored max_completion_tokens=4", limitOK: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := llmtest.NewProxy(t, srv.URL)
			if tc.openAI {
				p.RejectMaxTokens()
			}
			if tc.dropMCT {
				p.IgnoreMaxCompletionTokens()
			}
			c := newClient(t, p.URL, func(c *llm.Config) { c.TokenParam = tc.param; c.Timeout = time.Minute; c.MaxRetries = -1 })
			r, err := c.Do(context.Background(), long)
			if n := p.Posts(); n != 1 {
				t.Fatalf("%d POSTs, want 1 (a configured name is never switched)", n)
			}
			if got := limitName(t, p.Hits()[0], 4); got != tc.sent {
				t.Errorf("sent the limit as %s, want %s", got, tc.sent)
			}
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if r.Usage.CompletionTokens > 4 {
					t.Errorf("%d completion tokens past the limit of 4", r.Usage.CompletionTokens)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one saying %q", err, tc.err)
			}
			var li *llm.LimitIgnoredError
			if errors.As(err, &li) != tc.limitOK {
				t.Errorf("LimitIgnoredError: %v, want %v (%v)", !tc.limitOK, tc.limitOK, err)
			}
			if tc.limitOK && (li.Tokens <= 4 || !strings.Contains(err.Error(), "send the limit as max_tokens")) {
				t.Errorf("error %v: want the token count past 4 and the name to use", err)
			}
			if !tc.limitOK && !llm.IsPermanent(err) {
				t.Errorf("the rejection %v is not reported as permanent", err)
			}
		})
	}
}

// TestTopKIsSent checks that top_k reaches the server, which answers.
func TestTopKIsSent(t *testing.T) {
	srv := llmtest.Server(t)
	p := llmtest.NewProxy(t, srv.URL)
	c := newClient(t, p.URL, nil)
	req := llm.Request{API: llm.Chat, Prompt: "Name a bird.", Params: llm.Params{MaxTokens: 6, Temperature: 0.6, TopP: 0.95, TopK: 30}}
	if _, err := c.Do(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	req.Params.TopK = 0
	if _, err := c.Do(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	hits := p.Hits()
	first, second := sentFields(t, hits[0]), sentFields(t, hits[1])
	if first["top_k"] != 30.0 || first["top_p"] != 0.95 || first["temperature"] != 0.6 {
		t.Errorf("sent %s", hits[0].Body)
	}
	if _, ok := second["top_k"]; ok {
		t.Errorf("top-k 0 (the server's default) was sent: %s", hits[1].Body)
	}
}
