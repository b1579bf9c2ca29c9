package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/narlab/narlab/internal/httpretry"
)

// API selects the endpoint a request goes to.
type API string

const (
	// Chat posts {base}/chat/completions.
	Chat API = "chat"
	// Completion posts {base}/completions (a plain text prompt).
	Completion API = "completion"
)

// ParseAPI reads "chat" or "completion" ("completions" too).
func ParseAPI(s string) (API, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "chat":
		return Chat, nil
	case "completion", "completions":
		return Completion, nil
	}
	return "", fmt.Errorf("llm: unknown API %q; want chat or completion", s)
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Params are the generation parameters. All of them are sent and all of
// them are part of the cache key.
type Params struct {
	// Temperature is sent as is (0: greedy decoding).
	Temperature float64 `json:"temperature"`
	// MaxTokens bounds the answer's length; it must be positive.
	MaxTokens int `json:"max_tokens"`
	// Seed, when set, asks the server for reproducible sampling.
	Seed *int64 `json:"seed,omitempty"`
	// Stop sequences end the answer (not included in it).
	Stop []string `json:"stop,omitempty"`
	// TopP is nucleus sampling's mass; 0 leaves the server's default.
	TopP float64 `json:"top_p,omitempty"`
	// TopK keeps the k most likely tokens at each step; 0 leaves the
	// server's default (and sends nothing). llama.cpp's server and vLLM
	// read it; OpenAI's API has no top_k and rejects a request that sends
	// one.
	TopK int `json:"top_k,omitempty"`
}

// Validate reports parameters no server would accept.
func (p Params) Validate() error {
	if p.MaxTokens <= 0 {
		return fmt.Errorf("llm: max tokens %d: want a positive number", p.MaxTokens)
	}
	if p.Temperature < 0 || p.Temperature > 2 || p.Temperature != p.Temperature {
		return fmt.Errorf("llm: temperature %v: want a number in [0, 2]", p.Temperature)
	}
	if p.TopP < 0 || p.TopP > 1 || p.TopP != p.TopP {
		return fmt.Errorf("llm: top-p %v: want a number in [0, 1] (0: the server's default)", p.TopP)
	}
	if p.TopK < 0 {
		return fmt.Errorf("llm: top-k %d: want 0 (the server's default) or a positive number", p.TopK)
	}
	for _, s := range p.Stop {
		if s == "" {
			return fmt.Errorf("llm: an empty stop sequence")
		}
	}
	return nil
}

// Schema asks for structured output: the answer must be JSON that follows
// the JSON Schema.
type Schema struct {
	// Name labels the schema (OpenAI requires one; default "answer").
	Name string `json:"name"`
	// Schema is the JSON Schema of the answer.
	Schema map[string]any `json:"schema"`
	// Strict asks OpenAI's strict mode.
	Strict bool `json:"strict,omitempty"`
}

// SchemaStyle is how a [Schema] is written into response_format.
type SchemaStyle string

const (
	// SchemaAuto sends OpenAI's form and switches to llama-cpp-python's
	// when the server rejects it (4xx), for the rest of the client's life.
	SchemaAuto SchemaStyle = "auto"
	// SchemaOpenAI sends {"type": "json_schema", "json_schema": {...}}.
	SchemaOpenAI SchemaStyle = "openai"
	// SchemaLlamaCpp sends {"type": "json_object", "schema": {...}}, the
	// form llama-cpp-python's server reads.
	SchemaLlamaCpp SchemaStyle = "llamacpp"
)

// ParseSchemaStyle reads auto, openai or llamacpp.
func ParseSchemaStyle(s string) (SchemaStyle, error) {
	switch st := SchemaStyle(strings.ToLower(strings.TrimSpace(s))); st {
	case SchemaAuto, SchemaOpenAI, SchemaLlamaCpp:
		return st, nil
	case "":
		return SchemaAuto, nil
	}
	return "", fmt.Errorf("llm: unknown schema style %q; want auto, openai or llamacpp", s)
}

// TokenParam is the name under which a chat request sends its token limit
// ([Params.MaxTokens]).
type TokenParam string

const (
	// TokenParamAuto starts with [DefaultTokenParam]'s name for the
	// endpoint and, when the endpoint rejects that name as an unsupported
	// parameter (a 4xx that names it, as OpenAI's reasoning models answer
	// max_tokens), sends the request again once under the other name and
	// keeps that name for the rest of the client's life.
	TokenParamAuto TokenParam = "auto"
	// TokenParamMaxTokens sends max_tokens, the name every
	// OpenAI-compatible server reads (llama.cpp's, vLLM's);
	// llama-cpp-python silently ignores max_completion_tokens and
	// generates without a limit.
	TokenParamMaxTokens TokenParam = "max_tokens"
	// TokenParamMaxCompletionTokens sends max_completion_tokens, the name
	// OpenAI's chat API wants (its reasoning models reject max_tokens).
	TokenParamMaxCompletionTokens TokenParam = "max_completion_tokens"
)

// ParseTokenParam reads auto, max_tokens or max_completion_tokens ("":
// auto).
func ParseTokenParam(s string) (TokenParam, error) {
	switch tp := TokenParam(strings.ToLower(strings.TrimSpace(s))); tp {
	case TokenParamAuto, TokenParamMaxTokens, TokenParamMaxCompletionTokens:
		return tp, nil
	case "":
		return TokenParamAuto, nil
	}
	return "", fmt.Errorf("llm: unknown token-limit name %q; want auto, max_tokens or max_completion_tokens", s)
}

// OpenAIHost is the host of OpenAI's own API.
const OpenAIHost = "api.openai.com"

// DefaultTokenParam is the name [TokenParamAuto] starts with for chat
// requests to the endpoint base: max_completion_tokens for OpenAI's own API
// (host api.openai.com), max_tokens for any other endpoint. The completion
// API always sends max_tokens, the only name its endpoint has, OpenAI's
// included.
func DefaultTokenParam(base string) TokenParam {
	u, err := url.Parse(strings.TrimSpace(base))
	if err == nil && strings.EqualFold(u.Hostname(), OpenAIHost) {
		return TokenParamMaxCompletionTokens
	}
	return TokenParamMaxTokens
}

func (tp TokenParam) other() TokenParam {
	if tp == TokenParamMaxCompletionTokens {
		return TokenParamMaxTokens
	}
	return TokenParamMaxCompletionTokens
}

// Request is one generation request.
type Request struct {
	API API
	// Prompt is the completion prompt, or for the chat API the content of
	// the one user message when Messages is empty.
	Prompt string
	// Messages is the chat conversation (chat API only).
	Messages []Message
	Params   Params
	// Schema, when set, asks for structured output.
	Schema *Schema
}

func (r *Request) validate() error {
	switch r.API {
	case Chat:
		if len(r.Messages) == 0 && r.Prompt == "" {
			return errors.New("llm: a chat request needs a prompt or messages")
		}
		if len(r.Messages) > 0 && r.Prompt != "" {
			return errors.New("llm: a chat request has either a prompt or messages, not both")
		}
	case Completion:
		if r.Prompt == "" {
			return errors.New("llm: a completion request needs a prompt")
		}
		if len(r.Messages) > 0 {
			return errors.New("llm: the completion API takes a prompt, not messages")
		}
	default:
		return fmt.Errorf("llm: unknown API %q; want chat or completion", r.API)
	}
	if r.Schema != nil && len(r.Schema.Schema) == 0 {
		return errors.New("llm: an empty JSON schema")
	}
	return r.Params.Validate()
}

func (r *Request) messages() []Message {
	if len(r.Messages) > 0 {
		return r.Messages
	}
	return []Message{{Role: "user", Content: r.Prompt}}
}

// Usage counts tokens as the server reports them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Response is a model's answer.
type Response struct {
	// Text is the answer (possibly empty).
	Text string `json:"text"`
	// FinishReason is the server's ("stop", "length", …).
	FinishReason string `json:"finish_reason"`
	Usage        Usage  `json:"usage"`
	// Latency is the duration of the successful attempt (for a cached
	// answer: the original one's).
	Latency time.Duration `json:"latency_ns"`
	// Model is the model the server says answered.
	Model string `json:"model,omitempty"`
	// Cached reports that the answer came from the cache.
	Cached bool `json:"-"`
	// Attempts is the number of HTTP requests made (0 when cached).
	Attempts int `json:"-"`
	// Key is the request's cache key.
	Key string `json:"-"`
}

// Config configures a [Client].
type Config struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1 or
	// http://127.0.0.1:18080/v1 (a missing /v1 is not added). Empty: the
	// environment variable OPENAI_BASE_URL, else [DefaultBaseURL], as
	// OpenAI's own clients read them.
	BaseURL string
	// CacheEndpoint names the endpoint in cache keys instead of BaseURL,
	// for a server whose address changes but not its model (narlab's local
	// llama.cpp server moves to another port when its own is taken).
	CacheEndpoint string
	// Model is the model name sent with every request.
	Model string
	// APIKey is the bearer token; empty: NARLAB_LLM_API_KEY, else
	// OPENAI_API_KEY (the variable OpenAI's clients read), else none.
	APIKey string
	// Concurrency bounds the requests in flight (default 4).
	Concurrency int
	// Timeout bounds each attempt (default 5 minutes).
	Timeout time.Duration
	// MaxRetries is the number of retries after the first attempt
	// (default 6; negative: none).
	MaxRetries int
	// MinBackoff and MaxBackoff bound the exponential backoff between
	// attempts (defaults 500 ms and 30 s). A Retry-After header is honoured
	// up to MaxRetryAfter (default 2 minutes); a longer one is an error.
	MinBackoff, MaxBackoff, MaxRetryAfter time.Duration
	// SchemaStyle is how structured output is requested (default auto).
	SchemaStyle SchemaStyle
	// TokenParam is the name chat requests send the token limit under
	// (default auto: see [TokenParamAuto] and [DefaultTokenParam]).
	TokenParam TokenParam
	// Cache, when set, answers requests it holds and stores new answers.
	Cache *Cache
	// HTTPClient sends the requests (default: a client with keep-alive
	// connections sized for Concurrency).
	HTTPClient *http.Client
}

// Stats counts what a client did.
type Stats struct {
	// Requests is the number of HTTP requests sent (attempts).
	Requests int64
	// Retries is the number of attempts after a failed one.
	Retries int64
	// CacheHits counts requests answered from the cache.
	CacheHits int64
	// Answers counts requests answered by the server.
	Answers int64
	// Failures counts requests that ended in an error.
	Failures int64
}

// Client sends requests to one endpoint and model. It is safe for
// concurrent use.
type Client struct {
	cfg      Config
	base     string // without a trailing slash
	key      string
	sem      chan struct{}
	http     *http.Client
	llamaFmt atomic.Bool // auto style switched to llama-cpp-python's form
	// tokenParam is the name chat requests send the limit under now (a
	// TokenParam; auto may switch it once).
	tokenParam atomic.Value
	// baseFrom says where the endpoint came from (for error messages).
	baseFrom string

	requests, retries, hits, answers, failures atomic.Int64

	rngMu sync.Mutex
	rng   *rand.Rand
}

// EnvAPIKeys are the environment variables the API key is read from, in
// order.
var EnvAPIKeys = []string{"NARLAB_LLM_API_KEY", "OPENAI_API_KEY"}

// EnvBaseURL is the environment variable OpenAI's clients read the
// endpoint from; [Config.BaseURL] takes precedence over it.
const EnvBaseURL = "OPENAI_BASE_URL"

// DefaultBaseURL is the endpoint when neither [Config.BaseURL] nor
// OPENAI_BASE_URL names one: OpenAI's API, as in OpenAI's clients.
const DefaultBaseURL = "https://api.openai.com/v1"

// ResolveBaseURL returns the endpoint a client of explicit uses and where
// it came from: explicit itself ("config"), else OPENAI_BASE_URL
// ("OPENAI_BASE_URL"), else [DefaultBaseURL] ("default"). An empty or blank
// variable counts as unset.
func ResolveBaseURL(explicit string) (base, from string) {
	if s := strings.TrimSpace(explicit); s != "" {
		return s, "config"
	}
	if s := strings.TrimSpace(os.Getenv(EnvBaseURL)); s != "" {
		return s, EnvBaseURL
	}
	return DefaultBaseURL, "default"
}

// New returns a client; a base URL that is not http(s) or an empty model is
// an error.
func New(cfg Config) (*Client, error) {
	raw, from := ResolveBaseURL(cfg.BaseURL)
	base := strings.TrimRight(raw, "/")
	named := "endpoint"
	if from == EnvBaseURL {
		named = EnvBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: %s %q: want an http(s) URL such as http://127.0.0.1:18080/v1", named, raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("llm: %s %s://%s…: put the API key in NARLAB_LLM_API_KEY or OPENAI_API_KEY, not in the URL", named, u.Scheme, u.Host)
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("llm: no model name")
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 4
	}
	if cfg.Concurrency < 0 || cfg.Concurrency > 1024 {
		return nil, fmt.Errorf("llm: concurrency %d: want 1..1024", cfg.Concurrency)
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Minute
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("llm: timeout %v: want a positive duration", cfg.Timeout)
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 6
	}
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = 500 * time.Millisecond
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = cfg.MinBackoff
	}
	if cfg.MaxRetryAfter <= 0 {
		cfg.MaxRetryAfter = 2 * time.Minute
	}
	if cfg.SchemaStyle, err = ParseSchemaStyle(string(cfg.SchemaStyle)); err != nil {
		return nil, err
	}
	if cfg.TokenParam, err = ParseTokenParam(string(cfg.TokenParam)); err != nil {
		return nil, err
	}
	key := cfg.APIKey
	for _, env := range EnvAPIKeys {
		if key == "" {
			key = os.Getenv(env)
		}
	}
	hc := cfg.HTTPClient
	if hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = cfg.Concurrency
		tr.MaxConnsPerHost = 0
		hc = &http.Client{Transport: tr}
	}
	c := &Client{cfg: cfg, base: base, key: key, sem: make(chan struct{}, cfg.Concurrency), http: hc,
		rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x6c6c6d)), baseFrom: from}
	cfg.APIKey = ""
	c.cfg = cfg
	tp := cfg.TokenParam
	if tp == TokenParamAuto {
		tp = DefaultTokenParam(base)
	}
	c.tokenParam.Store(tp)
	return c, nil
}

// TokenParam returns the name chat requests send the token limit under now:
// the configured one, or for auto the one it started with or switched to.
// Completion requests always send max_tokens.
func (c *Client) TokenParam() TokenParam { return c.tokenParam.Load().(TokenParam) }

// TokenParamConfig returns the configured token-limit name (auto unless
// set).
func (c *Client) TokenParamConfig() TokenParam { return c.cfg.TokenParam }

// BaseURLSource says where the endpoint came from: "config", OPENAI_BASE_URL
// or "default" (see [ResolveBaseURL]).
func (c *Client) BaseURLSource() string { return c.baseFrom }

// cacheEndpoint is the endpoint as cache keys name it.
func (c *Client) cacheEndpoint() string {
	if c.cfg.CacheEndpoint != "" {
		return c.cfg.CacheEndpoint
	}
	return c.base
}

// BaseURL returns the endpoint (without a trailing slash).
func (c *Client) BaseURL() string { return c.base }

// Model returns the model name.
func (c *Client) Model() string { return c.cfg.Model }

// HasAPIKey reports whether requests carry an API key (the key itself is
// never exposed).
func (c *Client) HasAPIKey() bool { return c.key != "" }

// Concurrency returns the bound on requests in flight.
func (c *Client) Concurrency() int { return c.cfg.Concurrency }

// Stats returns the counters so far.
func (c *Client) Stats() Stats {
	return Stats{Requests: c.requests.Load(), Retries: c.retries.Load(), CacheHits: c.hits.Load(),
		Answers: c.answers.Load(), Failures: c.failures.Load()}
}

// Key returns the cache key of a request to this client's endpoint and
// model.
func (c *Client) Key(req Request) (string, error) {
	if err := req.validate(); err != nil {
		return "", err
	}
	return cacheKey(c.cacheEndpoint(), c.cfg.Model, &req), nil
}

// Cached returns the cached answer of req, if the client has a cache that
// holds one.
func (c *Client) Cached(req Request) (Response, bool, error) {
	key, err := c.Key(req)
	if err != nil || c.cfg.Cache == nil {
		return Response{}, false, err
	}
	e, ok, err := c.cfg.Cache.Get(key)
	if !ok || err != nil {
		return Response{}, false, err
	}
	r := e.Response
	r.Cached, r.Key = true, key
	return r, true, nil
}

// Do answers a request: from the cache when it holds it, otherwise from
// the server (waiting for a free slot among Concurrency, retrying
// transient failures) and then stores the answer in the cache.
func (c *Client) Do(ctx context.Context, req Request) (Response, error) {
	if err := req.validate(); err != nil {
		return Response{}, err
	}
	key := cacheKey(c.cacheEndpoint(), c.cfg.Model, &req)
	if c.cfg.Cache != nil {
		e, ok, err := c.cfg.Cache.Get(key)
		if err != nil {
			return Response{}, err
		}
		if ok {
			c.hits.Add(1)
			r := e.Response
			r.Cached, r.Key = true, key
			return r, nil
		}
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return Response{}, ctx.Err()
	}
	resp, err := c.send(ctx, &req)
	<-c.sem
	if err != nil {
		c.failures.Add(1)
		return resp, err
	}
	c.answers.Add(1)
	resp.Key = key
	if c.cfg.Cache != nil {
		if err := c.cfg.Cache.Put(key, newEntry(c.base, c.cfg.Model, &req, resp)); err != nil {
			return resp, err
		}
	}
	return resp, nil
}

// APIError is a non-retryable error answer of the server (a 4xx other
// than 408 and 429), or the last retryable one once retries ran out.
type APIError struct {
	Status int
	// Message is the server's error message (or the start of its body).
	Message string
	// Code and Param are the error's code and the parameter it names, when
	// the body is OpenAI's {"error": {"code", "param", …}} (e.g.
	// "unsupported_parameter", "max_tokens").
	Code, Param string
	// URL is the endpoint that answered.
	URL string
	// Attempts is the number of attempts made.
	Attempts int
}

func (e *APIError) Error() string {
	hint := ""
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = " (check the API key in NARLAB_LLM_API_KEY or OPENAI_API_KEY)"
	case http.StatusNotFound:
		hint = " (check the endpoint, which usually ends in /v1, and the model name)"
	default:
		for _, tp := range []TokenParam{TokenParamMaxTokens, TokenParamMaxCompletionTokens} {
			if rejectsTokenParam(e, tp) {
				hint = fmt.Sprintf(" (this endpoint does not take %s: send the limit as %s, or let the client find the name with token param auto)", tp, tp.other())
			}
		}
		if rejectsParam(e, "top_k") {
			hint = " (this endpoint has no top_k: leave top-k at 0)"
		}
	}
	after := ""
	if e.Attempts > 1 {
		after = fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	return fmt.Sprintf("llm: %s answered %d %s%s: %s%s", e.URL, e.Status, http.StatusText(e.Status), after, e.Message, hint)
}

// Retryable reports whether the status is one worth retrying.
func (e *APIError) Retryable() bool { return retryableStatus(e.Status) }

func retryableStatus(code int) bool {
	return code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code >= 500
}

// ErrRetriesExhausted wraps the last transient failure once every retry
// was spent.
var ErrRetriesExhausted = errors.New("llm: retries exhausted")

// IsPermanent reports whether err is a per-request rejection (a 4xx
// answer other than 401, 403, 404, 408 and 429): the same request would
// be rejected again, but other requests may succeed.
func IsPermanent(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) || errors.Is(err, ErrRetriesExhausted) {
		return false
	}
	switch ae.Status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return false
	}
	return ae.Status >= 400 && ae.Status < 500 && !ae.Retryable()
}

// transient marks a failure worth another attempt; wait is the minimum
// delay the server asked for (Retry-After).
type transient struct {
	err  error
	wait time.Duration
}

func (t *transient) Error() string { return t.err.Error() }
func (t *transient) Unwrap() error { return t.err }

func (c *Client) send(ctx context.Context, req *Request) (Response, error) {
	var last error
	attempts := 0
	for {
		attempts++
		c.requests.Add(1)
		resp, err := c.attempt(ctx, req)
		if err == nil {
			resp.Attempts = attempts
			return resp, nil
		}
		var tr *transient
		if !errors.As(err, &tr) {
			var ae *APIError
			if errors.As(err, &ae) {
				ae.Attempts = attempts
			}
			return Response{}, err
		}
		last = tr.err
		if ctx.Err() != nil {
			return Response{}, fmt.Errorf("llm: %w (last error: %v)", ctx.Err(), last)
		}
		if attempts > c.cfg.MaxRetries {
			return Response{}, fmt.Errorf("%w after %d attempts: %w", ErrRetriesExhausted, attempts, last)
		}
		if tr.wait > c.cfg.MaxRetryAfter {
			return Response{}, fmt.Errorf("llm: %s asks to retry after %v, longer than the %v allowed: %w", c.base, tr.wait, c.cfg.MaxRetryAfter, last)
		}
		d := max(c.backoff(attempts), tr.wait)
		c.retries.Add(1)
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return Response{}, fmt.Errorf("llm: %w (last error: %v)", ctx.Err(), last)
		}
	}
}

// backoff is the delay before attempt n+1: exponential from MinBackoff,
// capped at MaxBackoff, with the upper half jittered.
func (c *Client) backoff(n int) time.Duration {
	d := c.cfg.MinBackoff << min(n-1, 30)
	if d <= 0 || d > c.cfg.MaxBackoff {
		d = c.cfg.MaxBackoff
	}
	c.rngMu.Lock()
	j := time.Duration(c.rng.Int64N(int64(d)/2 + 1))
	c.rngMu.Unlock()
	return d/2 + j
}

// wire types of the OpenAI API.
type wireRequest struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages,omitempty"`
	Prompt      string    `json:"prompt,omitempty"`
	Temperature float64   `json:"temperature"`
	// One of the two carries the limit (see TokenParam).
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Seed                *int64          `json:"seed,omitempty"`
	Stop                []string        `json:"stop,omitempty"`
	TopP                float64         `json:"top_p,omitempty"`
	TopK                int             `json:"top_k,omitempty"`
	ResponseFormat      json.RawMessage `json:"response_format,omitempty"`
	Stream              bool            `json:"stream"`
}

type wireResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Text    *string `json:"text"`
		Message *struct {
			Content *string `json:"content"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage `json:"usage"`
}

func responseFormat(s *Schema, style SchemaStyle) json.RawMessage {
	if s == nil {
		return nil
	}
	name := s.Name
	if name == "" {
		name = "answer"
	}
	var v any
	if style == SchemaLlamaCpp {
		v = map[string]any{"type": "json_object", "schema": s.Schema}
	} else {
		js := map[string]any{"name": name, "schema": s.Schema}
		if s.Strict {
			js["strict"] = true
		}
		v = map[string]any{"type": "json_schema", "json_schema": js}
	}
	b, _ := json.Marshal(v)
	return b
}

// LimitIgnoredError reports an answer longer than the token limit: the
// endpoint did not read the name the limit was sent under (llama-cpp-python
// ignores max_completion_tokens). It is not retried: every request would
// run past its limit.
type LimitIgnoredError struct {
	URL string
	// Param is the name the limit was sent under; Limit the limit;
	// Tokens the completion tokens the server reported.
	Param         TokenParam
	Limit, Tokens int
}

func (e *LimitIgnoredError) Error() string {
	return fmt.Sprintf("llm: %s ignored %s=%d: its answer has %d completion tokens; send the limit as %s instead (Config.TokenParam, --token-param %s)",
		e.URL, e.Param, e.Limit, e.Tokens, e.Param.other(), e.Param.other())
}

func (c *Client) attempt(ctx context.Context, req *Request) (Response, error) {
	style := c.cfg.SchemaStyle
	if style == SchemaAuto && c.llamaFmt.Load() {
		style = SchemaLlamaCpp
	}
	tp := TokenParamMaxTokens
	if req.API == Chat {
		tp = c.TokenParam()
	}
	resp, err := c.post(ctx, req, style, tp)
	if err != nil && req.API == Chat && c.cfg.TokenParam == TokenParamAuto && rejectsTokenParam(err, tp) {
		// The endpoint does not take this name for the limit (OpenAI's
		// reasoning models and max_tokens): send the request again under
		// the other name, and keep that name if it is taken.
		tp = tp.other()
		c.requests.Add(1)
		resp, err = c.post(ctx, req, style, tp)
		if err == nil || !rejectsTokenParam(err, tp) {
			c.tokenParam.Store(tp)
		}
	}
	if err != nil && req.Schema != nil && style == SchemaAuto && rejectsSchemaForm(err) {
		// The server does not read OpenAI's json_schema form: try
		// llama-cpp-python's, and keep it if it works.
		c.requests.Add(1)
		resp, err2 := c.post(ctx, req, SchemaLlamaCpp, tp)
		if err2 == nil {
			c.llamaFmt.Store(true)
			return resp, nil
		}
		return Response{}, err
	}
	return resp, err
}

// rejectsTokenParam reports whether err is an endpoint's refusal of the
// name tp: a 4xx (not 401, 403, 404, 408 or 429) whose OpenAI error names tp
// as an unsupported parameter, or whose message names tp and calls it
// unsupported, unrecognized, unknown, not permitted or an extra input
// (FastAPI/pydantic servers that forbid unknown fields).
func rejectsTokenParam(err error, tp TokenParam) bool {
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status < 400 || ae.Status >= 500 || ae.Retryable() {
		return false
	}
	switch ae.Status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
		return false
	}
	return rejectsParam(ae, string(tp))
}

// rejectsParam reports whether the error answer ae (a 4xx) refuses the
// request field name as such, not its value.
func rejectsParam(ae *APIError, name string) bool {
	if ae.Status < 400 || ae.Status >= 500 || ae.Retryable() {
		return false
	}
	if ae.Param != "" {
		// An OpenAI error names the one parameter it is about.
		if ae.Param != name {
			return false
		}
		if ae.Code == "unsupported_parameter" || ae.Code == "unknown_parameter" {
			return true
		}
	}
	msg := strings.ToLower(ae.Message)
	if !containsWord(msg, name) {
		return false
	}
	for _, w := range []string{"unsupported", "not supported", "unrecognized", "unknown", "not permitted", "extra inputs", "extra fields"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// containsWord reports whether s holds name not as part of a longer
// identifier (max_tokens is not in max_completion_tokens or
// max_tokens_x).
func containsWord(s, name string) bool {
	ident := func(b byte) bool {
		return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
	}
	for i := 0; ; {
		j := strings.Index(s[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !ident(s[j-1])) && (end == len(s) || !ident(s[end])) {
			return true
		}
		i = j + 1
	}
}

// rejectsSchemaForm reports whether err may be a server's refusal of the
// json_schema response format: a 4xx other than 408 and 429, or any error
// answer that names response_format (llama-cpp-python answers a 500 whose
// message quotes the validation error).
func rejectsSchemaForm(err error) bool {
	var ae *APIError
	if !errors.As(err, &ae) {
		return false
	}
	if ae.Status >= 400 && ae.Status < 500 && !ae.Retryable() && ae.Status != http.StatusUnauthorized && ae.Status != http.StatusForbidden {
		return true
	}
	return strings.Contains(ae.Message, "response_format")
}

func (c *Client) post(ctx context.Context, req *Request, style SchemaStyle, tp TokenParam) (Response, error) {
	wr := wireRequest{Model: c.cfg.Model, Temperature: req.Params.Temperature,
		Seed: req.Params.Seed, Stop: req.Params.Stop, TopP: req.Params.TopP, TopK: req.Params.TopK,
		ResponseFormat: responseFormat(req.Schema, style)}
	if tp == TokenParamMaxCompletionTokens {
		wr.MaxCompletionTokens = req.Params.MaxTokens
	} else {
		wr.MaxTokens = req.Params.MaxTokens
	}
	path := "/chat/completions"
	if req.API == Completion {
		path = "/completions"
		wr.Prompt = req.Prompt
	} else {
		wr.Messages = req.messages()
	}
	body, err := json.Marshal(wr)
	if err != nil {
		return Response{}, fmt.Errorf("llm: encoding the request: %w", err)
	}
	url := c.base + path
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Response{}, fmt.Errorf("llm: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.key)
	}
	start := time.Now()
	hresp, err := c.http.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		return Response{}, &transient{err: fmt.Errorf("llm: POST %s: %w", url, scrub(err, c.key))}
	}
	defer hresp.Body.Close()
	data, rerr := io.ReadAll(io.LimitReader(hresp.Body, 64<<20))
	latency := time.Since(start)
	if hresp.StatusCode != http.StatusOK {
		// The message is the server's: it could quote the key back.
		msg, code, param := errorDetails(data)
		ae := &APIError{Status: hresp.StatusCode, Message: scrubString(msg, c.key), Code: code, Param: param, URL: url}
		if retryableStatus(hresp.StatusCode) {
			wait, _ := httpretry.RetryAfter(hresp.Header.Get("Retry-After"), time.Now())
			return Response{}, &transient{err: ae, wait: wait}
		}
		return Response{}, ae
	}
	if rerr != nil {
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		return Response{}, &transient{err: fmt.Errorf("llm: POST %s: reading the answer: %w", url, scrub(rerr, c.key))}
	}
	var wresp wireResponse
	if err := json.Unmarshal(data, &wresp); err != nil {
		return Response{}, &transient{err: fmt.Errorf("llm: POST %s: the answer is not a whole JSON completion (%v): %s", url, err, snippet(data))}
	}
	if len(wresp.Choices) == 0 {
		return Response{}, &transient{err: fmt.Errorf("llm: POST %s: the answer has no choices: %s", url, snippet(data))}
	}
	ch := wresp.Choices[0]
	var text *string
	if req.API == Completion {
		text = ch.Text
	} else if ch.Message != nil {
		text = ch.Message.Content
		if text == nil {
			text = new(string) // a chat answer may have null content: an empty answer
		}
	}
	if text == nil {
		return Response{}, &transient{err: fmt.Errorf("llm: POST %s: the answer's first choice has no text: %s", url, snippet(data))}
	}
	r := Response{Text: *text, Latency: latency, Model: wresp.Model}
	if ch.FinishReason != nil {
		r.FinishReason = *ch.FinishReason
	}
	if wresp.Usage != nil {
		r.Usage = *wresp.Usage
	}
	if tp == TokenParamMaxCompletionTokens && r.Usage.CompletionTokens > req.Params.MaxTokens {
		return Response{}, &LimitIgnoredError{URL: url, Param: tp, Limit: req.Params.MaxTokens, Tokens: r.Usage.CompletionTokens}
	}
	return r, nil
}

// errorDetails extracts the message of an OpenAI-style error body
// ({"error": {"message", "code", "param"}}, {"error": "..."} or FastAPI's
// {"detail": ...}), else the start of the body, with the OpenAI error's code
// and param when it has them.
func errorDetails(data []byte) (msg, code, param string) {
	var v struct {
		Error  json.RawMessage `json:"error"`
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(data, &v) == nil {
		var e struct {
			Message string `json:"message"`
			Code    any    `json:"code"` // a string, or a number on some servers
			Param   string `json:"param"`
		}
		if len(v.Error) > 0 {
			if json.Unmarshal(v.Error, &e) == nil && e.Message != "" {
				if s, ok := e.Code.(string); ok {
					code = s
				}
				return e.Message, code, e.Param
			}
			var s string
			if json.Unmarshal(v.Error, &s) == nil && s != "" {
				return s, "", ""
			}
		}
		if len(v.Detail) > 0 {
			var s string
			if json.Unmarshal(v.Detail, &s) == nil {
				return s, "", ""
			}
			return snippet(v.Detail), "", ""
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return "(empty body)", "", ""
	}
	return snippet(data), "", ""
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	if s == "" {
		return "(empty body)"
	}
	return s
}

// scrub removes the API key from an error's text (a transport error may
// quote a URL, never headers, but a key pasted into the URL would show).
func scrub(err error, key string) error {
	if key == "" || !strings.Contains(err.Error(), key) {
		return err
	}
	return errors.New(scrubString(err.Error(), key))
}

func scrubString(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "<api key>")
}
