package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fault is what the proxy does to one POST instead of passing it through
// untouched.
type Fault struct {
	// Status, when non-zero, is answered at once (with Body and
	// RetryAfter) and nothing is forwarded.
	Status     int
	RetryAfter string
	Body       string
	// Delay holds the request this long first (the client may give up).
	Delay time.Duration
	// Truncate, when positive, forwards the request and then passes on
	// only the first Truncate bytes of the server's answer, as a whole
	// HTTP response with a cut JSON body.
	Truncate int
}

// Hit is one POST the proxy saw.
type Hit struct {
	Path string
	At   time.Time
	// Status is what the client got (0 if it went away first).
	Status int
	// Faulted reports that a fault was injected.
	Faulted bool
	// Body is the request's body as the client sent it.
	Body []byte
	// Header is the request's header as the client sent it.
	Header http.Header
	// End is when the answer was passed on (zero if it never was).
	End time.Time
}

// Proxy is a pass-through HTTP proxy in front of an OpenAI-compatible
// server that counts requests and injects queued faults.
type Proxy struct {
	// URL is the proxy's API root (…/v1).
	URL string

	srv       *httptest.Server
	mu        sync.Mutex
	target    *url.URL
	faults    []Fault
	hits      []Hit
	forwarded int
	onAnswer  func(n int)
	inFlight  int
	maxFlight int
	// openAI: answer max_tokens in chat requests as OpenAI's reasoning
	// models do, and pass max_completion_tokens on as max_tokens.
	openAI bool
	// chatOnly: answer completion requests as OpenAI's API does for its
	// chat models.
	chatOnly bool
	// dropMCT: remove max_completion_tokens from chat requests.
	dropMCT bool
}

// OpenAIRejectsMaxTokens is the body OpenAI's API answers (status 400) to a
// chat request that sends max_tokens to one of its reasoning models.
const OpenAIRejectsMaxTokens = `{
  "error": {
    "message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
    "type": "invalid_request_error",
    "param": "max_tokens",
    "code": "unsupported_parameter"
  }
}`

// RejectMaxTokens makes the proxy speak for the server as OpenAI's API does
// for its reasoning models: a chat request that sends max_tokens is answered
// 400 with [OpenAIRejectsMaxTokens] and never reaches the server, and one
// that sends max_completion_tokens reaches it with the limit renamed to
// max_tokens, the name llama.cpp's server reads (so the real model still
// stops at the limit). Completion requests pass untouched: OpenAI's
// completions endpoint takes max_tokens.
func (p *Proxy) RejectMaxTokens() {
	p.mu.Lock()
	p.openAI = true
	p.mu.Unlock()
}

// OpenAIRejectsCompletions is the body OpenAI's API answers (status 404) to
// a request to its completions endpoint for one of its chat models.
const OpenAIRejectsCompletions = `{
  "error": {
    "message": "This is a chat model and not supported in the v1/completions endpoint. Did you mean to use v1/chat/completions?",
    "type": "invalid_request_error",
    "param": "model",
    "code": null
  }
}`

// ChatOnly makes the proxy speak for the server as a chat-only endpoint
// does (OpenAI's API for its chat models): every request to
// {base}/completions is answered 404 with [OpenAIRejectsCompletions] and
// never reaches the server; chat requests pass untouched.
func (p *Proxy) ChatOnly() {
	p.mu.Lock()
	p.chatOnly = true
	p.mu.Unlock()
}

// IgnoreMaxCompletionTokens makes the proxy speak for a server that reads
// only max_tokens (llama-cpp-python's server, which narlab used before
// llama.cpp's own): max_completion_tokens is removed from every chat
// request before it reaches the server, which then generates without that
// limit. llama.cpp's own server reads both names.
func (p *Proxy) IgnoreMaxCompletionTokens() {
	p.mu.Lock()
	p.dropMCT = true
	p.mu.Unlock()
}

// withoutKey returns body, a JSON object, without key.
func withoutKey(body []byte, key string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body
	}
	if _, ok := m[key]; !ok {
		return body
	}
	delete(m, key)
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

// openAIDialect applies RejectMaxTokens to one chat request's body: reject
// reports that it is to be answered 400; forward is the body to pass on.
func openAIDialect(body []byte) (reject bool, forward []byte) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return false, body
	}
	if _, ok := m["max_tokens"]; ok {
		return true, nil
	}
	v, ok := m["max_completion_tokens"]
	if !ok {
		return false, body
	}
	delete(m, "max_completion_tokens")
	m["max_tokens"] = v
	out, err := json.Marshal(m)
	if err != nil {
		return false, body
	}
	return false, out
}

// NewProxy starts a proxy to target (a server root without /v1); it stops
// when the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	p := &Proxy{}
	p.SetTarget(t, target)
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	p.URL = p.srv.URL + "/v1"
	return p
}

// SetTarget points the proxy at another server.
func (p *Proxy) SetTarget(t testing.TB, target string) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.target = u
	p.mu.Unlock()
}

// Inject queues faults for the next POSTs, one each, in order.
func (p *Proxy) Inject(f ...Fault) {
	p.mu.Lock()
	p.faults = append(p.faults, f...)
	p.mu.Unlock()
}

// OnAnswer sets a function called (outside the proxy's lock, before the
// answer is passed on) each time the server answered a forwarded POST with
// 200; n counts those answers so far.
func (p *Proxy) OnAnswer(f func(n int)) {
	p.mu.Lock()
	p.onAnswer = f
	p.mu.Unlock()
}

// Posts counts the POSTs the proxy received.
func (p *Proxy) Posts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.hits)
}

// Answered counts the POSTs the server answered with 200.
func (p *Proxy) Answered() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.forwarded
}

// Hits returns every POST seen so far.
func (p *Proxy) Hits() []Hit {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Hit(nil), p.hits...)
}

// MaxInFlight is the largest number of POSTs the proxy held at once.
func (p *Proxy) MaxInFlight() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.maxFlight
}

// Reset forgets the counts and any queued faults.
func (p *Proxy) Reset() {
	p.mu.Lock()
	p.hits, p.faults, p.forwarded, p.maxFlight = nil, nil, 0, 0
	p.mu.Unlock()
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	target := p.target
	var f Fault
	faulted := false
	idx := -1
	forward := body
	if r.Method == http.MethodPost {
		if len(p.faults) > 0 {
			f, p.faults, faulted = p.faults[0], p.faults[1:], true
		}
		if p.chatOnly && !faulted && strings.HasSuffix(r.URL.Path, "/completions") && !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			f, faulted = Fault{Status: http.StatusNotFound, Body: OpenAIRejectsCompletions}, true
		}
		if p.openAI && !faulted && strings.HasSuffix(r.URL.Path, "/chat/completions") {
			var reject bool
			if reject, forward = openAIDialect(body); reject {
				f, faulted = Fault{Status: http.StatusBadRequest, Body: OpenAIRejectsMaxTokens}, true
			}
		}
		if p.dropMCT && !faulted && strings.HasSuffix(r.URL.Path, "/chat/completions") {
			forward = withoutKey(forward, "max_completion_tokens")
		}
		p.hits = append(p.hits, Hit{Path: r.URL.Path, At: time.Now(), Faulted: faulted, Body: body, Header: r.Header.Clone()})
		idx = len(p.hits) - 1
		p.inFlight++
		p.maxFlight = max(p.maxFlight, p.inFlight)
		defer func() {
			p.mu.Lock()
			p.inFlight--
			p.mu.Unlock()
		}()
	}
	p.mu.Unlock()
	status := func(code int) {
		if idx >= 0 {
			p.mu.Lock()
			p.hits[idx].Status = code
			p.hits[idx].End = time.Now()
			p.mu.Unlock()
		}
	}
	if f.Delay > 0 {
		select {
		case <-time.After(f.Delay):
		case <-r.Context().Done():
			return
		}
	}
	if f.Status != 0 {
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		io.WriteString(w, f.Body)
		status(f.Status)
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target.String()+r.URL.RequestURI(), bytes.NewReader(forward))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		// The server is down: what a reverse proxy answers.
		http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
		status(http.StatusBadGateway)
		return
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
		status(http.StatusBadGateway)
		return
	}
	if r.Method == http.MethodPost && resp.StatusCode == http.StatusOK {
		p.mu.Lock()
		p.forwarded++
		n, hook := p.forwarded, p.onAnswer
		p.mu.Unlock()
		if hook != nil {
			hook(n)
		}
	}
	if f.Truncate > 0 && f.Truncate < len(data) {
		data = data[:f.Truncate]
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(resp.StatusCode)
	w.Write(data)
	status(resp.StatusCode)
}

// Busy is how long, between from and to, at least one POST was in the
// proxy (from its arrival to its answer): the time the server had work.
func (p *Proxy) Busy(from, to time.Time) time.Duration {
	p.mu.Lock()
	type span struct{ a, b time.Time }
	var spans []span
	for _, h := range p.hits {
		if h.End.IsZero() || h.End.Before(from) || h.At.After(to) {
			continue
		}
		a, b := h.At, h.End
		if a.Before(from) {
			a = from
		}
		if b.After(to) {
			b = to
		}
		spans = append(spans, span{a, b})
	}
	p.mu.Unlock()
	sort.Slice(spans, func(i, j int) bool { return spans[i].a.Before(spans[j].a) })
	var total time.Duration
	var cur span
	for i, s := range spans {
		switch {
		case i == 0:
			cur = s
		case !s.a.After(cur.b):
			if s.b.After(cur.b) {
				cur.b = s.b
			}
		default:
			total += cur.b.Sub(cur.a)
			cur = s
		}
	}
	if len(spans) > 0 {
		total += cur.b.Sub(cur.a)
	}
	return total
}
