package llmeval_test

import (
	"context"
	"strings"
	"testing"

	"github.com/narlab/narlab/experiments/llmeval"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/llm/llmtest"
	"github.com/narlab/narlab/tracking/mlflow/mlflowtest"
)

// TestCLRSTextAPIFromTheEndpoint runs the CLRS-Text suite, whose default is
// the completion API, against the real llama.cpp server directly (it serves
// completions) and behind a proxy that refuses completions as OpenAI's API
// does for its chat models: the endpoint is asked once, the chat-only one
// gets every prompt through chat, and the run logs the API and what the
// probe found. The same command run again sends nothing (the probe's answer
// is cached with the answers) and is a new run with a name of its own.
// An API given explicitly is not probed.
func TestCLRSTextAPIFromTheEndpoint(t *testing.T) {
	srv := llmtest.Server(t)
	ml := mlflowtest.Server(t)
	for _, tc := range []struct {
		name      string
		chatOnly  bool
		api       llm.API
		wantAPI   string
		wantProbe string // the api.probe parameter's start
		wantPath  string // where the prompts went
		probes    int    // requests to /completions besides the prompts
	}{
		{"completions served", false, "", "completion", "completions served", "/v1/completions", 1},
		{"chat-only endpoint", true, "", "chat", "no completions (HTTP 404 Not Found): chat", "/v1/chat/completions", 1},
		{"api given", false, llm.Chat, "chat", "not probed: the API was chosen", "/v1/chat/completions", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := llmtest.NewProxy(t, srv.URL)
			if tc.chatOnly {
				p.ChatOnly()
			}
			cfg := suiteConfigs(t)[llmeval.CLRSText]
			cfg.API, cfg.Limit = tc.api, 2
			cfg.Tracking, cfg.Experiment, cfg.Logf = ml.URL, "narlab-test/llm-api", t.Logf
			cfg.Endpoint = llmeval.Endpoint{URL: p.URL, Model: llmtest.Model, CacheDir: t.TempDir(), Logf: t.Logf,
				Client: llm.Config{Concurrency: 2, SchemaStyle: llm.SchemaLlamaCpp}}
			first, err := llmeval.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			hits := p.Hits()
			if len(hits) != first.Prompts+tc.probes {
				t.Fatalf("%d requests for %d prompts; want %d probe(s) besides", len(hits), first.Prompts, tc.probes)
			}
			for i, h := range hits {
				want := tc.wantPath
				if i < tc.probes {
					want = "/v1/completions"
				}
				if h.Path != want {
					t.Errorf("request %d went to %s; want %s", i, h.Path, want)
				}
			}
			for _, r := range first.Records {
				if r.Error != "" || r.OutputTokens < 1 {
					t.Errorf("record %s: error %q, %d tokens; want an answer", r.ID, r.Error, r.OutputTokens)
				}
			}
			again, err := llmeval.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if p.Posts() != len(hits) || again.Cached != again.Prompts {
				t.Errorf("rerun: %d new requests, %d of %d prompts cached; want none sent", p.Posts()-len(hits), again.Cached, again.Prompts)
			}
			runs := mlflowtest.ReadRuns(t, ml.URL, first.RunID, again.RunID)
			a, b := runs[first.RunID], runs[again.RunID]
			for _, r := range []mlflowtest.Run{a, b} {
				if r.Params["api"] != tc.wantAPI || !strings.HasPrefix(r.Params["api.probe"], tc.wantProbe) {
					t.Errorf("run %s: api %q, api.probe %q; want %q, %q…", r.Name, r.Params["api"], r.Params["api.probe"], tc.wantAPI, tc.wantProbe)
				}
			}
			if a.Name == b.Name || !strings.HasPrefix(a.Name, "llm clrstext "+llmtest.Model+" ") {
				t.Errorf("run names %q and %q; want two names, each the suite, the model and its own time and id", a.Name, b.Name)
			}
		})
	}
}
