package llm_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/llm/llmtest"
)

// TestServesCompletions probes the real llama.cpp server, which serves
// completions, and the same server behind a proxy that refuses them as
// OpenAI's API does for its chat models: each endpoint is asked once, the
// cache keeps the answer, and failures that say nothing about the API
// (an unknown model, a server error) are errors, not a verdict.
func TestServesCompletions(t *testing.T) {
	srv := llmtest.Server(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		chatOnly bool
		fault    *llmtest.Fault
		served   bool
		answer   string // in Probe.Answer when not served
		err      string
	}{
		{name: "llama.cpp", served: true},
		{name: "chat-only endpoint", chatOnly: true, answer: "404 Not Found: This is a chat model"},
		{name: "no such route", fault: &llmtest.Fault{Status: http.StatusMethodNotAllowed, Body: `{"detail":"Method Not Allowed"}`}, answer: "405 Method Not Allowed"},
		{name: "unknown model", fault: &llmtest.Fault{Status: http.StatusNotFound,
			Body: `{"error":{"message":"The model 'x' does not exist","code":"model_not_found"}}`}, err: "does not exist"},
		{name: "bad key", fault: &llmtest.Fault{Status: http.StatusUnauthorized, Body: `{"error":{"message":"bad key"}}`}, err: "401"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := llmtest.NewProxy(t, srv.URL)
			if tc.chatOnly {
				p.ChatOnly()
			}
			if tc.fault != nil {
				p.Inject(*tc.fault)
			}
			cache, err := llm.OpenCache(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			c := newClient(t, p.URL, func(c *llm.Config) { c.Cache = cache; c.MaxRetries = -1 })
			got, err := c.ServesCompletions(ctx)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("probe: %+v, %v; want an error with %q", got, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Served != tc.served || got.Cached || (!tc.served && !strings.HasPrefix(got.Answer, tc.answer)) {
				t.Errorf("probe %+v; want served %v, answer %q…, not cached", got, tc.served, tc.answer)
			}
			hits := p.Hits()
			if len(hits) != 1 || !strings.HasSuffix(hits[0].Path, "/v1/completions") {
				t.Fatalf("%d requests (%+v); want one to /v1/completions", len(hits), hits)
			}
			// Probed once: the second probe is the cache's.
			again, err := c.ServesCompletions(ctx)
			if err != nil || again.Served != got.Served || again.Answer != got.Answer || !again.Cached || p.Posts() != 1 {
				t.Errorf("second probe %+v, %v after %d requests; want the first's answer from the cache", again, err, p.Posts())
			}
			// The chat API goes through either way.
			if tc.chatOnly {
				if _, err := c.Do(ctx, llm.Request{API: llm.Chat, Prompt: "Say hi.", Params: llm.Params{MaxTokens: 4}}); err != nil {
					t.Errorf("chat through the chat-only proxy: %v", err)
				}
			}
		})
	}
}
