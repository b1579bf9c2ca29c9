package llmeval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/narlab/narlab/internal/project"
	"github.com/narlab/narlab/lib/llm"
	"github.com/narlab/narlab/lib/llm/llamacpp"
)

// Local names narlab's local llama.cpp server (lib/llm/llamacpp, `narlab
// llm serve`) as an [Endpoint] URL.
const Local = "local"

// LocalCacheEndpoint is the name the local server's answers are cached
// under: it does not depend on the port the server got, so they stay valid
// across restarts.
const LocalCacheEndpoint = "narlab-local-llama.cpp"

// Endpoint is the model an evaluation asks and how its requests go (what
// [Open] connects a prepared evaluation to).
type Endpoint struct {
	// URL is an OpenAI-compatible API root, e.g. https://api.openai.com/v1
	// or http://127.0.0.1:18080/v1; [Local] is narlab's local llama.cpp
	// server (started, and built on first use, only when some prompt is
	// not answered by the cache); "" is $OPENAI_BASE_URL when set, as
	// OpenAI's clients read it, else Local.
	URL string
	// Model is the model name sent with each request; required except for
	// the local server (default llamacpp.DefaultAlias).
	Model string
	// Client holds the rest of the client's settings (concurrency,
	// timeout, retries, schema style, token parameter, API key; zero:
	// lib/llm's defaults). Its BaseURL, Model, Cache and CacheEndpoint are
	// set by Open. A SchemaStyle left empty is llm.SchemaLlamaCpp for the
	// local server (what llama-cpp-python's server reads).
	Client llm.Config
	// CacheDir is the response cache's folder (default [DefaultCacheDir]);
	// NoCache neither reads nor writes it.
	CacheDir string
	NoCache  bool
	// Server configures the local server when it is started (zero:
	// llamacpp's defaults).
	Server llamacpp.Config
	// Logf, when set, receives Open's notices: where the endpoint came
	// from, how many prompts the cache answers, the local server used.
	Logf func(format string, args ...any)
}

// ErrNoModel is the error of an endpoint other than the local server
// without a model name.
var ErrNoModel = errors.New("--model is required")

// probeAPI settles the API of a suite that asks through the completion API
// unless told otherwise (clrstext): an endpoint other than narlab's local
// llama.cpp server (which serves completions) is asked once whether it
// serves them ([llm.Client.ServesCompletions], whose answer the response
// cache keeps), and one that does not (a chat-only endpoint) is asked
// through chat instead. What it found is the run's api.probe parameter.
func (p *Prepared) probeAPI(ctx context.Context, local bool, logf func(string, ...any)) error {
	switch {
	case p.given.API != "":
		p.apiProbe = "not probed: the API was chosen"
		return nil
	case p.cfg.API != llm.Completion:
		p.apiProbe = "not probed: the suite asks through chat"
		return nil
	case local:
		p.apiProbe = "not probed: narlab's llama.cpp server serves completions"
		return nil
	}
	c := p.cfg.Client
	pr, err := c.ServesCompletions(ctx)
	if err != nil {
		return fmt.Errorf("llmeval: asking %s whether it serves the completion API: %w", c.BaseURL(), err)
	}
	if pr.Served {
		p.apiProbe = "completions served"
		return nil
	}
	status, _, _ := strings.Cut(pr.Answer, ":")
	logf("%s serves no completion API (%s): the %s suite asks through chat instead (--api completion insists)", c.BaseURL(), pr.Answer, p.cfg.Suite)
	cfg := p.given
	cfg.API, cfg.Client = llm.Chat, c
	np, err := Prepare(cfg)
	if err != nil {
		return err
	}
	np.given, np.server, np.cfg.Progress = p.given, p.server, p.cfg.Progress
	np.apiProbe = "no completions (HTTP " + status + "): chat"
	*p = *np
	return nil
}

// DefaultCacheDir is where answers are cached unless told otherwise:
// DATA/llm/cache (`narlab llm run` and the notebooks share it).
func DefaultCacheDir() (string, error) {
	d, err := project.DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "llm", "cache"), nil
}

// Connection is how a prepared evaluation reaches its model.
type Connection struct {
	// Client asks the prompts (with the response cache unless NoCache).
	Client *llm.Client
	// From says where the endpoint came from: "" (Endpoint.URL),
	// llm.EnvBaseURL or Local.
	From string
	// Pending is the number of prompts the cache does not answer.
	Pending int
	// Server is the local llama.cpp server when the evaluation uses it
	// and needs it (nil when the cache answers every prompt); Reused
	// says it was running already.
	Server *llamacpp.Server
	Reused bool
}

// Open connects p to the endpoint ep: it resolves the endpoint ($OPENAI_
// BASE_URL, the local server), opens the response cache, counts the prompts
// it does not answer, and for the local server starts it (or finds it
// running) only if there are some. p then asks through the connection's
// client ([Prepared.Run]); its label defaults to the model's name.
func Open(ctx context.Context, ep Endpoint, p *Prepared) (*Connection, error) {
	logf := ep.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	conn := &Connection{}
	base := ep.URL
	if base == "" {
		if env := strings.TrimSpace(os.Getenv(llm.EnvBaseURL)); env != "" {
			base, conn.From = env, llm.EnvBaseURL
		} else {
			base = Local
		}
	}
	ccfg := ep.Client
	ccfg.Model = ep.Model
	local := base == Local
	if local {
		conn.From = Local
		if ccfg.Model == "" {
			ccfg.Model = llamacpp.DefaultAlias
		}
		if ccfg.SchemaStyle == "" {
			ccfg.SchemaStyle = llm.SchemaLlamaCpp
		}
		// The local server prefers a fixed port; its answers are cached
		// under a name that does not depend on the port it got.
		ccfg.BaseURL = fmt.Sprintf("http://127.0.0.1:%d/v1", llamacpp.DefaultPort)
		ccfg.CacheEndpoint = LocalCacheEndpoint
	} else if conn.From != llm.EnvBaseURL {
		ccfg.BaseURL = base
	} // else the client reads $OPENAI_BASE_URL itself, and logs where it came from
	if ccfg.Model == "" {
		if conn.From == llm.EnvBaseURL {
			return nil, fmt.Errorf("%w with an endpoint other than local (here $%s: %s)", ErrNoModel, llm.EnvBaseURL, base)
		}
		return nil, fmt.Errorf("%w with --endpoint URL", ErrNoModel)
	}
	// The endpoint and the settings are checked before the cache's folder
	// is created.
	client, err := llm.New(ccfg)
	if err != nil {
		return nil, fmt.Errorf("llmeval: %w", err)
	}
	if !ep.NoCache {
		dir := ep.CacheDir
		if dir == "" {
			if dir, err = DefaultCacheDir(); err != nil {
				return nil, err
			}
		}
		if ccfg.Cache, err = llm.OpenCache(dir); err != nil {
			return nil, fmt.Errorf("llmeval: %w", err)
		}
		if client, err = llm.New(ccfg); err != nil {
			return nil, fmt.Errorf("llmeval: %w", err)
		}
	}
	if client.BaseURLSource() == llm.EnvBaseURL {
		logf("endpoint %s (from $%s; --endpoint local for the local server)", client.BaseURL(), llm.EnvBaseURL)
	}
	p.SetClient(client)
	conn.Client = client
	if err := p.probeAPI(ctx, local, logf); err != nil {
		return nil, err
	}
	if conn.Pending, err = p.Pending(); err != nil {
		return nil, fmt.Errorf("llmeval: %w", err)
	}
	logf("%s suite, %d prompts, %d already answered in the cache", p.cfg.Suite, p.Len(), p.Len()-conn.Pending)
	if local && conn.Pending > 0 {
		srv, reused, err := llamacpp.EnsureServer(ctx, ep.Server)
		if err != nil {
			return nil, fmt.Errorf("llmeval: %w", err)
		}
		if srv.Endpoint() != client.BaseURL() {
			// The fixed port was taken: requests go to the port in use
			// (the cache keys do not change).
			ccfg.BaseURL = srv.Endpoint()
			if client, err = llm.New(ccfg); err != nil {
				return nil, fmt.Errorf("llmeval: %w", err)
			}
			p.SetClient(client)
			conn.Client = client
		}
		conn.Server, conn.Reused = srv, reused
		p.server = srv
		verb := "started"
		if reused {
			verb = "using"
		}
		logf("%s the local llama.cpp server at %s", verb, srv.Endpoint())
	}
	return conn, nil
}
