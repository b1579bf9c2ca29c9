package llmeval

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/narlab/narlab/lib/dsr"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/llm/llamacpp"
)

func preparedDSR(t *testing.T) *Prepared {
	t.Helper()
	p, err := Prepare(Config{Suite: DSR, Tracking: "none",
		DSR: DSROptions{Structures: []string{"stack"}, Count: 1, Strategy: dsr.NoReasoning}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOpenResolvesTheEndpoint checks where Open sends the prompts, without
// a server: an explicit URL, $OPENAI_BASE_URL, a missing model, the
// response cache; and that the label is the model's unless named.
func TestOpenResolvesTheEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name      string
		env       string // $OPENAI_BASE_URL
		ep        Endpoint
		wantURL   string
		wantFrom  string
		wantErr   string
		wantLabel string
	}{
		{name: "explicit URL", ep: Endpoint{URL: "http://127.0.0.1:1/v1", Model: "m", NoCache: true},
			wantURL: "http://127.0.0.1:1/v1", wantLabel: "m"},
		{name: "from the environment", env: "http://127.0.0.1:2/v1", ep: Endpoint{Model: "m2", NoCache: true},
			wantURL: "http://127.0.0.1:2/v1", wantFrom: llm.EnvBaseURL, wantLabel: "m2"},
		{name: "explicit URL over the environment", env: "http://127.0.0.1:2/v1", ep: Endpoint{URL: "http://127.0.0.1:3/v1", Model: "m", NoCache: true},
			wantURL: "http://127.0.0.1:3/v1"},
		{name: "no model", ep: Endpoint{URL: "http://127.0.0.1:1/v1"}, wantErr: "--model is required with --endpoint URL"},
		{name: "no model, from the environment", env: "http://127.0.0.1:2/v1", ep: Endpoint{},
			wantErr: "--model is required with an endpoint other than local (here $OPENAI_BASE_URL: http://127.0.0.1:2/v1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(llm.EnvBaseURL, tc.env)
			p := preparedDSR(t)
			var notes []string
			tc.ep.Logf = func(f string, a ...any) { notes = append(notes, f) }
			conn, err := Open(context.Background(), tc.ep, p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrNoModel) {
					t.Fatalf("got %v, want ErrNoModel saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if conn.Client.BaseURL() != tc.wantURL || conn.From != tc.wantFrom || conn.Server != nil {
				t.Errorf("endpoint %s from %q (server %v), want %s from %q and no server", conn.Client.BaseURL(), conn.From, conn.Server, tc.wantURL, tc.wantFrom)
			}
			if conn.Pending != p.Len() {
				t.Errorf("%d prompts pending without a cache, want all %d", conn.Pending, p.Len())
			}
			if tc.wantLabel != "" && p.Label() != tc.wantLabel {
				t.Errorf("label %q, want the model's %q", p.Label(), tc.wantLabel)
			}
			if tc.wantFrom == llm.EnvBaseURL && !strings.Contains(strings.Join(notes, "\n"), "(from $%s") {
				t.Errorf("notices %q do not say the endpoint came from the environment", notes)
			}
		})
	}
}

// TestOpenLocalNeedsNoServerWhenCached checks that the local server is
// neither started nor looked for when the cache answers every prompt, and
// that its answers are found whatever port the server had.
func TestOpenLocalNeedsNoServerWhenCached(t *testing.T) {
	t.Setenv(llm.EnvBaseURL, "")
	dir := t.TempDir()
	p := preparedDSR(t)
	cache, err := llm.OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	// What an earlier run on the server's other port cached.
	earlier, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:45678/v1", CacheEndpoint: LocalCacheEndpoint,
		Model: llamacpp.DefaultAlias, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.reqs {
		key, err := earlier.Key(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := cache.Put(key, llm.Entry{Response: llm.Response{Text: "{}"}}); err != nil {
			t.Fatal(err)
		}
	}
	var notes []string
	conn, err := Open(context.Background(), Endpoint{URL: Local, CacheDir: dir,
		Logf: func(f string, a ...any) { notes = append(notes, f) }}, p)
	if err != nil {
		t.Fatal(err)
	}
	if conn.Pending != 0 || conn.Server != nil || conn.From != Local {
		t.Errorf("pending %d, server %v, from %q; want 0, none, local", conn.Pending, conn.Server, conn.From)
	}
	if p.Label() != llamacpp.DefaultAlias {
		t.Errorf("label %q, want %q", p.Label(), llamacpp.DefaultAlias)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "already answered in the cache") {
		t.Errorf("notices %q, want only the cache's count", notes)
	}
}
